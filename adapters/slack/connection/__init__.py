"""Heyan's connection to each Slack workspace: installations and tokens, API clients, scopes, posting."""
