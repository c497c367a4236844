"""For every member: ``/mymemory`` (what Heyan holds about you — correct it or erase it, a page at a
time) and ``/commitments`` (``adapters.discord.commands.commitments``). Ephemeral; in a DM they cover that DM.

A modal must be Discord's first answer, so Correct looks the current value up only within
``MODAL_LOOKUP_SECONDS`` (else the modal opens empty). Erase confirms with a service token checked
against the clicker. Items are ``DynamicItem``s whose custom ids carry what they act on: nothing is
kept in the process, so clicks work across restarts.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Sequence
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from adapters.discord.commands.commitments import commitments_message
from adapters.discord.commands.interactions import acknowledge, actor, answer, defer, redraw, report
from adapters.discord.connection.client import AnyBot, Heyan, heyan_of
from adapters.discord.display.embeds import fact_line, safe, short_id
from adapters.discord.display.limits import OPTION_TEXT, OPTIONS, PLACEHOLDER
from adapters.discord.display.paging import list_embed, nav_buttons, page_of
from adapters.discord.display.translate import kind_label, t
from memory.models import Fact, FactStatus, Lang

__all__ = ["CorrectPick", "EraseAsk", "EraseCancel", "EraseConfirm", "MemberCommands", "MyMemoryPage",
           "my_memory_message"]

log = logging.getLogger(__name__)

_CORRECT_MODAL = re.compile(r"heyan:correct:(?P<fact>[0-9a-f-]{36})")
#: Memories on one page of /mymemory (at most the 25 options a select menu holds).
PAGE = 15
#: Of Discord's 3 s for the first answer, how long the Correct menu may spend looking up the
#: memory's current value before it opens the modal without it.
MODAL_LOOKUP_SECONDS = 1.5


# --- /mymemory: the message ----------------------------------------------------------------------------


def my_memory_message(facts: Sequence[Fact], lang: Lang, page: int = 0) -> tuple[
        str, list[discord.Embed], discord.ui.View | None]:
    """One page of what Heyan holds about the caller: the list, a menu of the page's memories to
    correct, Erase, and Previous / Next."""
    if not facts:
        return t(lang, "mymemory.none"), [], None
    ordered = sorted(facts, key=lambda f: f.updated_at, reverse=True)
    lines = [fact_line(f, lang) for f in ordered]
    shown = page_of(lines, page, most=min(PAGE, OPTIONS))
    embed = list_embed(lines, shown, title=t(lang, "mymemory.title", count=len(ordered)), lang=lang,
                       total=len(ordered))
    view = discord.ui.View(timeout=None)
    options = [discord.SelectOption(label=f"{short_id(f)} · {kind_label(f, lang)}: {f.attribute}"[:OPTION_TEXT],
                                    description=" ".join(f.value.split())[:OPTION_TEXT] or None, value=f.id)
               for f in ordered[shown.start:shown.end]]
    view.add_item(CorrectPick(options, placeholder=t(lang, "mymemory.pick")[:PLACEHOLDER]))
    view.add_item(EraseAsk(label=t(lang, "mymemory.erase")))
    nav_buttons(view, shown, lang, lambda n, label, off: MyMemoryPage(n, label=label, disabled=off))
    return "", [embed], view


class MyMemoryPage(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"heyan:mymem:page:(?P<page>\d{1,4})"):
    """Previous / Next of /mymemory."""

    def __init__(self, page: int, *, label: str = "", disabled: bool = False) -> None:
        super().__init__(discord.ui.Button(label=label or str(page + 1), style=discord.ButtonStyle.secondary, row=2,
                                           disabled=disabled, custom_id=f"heyan:mymem:page:{page}"))
        self.page = page

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> MyMemoryPage:
        return cls(int(match["page"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        try:
            await acknowledge(interaction)
            heyan = heyan_of(interaction.client)
            who = await actor(interaction, heyan)
            content, embeds, view = my_memory_message(await heyan.port.moderation.my_memories(who), who.lang, self.page)
            await redraw(interaction, content, embeds=embeds, view=view)
        except Exception as exc:
            await report(interaction, exc)


class CorrectPick(discord.ui.DynamicItem[discord.ui.Select[Any]], template=r"heyan:mymem:correct"):
    """The menu of your memories: choosing one opens the Correct modal."""

    def __init__(self, options: list[discord.SelectOption] | None = None, *, placeholder: str | None = None,
                 select: discord.ui.Select[Any] | None = None) -> None:
        super().__init__(select or discord.ui.Select(custom_id="heyan:mymem:correct", options=options or [],
                                                     placeholder=placeholder, min_values=1, max_values=1, row=0))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> CorrectPick:
        if isinstance(item, discord.ui.Select):
            return cls(select=item)
        return cls()

    async def callback(self, interaction: discord.Interaction) -> None:
        try:
            heyan = heyan_of(interaction.client)
            who = await actor(interaction, heyan)
            fact_id = self.item.values[0]
            try:  # the modal must be the first answer: the current value only if it comes in time
                fact: Fact | None = await asyncio.wait_for(heyan.port.moderation.memory_show(who, fact_id),
                                                           MODAL_LOOKUP_SECONDS)
            except TimeoutError:
                log.info("memory %s not read within %.1f s; the Correct modal opens without its value",
                         fact_id, MODAL_LOOKUP_SECONDS)
                fact = None
            await interaction.response.send_modal(CorrectModal(fact_id, who.lang, fact.value if fact else ""))
        except Exception as exc:
            await report(interaction, exc)


class CorrectModal(discord.ui.Modal):
    """What the memory should say, and why. Its submission is handled by ``MemberCommands.on_interaction``
    (stateless), so this stored copy never acts and is dropped from discord.py's store at once."""

    def __init__(self, fact_id: str, lang: Lang, current: str = "") -> None:
        super().__init__(title=t(lang, "correct.title"), custom_id=f"heyan:correct:{fact_id}", timeout=1.0)
        self.add_item(discord.ui.TextInput(label=t(lang, "correct.value"), custom_id="value",
                                           default=current[:1000] or None, style=discord.TextStyle.paragraph,
                                           max_length=1000))
        self.add_item(discord.ui.TextInput(label=t(lang, "correct.reason"), custom_id="reason", required=False,
                                           max_length=500))

    async def interaction_check(self, interaction: discord.Interaction, /) -> bool:
        return False


