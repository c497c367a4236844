"""``/heyan settings``: a server's own settings, for its moderators — timezone, language, moderator
roles, who may open disputes and where, retention, reset.

Each subcommand is one moderation-service call with the caller as ``Actor``: the service checks the
moderator capability and audits. ``default_permissions`` (Manage Server) only decides who *sees* it and
opens nothing. Answers are ephemeral, showing the settings as they now are.
"""

from __future__ import annotations

from typing import Any, Literal
from zoneinfo import available_timezones

import discord
from discord import app_commands
from discord.ext import commands

from adapters.discord.commands.interactions import Refusal, actor, answer, defer, require_guild
from adapters.discord.connection.client import AnyBot, Heyan
from adapters.discord.display.embeds import safe
from adapters.discord.display.limits import bounded
from adapters.discord.display.translate import kind_label, t
from bot.actors import Actor
from bot.config.tenants import MAX_DAYS, TenantSettingError, TenantSettings, parse_days
from memory.models import Kind, Lang

__all__ = ["SettingsCommands", "settings_embed"]

#: ``/heyan settings retention`` also sets how long a closed dispute's conversation is kept.
CLOSED = "closed-disputes"
_ZONES = sorted(available_timezones())
_COLOUR = discord.Colour(0x4F7CAC)


def _days(value: float | None, lang: Lang) -> str:
    if value is None:
        return t(lang, "settings.keep")
    return t(lang, "settings.days", days=f"{value:g}")


def settings_embed(s: TenantSettings, lang: Lang) -> discord.Embed:
    """The community's settings as they are now."""
    def channels(ids: list[str]) -> str:
        return " ".join(f"<#{c}>" for c in ids) or t(lang, "settings.anywhere")

    roles = " ".join(f"<@&{r}>" for r in s.moderator_roles) or t(lang, "settings.no_roles")
    retention = ", ".join(f"{kind_label(Kind(k), lang)}: {_days(v, lang)}" for k, v in sorted(s.retention_days.items()))
    embed = discord.Embed(title=t(lang, "settings.title"), colour=_COLOUR)
    embed.add_field(name=t(lang, "settings.timezone"), value=safe(s.timezone, 64))
    embed.add_field(name=t(lang, "settings.language"), value=s.language)
    embed.add_field(name=t(lang, "settings.openers"), value=t(lang, f"settings.openers.{s.dispute_openers}"))
    embed.add_field(name=t(lang, "settings.moderator_roles"), value=roles, inline=False)
    embed.add_field(name=t(lang, "settings.channels"), value=channels(s.dispute_channels), inline=False)
    embed.add_field(name=t(lang, "settings.retention"), value=retention or t(lang, "settings.defaults"), inline=False)
    embed.add_field(name=t(lang, "settings.closed"), value=_days(s.closed_purge_days, lang), inline=False)
    return bounded(embed)


def _listed(current: list[str], item: str, *, remove: bool) -> list[str]:
    return [x for x in current if x != item] if remove else [*dict.fromkeys([*current, item])]


