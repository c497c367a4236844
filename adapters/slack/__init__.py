"""Slack adapter (slack-bolt): not built yet — see issue 12. ``SlackPlatform`` is its entry point."""

from __future__ import annotations

from typing import Any

__all__ = ["SlackPlatform"]


class SlackPlatform:
    """Placeholder until the adapter lands: refuses to start with a clear message."""

    name = "slack"

    def __init__(self, settings: Any) -> None:
        self.settings = settings

    async def start(self, rt: Any) -> Any:
        from adapters.runtime import StartupError

        raise StartupError("the Slack adapter is not part of this build yet; unset HEYAN_SLACK_BOT_TOKEN")

    async def serve(self) -> None:
        return None

    async def stop(self) -> None:
        return None
