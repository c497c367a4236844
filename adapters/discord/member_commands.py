"""For every member: ``/mymemory`` (what Heyan holds about you — correct it or erase it) and
``/commitments`` (yours and this thread's, each with a Done button). Both answer ephemerally and
work in servers and in DMs (a DM is its own tenant: there, they cover what was said in that DM).

Correct: pick a memory in the menu, a modal opens with its current value; the moderation service
decides whether the correction replaces the value (your own statement) or stands beside someone
else's account as disputed, for a moderator. Erase: a button asks the service for an erasure request
(how much would go, and a confirmation token), shows it with Yes / Cancel; Yes confirms with that
token. The token is checked by the service against the clicker, so nobody else can use it.

All buttons and the menu are ``DynamicItem``s whose custom ids carry what they act on, and the modal
is answered by an ``on_interaction`` listener matching its custom id: nothing is kept in the process
between the message and the click, so clicks and submissions keep working across restarts.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from adapters.discord.client import AnyBot, Heyan, heyan_of
from adapters.discord.embeds import LIST_LIMIT, fact_line, facts_embed, safe, short_id
from adapters.discord.interactions import actor, answer, defer, report
from adapters.discord.translate import kind_label, t
from bot.actors import Actor
from memory.models import Fact, FactStatus, Lang

__all__ = ["CommitmentDone", "CorrectPick", "EraseAsk", "EraseCancel", "EraseConfirm", "MemberCommands"]

log = logging.getLogger(__name__)

_CORRECT_MODAL = re.compile(r"heyan:correct:(?P<fact>[0-9a-f-]{36})")
#: Buttons on one message: four rows of five (the fifth row is left for the menu on /mymemory).
MAX_DONE_BUTTONS = 20


# --- /mymemory: the message ----------------------------------------------------------------------------


def my_memory_message(facts: Sequence[Fact], lang: Lang) -> tuple[str, list[discord.Embed], discord.ui.View | None]:
    if not facts:
        return t(lang, "mymemory.none"), [], None
    ordered = sorted(facts, key=lambda f: f.updated_at, reverse=True)
    embed = facts_embed(ordered, lang, t(lang, "mymemory.title", count=len(ordered)))
    view = discord.ui.View(timeout=None)
    options = [discord.SelectOption(label=f"{short_id(f)} · {kind_label(f, lang)}: {f.attribute}"[:100],
                                    description=" ".join(f.value.split())[:100], value=f.id)
               for f in ordered[:25]]
    view.add_item(CorrectPick(options, placeholder=t(lang, "mymemory.pick")))
    view.add_item(EraseAsk(label=t(lang, "mymemory.erase")))
    return "", [embed], view


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
            fact = await heyan.rt.moderation.memory_show(who, self.item.values[0])
            await interaction.response.send_modal(CorrectModal(fact, who.lang))
        except Exception as exc:
            await report(interaction, exc)


class CorrectModal(discord.ui.Modal):
    """What the memory should say, and why. Its submission is handled by ``MemberCommands.on_interaction``
    (stateless), so this stored copy never acts and is dropped from discord.py's store at once."""

    def __init__(self, fact: Fact, lang: Lang) -> None:
        super().__init__(title=t(lang, "correct.title"), custom_id=f"heyan:correct:{fact.id}", timeout=1.0)
        self.add_item(discord.ui.TextInput(label=t(lang, "correct.value"), custom_id="value", default=fact.value[:1000],
                                           style=discord.TextStyle.paragraph, max_length=1000))
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
            heyan = heyan_of(interaction.client)
            who = await actor(interaction, heyan)
            request = await heyan.rt.moderation.request_erasure(who)
            view = discord.ui.View(timeout=None)
            view.add_item(EraseConfirm(request.token, label=t(who.lang, "erase.confirm")))
            view.add_item(EraseCancel(label=t(who.lang, "erase.cancel")))
            text = t(who.lang, "erase.ask", facts=request.facts, summaries=request.summaries)
            await interaction.response.edit_message(content=text, embeds=[], view=view,
                                                    allowed_mentions=discord.AllowedMentions.none())
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
            heyan = heyan_of(interaction.client)
            who = await actor(interaction, heyan)
            removed = await heyan.rt.moderation.confirm_erasure(who, self.token)
            await interaction.response.edit_message(content=t(who.lang, "erase.done", count=removed), embeds=[],
                                                    view=None, allowed_mentions=discord.AllowedMentions.none())
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
            who = await actor(interaction, heyan_of(interaction.client))
            await interaction.response.edit_message(content=t(who.lang, "erase.cancelled"), embeds=[], view=None)
        except Exception as exc:
            await report(interaction, exc)


