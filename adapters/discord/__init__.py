"""Heyan on Discord (discord.py 2.x): the only package that imports discord.py.

``DiscordPlatform(settings)`` is what ``heyan run`` starts when ``HEYAN_DISCORD_TOKEN`` is set; ``heyan
discord sync`` (``adapters.discord.cli``) registers the slash commands. Modules, one idea each:

* ``platform`` — log in, connect, serve, stop; start-up failures as one-line ``StartupError``s
* ``client`` — the ``commands.Bot`` / ``AutoShardedBot``, intents, ``Heyan`` (settings + runtime);
  ``sharding`` — how many shards, and which, this process runs
* ``mapping`` — guild → tenant, thread/channel → session, member → user id, visibility, ``Actor``, language
* ``listeners`` — messages (mentions with their conversation, replies, dispute threads), edits,
  deletions; ``history`` — reading a conversation back for a reply; ``catchup`` — reading open
  disputes back at READY; ``guilds`` — guilds left/joined (also while offline), deleted threads
* ``disputes``, ``memory_commands``, ``member_commands``, ``commitments``, ``review``,
  ``settings_commands`` — the slash commands and their buttons; ``paging`` — long lists a page at a time
* ``interactions`` — acknowledging, answering, and the errors every interaction can end in;
  ``limits`` — Discord's limits, applied after escaping; ``notices`` — saying something once
* ``sender`` — the outbox's ``PostSender``; ``render`` — mention-safe text; ``embeds`` — how records look
* ``translate`` — command localizations (zh-CN, zh-TW) and every member-facing string in both languages
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from adapters.discord.platform import DiscordPlatform

__all__ = ["DiscordPlatform"]


def __getattr__(name: str) -> Any:
    """``DiscordPlatform`` is imported on first use, so ``heyan`` commands that never touch Discord
    (the CLI registers ``heyan discord`` at import) do not pay for importing discord.py."""
    if name == "DiscordPlatform":
        from adapters.discord.platform import DiscordPlatform

        return DiscordPlatform
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
