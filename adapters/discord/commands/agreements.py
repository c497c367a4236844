"""The agreement card and common ground on Discord: ``/dispute close`` with the card,
``/dispute common-ground``, and their buttons.

The service builds and posts the card; ``DiscordSender`` adds Confirm and Refuse (``CardButton``,
stateless; Refuse asks why in a modal). Common ground is reviewed privately (``GroundOpen`` →
``GroundPick``): only interaction answers can be ephemeral. Answers are private to the presser;
every id in a custom id is checked again by the service with the presser as actor. Texts:
``discord:card.`` keys of ``bot.text.catalog``.
"""

from __future__ import annotations

import re
from typing import Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from adapters.discord.commands.interactions import acknowledge, actor, answer, defer, redraw, report
from adapters.discord.connection.client import AnyBot, Heyan, heyan_of
from adapters.discord.display.embeds import safe, summary_embed
from adapters.discord.display.limits import OPTION_TEXT, OPTIONS
from adapters.discord.display.translate import t
from bot.agreements.card import CONFIRM_ACTION
from bot.delivery.outbox import Post
from bot.moderation import CardOutcome, GroundView
from bot.moderation.common_ground import GROUND_ACTION
from bot.text.catalog import say
from memory.models import Lang

__all__ = ["Agreements", "CardButton", "DigestCommands", "GroundOpen", "GroundPick", "close_with_card", "common_ground", "post_view"]

_REFUSE_MODAL = re.compile(r"heyan:card-refuse:(?P<card>[0-9a-f]{6,16})")


def _t(lang: Lang, key: str, **values: object) -> str:
    return say(lang, f"discord:card.{key}", **values)


# --- the card ----------------------------------------------------------------------------------------------


class CardButton(discord.ui.DynamicItem[discord.ui.Button[Any]],
                 template=r"heyan:card:(?P<action>confirm|refuse):(?P<card>[0-9a-f]{6,16})"):
    """Confirm or refuse the agreement card this button is on (for the presser)."""

    def __init__(self, action: str, card: str, *, label: str = "") -> None:
        style = discord.ButtonStyle.success if action == "confirm" else discord.ButtonStyle.secondary
        super().__init__(discord.ui.Button(label=label or action, style=style,
                                           custom_id=f"heyan:card:{action}:{card}"))
        self.action, self.card = action, card

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> CardButton:
        return cls(match["action"], match["card"])

    async def callback(self, interaction: discord.Interaction) -> None:
        try:
            heyan = heyan_of(interaction.client)
            who = await actor(interaction, heyan)
            if self.action == "refuse":  # a modal must be the first answer
                await interaction.response.send_modal(RefuseModal(self.card, who.lang))
                return
            await defer(interaction)
            outcome = await heyan.port.moderation.card_confirm(who, str(interaction.channel_id), self.card)
            key = "changed" if outcome.changed else "agreed" if outcome.stored is not None else "confirmed"
            await answer(interaction, _t(who.lang, key))
        except Exception as exc:
            await report(interaction, exc)


class RefuseModal(discord.ui.Modal):
    """Why the card is refused. Submitted to ``Agreements.on_interaction`` (stateless), like the Correct
    modal: this copy never acts."""

    def __init__(self, card: str, lang: Lang) -> None:
        super().__init__(title=_t(lang, "refuse.title"), custom_id=f"heyan:card-refuse:{card}", timeout=1.0)
        self.add_item(discord.ui.TextInput(label=_t(lang, "refuse.reason"), custom_id="reason", required=False,
                                           style=discord.TextStyle.paragraph, max_length=500))

    async def interaction_check(self, interaction: discord.Interaction, /) -> bool:
        return False


def post_view(post: Post) -> discord.ui.View | None:
    """The buttons a post of Heyan's carries (``DiscordSender`` puts them on its last piece): Confirm /
    Refuse on an agreement card, Review privately on a common-ground prompt; None for any other post."""
    lang: Lang = post.lang
    action = post.ref.get("action")
    if action == CONFIRM_ACTION and post.ref.get("card"):
        view = discord.ui.View(timeout=None)
        view.add_item(CardButton("confirm", post.ref["card"], label=_t(lang, "confirm")))
        view.add_item(CardButton("refuse", post.ref["card"], label=_t(lang, "refuse")))
        return view
    if action == GROUND_ACTION and post.ref.get("round", "").isdigit():
        view = discord.ui.View(timeout=None)
        view.add_item(GroundOpen(post.ref["round"], label=_t(lang, "ground.open")))
        return view
    return None


