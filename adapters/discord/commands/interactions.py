"""Answering interactions the same way everywhere: acknowledge before slow work, private answers
ephemeral, refusals ephemeral and in the caller's language, never a ping, always within Discord's limits.

Discord allows 3 s for the first answer, then 15 minutes: commands ``defer`` and components
``acknowledge`` before the service call, then ``answer`` or ``redraw``; past the token, one DM. Failures
are worded in ``error_text`` (``HeyanTree.on_error``, ``report``); a refusal after a public deferral
deletes the public "thinking…" first.
"""

from __future__ import annotations

import logging
from typing import Any

import discord
from discord import app_commands

from adapters.discord.connection.client import Heyan
from adapters.discord.display.limits import CONTENT, bounded_embeds, clip
from adapters.discord.display.translate import permission_label, t
from adapters.discord.events.mapping import actor_for, locale_lang
from bot.actors import Actor, ModerationError
from bot.limits import SlowDown
from memory.errors import HeyanError
from memory.models import Lang

__all__ = [
    "HeyanTree",
    "MissingPermission",
    "Refusal",
    "acknowledge",
    "actor",
    "answer",
    "defer",
    "redraw",
    "report",
    "require_guild",
]

log = logging.getLogger(__name__)

#: Discord's codes for an interaction token past its 15 minutes, and for one it does not know. The
#: documentation says only that the token is valid for 15 minutes, not what comes after: Discord
#: answers 401 / 50027 in practice; 10015 (Unknown Webhook) and 10062 (Unknown interaction) are read
#: the same way.
INVALID_WEBHOOK_TOKEN = 50027
UNKNOWN_WEBHOOK = 10015
UNKNOWN_INTERACTION = 10062


class Refusal(HeyanError):
    """The adapter refuses a request before the services see it; ``text(lang)`` says why."""

    def __init__(self, key: str, **values: object) -> None:
        super().__init__(key)
        self.key = key
        self.values = values

    def text(self, lang: Lang) -> str:
        return t(lang, self.key, **self.values)


class MissingPermission(Refusal):
    """Heyan's role lacks a Discord permission it needs in this channel (named as the client names it)."""

    def __init__(self, permission: str) -> None:
        super().__init__("missing_permission")
        self.permission = permission

    def text(self, lang: Lang) -> str:
        return t(lang, "missing_permission", perm=permission_label(self.permission, lang))


def require_guild(interaction: discord.Interaction) -> int:
    """The guild id, or a clear refusal for a guild command used in a DM."""
    if interaction.guild_id is None:
        raise Refusal("guild_only")
    return interaction.guild_id


async def actor(interaction: discord.Interaction, heyan: Heyan) -> Actor:
    """The caller as an ``Actor``; its language is remembered for the error handler."""
    found = await actor_for(interaction, tenants=heyan.port.tenants, moderator_role=heyan.discord.moderator_role)
    interaction.extras["lang"] = found.lang
    return found


async def defer(interaction: discord.Interaction, *, ephemeral: bool = True) -> None:
    """Acknowledge now ("Heyan is thinking…"); the answer follows with ``answer``."""
    interaction.extras["ephemeral"] = ephemeral
    if not interaction.response.is_done():
        await interaction.response.defer(ephemeral=ephemeral, thinking=True)


async def acknowledge(interaction: discord.Interaction) -> None:
    """A button's or select's first answer, before any work: a deferred update (the message stays as
    it is until ``redraw`` replaces it). An action that fails afterwards is reported as a private
    followup; an action whose acknowledgement Discord refused (too late) is not performed."""
    if not interaction.response.is_done():
        await interaction.response.defer()


def _expired(exc: discord.HTTPException) -> bool:
    """Discord's answer to a token past its 15 minutes (or one it no longer knows)."""
    return (exc.status == 401 and exc.code == INVALID_WEBHOOK_TOKEN) or exc.code in (UNKNOWN_WEBHOOK,
                                                                                     UNKNOWN_INTERACTION)


