"""Closing the loop: the agreement card and its votes, common ground, the digest, a member's promise record."""
