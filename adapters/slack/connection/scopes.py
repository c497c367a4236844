"""The bot scopes Heyan uses, and telling the right person once when one is missing.

On ``missing_scope`` the asking member gets one short line, and the installer (OAuth) or the log
(one-workspace mode) is told which scope and why — once per workspace and scope for ``REMIND_DAYS``
(``heyan:slack-scope:<tenant>:<scope>``).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from redis.asyncio import Redis
from slack_sdk.errors import SlackApiError, SlackClientError

from adapters.slack.display.texts import t

if TYPE_CHECKING:
    from adapters.slack.bridge import Here

__all__ = ["PURPOSE", "REQUIRED_SCOPES", "ScopeNotices"]

log = logging.getLogger(__name__)

#: Every bot scope Heyan uses and what for (adapters/slack/manifest.yaml grants exactly these).
PURPOSE: dict[str, str] = {
    "app_mentions:read": "hearing mentions",
    "channels:history": "reading public channels' threads and dispute channels",
    "channels:read": "knowing whether a channel is public and whether Heyan is in it",
    "chat:write": "replies, opening posts and follow-ups",
    "commands": "the /heyan command",
    "files:write": "sending exports as a file",
    "groups:history": "reading private channels' threads and dispute channels",
    "groups:read": "knowing about private channels",
    "im:history": "direct messages to Heyan",
    "im:read": "knowing about direct messages",
    "im:write": "opening the direct message an export is sent to",
    "mpim:history": "group direct messages",
    "mpim:read": "knowing about group direct messages",
    "usergroups:read": "the moderator user groups",
    "users:read": "names, time zones, languages and who is an admin",
}
REQUIRED_SCOPES: tuple[str, ...] = tuple(sorted(PURPOSE))

#: Days before a workspace still missing a scope is told again.
REMIND_DAYS = 7


class ScopeNotices:
    """Tells a workspace's installer, once, which scope Heyan lacks."""

    def __init__(self, redis: Redis) -> None:
        self.redis = redis

    async def missing(self, here: Here, scope: str) -> bool:
        """``scope`` is missing in ``here``'s workspace: tell the installer if not told lately.
        True when this call told (or logged) it."""
        if not await self.redis.set(f"heyan:slack-scope:{here.tenant}:{scope}", b"1", nx=True,
                                    ex=REMIND_DAYS * 86_400):
            return False
        why = PURPOSE.get(scope, "what it does")
        log.error("Slack workspace %s: the bot token lacks the scope %s (%s): add it under OAuth & Permissions "
                  "and reinstall the app", here.tenant, scope, why)
        installer = here.workspace.installer
        if installer:
            lang = await here.people.lang(here.tenant, await here.people.directory.user(installer))
            try:
                dm = (await here.client.conversations_open(users=installer))["channel"]["id"]
                await here.client.chat_postMessage(channel=dm, text=t("scope.installer", lang, scope=scope, why=why),
                                                   link_names=False, unfurl_links=False)
            except (SlackApiError, SlackClientError, OSError, TimeoutError) as exc:
                log.warning("could not tell %s's installer about the scope %s: %s", here.tenant, scope, exc)
        return True
