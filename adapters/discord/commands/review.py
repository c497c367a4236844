"""``/memory review``: the disputed and unverified memories, a page of embeds with Confirm / Reject
buttons and Previous / Next.

Buttons are ``DynamicItem``s whose custom ids carry action, memory id and offset
(``heyan:review:confirm:<id>:<offset>``): no process state, so they work after a restart. Each click is
acknowledged first, then asks the service as the clicker, and the page is redrawn in place; its embeds
share the message's 6,000 characters.
"""

from __future__ import annotations

import re
from typing import Any

import discord

from adapters.discord.commands.interactions import acknowledge, actor, redraw, report
from adapters.discord.connection.client import heyan_of
from adapters.discord.display.embeds import fact_embed
from adapters.discord.display.limits import EMBED_TOTAL
from adapters.discord.display.translate import t
from bot.moderation import ReviewPage
from memory.models import Lang

__all__ = ["REVIEW_PAGE", "ReviewAction", "ReviewTurn", "review_message"]

#: Memories per page: one row of two buttons each, and a fifth row for paging.
REVIEW_PAGE = 4


class ReviewAction(discord.ui.DynamicItem[discord.ui.Button[Any]],
                   template=r"heyan:review:(?P<action>confirm|reject):(?P<fact>[0-9a-f-]{36}):(?P<offset>\d+)"):
    """Confirm or reject one memory of the queue, then redraw the page."""

    def __init__(self, action: str, fact_id: str, offset: int, *, label: str = "", row: int | None = None) -> None:
        style = discord.ButtonStyle.success if action == "confirm" else discord.ButtonStyle.danger
        super().__init__(discord.ui.Button(label=label or action, style=style, row=row,
                                           custom_id=f"heyan:review:{action}:{fact_id}:{offset}"))
        self.action, self.fact_id, self.offset = action, fact_id, offset

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> ReviewAction:
        return cls(match["action"], match["fact"], int(match["offset"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        try:
            await acknowledge(interaction)
            heyan = heyan_of(interaction.client)
            who = await actor(interaction, heyan)
            moderation = heyan.port.moderation
            if self.action == "confirm":
                await moderation.memory_confirm(who, self.fact_id)
            else:
                await moderation.memory_reject(who, self.fact_id)
            page = await moderation.review_queue(who, offset=self.offset, limit=REVIEW_PAGE)
            content, embeds, view = review_message(page, who.lang)
            await redraw(interaction, content, embeds=embeds, view=view)
        except Exception as exc:
            await report(interaction, exc)


class ReviewTurn(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"heyan:review:page:(?P<offset>\d+)"):
    """Previous / Next: redraw the queue from another offset."""

    def __init__(self, offset: int, *, label: str = "", disabled: bool = False) -> None:
        super().__init__(discord.ui.Button(label=label or str(offset), style=discord.ButtonStyle.secondary, row=4,
                                           disabled=disabled, custom_id=f"heyan:review:page:{offset}"))
        self.offset = offset

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> ReviewTurn:
        return cls(int(match["offset"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        try:
            await acknowledge(interaction)
            heyan = heyan_of(interaction.client)
            who = await actor(interaction, heyan)
            page = await heyan.port.moderation.review_queue(who, offset=self.offset, limit=REVIEW_PAGE)
            content, embeds, view = review_message(page, who.lang)
            await redraw(interaction, content, embeds=embeds, view=view)
        except Exception as exc:
            await report(interaction, exc)


def review_message(page: ReviewPage, lang: Lang) -> tuple[str, list[discord.Embed], discord.ui.View | None]:
    """The content, embeds and buttons of one page of the review queue."""
    if page.total == 0 or not page.items:
        return t(lang, "review.empty"), [], None
    start, end = page.offset + 1, page.offset + len(page.items)
    embeds = []
    view = discord.ui.View(timeout=None)
    for n, fact in enumerate(page.items, start=start):
        embed = fact_embed(fact, lang, total=EMBED_TOTAL // REVIEW_PAGE)
        embed.title = f"{n}. {embed.title}"[:256]
        embeds.append(embed)
        row = n - start
        view.add_item(ReviewAction("confirm", fact.id, page.offset, label=t(lang, "review.confirm", n=n), row=row))
        view.add_item(ReviewAction("reject", fact.id, page.offset, label=t(lang, "review.reject", n=n), row=row))
    previous = max(0, page.offset - REVIEW_PAGE)
    following = page.offset + REVIEW_PAGE
    if page.offset > 0 or following < page.total:
        view.add_item(ReviewTurn(previous, label=t(lang, "review.previous"), disabled=page.offset == 0))
        view.add_item(ReviewTurn(following, label=t(lang, "review.next"), disabled=following >= page.total))
    return t(lang, "review.title", start=start, end=end, total=page.total), embeds, view