# --- /commitments -----------------------------------------------------------------------------------


def commitments_message(who: Actor, facts: Sequence[Fact]) -> tuple[str, list[discord.Embed], discord.ui.View | None]:
    """Open commitments with a Done button for each one the caller may close (own, or a moderator)."""
    lang = who.lang
    if not facts:
        return t(lang, "commitments.none"), [], None
    shown = list(facts)[:LIST_LIMIT]
    lines = [f"**{n}.** {fact_line(f, lang)}" for n, f in enumerate(shown, start=1)]
    embed = discord.Embed(title=t(lang, "commitments.title", count=len(facts)), description="\n".join(lines),
                          colour=discord.Colour(0x4F7CAC))
    view = discord.ui.View(timeout=None)
    mine = [(n, f) for n, f in enumerate(shown, start=1) if who.is_moderator or f.subject == who.user_id]
    for n, fact in mine[:MAX_DONE_BUTTONS]:
        view.add_item(CommitmentDone(fact.id, label=t(lang, "commitments.done", n=n)))
    return "", [embed], view if mine else None


class CommitmentDone(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"heyan:done:(?P<fact>[0-9a-f-]{36})"):
    """Mark one commitment done (its owner or a moderator: the service checks), then redraw the list."""

    def __init__(self, fact_id: str, *, label: str = "done") -> None:
        super().__init__(discord.ui.Button(label=label, style=discord.ButtonStyle.success,
                                           custom_id=f"heyan:done:{fact_id}"))
        self.fact_id = fact_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> CommitmentDone:
        return cls(match["fact"])

    async def callback(self, interaction: discord.Interaction) -> None:
        try:
            heyan = heyan_of(interaction.client)
            who = await actor(interaction, heyan)
            done = await heyan.rt.moderation.commitment_done(who, self.fact_id)
            facts = await heyan.rt.moderation.commitments(who, session=str(interaction.channel_id))
            _, embeds, view = commitments_message(who, facts)
            text = t(who.lang, "commitments.marked", what=safe(f"{done.attribute}: {done.value}", 200))
            await interaction.response.edit_message(content=text, embeds=embeds, view=view,
                                                    allowed_mentions=discord.AllowedMentions.none())
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
        facts = await self.heyan.rt.moderation.my_memories(who)
        content, embeds, view = my_memory_message(facts, who.lang)
        await answer(interaction, content, embeds=embeds, view=view)

    @app_commands.command(name="commitments", description="Your commitments and this thread's, with a Done button")
    async def commitments(self, interaction: discord.Interaction) -> None:
        await defer(interaction)
        who = await actor(interaction, self.heyan)
        facts = await self.heyan.rt.moderation.commitments(who, session=str(interaction.channel_id))
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
            saved = await self.heyan.rt.moderation.correct(who, match["fact"], value, values.get("reason", ""))
            own = saved.value == value.strip() and saved.status is not FactStatus.DISPUTED
            text = t(who.lang, "correct.done", value=safe(saved.value, 500)) if own else t(who.lang, "correct.contested")
            await answer(interaction, text)
        except Exception as exc:
            await report(interaction, exc)
