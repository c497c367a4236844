"""``/commitments``: the caller's open promises and this thread's, a page at a time, each with a Done
button for those the caller may close (their own, or any for a moderator — the service decides).

Buttons are ``DynamicItem``s: Done carries the commitment and the page it was drawn on, Previous /
Next the page. Each press is acknowledged first (a deferred update), then the service is asked as
the presser and the page is redrawn in place.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import discord

from adapters.discord.commands.interactions import acknowledge, actor, redraw, report
from adapters.discord.connection.client import heyan_of
from adapters.discord.display.embeds import fact_line, safe
from adapters.discord.display.limits import BUTTONS_PER_ROW, ROWS
from adapters.discord.display.paging import list_embed, nav_buttons, page_of
from adapters.discord.display.translate import t
from bot.actors import Actor
from memory.models import Fact

__all__ = ["CommitmentDone", "CommitmentsPage", "commitments_message"]

#: Done buttons on one page: four rows of five; the fifth row holds Previous / Next.
PAGE = (ROWS - 1) * BUTTONS_PER_ROW


def commitments_message(who: Actor, facts: Sequence[Fact], page: int = 0) -> tuple[
        str, list[discord.Embed], discord.ui.View | None]:
    """One page of open commitments, with Done buttons for the ones the caller may close."""
    lang = who.lang
    if not facts:
        return t(lang, "commitments.none"), [], None
    lines = [f"**{n}.** {fact_line(f, lang)}" for n, f in enumerate(facts, start=1)]
    shown = page_of(lines, page, most=PAGE)
    embed = list_embed(lines, shown, title=t(lang, "commitments.title", count=len(facts)), lang=lang, total=len(facts))
    view = discord.ui.View(timeout=None)
    for n in range(shown.start, shown.end):
        fact = facts[n]
        if who.is_moderator or fact.subject == who.user_id:
            view.add_item(CommitmentDone(fact.id, shown.number, label=t(lang, "commitments.done", n=n + 1),
                                         row=(n - shown.start) // BUTTONS_PER_ROW))
    nav_buttons(view, shown, lang, lambda n, label, off: CommitmentsPage(n, label=label, disabled=off))
    return "", [embed], view if view.children else None


async def _redraw_page(interaction: discord.Interaction, who: Actor, page: int, content: str = "") -> None:
    facts = await heyan_of(interaction.client).port.moderation.commitments(who, session=str(interaction.channel_id))
    blank, embeds, view = commitments_message(who, facts, page)
    await redraw(interaction, content or blank, embeds=embeds, view=view)


class CommitmentDone(discord.ui.DynamicItem[discord.ui.Button[Any]],
                     template=r"heyan:done:(?P<fact>[0-9a-f-]{36})(?::(?P<page>\d{1,4}))?"):
    """Mark one commitment done (its owner or a moderator: the service checks), then redraw the page."""

    def __init__(self, fact_id: str, page: int = 0, *, label: str = "done", row: int | None = None) -> None:
        super().__init__(discord.ui.Button(label=label, style=discord.ButtonStyle.success, row=row,
                                           custom_id=f"heyan:done:{fact_id}:{page}"))
        self.fact_id, self.page = fact_id, page

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> CommitmentDone:
        return cls(match["fact"], int(match["page"] or 0))

    async def callback(self, interaction: discord.Interaction) -> None:
        try:
            await acknowledge(interaction)
            heyan = heyan_of(interaction.client)
            who = await actor(interaction, heyan)
            done = await heyan.port.moderation.commitment_done(who, self.fact_id)
            text = t(who.lang, "commitments.marked", what=safe(f"{done.attribute}: {done.value}", 200))
            await _redraw_page(interaction, who, self.page, text)
        except Exception as exc:
            await report(interaction, exc)


class CommitmentsPage(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"heyan:clist:(?P<page>\d{1,4})"):
    """Previous / Next of ``/commitments``."""

    def __init__(self, page: int, *, label: str = "", disabled: bool = False) -> None:
        super().__init__(discord.ui.Button(label=label or str(page + 1), style=discord.ButtonStyle.secondary,
                                           row=ROWS - 1, disabled=disabled, custom_id=f"heyan:clist:{page}"))
        self.page = page

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> CommitmentsPage:
        return cls(int(match["page"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        try:
            await acknowledge(interaction)
            await _redraw_page(interaction, await actor(interaction, heyan_of(interaction.client)), self.page)
        except Exception as exc:
            await report(interaction, exc)
