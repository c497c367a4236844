"""Heyan's connection to Discord: the bot, what its parts share, shards, posting."""
