"""The port through which jobs speak in a thread: reminders and follow-ups.

The console prints; Discord and Slack adapters implement the same port.
"""

from __future__ import annotations

from typing import Protocol

from memory.models import Scope

__all__ = ["Notifier", "RecordingNotifier"]


class Notifier(Protocol):
    """Posts ``text`` in the session thread of ``scope``, mentioning ``mention`` (a user id) if given."""

    async def post(self, scope: Scope, text: str, *, mention: str | None = None) -> None: ...


class RecordingNotifier:
    """Keeps what was posted, in order. The default when no platform is attached (and a test seam)."""

    def __init__(self) -> None:
        self.posts: list[tuple[Scope, str, str | None]] = []

    async def post(self, scope: Scope, text: str, *, mention: str | None = None) -> None:
        self.posts.append((scope, text, mention))
