"""From Discord's objects to Heyan's terms: tenants, sessions, users, visibility, actors and language.

A guild is the tenant ``discord:<guild id>``, a DM its own ``discord:dm:<user id>`` (always from the
event, never from what a member types); a thread or channel is a session. Sessions @everyone cannot
view are private. An ``Actor`` moderates with guild-wide Manage Messages (never a channel overwrite),
a ``moderator_roles`` role or ``HEYAN_DISCORD_MODERATOR_ROLE``, checked at every call.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import discord

from bot.actors import Actor, Capability
from bot.config.tenants import TenantConfig
from bot.models import Message
from memory.models import Lang, Scope, Visibility

__all__ = [
    "actor_for",
    "dm_tenant",
    "guild_tenant",
    "is_moderator",
    "language",
    "locale_lang",
    "message_text",
    "moderator_hint",
    "replied_author",
    "tenant_of_channel",
    "to_message",
    "visibility_of",
]

_USER = re.compile(r"<@!?(\d+)>")
_ROLE = re.compile(r"<@&(\d+)>")
_CHANNEL = re.compile(r"<#(\d+)>")
_SPACES = re.compile(r"[ \t]{2,}")


def guild_tenant(guild_id: int) -> str:
    return f"discord:{guild_id}"


def dm_tenant(user_id: int) -> str:
    return f"discord:dm:{user_id}"


def tenant_of_channel(channel: object, *, dm_user: int | None = None) -> str | None:
    """The tenant a channel belongs to: its guild's, or for a DM the member's on the other side
    (``dm_user`` when the channel object does not know its recipient). None when unknowable."""
    guild = getattr(channel, "guild", None)
    if isinstance(guild, discord.Guild | discord.Object):
        return guild_tenant(guild.id)
    if isinstance(channel, discord.DMChannel) and channel.recipient is not None:
        return dm_tenant(channel.recipient.id)
    return dm_tenant(dm_user) if dm_user is not None else None


def visibility_of(channel: object) -> Visibility:
    """PRIVATE for private threads, DMs and anything @everyone cannot view (threads inherit their
    parent channel's); PRIVATE too when it cannot be told (fail closed: a record that stays in its
    thread is safe, one recited elsewhere is not)."""
    if isinstance(channel, discord.Thread):
        if channel.type is discord.ChannelType.private_thread:
            return Visibility.PRIVATE
        parent = channel.parent
        return visibility_of(parent) if parent is not None else Visibility.PRIVATE
    if isinstance(channel, discord.abc.GuildChannel):
        everyone = channel.guild.default_role
        if everyone is None:
            return Visibility.PRIVATE
        return Visibility.PUBLIC if channel.permissions_for(everyone).view_channel else Visibility.PRIVATE
    return Visibility.PRIVATE


def message_text(message: discord.Message, bot_id: int) -> str:
    """The text Heyan keeps: the bot's own mention removed, other mention markup as readable names
    (``@Bob``, ``@Moderators``, ``#general``) so quotes and prompts read like the conversation."""
    names = {u.id: u.display_name for u in message.mentions}
    guild = message.guild

    def user(match: re.Match[str]) -> str:
        uid = int(match.group(1))
        return "" if uid == bot_id else f"@{names.get(uid, uid)}"

    def role(match: re.Match[str]) -> str:
        found = guild.get_role(int(match.group(1))) if guild is not None else None
        return f"@{found.name}" if found is not None else match.group(0)

    def channel(match: re.Match[str]) -> str:
        found = guild.get_channel_or_thread(int(match.group(1))) if guild is not None else None
        return f"#{found.name}" if found is not None else match.group(0)

    text = _CHANNEL.sub(channel, _ROLE.sub(role, _USER.sub(user, message.content)))
    return "\n".join(_SPACES.sub(" ", line).strip() for line in text.splitlines()).strip()


def to_message(message: discord.Message, *, tenant: str, text: str, mention: bool) -> Message:
    """A Discord message in Heyan's terms (session = its thread or channel)."""
    author = message.author
    return Message(
        id=str(message.id),
        scope=Scope(tenant=tenant, session=str(message.channel.id), user=str(author.id)),
        author_name=author.display_name,
        text=text,
        ts=message.created_at,
        mention=mention,
        visibility=visibility_of(message.channel),
        reply_to=replied_author(message),
    )


def replied_author(message: discord.Message) -> str | None:
    """The author id of the message this one replies to (a reply's message reference; a forward is not
    a reply), when Discord sent or cached it; None otherwise."""
    ref = message.reference
    if ref is None or message.type is not discord.MessageType.reply or ref.type is not discord.MessageReferenceType.default:
        return None
    target = ref.resolved if isinstance(ref.resolved, discord.Message) else ref.cached_message
    return str(target.author.id) if target is not None else None


def _has_role(member: discord.Member, role: str) -> bool:
    wanted = role.strip()
    return any(str(r.id) == wanted or r.name.casefold() == wanted.casefold() for r in member.roles)


def is_moderator(member: discord.Member, role: str | None, fallback: discord.Permissions | None = None,
                 roles: Sequence[str] = ()) -> bool:
    """Manage Messages in the guild (owners and administrators have it), the deployment's moderator
    role, or one of the community's ``roles`` (role ids). ``fallback`` (the interaction's resolved
    permissions) is used only when the guild's roles are not cached, which happens when the bot was
    added without the ``bot`` scope."""
    guild = member.guild
    if isinstance(guild, discord.Guild) and guild.get_role(guild.id) is not None:
        perms = member.guild_permissions
    else:
        perms = fallback or discord.Permissions.none()
    if perms.manage_messages or perms.administrator:
        return True
    if any(_has_role(member, r) for r in roles):
        return True
    return bool(role) and _has_role(member, role or "")


def moderator_hint(lang: Lang, role: str | None, roles: Sequence[str] = ()) -> str:
    """What makes someone a Heyan moderator on this server, for refusals to quote."""
    named = [r.strip() for r in (*roles, *([role] if role else [])) if r.strip()]
    if named:
        shown = ", ".join(f"<@&{r}>" if r.isdigit() else f"“{r}”" for r in dict.fromkeys(named))
        if lang == "zh":
            return f"在 Discord 上：需要“管理消息”权限或 {shown} 身份组"
        return f"on Discord: the Manage Messages permission or the {shown} role"
    if lang == "zh":
        return "在 Discord 上：需要“管理消息”权限"
    return "on Discord: the Manage Messages permission"


def locale_lang(locale: discord.Locale | str | None) -> Lang | None:
    """``zh`` for any Chinese locale, ``en`` for any English one, None for the rest."""
    if locale is None:
        return None
    value = locale.value if isinstance(locale, discord.Locale) else str(locale)
    if value.lower().startswith("zh"):
        return "zh"
    if value.lower().startswith("en"):
        return "en"
    return None


def pick_language(setting: str, locale: discord.Locale | str | None = None,
                  guild_locale: discord.Locale | str | None = None) -> Lang:
    """The tenant's ``language`` setting when it is not ``auto``; else the member's client locale
    (Chinese or English), else the guild's preferred locale; English when neither is Chinese."""
    if setting == "zh":
        return "zh"
    if setting == "en":
        return "en"
    return locale_lang(locale) or locale_lang(guild_locale) or "en"


async def language(tenants: TenantConfig, tenant: str, locale: discord.Locale | str | None = None,
                   guild_locale: discord.Locale | str | None = None) -> Lang:
    """``pick_language`` with the tenant's setting."""
    return pick_language((await tenants.get(tenant)).language, locale, guild_locale)


async def actor_for(interaction: discord.Interaction, *, tenants: TenantConfig, moderator_role: str | None) -> Actor:
    """The caller of an interaction as the moderation service sees them."""
    user = interaction.user
    tenant = guild_tenant(interaction.guild_id) if interaction.guild_id is not None else dm_tenant(user.id)
    guild_locale = interaction.guild_locale if interaction.guild_id is not None else None
    settings = await tenants.get(tenant)
    lang = pick_language(settings.language, interaction.locale, guild_locale)
    roles = settings.moderator_roles if interaction.guild_id is not None else []
    capabilities: frozenset[Capability] = frozenset()
    if isinstance(user, discord.Member) and is_moderator(user, moderator_role, interaction.permissions, roles):
        capabilities = frozenset({Capability.MODERATE})
    return Actor(tenant=tenant, user_id=str(user.id), name=user.display_name, capabilities=capabilities,
                 lang=lang, moderator_hint=moderator_hint(lang, moderator_role, roles))