async def _too_late(interaction: discord.Interaction) -> None:
    """The interaction's token expired before the answer was ready: say so once, by direct message
    (the work itself was done; only showing its result failed)."""
    where = f"<#{interaction.channel_id}>" if interaction.channel_id else "Discord"
    text = t(_lang(interaction), "late", where=where)
    try:
        await interaction.user.send(text, allowed_mentions=discord.AllowedMentions.none())
    except discord.HTTPException as exc:  # DMs closed: the log is all that is left
        log.warning("interaction %s outlived its token and %s cannot be told by DM either: %s", interaction.id,
                    interaction.user, exc)


async def redraw(
    interaction: discord.Interaction,
    content: str | None = None,
    *,
    embeds: list[discord.Embed] | None = None,
    view: discord.ui.View | None = None,
) -> None:
    """Replace the message a component is on (after ``acknowledge``): its content, embeds and view."""
    try:
        await interaction.edit_original_response(
            content=clip(content, CONTENT) if content else None, embeds=bounded_embeds(embeds or []), view=view,
            allowed_mentions=discord.AllowedMentions.none())
    except discord.HTTPException as exc:
        if not _expired(exc):
            raise
        await _too_late(interaction)


async def answer(
    interaction: discord.Interaction,
    content: str | None = None,
    *,
    embeds: list[discord.Embed] | None = None,
    view: discord.ui.View | None = None,
    file: discord.File | None = None,
    ephemeral: bool = True,
) -> None:
    """The answer: the interaction's first response, or the followup that completes a deferral
    (which keeps the deferral's visibility). Pings nobody."""
    kwargs: dict[str, Any] = {"allowed_mentions": discord.AllowedMentions.none(), "ephemeral": ephemeral}
    if content:
        kwargs["content"] = clip(content, CONTENT)
    if embeds:
        kwargs["embeds"] = bounded_embeds(embeds)
    if view is not None:
        kwargs["view"] = view
    if file is not None:
        kwargs["file"] = file
    if not interaction.response.is_done():
        await interaction.response.send_message(**kwargs)
        return
    try:
        await interaction.followup.send(**kwargs)
    except discord.HTTPException as exc:
        if not _expired(exc):
            raise
        await _too_late(interaction)


def error_text(error: BaseException, lang: Lang) -> str | None:
    """What to tell the caller about ``error``; None for an unexpected one."""
    if isinstance(error, ModerationError | SlowDown | Refusal):
        return error.text(lang)
    if isinstance(error, discord.RateLimited):
        return t(lang, "discord_busy", seconds=int(error.retry_after + 0.5))
    if isinstance(error, discord.Forbidden):
        return t(lang, "forbidden", detail=f"{error.text or 'Missing Permissions'}, {error.code}")
    if isinstance(error, app_commands.TransformerError):  # e.g. a user who is not a member of this server
        return t(lang, "bad_option", value=str(error.value)[:100])
    return None


def _lang(interaction: discord.Interaction) -> Lang:
    known = interaction.extras.get("lang")
    if known in ("zh", "en"):
        return "zh" if known == "zh" else "en"
    return locale_lang(interaction.locale) or locale_lang(interaction.guild_locale) or "en"


async def report(interaction: discord.Interaction, error: BaseException) -> None:
    """Tell the caller, privately, why their interaction failed (logging anything unexpected)."""
    lang = _lang(interaction)
    text = error_text(error, lang)
    if text is None:
        log.error("interaction %s failed", interaction.id, exc_info=error)
        text = t(lang, "unexpected")
    if interaction.type is discord.InteractionType.autocomplete:
        return  # autocomplete has no place for a message; the choices simply stay empty
    if interaction.response.is_done() and interaction.extras.get("ephemeral") is False:
        try:
            await interaction.delete_original_response()  # the public "thinking…" must not stay
        except discord.HTTPException as exc:
            log.warning("could not remove the public placeholder of interaction %s: %s", interaction.id, exc)
        interaction.extras["ephemeral"] = True
    try:
        await answer(interaction, text, ephemeral=True)
    except discord.HTTPException as exc:
        log.warning("could not tell user %s why interaction %s failed (%s)", interaction.user.id, interaction.id,
                    exc)  # ids only: names and answers quote members


class HeyanTree(app_commands.CommandTree):
    """The command tree, with Heyan's error answers."""

    async def on_error(self, interaction: discord.Interaction, error: app_commands.AppCommandError, /) -> None:
        original = error.original if isinstance(error, app_commands.CommandInvokeError) else error
        await report(interaction, original)