def _submitted(components: Sequence[Any]) -> dict[str, str]:
    """custom_id -> value of a modal submission, whether text inputs come in action rows or labels."""
    values: dict[str, str] = {}
    for component in components:
        if not isinstance(component, dict):
            continue
        if "components" in component:
            values.update(_submitted(component["components"]))
        if "component" in component:
            values.update(_submitted([component["component"]]))
        if "custom_id" in component and isinstance(component.get("value"), str):
            values[component["custom_id"]] = component["value"]
    return values


# --- erasure ---------------------------------------------------------------------------------------------


class EraseAsk(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"heyan:mymem:erase"):
    """Step one: what would go; Yes / Cancel."""

    def __init__(self, *, label: str = "erase") -> None:
        super().__init__(discord.ui.Button(label=label, style=discord.ButtonStyle.danger, row=1,
                                           custom_id="heyan:mymem:erase"))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> EraseAsk:
        return cls()

    async def callback(self, interaction: discord.Interaction) -> None:
        try:
            await acknowledge(interaction)
            heyan = heyan_of(interaction.client)
            who = await actor(interaction, heyan)
            request = await heyan.port.moderation.request_erasure(who)
            view = discord.ui.View(timeout=None)
            view.add_item(EraseConfirm(request.token, label=t(who.lang, "erase.confirm")))
            view.add_item(EraseCancel(label=t(who.lang, "erase.cancel")))
            text = t(who.lang, "erase.ask", memories=request.facts, summaries=request.summaries)
            await redraw(interaction, text, embeds=[], view=view)
        except Exception as exc:
            await report(interaction, exc)


