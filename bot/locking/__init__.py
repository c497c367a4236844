"""Redis leases: the lease itself, the record locks built on it, the heartbeat that renews them."""