class SettingsCommands(commands.Cog):
    """The /heyan settings group (guild only; moderators, checked by the service)."""

    heyan_group = app_commands.Group(name="heyan", description="Heyan for this server", guild_only=True,
                                     default_permissions=discord.Permissions(manage_guild=True))
    settings = app_commands.Group(name="settings", description="This server's Heyan settings (moderators)",
                                  parent=heyan_group)

    def __init__(self, bot: AnyBot, heyan: Heyan) -> None:
        self.bot = bot
        self.heyan = heyan

    async def _start(self, interaction: discord.Interaction) -> Actor:
        require_guild(interaction)
        await defer(interaction)
        return await actor(interaction, self.heyan)

    async def _update(self, interaction: discord.Interaction, who: Actor, **values: Any) -> None:
        updated = await self.heyan.port.moderation.update_community_settings(who, **values)
        await answer(interaction, t(who.lang, "settings.updated"), embeds=[settings_embed(updated, who.lang)])

    @settings.command(name="show", description="Show this server's Heyan settings")
    async def show(self, interaction: discord.Interaction) -> None:
        who = await self._start(interaction)
        current = await self.heyan.port.moderation.community_settings(who)
        await answer(interaction, embeds=[settings_embed(current, who.lang)])

    @settings.command(name="timezone", description="The timezone for due dates said without one")
    @app_commands.describe(zone="An IANA zone such as Asia/Shanghai or Europe/Berlin")
    async def timezone(self, interaction: discord.Interaction, zone: app_commands.Range[str, 1, 64]) -> None:
        who = await self._start(interaction)
        await self._update(interaction, who, timezone=zone.strip())

    @timezone.autocomplete("zone")
    async def _zones(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        needle = current.strip().casefold()
        return [app_commands.Choice(name=z, value=z) for z in _ZONES if needle in z.casefold()][:25]

    @settings.command(name="language", description="The language Heyan answers in here")
    @app_commands.describe(language="auto: each member's Discord language")
    async def language(self, interaction: discord.Interaction, language: Literal["auto", "zh", "en"]) -> None:
        who = await self._start(interaction)
        await self._update(interaction, who, language=language)

    @settings.command(name="moderator-role", description="Add (or remove) a role whose members moderate Heyan")
    @app_commands.describe(role="The role", remove="Remove it instead of adding it")
    async def moderator_role(self, interaction: discord.Interaction, role: discord.Role, remove: bool = False) -> None:
        who = await self._start(interaction)
        current = await self.heyan.port.moderation.community_settings(who)
        await self._update(interaction, who, moderator_roles=_listed(current.moderator_roles, str(role.id),
                                                                     remove=remove))

    @settings.command(name="dispute-openers", description="Who may open disputes")
    @app_commands.describe(who_may="members: anyone; moderators: only moderators")
    async def dispute_openers(self, interaction: discord.Interaction,
                              who_may: Literal["members", "moderators"]) -> None:
        who = await self._start(interaction)
        await self._update(interaction, who, dispute_openers=who_may)

    @settings.command(name="dispute-channel", description="Allow disputes in a channel (none set: anywhere)")
    @app_commands.describe(channel="A text channel", remove="Remove it instead of adding it")
    async def dispute_channel(self, interaction: discord.Interaction, channel: discord.TextChannel,
                              remove: bool = False) -> None:
        who = await self._start(interaction)
        current = await self.heyan.port.moderation.community_settings(who)
        await self._update(interaction, who, dispute_channels=_listed(current.dispute_channels, str(channel.id),
                                                                      remove=remove))

    @settings.command(name="retention", description="How long a kind of memory is kept")
    @app_commands.describe(kind="A kind of memory, or closed-disputes", days="Days, or keep")
    async def retention(self, interaction: discord.Interaction,
                        kind: Literal["person", "event", "demand", "emotion", "commitment", "consensus",
                                      "closed-disputes"],
                        days: app_commands.Range[str, 1, 12]) -> None:
        who = await self._start(interaction)
        closed = kind == CLOSED
        try:  # finite and within range, as every surface reads a number of days ("nan", "inf", "1e999" refused)
            value = parse_days(days, "days", keep=() if closed else ("keep", "forever"), zero=closed)
        except TenantSettingError:
            raise Refusal("settings.bad_days", days=safe(days, 12), most=f"{MAX_DAYS:g}") from None
        if closed:
            await self._update(interaction, who, closed_purge_days=value)
            return
        current = await self.heyan.port.moderation.community_settings(who)
        await self._update(interaction, who, retention_days={**current.retention_days, kind: value})

    @settings.command(name="reset", description="Back to the deployment's defaults (one setting, or all)")
    @app_commands.describe(setting="Only this one")
    async def reset(self, interaction: discord.Interaction,
                    setting: Literal["timezone", "language", "moderator_roles", "dispute_openers", "dispute_channels",
                                     "retention_days", "closed_purge_days"] | None = None) -> None:
        who = await self._start(interaction)
        names = (setting,) if setting else ()
        updated = await self.heyan.port.moderation.reset_community_settings(who, *names)
        await answer(interaction, t(who.lang, "settings.reset"), embeds=[settings_embed(updated, who.lang)])
