"""Long lists on Discord: pages that fit, and Previous / Next buttons whose custom ids carry the page.

Each list is drawn from the service's answer every time (lines escaped and clipped, packed with
``limits.pages``). A page button is a ``DynamicItem`` naming the page and filters; pressing it
acknowledges, asks the service again *as the presser*, and redraws in place. No process state.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import discord

from adapters.discord.display.limits import DESCRIPTION, clip, pages
from adapters.discord.display.translate import t
from memory.models import Lang

__all__ = ["LINE", "Page", "list_embed", "nav_buttons", "page_of"]

#: The longest one line of a list may be once escaped (a page then always holds several lines).
LINE = 600
_COLOUR = discord.Colour(0x4F7CAC)


@dataclass(frozen=True)
class Page:
    """Page ``number`` (from 0) of ``count``, showing lines ``start`` to ``end`` (exclusive)."""

    number: int
    count: int
    start: int
    end: int

    @property
    def previous(self) -> int:
        return max(0, self.number - 1)

    @property
    def next(self) -> int:
        return min(self.count - 1, self.number + 1)


def page_of(lines: Sequence[str], number: int, *, most: int, budget: int = DESCRIPTION) -> Page:
    """The page ``number`` of ``lines`` (the last one if the list shrank since the button was drawn)."""
    found = pages([clip(line, LINE) for line in lines], most=most, budget=budget) or [(0, 0)]
    number = min(max(0, number), len(found) - 1)
    start, end = found[number]
    return Page(number, len(found), start, end)


def list_embed(lines: Sequence[str], page: Page, *, title: str, lang: Lang, total: int) -> discord.Embed:
    """One page of a list as an embed; the footer says which page of how many."""
    embed = discord.Embed(title=clip(title, 256), colour=_COLOUR,
                          description="\n".join(clip(line, LINE) for line in lines[page.start:page.end]))
    if page.count > 1:
        embed.set_footer(text=t(lang, "page.footer", page=page.number + 1, pages=page.count, total=total))
    return embed


def nav_buttons(view: discord.ui.View, page: Page, lang: Lang,
                make: Callable[[int, str, bool], discord.ui.Item[Any]]) -> None:
    """Previous / Next on the view's last row when there is more than one page; ``make(page, label,
    disabled)`` builds the list's own button for a page."""
    if page.count <= 1:
        return
    view.add_item(make(page.previous, t(lang, "page.previous"), page.number == 0))
    view.add_item(make(page.next, t(lang, "page.next"), page.number >= page.count - 1))
