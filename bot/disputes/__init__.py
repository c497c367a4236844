"""A dispute as it runs: its temperature, the timeline, early alerts, members joining it."""
