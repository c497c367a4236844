"""Discord adapter (discord.py): not built yet — see issue 11. ``DiscordPlatform`` is its entry point."""

from __future__ import annotations

from typing import Any

__all__ = ["DiscordPlatform"]


class DiscordPlatform:
    """Placeholder until the adapter lands: refuses to start with a clear message."""

    name = "discord"

    def __init__(self, settings: Any) -> None:
        self.settings = settings

    async def start(self, rt: Any) -> Any:
        from adapters.runtime import StartupError

        raise StartupError("the Discord adapter is not part of this build yet; unset HEYAN_DISCORD_TOKEN")

    async def serve(self) -> None:
        return None

    async def stop(self) -> None:
        return None
