"""Gateway events in: messages, guilds coming and going, catch-up at READY, Discord's objects in Heyan's terms."""