class EraseConfirm(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"heyan:erase:(?P<token>[A-Za-z0-9_-]{4,64})"):
    """Step two: erase, with the token the service issued to this member."""

    def __init__(self, token: str, *, label: str = "erase") -> None:
        super().__init__(discord.ui.Button(label=label, style=discord.ButtonStyle.danger,
                                           custom_id=f"heyan:erase:{token}"))
        self.token = token

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> EraseConfirm:
        return cls(match["token"])

    async def callback(self, interaction: discord.Interaction) -> None:
        try:
            await acknowledge(interaction)
            heyan = heyan_of(interaction.client)
            who = await actor(interaction, heyan)
            removed = await heyan.port.moderation.confirm_erasure(who, self.token)
            await redraw(interaction, t(who.lang, "erase.done", records=removed), embeds=[], view=None)
        except Exception as exc:
            await report(interaction, exc)


class EraseCancel(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"heyan:erase-cancel"):
    def __init__(self, *, label: str = "cancel") -> None:
        super().__init__(discord.ui.Button(label=label, style=discord.ButtonStyle.secondary,
                                           custom_id="heyan:erase-cancel"))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> EraseCancel:
        return cls()

    async def callback(self, interaction: discord.Interaction) -> None:
        try:
            await acknowledge(interaction)
            who = await actor(interaction, heyan_of(interaction.client))
            await redraw(interaction, t(who.lang, "erase.cancelled"), embeds=[], view=None)
        except Exception as exc:
            await report(interaction, exc)


# --- the cog ------------------------------------------------------------------------------------------


class MemberCommands(commands.Cog):
    """/mymemory and /commitments, and the Correct modal's submissions."""

    def __init__(self, bot: AnyBot, heyan: Heyan) -> None:
        self.bot = bot
        self.heyan = heyan

    @app_commands.command(name="mymemory", description="What Heyan remembers about you: see, correct or erase it")
    async def my_memory(self, interaction: discord.Interaction) -> None:
        await defer(interaction)
        who = await actor(interaction, self.heyan)
        facts = await self.heyan.port.moderation.my_memories(who)
        content, embeds, view = my_memory_message(facts, who.lang)
        record = await self.heyan.port.moderation.record_of(who.tenant, who.user_id)  # their own only
        if record.total:
            content = f"{safe(record.text(who.lang), 300)}\n{content}"
        await answer(interaction, content, embeds=embeds, view=view)

    @app_commands.command(name="commitments", description="Your commitments and this thread's, with a Done button")
    async def commitments(self, interaction: discord.Interaction) -> None:
        await defer(interaction)
        who = await actor(interaction, self.heyan)
        facts = await self.heyan.port.moderation.commitments(who, session=str(interaction.channel_id))
        content, embeds, view = commitments_message(who, facts)
        await answer(interaction, content, embeds=embeds, view=view)

    @commands.Cog.listener()
    async def on_interaction(self, interaction: discord.Interaction) -> None:
        """The Correct modal's submission (matched by custom id; see ``CorrectModal``)."""
        if interaction.type is not discord.InteractionType.modal_submit:
            return
        data: dict[str, Any] = dict(interaction.data or {})
        match = _CORRECT_MODAL.fullmatch(str(data.get("custom_id", "")))
        if match is None:
            return
        try:
            values = _submitted(data.get("components") or [])
            await defer(interaction)
            who = await actor(interaction, self.heyan)
            value = values.get("value", "")
            saved = await self.heyan.port.moderation.correct(who, match["fact"], value, values.get("reason", ""))
            own = saved.value == value.strip() and saved.status is not FactStatus.DISPUTED
            text = t(who.lang, "correct.done", value=safe(saved.value, 500)) if own else t(who.lang, "correct.contested")
            await answer(interaction, text)
        except Exception as exc:
            await report(interaction, exc)
