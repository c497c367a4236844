"""Links from a memory's source to the message on its platform, where one can be made.

Discord: ``https://discord.com/channels/<guild or @me>/<channel>/<message>``. Slack: a permalink needs
the workspace's domain, known once a moderator signed in with Slack. Console tenants have none.
"""

from __future__ import annotations

import re

__all__ = ["message_link"]

_DIGITS = re.compile(r"\d{1,25}")
_SLACK_TS = re.compile(r"\d{6,12}\.\d{1,8}")
_SLACK_ID = re.compile(r"[A-Z0-9]{6,20}")
_DOMAIN = re.compile(r"[a-z0-9][a-z0-9-]{0,62}")


def message_link(tenant: str, session: str | None, message_id: str, *, slack_domain: str = "") -> str | None:
    """The platform's address of a source message, or None when it cannot be made. Only ids of the
    expected shape make a link, so no member-supplied text ever ends up in an ``href``."""
    if tenant.startswith("discord:"):
        guild = tenant.removeprefix("discord:")
        guild = "@me" if guild.startswith("dm:") else guild
        if not (session and _DIGITS.fullmatch(session) and _DIGITS.fullmatch(message_id)):
            return None
        if guild != "@me" and not _DIGITS.fullmatch(guild):
            return None
        return f"https://discord.com/channels/{guild}/{session}/{message_id}"
    if tenant.startswith("slack:") and slack_domain and _DOMAIN.fullmatch(slack_domain):
        channel, _, ts = message_id.partition(":")
        if not (_SLACK_ID.fullmatch(channel) and _SLACK_TS.fullmatch(ts)):
            return None
        return f"https://{slack_domain}.slack.com/archives/{channel}/p{ts.replace('.', '')}"
    return None
