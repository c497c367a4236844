"""Heyan's text on Discord: structured mentions become ``<@id>``, everything else pings nobody.

Two layers, as either alone can be bypassed: untrusted text has its mention markup escaped, and every
message's ``allowed_mentions`` lets through only the users the ``RichText`` means. Messages split below
2,000 characters on lines; untrusted text loses control and invisible characters (members read it).
"""

from __future__ import annotations

import discord

from bot.text.richtext import RichText
from memory.normalize import strip_controls

__all__ = ["MAX_MESSAGE", "allowed_mentions", "escape", "render", "split_message"]

#: Discord's limit on a message's content.
MAX_MESSAGE = 2000


def escape(text: str) -> str:
    """Untrusted text with every mention neutralised (it still reads the same): ``@everyone``,
    ``@here`` and ``<@…>`` / ``<@&…>`` markup of any length get a zero-width space after the ``@``
    or ``<``. Hidden and control characters are stripped first — the member's own zero-width
    characters go, the ones escaping adds stay."""
    return discord.utils.escape_mentions(strip_controls(text)).replace("<@", "<\u200b@")


#: ``allowed_mentions.users`` holds at most 100 ids (``developers/resources/message.mdx``, "Allowed
#: Mentions Object"); more is refused (400 / 50035) and the whole message with it.
ALLOWED_USERS = 100


def allowed_mentions(text: RichText) -> discord.AllowedMentions:
    """Only the users ``text`` mentions may be notified (the first 100 of them: Discord's limit)."""
    users = [discord.Object(id=int(u)) for u in text.mentions if u.isdigit()][:ALLOWED_USERS]
    return discord.AllowedMentions(everyone=False, roles=False, users=users, replied_user=False)


def render(text: RichText) -> tuple[str, discord.AllowedMentions]:
    """The content and the ``allowed_mentions`` to send ``text`` with."""
    content = text.render(lambda m: f"<@{m.user_id}>" if m.user_id.isdigit() else escape(f"@{m.name or m.user_id}"),
                          escape)
    return content, allowed_mentions(text)


def split_message(content: str, limit: int = MAX_MESSAGE) -> list[str]:
    """``content`` in pieces of at most ``limit`` characters, cut at line ends where possible."""
    if len(content) <= limit:
        return [content]
    pieces: list[str] = []
    current = ""
    for line in content.splitlines(keepends=True):
        while len(line) > limit:  # one line longer than a message: cut it at a space if possible
            cut = line.rfind(" ", 0, limit)
            cut = cut if cut > limit // 2 else limit
            if current:
                pieces.append(current)
                current = ""
            pieces.append(line[:cut])
            line = line[cut:]
        if len(current) + len(line) > limit:
            pieces.append(current)
            current = ""
        current += line
    if current:
        pieces.append(current)
    return [p.rstrip("\n") for p in pieces if p.strip()]
