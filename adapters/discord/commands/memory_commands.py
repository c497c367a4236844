"""``/memory``: moderators review what Heyan remembers — list, show, edit, delete, confirm, review,
export, audit — with autocomplete for memory ids and kinds.

``default_permissions`` only decides who *sees* the group, so the service checks the caller again;
everything answers ephemerally, lists a page at a time. Autocomplete goes through the same service
call (empty for members) and is cached ``AUTOCOMPLETE_SECONDS`` per member, as Discord asks on every
keystroke and each call counts against the rate limit.
"""

from __future__ import annotations

import io
import json
import re
import time
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from adapters.discord.commands.interactions import (
    Refusal,
    acknowledge,
    actor,
    answer,
    defer,
    redraw,
    report,
    require_guild,
)
from adapters.discord.commands.review import REVIEW_PAGE, review_message
from adapters.discord.connection.client import AnyBot, Heyan, heyan_of
from adapters.discord.display.embeds import audit_embed, fact_embed, fact_line, short_id
from adapters.discord.display.paging import list_embed, nav_buttons, page_of
from adapters.discord.display.translate import kind_label, status_label, t
from bot.actors import Actor, ModerationError
from bot.limits import SlowDown
from bot.text import kinds
from memory.models import Fact, Lang

__all__ = ["MemoryCommands", "MemoryPage", "fact_choices", "kind_choices", "memory_list_message"]

#: How long one member's autocomplete candidates are reused (Discord asks on every keystroke).
AUTOCOMPLETE_SECONDS = 15.0
#: Discord shows at most 25 choices.
MAX_CHOICES = 25
#: Lines on one page of ``/memory list`` (fewer when they are long: a page's text must fit an embed).
LIST_PAGE = 15

ID = "The memory (type to search)"
REASON = "Why (kept in the audit trail)"
Member = discord.Member | discord.User


def _kind(value: str | None, lang: Lang) -> str | None:
    """A kind in any of its names (``bot.text.kinds``: agreement, consensus, 同意, …)."""
    if not value:
        return None
    try:
        query = kinds.parse(value)
    except ValueError:
        raise Refusal("bad_kind", kind=value, kinds=", ".join(kinds.LABELS)) from None
    # one ASCII name, so a page button's custom id can carry it ("同意" → "agreement")
    if len(query.labels) == 1:
        return next(iter(query.labels))
    return "consensus" if query.labels == {"agreement", "refusal"} else value.strip().casefold()


def kind_choices(current: str, lang: Lang) -> list[app_commands.Choice[str]]:
    """The kinds as every surface names them (``bot.text.kinds``), labelled in the caller's language,
    filtered by what was typed."""
    needle = current.strip().casefold()
    return [app_commands.Choice(name=f"{k} · {kind_label(k, 'zh')}" if lang == "zh" else k, value=k)
            for k in kinds.LABELS if not needle or needle in k or needle in kind_label(k, "zh")]


def fact_choices(facts: list[Fact], current: str, lang: Lang) -> list[app_commands.Choice[str]]:
    """Memories whose id, subject, attribute or value contain what was typed, newest first."""
    needle = current.strip().casefold()
    hits = [f for f in facts if not needle or f.id.startswith(needle)
            or needle in f"{f.subject_name} {f.subject} {f.attribute} {f.value}".casefold()]
    hits.sort(key=lambda f: f.updated_at, reverse=True)
    choices = []
    for f in hits[:MAX_CHOICES]:
        label = (f"{short_id(f)} · {kind_label(f, lang)} · {f.subject_name or f.subject}: {f.value} "
                 f"({status_label(f.status, lang)})")
        choices.append(app_commands.Choice(name=" ".join(label.split())[:100], value=f.id))
    return choices


async def memory_list_message(heyan: Heyan, who: Actor, *, page: int = 0, member: str | None = None,
                              kind: str | None = None) -> tuple[str, list[discord.Embed], discord.ui.View | None]:
    """One page of ``/memory list`` (newest first), asked of the service as ``who``."""
    facts = await heyan.port.moderation.memory_list(who, user=member, kind=_kind(kind, who.lang))
    if not facts:
        return t(who.lang, "memory.none"), [], None
    facts.sort(key=lambda f: f.updated_at, reverse=True)
    lines = [fact_line(f, who.lang) for f in facts]
    shown = page_of(lines, page, most=LIST_PAGE)
    embed = list_embed(lines, shown, title=t(who.lang, "memory.title", count=len(facts)), lang=who.lang,
                       total=len(facts))
    view = discord.ui.View(timeout=None)
    nav_buttons(view, shown, who.lang, lambda n, label, off: MemoryPage(n, member or "", kind or "", label=label,
                                                                      disabled=off))
    return "", [embed], view if view.children else None


