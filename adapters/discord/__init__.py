"""Heyan on Discord (discord.py 2.x): the only package that imports discord.py.

``DiscordPlatform(settings)`` is what ``heyan run`` starts when ``HEYAN_DISCORD_TOKEN`` is set; ``heyan
discord sync`` (``adapters.discord.cli``) registers the slash commands. Its modules:
docs/ARCHITECTURE.md, "The map".
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
