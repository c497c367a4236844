"""How the console shows what the service answers: words, charts, message links, why a record waits."""
