"""Slack adapter (slack-bolt): Heyan in Slack workspaces — mentions in threads, dispute threads
remembered, ``/heyan`` commands, Block Kit review, App Home, follow-ups from the outbox.

``SlackPlatform(settings)`` is what ``heyan run`` starts (``adapters.platforms.Platform``). slack_bolt
and slack_sdk are imported only inside this package, and only when the platform is used (the package
itself imports nothing heavy, so ``heyan slack manifest`` and the rest of the CLI stay quick).
Modules: ``platform`` (start-up checks, Socket Mode or HTTP, catch-up), ``app`` (the bolt app, payload
guard, OAuth install), ``workspaces`` (one bot token or the OAuth installations), ``bridge`` (what
listeners share; ``Bridge.at(tenant)``), ``mapping`` (ids, text, users → Heyan terms), ``places`` (the
session of a message; open disputes' places), ``history`` (reading conversations back), ``events``,
``lifecycle``, ``commands``, ``settings_cmd``, ``shortcuts``, ``actions`` (listeners), ``blocks`` and
``home`` (Block Kit within Slack's limits), ``sender`` (posting), ``dedupe`` (each delivery once),
``redo`` (re-running a failed delivery), ``catchup``, ``scopes``, ``texts`` (English and Chinese
strings), ``render`` (mention-safe text), ``clients``, ``cli`` (``heyan slack``).
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
