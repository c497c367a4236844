"""Heyan's slash commands on Discord, their buttons and modals, and how every interaction is answered."""
