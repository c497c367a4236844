"""Slack events in: listened to, each handled once, redone after a failure, read back, put in Heyan's terms."""
