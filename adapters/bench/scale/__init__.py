"""How fast, large and costly Heyan runs: store load, engine latency, memory and disk, LLM calls and tokens."""
