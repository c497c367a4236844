"""How Heyan looks on Slack: Block Kit, mention-safe mrkdwn, its ``slack:`` strings."""
