"""Discord's documented limits, and text built within them *after* escaping.

Discord refuses a whole message (400, 50035) when one part is over its limit, and escaping lengthens
text, so limits apply to what is sent: ``clip``, ``bounded`` (one embed), ``bounded_embeds`` (a
message's), ``pages`` (list lines). The numbers are from Discord's documentation (Embed Limits, message
content, components).
"""

from __future__ import annotations

from collections.abc import Sequence

import discord

__all__ = [
    "BUTTONS_PER_ROW",
    "BUTTON_LABEL",
    "CONTENT",
    "CUSTOM_ID",
    "DESCRIPTION",
    "EMBEDS",
    "EMBED_TOTAL",
    "FIELDS",
    "FIELD_NAME",
    "FIELD_VALUE",
    "FOOTER",
    "OPTIONS",
    "OPTION_TEXT",
    "PLACEHOLDER",
    "ROWS",
    "TITLE",
    "bounded",
    "bounded_embeds",
    "clip",
    "embed_size",
    "pages",
]

CONTENT = 2000
TITLE = 256
DESCRIPTION = 4096
FIELDS = 25
FIELD_NAME = 256
FIELD_VALUE = 1024
FOOTER = 2048
AUTHOR = 256
EMBEDS = 10
EMBED_TOTAL = 6000
ROWS = 5
BUTTONS_PER_ROW = 5
CUSTOM_ID = 100
BUTTON_LABEL = 80
OPTIONS = 25
OPTION_TEXT = 100
PLACEHOLDER = 150

_ELLIPSIS = "…"


def clip(text: str, limit: int) -> str:
    """``text`` (already escaped) in at most ``limit`` characters, measured as Discord does (without
    surrounding whitespace), ending in "…" when cut. It cuts at a space or line end near the limit
    when there is one, and never leaves a lone escaping backslash before the ellipsis."""
    text = text.strip()
    if len(text) <= limit:
        return text
    if limit <= 1:
        return _ELLIPSIS[:limit]
    cut = text[: limit - 1]
    space = max(cut.rfind(" "), cut.rfind("\n"))
    if space >= limit * 3 // 4:
        cut = cut[:space]
    return cut.rstrip().rstrip("\\") + _ELLIPSIS


def _len(value: object) -> int:
    return len(value.strip()) if isinstance(value, str) else 0


def embed_size(embed: discord.Embed) -> int:
    """Characters Discord counts toward the 6,000 of a message: title, description, field names and
    values, footer text, author name."""
    size = _len(embed.title) + _len(embed.description) + _len(embed.footer.text) + _len(embed.author.name)
    return size + sum(_len(f.name) + _len(f.value) for f in embed.fields)


def bounded(embed: discord.Embed, total: int = EMBED_TOTAL) -> discord.Embed:
    """``embed`` with every part within its limit and all of it within ``total`` characters
    (fields are dropped from the end, then the description shortened). Changes and returns it."""
    if embed.title:
        embed.title = clip(embed.title, TITLE)
    if embed.description:
        embed.description = clip(embed.description, DESCRIPTION)
    if embed.footer.text:
        embed.set_footer(text=clip(embed.footer.text, FOOTER), icon_url=embed.footer.icon_url)
    if embed.author.name:
        embed.set_author(name=clip(embed.author.name, AUTHOR), url=embed.author.url, icon_url=embed.author.icon_url)
    fields = [(clip(f.name or "", FIELD_NAME) or "-", clip(f.value or "", FIELD_VALUE) or "-", bool(f.inline))
              for f in embed.fields][:FIELDS]
    embed.clear_fields()
    for name, value, inline in fields:
        embed.add_field(name=name, value=value, inline=inline)
    while embed_size(embed) > total and embed.fields:
        embed.remove_field(len(embed.fields) - 1)
    over = embed_size(embed) - total
    if over > 0 and embed.description:
        embed.description = clip(embed.description, max(1, len(embed.description.strip()) - over))
    over = embed_size(embed) - total
    if over > 0 and embed.footer.text:
        embed.set_footer(text=clip(embed.footer.text, max(1, len(embed.footer.text.strip()) - over)))
    return embed


def bounded_embeds(embeds: Sequence[discord.Embed]) -> list[discord.Embed]:
    """At most 10 embeds, each bounded, and all of them within 6,000 characters together (a later
    embed gets what the earlier ones left; one left with no room is dropped)."""
    out: list[discord.Embed] = []
    room = EMBED_TOTAL
    for embed in list(embeds)[:EMBEDS]:
        if room <= 0:
            break
        fitted = bounded(embed, room)
        if embed_size(fitted) > room:
            break
        room -= embed_size(fitted)
        out.append(fitted)
    return out


def pages(lines: Sequence[str], *, most: int, budget: int = DESCRIPTION) -> list[tuple[int, int]]:
    """Lines packed into pages, each ``(start, end)`` of at most ``most`` lines whose text joined by
    newlines fits ``budget``; a line longer than the budget is a page of its own (``clip`` it first).
    The same lines always give the same pages, so a page number in a button's custom id still
    points at the same place when the list is drawn again."""
    found: list[tuple[int, int]] = []
    start, used = 0, 0
    for i, line in enumerate(lines):
        size = len(line) + (1 if i > start else 0)
        if i > start and (i - start >= most or used + size > budget):
            found.append((start, i))
            start, used, size = i, 0, len(line)
        used += size
    if lines:
        found.append((start, len(lines)))
    return found
