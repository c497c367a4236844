"""Store upkeep: rebuilding the memory store in place (`reindex`) or into another kind of store (`migrate`)."""
