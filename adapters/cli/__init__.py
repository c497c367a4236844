"""The `heyan` command line: the root app, one module per command group, the tables it prints."""