class MemoryPage(discord.ui.DynamicItem[discord.ui.Button[Any]],
                 template=r"heyan:mlist:(?P<page>\d{1,4}):(?P<member>\d{0,20}):(?P<kind>[a-z]{0,12})"):
    """Previous / Next of ``/memory list``: the page and the list's filters are in the custom id."""

    def __init__(self, page: int, member: str, kind: str, *, label: str = "", disabled: bool = False) -> None:
        super().__init__(discord.ui.Button(label=label or str(page + 1), style=discord.ButtonStyle.secondary,
                                           disabled=disabled, custom_id=f"heyan:mlist:{page}:{member}:{kind}"))
        self.page, self.member, self.kind = page, member, kind

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> MemoryPage:
        return cls(int(match["page"]), match["member"], match["kind"])

    async def callback(self, interaction: discord.Interaction) -> None:
        try:
            await acknowledge(interaction)
            heyan = heyan_of(interaction.client)
            who = await actor(interaction, heyan)  # the presser, checked again by the service
            content, embeds, view = await memory_list_message(heyan, who, page=self.page, member=self.member or None,
                                                              kind=self.kind or None)
            await redraw(interaction, content, embeds=embeds, view=view)
        except Exception as exc:
            await report(interaction, exc)


class _Recent:
    """Per-member autocomplete candidates for a few seconds."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._held: dict[tuple[str, str], tuple[float, list[Fact]]] = {}

    def get(self, who: Actor) -> list[Fact] | None:
        held = self._held.get((who.tenant, who.user_id))
        return held[1] if held and held[0] > time.monotonic() else None

    def put(self, who: Actor, facts: list[Fact]) -> None:
        now = time.monotonic()
        self._held = {k: v for k, v in self._held.items() if v[0] > now}
        self._held[(who.tenant, who.user_id)] = (now + self.seconds, facts)

    def forget(self, tenant: str) -> None:
        self._held = {k: v for k, v in self._held.items() if k[0] != tenant}


class MemoryCommands(commands.Cog):
    """The /memory group (guild only; moderators, checked by the service)."""

    memory = app_commands.Group(name="memory", description="Review what Heyan remembers (moderators)",
                                guild_only=True, default_permissions=discord.Permissions(manage_messages=True))

    def __init__(self, bot: AnyBot, heyan: Heyan) -> None:
        self.bot = bot
        self.heyan = heyan
        self.recent = _Recent(AUTOCOMPLETE_SECONDS)

    async def _start(self, interaction: discord.Interaction) -> Actor:
        require_guild(interaction)
        await defer(interaction)
        return await actor(interaction, self.heyan)

    # --- autocomplete ------------------------------------------------------------------------------

    async def _fact_choices(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        if interaction.guild_id is None:
            return []
        who = await actor(interaction, self.heyan)
        facts = self.recent.get(who)
        if facts is None:
            try:
                facts = await self.heyan.port.moderation.memory_list(who)
            except (ModerationError, SlowDown):
                facts = []  # not a moderator, or too fast: nothing to suggest
            self.recent.put(who, facts)
        return fact_choices(facts, current, who.lang)

    async def _kind_choices(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        lang: Lang = "zh" if str(interaction.locale.value).startswith("zh") else "en"
        return kind_choices(current, lang)

    # --- commands ----------------------------------------------------------------------------------

    @memory.command(name="list", description="List memories, optionally of one member or kind")
    @app_commands.describe(member="Only memories about or from this member", kind="Only this kind of memory")
    async def list_memories(self, interaction: discord.Interaction, member: Member | None = None,
                            kind: str | None = None) -> None:
        who = await self._start(interaction)
        wanted = _kind(kind, who.lang)
        content, embeds, view = await memory_list_message(self.heyan, who, member=str(member.id) if member else None,
                                                          kind=wanted)
        await answer(interaction, content, embeds=embeds, view=view)

    @memory.command(name="show", description="Show one memory in full")
    @app_commands.describe(memory_id=ID)
    @app_commands.rename(memory_id="id")
    async def show(self, interaction: discord.Interaction, memory_id: str) -> None:
        who = await self._start(interaction)
        fact = await self.heyan.port.moderation.memory_show(who, memory_id)
        await answer(interaction, embeds=[fact_embed(fact, who.lang)])

    @memory.command(name="edit", description="Change what a memory says")
    @app_commands.describe(memory_id=ID, value="What the memory should say", reason=REASON)
    @app_commands.rename(memory_id="id")
    async def edit(self, interaction: discord.Interaction, memory_id: str, value: app_commands.Range[str, 1, 1000],
                   reason: app_commands.Range[str, 0, 500] = "") -> None:
        who = await self._start(interaction)
        fact = await self.heyan.port.moderation.memory_edit(who, memory_id, value, reason)
        self.recent.forget(who.tenant)
        await answer(interaction, t(who.lang, "memory.edited", id=short_id(fact), version=fact.version),
                     embeds=[fact_embed(fact, who.lang)])

    @memory.command(name="delete", description="Delete a memory everywhere it is stored")
    @app_commands.describe(memory_id=ID, reason=REASON)
    @app_commands.rename(memory_id="id")
    async def delete(self, interaction: discord.Interaction, memory_id: str,
                     reason: app_commands.Range[str, 0, 500] = "") -> None:
        who = await self._start(interaction)
        fact = await self.heyan.port.moderation.memory_delete(who, memory_id, reason)
        self.recent.forget(who.tenant)
        await answer(interaction, t(who.lang, "memory.deleted", id=short_id(fact)))

    @memory.command(name="confirm", description="Confirm a disputed or unverified memory")
    @app_commands.describe(memory_id=ID, reason=REASON)
    @app_commands.rename(memory_id="id")
    async def confirm(self, interaction: discord.Interaction, memory_id: str,
                      reason: app_commands.Range[str, 0, 500] = "") -> None:
        who = await self._start(interaction)
        fact = await self.heyan.port.moderation.memory_confirm(who, memory_id, reason)
        self.recent.forget(who.tenant)
        await answer(interaction, t(who.lang, "memory.confirmed", id=short_id(fact)), embeds=[fact_embed(fact, who.lang)])

    @memory.command(name="review", description="Review disputed and unverified memories")
    async def review(self, interaction: discord.Interaction) -> None:
        who = await self._start(interaction)
        page = await self.heyan.port.moderation.review_queue(who, offset=0, limit=REVIEW_PAGE)
        content, embeds, view = review_message(page, who.lang)
        await answer(interaction, content, embeds=embeds, view=view)

    @memory.command(name="export", description="Export everything Heyan holds about a member (JSON)")
    @app_commands.describe(member="The member to export")
    async def export(self, interaction: discord.Interaction, member: Member) -> None:
        who = await self._start(interaction)
        data: dict[str, Any] = await self.heyan.port.moderation.export_member(who, str(member.id))
        raw = json.dumps(data, ensure_ascii=False, indent=1).encode()
        file = discord.File(io.BytesIO(raw), filename=f"heyan-export-{member.id}.json")
        text = t(who.lang, "export.done", who=member.mention, memories=len(data["facts"]), summaries=len(data["summaries"]))
        await answer(interaction, text, file=file)

    @memory.command(name="audit", description="Who changed what in Heyan's memory")
    @app_commands.describe(member="Only changes concerning this member")
    async def audit(self, interaction: discord.Interaction, member: Member | None = None) -> None:
        who = await self._start(interaction)
        entries = await self.heyan.port.moderation.audit_log(who, user=str(member.id) if member else None, limit=20)
        if not entries:
            await answer(interaction, t(who.lang, "audit.none"))
            return
        await answer(interaction, embeds=[audit_embed(entries, who.lang)])

    # autocomplete wiring (after the commands exist)
    show.autocomplete("memory_id")(_fact_choices)
    edit.autocomplete("memory_id")(_fact_choices)
    delete.autocomplete("memory_id")(_fact_choices)
    confirm.autocomplete("memory_id")(_fact_choices)
    list_memories.autocomplete("kind")(_kind_choices)
