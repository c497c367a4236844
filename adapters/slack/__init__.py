"""Slack adapter (slack-bolt): Heyan in Slack workspaces — mentions in threads, dispute threads
remembered, ``/heyan`` commands, Block Kit review, App Home, follow-ups from the outbox.

``SlackPlatform(settings)`` is what ``heyan run`` starts. slack_bolt and slack_sdk are imported only in
this package and only when used, so ``heyan slack manifest`` and the CLI stay quick. Its modules:
docs/ARCHITECTURE.md, "The map".
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from adapters.slack.platform import REQUIRED_SCOPES, SlackPlatform

__all__ = ["REQUIRED_SCOPES", "SlackPlatform"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from adapters.slack import platform

        return getattr(platform, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
