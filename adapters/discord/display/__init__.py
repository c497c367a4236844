"""How Heyan looks on Discord: embeds, mention-safe text, Discord's limits, pages, its words."""