async def close_with_card(heyan: Heyan, interaction: discord.Interaction, reason: str, *,
                          force: bool = False) -> CardOutcome:
    """``/dispute close``: close with the agreement card (see the module docstring); the public answer."""
    who = await actor(interaction, heyan)
    outcome = await heyan.port.moderation.dispute_close_card(who, str(interaction.channel_id), reason, force=force)
    closed = outcome.closed
    embeds = None
    if closed is not None:
        lines = [t(who.lang, "dispute.closed", who=interaction.user.mention)]
        if reason.strip():
            lines.append(t(who.lang, "dispute.closed_reason", reason=safe(reason, 500)))
        if closed.cancelled_followups:
            lines.append(t(who.lang, "dispute.cancelled", followups=closed.cancelled_followups))
        embeds = [summary_embed(closed.summary, who.lang)] if closed.summary else None
    else:
        pending = outcome.votes.pending if outcome.votes else ()
        names = ", ".join(f"<@{u}>" for u in pending)  # shown as names; the answer pings nobody
        lines = [_t(who.lang, "waiting", who=interaction.user.mention, pending=names or "—")]
    await answer(interaction, "\n".join(lines), embeds=embeds, ephemeral=False)
    return outcome


# --- common ground -----------------------------------------------------------------------------------------


def _ground_message(view: GroundView, lang: Lang) -> tuple[str, discord.ui.View]:
    lines = [_t(lang, "ground.head")]
    lines += [f"{n}. {safe(s.text, 400)}" for n, s in enumerate(view.statements, 1)]
    menu = discord.ui.View(timeout=None)
    options = [discord.SelectOption(label=f"{n}. {s.text}"[:OPTION_TEXT], value=s.id, default=s.id in view.endorsed)
               for n, s in enumerate(view.statements[:OPTIONS], 1)]
    menu.add_item(GroundPick(view.round_id, options, placeholder=_t(lang, "ground.pick")))
    return "\n".join(lines), menu


class GroundOpen(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"heyan:ground:open:(?P<round>\d{1,12})"):
    """Show the presser the statements, privately, with the menu of the ones they endorse."""

    def __init__(self, round_id: str, *, label: str = "") -> None:
        super().__init__(discord.ui.Button(label=label or "review", style=discord.ButtonStyle.primary,
                                           custom_id=f"heyan:ground:open:{round_id}"))
        self.round_id = round_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> GroundOpen:
        return cls(match["round"])

    async def callback(self, interaction: discord.Interaction) -> None:
        try:
            heyan = heyan_of(interaction.client)
            await defer(interaction)  # ephemeral: only the presser sees the statements
            who = await actor(interaction, heyan)
            view = await heyan.port.moderation.common_ground_view(who, str(interaction.channel_id))
            content, menu = _ground_message(view, who.lang)
            await answer(interaction, content, view=menu)
        except Exception as exc:
            await report(interaction, exc)


class GroundPick(discord.ui.DynamicItem[discord.ui.Select[Any]], template=r"heyan:ground:pick:(?P<round>\d{1,12})"):
    """The statements the presser endorses (their choice replaces the earlier one)."""

    def __init__(self, round_id: str, options: list[discord.SelectOption] | None = None, *,
                 placeholder: str | None = None, select: discord.ui.Select[Any] | None = None) -> None:
        options = options or []
        super().__init__(select or discord.ui.Select(
            custom_id=f"heyan:ground:pick:{round_id}", options=options, placeholder=placeholder, min_values=0,
            max_values=max(1, len(options))))
        self.round_id = round_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> GroundPick:
        return cls(match["round"], select=item if isinstance(item, discord.ui.Select) else None)

    async def callback(self, interaction: discord.Interaction) -> None:
        try:
            heyan = heyan_of(interaction.client)
            await acknowledge(interaction)
            who = await actor(interaction, heyan)
            chosen = [str(v) for v in self.item.values]
            view = await heyan.port.moderation.common_ground_endorse(who, str(interaction.channel_id), chosen,
                                                                   self.round_id)
            content, menu = _ground_message(view, who.lang)
            note = _t(who.lang, "ground.saved", n=len(view.endorsed))
            if view.posted:
                note += _t(who.lang, "ground.posted", n=len(view.posted))
            await redraw(interaction, f"{note}\n\n{content}", view=menu)
        except Exception as exc:
            await report(interaction, exc)


