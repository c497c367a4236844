"""LLM providers for the mediator: the port (``base``), the offline provider and OpenAI-compatible ones."""
