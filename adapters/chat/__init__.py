"""Chatting with Heyan in the terminal: scripts, `heyan chat`, its replays, and `heyan demo`."""