async def common_ground(heyan: Heyan, interaction: discord.Interaction) -> GroundView:
    """``/dispute common-ground``: draft and ask; the caller hears whom Heyan asked (privately)."""
    await defer(interaction)
    who = await actor(interaction, heyan)
    view = await heyan.port.moderation.common_ground_draft(who, str(interaction.channel_id))
    names = ", ".join(f"<@{u}>" for u in view.participants)
    await answer(interaction, _t(who.lang, "ground.asked", n=len(view.statements), who=names))
    return view


class Agreements(commands.Cog):
    """The Refuse modal's submissions (matched by custom id, like the Correct modal's)."""

    def __init__(self, bot: AnyBot, heyan: Heyan) -> None:
        self.bot = bot
        self.heyan = heyan

    @commands.Cog.listener()
    async def on_interaction(self, interaction: discord.Interaction) -> None:
        if interaction.type is not discord.InteractionType.modal_submit:
            return
        data: dict[str, Any] = dict(interaction.data or {})
        match = _REFUSE_MODAL.fullmatch(str(data.get("custom_id", "")))
        if match is None:
            return
        try:
            reason = _reason(data.get("components") or [])
            await defer(interaction)
            who = await actor(interaction, self.heyan)
            await self.heyan.port.moderation.card_refuse(who, str(interaction.channel_id), reason, match["card"])
            await answer(interaction, _t(who.lang, "refused"))
        except Exception as exc:
            await report(interaction, exc)


def _reason(components: list[Any]) -> str:
    """The text input ``reason`` of a modal submission, in action rows or labels."""
    for component in components:
        if not isinstance(component, dict):
            continue
        if component.get("custom_id") == "reason" and isinstance(component.get("value"), str):
            return str(component["value"])
        inner = [*component.get("components", []), *([component["component"]] if "component" in component else [])]
        found = _reason(inner)
        if found:
            return found
    return ""


class DigestCommands(commands.Cog):
    """``/digest show`` (the moderators' digest now) and ``/digest settings`` (the moderators' channel,
    where digests and escalation alerts go, and the digest's schedule) — moderators only, checked by the
    service."""

    digest = app_commands.Group(name="digest", description="The moderators' digest and alerts", guild_only=True,
                                default_permissions=discord.Permissions(manage_messages=True))  # a hint: checked again

    def __init__(self, bot: AnyBot, heyan: Heyan) -> None:
        self.bot = bot
        self.heyan = heyan

    @digest.command(name="show", description="What needs a moderator: overdue promises, old disputes, the review queue")
    async def show(self, interaction: discord.Interaction) -> None:
        await defer(interaction)
        who = await actor(interaction, self.heyan)
        found = await self.heyan.port.moderation.digest(who)
        text = safe(found.body().plain(), 1900)
        if found.undeliverable:
            text += "\n" + _t(who.lang, "digest.undeliverable", channel=f"<#{found.undeliverable[0]}>",
                              error=safe(found.undeliverable[1], 200))
        await answer(interaction, text)

    @digest.command(name="settings", description="Where the digest and escalation alerts go, and how often")
    @app_commands.describe(channel="The moderators' channel", schedule="How often the digest is posted")
    async def settings(self, interaction: discord.Interaction, channel: discord.TextChannel | None = None,
                       schedule: Literal["daily", "weekly", "off"] | None = None) -> None:
        await defer(interaction)
        who = await actor(interaction, self.heyan)
        values: dict[str, str] = {}
        if channel is not None:
            values["digest_channel"] = str(channel.id)
        if schedule is not None:
            values["digest_schedule"] = schedule
        updated = (await self.heyan.port.moderation.update_community_settings(who, **values) if values
                   else await self.heyan.port.moderation.community_settings(who))
        where = f"<#{updated.digest_channel}>" if updated.digest_channel else "—"
        await answer(interaction, _t(who.lang, "digest.set", channel=where, schedule=updated.digest_schedule))
