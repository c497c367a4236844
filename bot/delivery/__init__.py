"""Heyan's own posts: the outbox and its leases, the deliverer, follow-up reminders, dead letters, backoff."""
