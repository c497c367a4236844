"""A Heyan process: the composition root, start-up, the platforms it runs, the worker, embedded Valkey, logs,
metrics and health."""
