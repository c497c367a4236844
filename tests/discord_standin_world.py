"""The world a ``DiscordStandIn`` serves: specs of users, roles, channels, members and guilds, and
``DiscordWorld``, which holds that state and builds the Discord API v10 payloads Discord would send.

No I/O here: ``tests/discord_standin.py`` puts a server around it. Field names follow discord.py's
``discord/types/*.py`` TypedDicts. Users, channels and guilds can be given as specs, ids or names
(``author="alice"``, ``channel="general"``); names resolve in the first guild that has them.
"""

from __future__ import annotations

import contextlib
import copy
import re
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar

import discord

Payload = dict[str, Any]
T = TypeVar("T")

# ---------------------------------------------------------------------------------------------
# Constants: intents, permissions, channel types, message flags
# ---------------------------------------------------------------------------------------------

GUILDS = 1 << 0
GUILD_MEMBERS = 1 << 1
GUILD_PRESENCES = 1 << 8
GUILD_MESSAGES = 1 << 9
GUILD_MESSAGE_REACTIONS = 1 << 10
GUILD_MESSAGE_TYPING = 1 << 11
DIRECT_MESSAGES = 1 << 12
DIRECT_MESSAGE_REACTIONS = 1 << 13
DIRECT_MESSAGE_TYPING = 1 << 14
MESSAGE_CONTENT = 1 << 15
PRIVILEGED_INTENTS = GUILD_MEMBERS | GUILD_PRESENCES | MESSAGE_CONTENT

ALL_PERMISSIONS = discord.Permissions.all().value
ADMINISTRATOR = discord.Permissions(administrator=True).value
MENTION_EVERYONE = discord.Permissions(mention_everyone=True).value
VIEW_CHANNEL = discord.Permissions(view_channel=True).value
READ_MESSAGE_HISTORY = discord.Permissions(read_message_history=True).value
MANAGE_THREADS = discord.Permissions(manage_threads=True).value
MANAGE_CHANNELS = discord.Permissions(manage_channels=True).value
CREATE_PUBLIC_THREADS = discord.Permissions(create_public_threads=True).value
CREATE_PRIVATE_THREADS = discord.Permissions(create_private_threads=True).value
SEND_MESSAGES = discord.Permissions(send_messages=True).value
SEND_MESSAGES_IN_THREADS = discord.Permissions(send_messages_in_threads=True).value
MEMBER_PERMISSIONS = discord.Permissions(
    view_channel=True, send_messages=True, send_messages_in_threads=True, create_public_threads=True,
    read_message_history=True, add_reactions=True, embed_links=True, attach_files=True, use_external_emojis=True,
    use_application_commands=True, change_nickname=True,
).value
MODERATOR_PERMISSIONS = discord.Permissions(
    manage_messages=True, manage_threads=True, moderate_members=True, kick_members=True, mention_everyone=True,
).value
BOT_PERMISSIONS = discord.Permissions(
    view_channel=True, send_messages=True, send_messages_in_threads=True, create_public_threads=True,
    create_private_threads=True, manage_threads=True, read_message_history=True, embed_links=True,
    attach_files=True, add_reactions=True, use_application_commands=True,
).value

GUILD_TEXT, DM, GUILD_CATEGORY, GUILD_NEWS, NEWS_THREAD, PUBLIC_THREAD, PRIVATE_THREAD, GUILD_FORUM = (
    0, 1, 4, 5, 10, 11, 12, 15)
THREAD_TYPES = (NEWS_THREAD, PUBLIC_THREAD, PRIVATE_THREAD)
EPHEMERAL = 1 << 6
LOADING = 1 << 7

DISCORD_EPOCH_MS = 1_420_070_400_000
_USER_MENTION = re.compile(r"<@!?(\d+)>")
_ROLE_MENTION = re.compile(r"<@&(\d+)>")


def now_iso() -> str:
    return datetime.now(UTC).isoformat()


class StandInClock:
    """The stand-in's time for Discord's deadlines (3 s for an interaction's first answer, 15 minutes
    for its token). It moves only when a test calls ``advance``: a busy machine never makes an answer
    late, and a test makes one late without sleeping."""

    def __init__(self) -> None:
        self._now = 0.0

    def __repr__(self) -> str:
        return f"StandInClock(now={self._now:.3f})"

    def now(self) -> float:
        return self._now

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("the stand-in's clock only moves forward")
        self._now += seconds


class Snowflakes:
    """Increasing snowflakes whose timestamps are now (discord.py derives ``created_at`` from them)."""

    def __init__(self) -> None:
        self._last = 0

    def next(self) -> int:
        self._last = max((int(time.time() * 1000) - DISCORD_EPOCH_MS) << 22, self._last + 1)
        return self._last


# ---------------------------------------------------------------------------------------------
# The world: users, roles, channels, members, guilds
# ---------------------------------------------------------------------------------------------


@dataclass
class UserSpec:
    id: int
    username: str
    bot: bool = False
    global_name: str | None = None
    locale: str = "en-US"  # the user's client language: an interaction's ``locale``

    def payload(self) -> Payload:
        data: Payload = {"id": str(self.id), "username": self.username, "discriminator": "0",
                         "global_name": self.global_name, "avatar": None, "public_flags": 0}
        if self.bot:
            data["bot"] = True
        return data


@dataclass
class RoleSpec:
    id: int
    name: str
    permissions: int = 0
    position: int = 0
    mentionable: bool = False
    bot_id: int | None = None  # set for the managed role Discord gives a bot

    def payload(self) -> Payload:
        data: Payload = {
            "id": str(self.id), "name": self.name, "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False, "icon": None, "unicode_emoji": None, "position": self.position,
            "permissions": str(self.permissions), "managed": self.bot_id is not None,
            "mentionable": self.mentionable, "flags": 0,
        }
        if self.bot_id is not None:
            data["tags"] = {"bot_id": str(self.bot_id)}
        return data


@dataclass
class Overwrite:
    id: int
    type: int  # 0 role, 1 member
    allow: int = 0
    deny: int = 0

    def payload(self) -> Payload:
        return {"id": str(self.id), "type": self.type, "allow": str(self.allow), "deny": str(self.deny)}


@dataclass
class ChannelSpec:
    """A guild channel, or a thread when ``type`` is 10/11/12 (then ``parent_id`` is its channel)."""

    id: int
    name: str
    type: int = GUILD_TEXT
    parent_id: int | None = None
    position: int = 0
    topic: str | None = None
    overwrites: list[Overwrite] = field(default_factory=list)
    owner_id: int | None = None
    archived: bool = False
    locked: bool = False
    invitable: bool = True
    auto_archive_duration: int = 1440
    member_ids: set[int] = field(default_factory=set)
    message_count: int = 0
    created_at: str = field(default_factory=now_iso)
    archive_timestamp: str = field(default_factory=now_iso)

    @property
    def is_thread(self) -> bool:
        return self.type in THREAD_TYPES


@dataclass
class MemberSpec:
    user: UserSpec
    roles: list[int] = field(default_factory=list)
    nick: str | None = None
    joined_at: str = field(default_factory=now_iso)

    def payload(self, *, with_user: bool = True, permissions: int | None = None) -> Payload:
        data: Payload = {"roles": [str(r) for r in self.roles], "nick": self.nick, "avatar": None,
                         "joined_at": self.joined_at, "premium_since": None, "deaf": False, "mute": False,
                         "flags": 0, "pending": False, "communication_disabled_until": None}
        if with_user:
            data["user"] = self.user.payload()
        if permissions is not None:
            data["permissions"] = str(permissions)
        return data


@dataclass
class GuildSpec:
    id: int
    name: str
    owner_id: int
    preferred_locale: str = "en-US"
    roles: list[RoleSpec] = field(default_factory=list)  # must include @everyone, whose id is the guild's
    channels: list[ChannelSpec] = field(default_factory=list)  # threads included
    members: list[MemberSpec] = field(default_factory=list)
    features: list[str] = field(default_factory=list)

    @property
    def everyone(self) -> RoleSpec:
        return next(r for r in self.roles if r.id == self.id)

    def role(self, ref: str | int) -> RoleSpec:
        return _find(self.roles, ref, lambda r: r.name, "role")

    def channel(self, ref: str | int) -> ChannelSpec:
        return _find(self.channels, ref, lambda c: c.name, "channel")

    def member(self, ref: str | int) -> MemberSpec:
        return _find(self.members, ref, lambda m: m.user.username, "member", key_id=lambda m: m.user.id)

    def has_member(self, user_id: int) -> bool:
        return any(m.user.id == user_id for m in self.members)

    def permissions_for(self, user_id: int, channel_id: int | None = None) -> int:
        """Discord's algorithm: base role permissions, then channel overwrites (threads use their parent)."""
        if user_id == self.owner_id:
            return ALL_PERMISSIONS
        member = self.member(user_id)
        perms = self.everyone.permissions
        for role in self.roles:
            if role.id in member.roles:
                perms |= role.permissions
        if perms & ADMINISTRATOR:
            return ALL_PERMISSIONS
        if channel_id is None:
            return perms
        channel = self.channel(channel_id)
        if channel.is_thread and channel.parent_id is not None:
            channel = self.channel(channel.parent_id)
        overwrites = {(o.type, o.id): o for o in channel.overwrites}
        if (everyone := overwrites.get((0, self.id))) is not None:
            perms = (perms & ~everyone.deny) | everyone.allow
        allow = deny = 0
        for role_id in member.roles:
            if (o := overwrites.get((0, role_id))) is not None:
                allow, deny = allow | o.allow, deny | o.deny
        perms = (perms & ~deny) | allow
        if (own := overwrites.get((1, user_id))) is not None:
            perms = (perms & ~own.deny) | own.allow
        return perms


def _find(items: Sequence[T], ref: str | int, name: Callable[[T], str], what: str,
             key_id: Callable[[T], int] | None = None) -> T:
    ident = key_id or (lambda item: item.id)  # type: ignore[attr-defined]
    for item in items:
        if (isinstance(ref, int) and ident(item) == ref) or (isinstance(ref, str) and name(item) == ref):
            return item
    raise KeyError(f"no {what} {ref!r}")


def default_bot(ids: Snowflakes) -> UserSpec:
    return UserSpec(id=ids.next(), username="heyan", bot=True, global_name="Heyan")


def default_guild(ids: Snowflakes, bot: UserSpec, *, name: str = "Heyan Test Guild",
                  preferred_locale: str = "en-US") -> GuildSpec:
    """One guild: @everyone, Moderators and the bot's managed role; a category with #general,
    #mediation and an active public thread in #general; the bot, alice (owner, moderator), bob, carol."""
    guild_id = ids.next()
    alice = UserSpec(ids.next(), "alice", global_name="Alice")
    bob = UserSpec(ids.next(), "bob", global_name="Bob", locale="zh-CN")
    carol = UserSpec(ids.next(), "carol")
    everyone = RoleSpec(guild_id, "@everyone", MEMBER_PERMISSIONS)
    moderators = RoleSpec(ids.next(), "Moderators", MODERATOR_PERMISSIONS, position=2, mentionable=True)
    bot_role = RoleSpec(ids.next(), bot.username, BOT_PERMISSIONS, position=1, bot_id=bot.id)
    category = ChannelSpec(ids.next(), "Text Channels", GUILD_CATEGORY)
    general = ChannelSpec(ids.next(), "general", parent_id=category.id, topic="General chat")
    mediation = ChannelSpec(ids.next(), "mediation", parent_id=category.id, position=1)
    thread = ChannelSpec(ids.next(), "existing-thread", PUBLIC_THREAD, parent_id=general.id, owner_id=alice.id,
                         member_ids={alice.id}, message_count=1)
    return GuildSpec(
        id=guild_id, name=name, owner_id=alice.id, preferred_locale=preferred_locale,
        roles=[everyone, moderators, bot_role], channels=[category, general, mediation, thread],
        members=[MemberSpec(bot, [bot_role.id]), MemberSpec(alice, [moderators.id]), MemberSpec(bob),
                 MemberSpec(carol)],
        features=["COMMUNITY"],
    )


@dataclass
class InteractionRecord:
    """Server-side state of one interaction token: how it was acknowledged and what it produced."""

    id: int
    token: str
    type: int
    guild_id: int | None
    channel_id: int
    user: UserSpec
    message: Payload | None  # the message a component was on
    callback_type: int | None = None
    callback_data: Payload | None = None
    original: Payload | None = None  # the response message, incl. a deferred "thinking" one
    followups: list[Payload] = field(default_factory=list)
    dispatched_at: float | None = None  # on the stand-in's clock

    @property
    def loading(self) -> bool:
        return self.original is not None and bool(self.original["flags"] & LOADING)


class DiscordWorld:
    """The state behind the stand-in (guilds, messages, interactions, synced commands) and the
    builders of what Discord would send about it. ``DiscordStandIn`` serves it."""

    def __init__(self, *, bot: UserSpec | None = None, guilds: Sequence[GuildSpec] | None = None,
                 application_id: int | None = None, clock: StandInClock | None = None) -> None:
        self.ids = Snowflakes()
        self.clock = clock or StandInClock()
        self.bot_user = bot or default_bot(self.ids)
        self.application_id = application_id or self.bot_user.id  # Discord: bot id == application id
        self.guilds: list[GuildSpec] = list(guilds) if guilds is not None else [default_guild(self.ids, self.bot_user)]
        self.messages: dict[int, Payload] = {}  # every message the stand-in knows, by id
        self.interactions: dict[int, InteractionRecord] = {}
        self.commands: dict[int | None, list[Payload]] = {}  # guild id (None: global) -> synced commands
        self.dm_channels: dict[int, UserSpec] = {}  # DM channel id -> the user on the other side

    @property
    def guild(self) -> GuildSpec:
        """The first guild (the default world has exactly one)."""
        return self.guilds[0]

    # -- world lookups ------------------------------------------------------------------------------

    def user(self, ref: str | int | UserSpec) -> UserSpec:
        if isinstance(ref, UserSpec):
            return ref
        if ref in (self.bot_user.id, self.bot_user.username):
            return self.bot_user
        for guild in self.guilds:
            with contextlib.suppress(KeyError):
                return guild.member(ref).user
        raise KeyError(f"no user {ref!r}")

    def find_channel(self, channel_id: int) -> tuple[GuildSpec, ChannelSpec] | None:
        for guild in self.guilds:
            with contextlib.suppress(KeyError):
                return guild, guild.channel(channel_id)
        return None

    def _guild_channel(self, ref: str | int | ChannelSpec, guild: GuildSpec | None) -> tuple[GuildSpec, ChannelSpec]:
        if isinstance(ref, ChannelSpec):
            ref = ref.id
        if guild is not None:
            return guild, guild.channel(ref)
        for candidate in self.guilds:
            with contextlib.suppress(KeyError):
                return candidate, candidate.channel(ref)
        raise KeyError(f"no channel {ref!r}")

    def dm_channel_id(self, user: str | int | UserSpec) -> int:
        """The id of the DM channel between ``user`` and the bot (created on first use)."""
        spec = self.user(user)
        for channel_id, recipient in self.dm_channels.items():
            if recipient.id == spec.id:
                return channel_id
        channel_id = self.ids.next()
        self.dm_channels[channel_id] = spec
        return channel_id

    def add_thread(self, parent: str | int | ChannelSpec, name: str, *, owner: str | int | UserSpec = "alice",
                   type: int = PUBLIC_THREAD, guild: GuildSpec | None = None, thread_id: int | None = None,
                   invitable: bool = True) -> ChannelSpec:
        """Add a thread to the world (as if a user made it); dispatch ``thread_create_payload`` to announce it."""
        guild, parent_channel = self._guild_channel(parent, guild)
        owner_spec = self.user(owner)
        thread = ChannelSpec(thread_id or self.ids.next(), name, type, parent_id=parent_channel.id,
                             owner_id=owner_spec.id, member_ids={owner_spec.id}, invitable=invitable)
        guild.channels.append(thread)
        return thread

    # -- payloads: guilds and channels ------------------------------------------------------------

    def channel_payload(self, guild: GuildSpec, channel: ChannelSpec) -> Payload:
        data: Payload = {"id": str(channel.id), "type": channel.type, "guild_id": str(guild.id), "name": channel.name,
                         "parent_id": str(channel.parent_id) if channel.parent_id else None, "nsfw": False,
                         "rate_limit_per_user": 0, "flags": 0, "last_message_id": None}
        if channel.is_thread:
            metadata: Payload = {"archived": channel.archived, "auto_archive_duration": channel.auto_archive_duration,
                                 "archive_timestamp": channel.archive_timestamp, "locked": channel.locked,
                                 "create_timestamp": channel.created_at}
            if channel.type == PRIVATE_THREAD:
                metadata["invitable"] = channel.invitable
            data.update(owner_id=str(channel.owner_id), message_count=channel.message_count,
                        member_count=min(len(channel.member_ids), 50), total_message_sent=channel.message_count,
                        thread_metadata=metadata)
        else:
            data.update(position=channel.position, topic=channel.topic,
                        permission_overwrites=[o.payload() for o in channel.overwrites],
                        default_auto_archive_duration=1440)
        return data

    def thread_member_payload(self, thread: ChannelSpec, user_id: int) -> Payload:
        return {"id": str(thread.id), "user_id": str(user_id), "join_timestamp": thread.created_at, "flags": 0}

    def guild_create_payload(self, guild: GuildSpec, *, intents: int = ~0, joined: bool = False) -> Payload:
        """GUILD_CREATE: channels, active threads, roles, members (only the bot's own without GUILD_MEMBERS).
        At start-up it says ``unavailable: false`` (discord.py: on_guild_available); when the bot has just
        ``joined`` the key is absent (discord.py: on_guild_join)."""
        members = [m for m in guild.members if intents & GUILD_MEMBERS or m.user.id == self.bot_user.id]
        channels = [c for c in guild.channels if not c.is_thread]
        threads = [c for c in guild.channels if c.is_thread and not c.archived]
        me = next((m for m in guild.members if m.user.id == self.bot_user.id), None)
        return {
            "id": str(guild.id), "name": guild.name, "icon": None, "splash": None, "discovery_splash": None,
            "banner": None, "description": None, "owner_id": str(guild.owner_id), "region": "deprecated",
            "afk_channel_id": None, "afk_timeout": 300, "verification_level": 1, "default_message_notifications": 1,
            "explicit_content_filter": 2, "mfa_level": 0, "nsfw_level": 0, "premium_tier": 0,
            "premium_subscription_count": 0, "system_channel_id": None, "system_channel_flags": 0,
            "rules_channel_id": None, "public_updates_channel_id": None, "safety_alerts_channel_id": None,
            "vanity_url_code": None, "preferred_locale": guild.preferred_locale, "application_id": None,
            "features": list(guild.features), "emojis": [], "stickers": [], "roles": [r.payload() for r in guild.roles],
            "channels": [self.channel_payload(guild, c) for c in channels],
            "threads": [self.channel_payload(guild, c) for c in threads],
            "members": [m.payload() for m in members], "member_count": len(guild.members), "large": False,
            "joined_at": me.joined_at if me else now_iso(), "voice_states": [],
            "presences": [], "stage_instances": [], "guild_scheduled_events": [], "soundboard_sounds": [],
            "max_members": 500000, "max_video_channel_users": 25, "premium_progress_bar_enabled": False,
            "incidents_data": None,
        } | ({} if joined else {"unavailable": False})

    def guild_delete_payload(self, guild: GuildSpec | int, *, unavailable: bool = False) -> Payload:
        """GUILD_DELETE: the bot left or was removed, or (``unavailable``) an outage."""
        guild_id = guild.id if isinstance(guild, GuildSpec) else guild
        data: Payload = {"id": str(guild_id)}
        if unavailable:
            data["unavailable"] = True
        return data

    def thread_create_payload(self, thread: ChannelSpec, *, newly_created: bool = True) -> Payload:
        found = self.find_channel(thread.id)
        if found is None:
            raise KeyError(f"thread {thread.id} is not in any guild; use add_thread")
        data = self.channel_payload(found[0], thread)
        if newly_created:
            data["newly_created"] = True
        if self.bot_user.id in thread.member_ids:
            data["member"] = self.thread_member_payload(thread, self.bot_user.id)
        return data

    # -- payloads: messages -------------------------------------------------------------------

    def _mentioned_user(self, guild: GuildSpec | None, user: UserSpec) -> Payload:
        data = user.payload()
        if guild is not None and guild.has_member(user.id):
            data["member"] = guild.member(user.id).payload(with_user=False)
        return data

    def _message(self, *, channel_id: int, guild: GuildSpec | None, author: UserSpec, content: str,
                 mentions: Sequence[UserSpec], mention_roles: Sequence[int], mention_everyone: bool,
                 referenced: Payload | None = None, embeds: Sequence[Payload] = (),
                 attachments: Sequence[Payload] = (), components: Sequence[Payload] = (), flags: int = 0,
                 message_id: int | None = None, tts: bool = False, extra: Payload | None = None) -> Payload:
        data: Payload = {
            "id": str(message_id or self.ids.next()), "channel_id": str(channel_id), "type": 0,
            "author": author.payload(), "content": content, "timestamp": now_iso(), "edited_timestamp": None,
            "tts": tts, "mention_everyone": mention_everyone,
            "mentions": [self._mentioned_user(guild, u) for u in unique_users(mentions)],
            "mention_roles": [str(r) for r in dict.fromkeys(mention_roles)], "attachments": list(attachments),
            "embeds": list(embeds), "components": list(components), "pinned": False, "flags": flags,
        }
        if guild is not None:
            data["guild_id"] = str(guild.id)
            if guild.has_member(author.id):
                data["member"] = guild.member(author.id).payload(with_user=False)
        if referenced is not None:
            data["type"] = 19
            data["message_reference"] = {"type": 0, "message_id": referenced["id"],
                                         "channel_id": referenced["channel_id"]}
            if guild is not None:
                data["message_reference"]["guild_id"] = str(guild.id)
            data["referenced_message"] = {k: v for k, v in referenced.items() if k != "referenced_message"}
        data.update(extra or {})
        return data

    def _content_mentions(self, guild: GuildSpec | None, content: str) -> tuple[list[UserSpec], list[int]]:
        users = []
        for raw in _USER_MENTION.findall(content):
            with contextlib.suppress(KeyError):
                users.append(self.user(int(raw)))
        roles = [int(r) for r in _ROLE_MENTION.findall(content)
                 if guild is not None and any(role.id == int(r) for role in guild.roles)]
        return users, roles

    def message_payload(
        self, content: str = "", *, author: str | int | UserSpec = "alice", channel: str | int | ChannelSpec = "general",
        guild: GuildSpec | None = None, mentions: Sequence[str | int | UserSpec] | None = None,
        mention_roles: Sequence[int] | None = None, mention_everyone: bool | None = None,
        reply_to: Payload | int | None = None, reply_ping: bool = True, embeds: Sequence[Payload] = (),
        attachments: Sequence[Payload] = (), message_id: int | None = None,
    ) -> Payload:
        """A guild MESSAGE_CREATE. Mentions default to what ``content`` mentions (``<@id>``, ``<@&id>``,
        @everyone/@here if the author may); ``reply_to`` (a message payload or id) makes it a reply that
        also mentions the replied author when ``reply_ping``. ``{bot}`` in content becomes the bot mention."""
        content = content.replace("{bot}", f"<@{self.bot_user.id}>")
        guild, channel_spec = self._guild_channel(channel, guild)
        author_spec = self.user(author)
        parsed_users, parsed_roles = self._content_mentions(guild, content)
        users = [self.user(u) for u in mentions] if mentions is not None else parsed_users
        referenced = self.messages[int(reply_to)] if isinstance(reply_to, int | str) else reply_to
        if referenced is not None and reply_ping:
            users.append(self.user(int(referenced["author"]["id"])))
        if mention_everyone is None:
            allowed = guild.permissions_for(author_spec.id, channel_spec.id) & MENTION_EVERYONE
            mention_everyone = bool(allowed) and ("@everyone" in content or "@here" in content)
        return self._message(
            channel_id=channel_spec.id, guild=guild, author=author_spec, content=content, mentions=users,
            mention_roles=mention_roles if mention_roles is not None else parsed_roles,
            mention_everyone=mention_everyone, referenced=referenced, embeds=embeds, attachments=attachments,
            message_id=message_id)

    def dm_message_payload(self, content: str, *, author: str | int | UserSpec = "alice") -> Payload:
        """A MESSAGE_CREATE in the DM channel between ``author`` and the bot (no guild_id, no member)."""
        author_spec = self.user(author)
        users, _ = self._content_mentions(None, content)
        return self._message(channel_id=self.dm_channel_id(author_spec), guild=None, author=author_spec,
                             content=content, mentions=users, mention_roles=(), mention_everyone=False)

    def message_update_payload(self, message: Payload | int, *, content: str | None = None,
                               **changes: Any) -> Payload:
        """MESSAGE_UPDATE for an edit: the full message with ``edited_timestamp`` set, mentions recomputed."""
        data = copy.deepcopy(self.messages[int(message)] if isinstance(message, int | str) else message)
        if content is not None:
            guild = self._guild_of(data)
            users, roles = self._content_mentions(guild, content)
            data.update(content=content, mentions=[self._mentioned_user(guild, u) for u in unique_users(users)],
                        mention_roles=[str(r) for r in roles])
        data.update(changes, edited_timestamp=now_iso())
        return data

    def message_delete_payload(self, message: Payload | int) -> Payload:
        data = self.messages[int(message)] if isinstance(message, int | str) else message
        out = {"id": data["id"], "channel_id": data["channel_id"]}
        if "guild_id" in data:
            out["guild_id"] = data["guild_id"]
        return out

    def _guild_of(self, message: Payload) -> GuildSpec | None:
        found = self.find_channel(int(message["channel_id"]))
        return found[0] if found else None

    # -- payloads: interactions ---------------------------------------------------------------

    def _interaction(self, type: int, data: Payload, *, user: str | int | UserSpec,
                     channel: str | int | ChannelSpec | None, guild: GuildSpec | None, locale: str | None,
                     guild_locale: str | None, message: Payload | None = None, dm: bool = False) -> Payload:
        user_spec = self.user(user)
        interaction_id = self.ids.next()
        token = f"aW50ZXJhY3Rpb246{interaction_id}:{secrets.token_urlsafe(24)}"
        payload: Payload = {
            "id": str(interaction_id), "application_id": str(self.application_id), "type": type, "data": data,
            "token": token, "version": 1, "locale": locale or user_spec.locale, "entitlements": [],
            "attachment_size_limit": 10 * 1024 * 1024,
        }
        if dm:
            channel_id = self.dm_channel_id(user_spec)
            guild_id = None
            payload.update(channel_id=str(channel_id), user=user_spec.payload(), context=1,
                           authorizing_integration_owners={"0": str(self.application_id)},
                           app_permissions=str(BOT_PERMISSIONS),
                           channel={"id": str(channel_id), "type": DM, "last_message_id": None,
                                    "recipients": [user_spec.payload()]})
        else:
            guild_spec, channel_spec = self._guild_channel(channel if channel is not None else "general", guild)
            guild_id = guild_spec.id
            channel_id = channel_spec.id
            permissions = guild_spec.permissions_for(user_spec.id, channel_id)
            channel_data = self.channel_payload(guild_spec, channel_spec)
            channel_data["permissions"] = str(permissions)
            payload.update(
                guild_id=str(guild_id), channel_id=str(channel_id), channel=channel_data, context=0,
                guild={"id": str(guild_id), "locale": guild_spec.preferred_locale, "features": guild_spec.features},
                guild_locale=guild_locale or guild_spec.preferred_locale,
                member=guild_spec.member(user_spec.id).payload(permissions=permissions),
                app_permissions=str(guild_spec.permissions_for(self.bot_user.id, channel_id)),
                authorizing_integration_owners={"0": str(guild_id)},
            )
        if message is not None:
            payload["message"] = message
        self.interactions[interaction_id] = InteractionRecord(
            interaction_id, token, type, guild_id, channel_id, user_spec, message)
        return payload

    def _option(self, name: str, value: Any, resolved: Payload, guild: GuildSpec | None) -> Payload:
        if isinstance(value, bool):
            return {"name": name, "type": 5, "value": value}
        if isinstance(value, int):
            return {"name": name, "type": 4, "value": value}
        if isinstance(value, float):
            return {"name": name, "type": 10, "value": value}
        if isinstance(value, UserSpec):
            resolved.setdefault("users", {})[str(value.id)] = value.payload()
            if guild is not None and guild.has_member(value.id):
                member = guild.member(value.id).payload(with_user=False, permissions=guild.permissions_for(value.id))
                resolved.setdefault("members", {})[str(value.id)] = member
            return {"name": name, "type": 6, "value": str(value.id)}
        if isinstance(value, RoleSpec):
            resolved.setdefault("roles", {})[str(value.id)] = value.payload()
            return {"name": name, "type": 8, "value": str(value.id)}
        if isinstance(value, ChannelSpec):
            if guild is None:
                raise ValueError("channel options need a guild")
            channel_data = self.channel_payload(guild, value)
            channel_data["permissions"] = str(guild.permissions_for(self.bot_user.id, value.id))
            resolved.setdefault("channels", {})[str(value.id)] = channel_data
            return {"name": name, "type": 7, "value": str(value.id)}
        return {"name": name, "type": 3, "value": str(value)}

    def slash_command_payload(
        self, command: str, options: Mapping[str, Any] | None = None, *, user: str | int | UserSpec = "alice",
        channel: str | int | ChannelSpec | None = None, guild: GuildSpec | None = None, locale: str | None = None,
        guild_locale: str | None = None, focused: str | None = None, command_guild: bool | None = None,
        dm: bool = False,
    ) -> Payload:
        """INTERACTION_CREATE for ``/command [group] [subcommand]`` (type 2), or its autocomplete (type 4)
        when ``focused`` names the option being typed. Option values: str, int, float, bool, or a
        UserSpec/RoleSpec/ChannelSpec (filled into ``resolved``). The command id and ``data.guild_id``
        come from what the client synced (``command_guild`` forces guild/global scope)."""
        root, *path = command.split()
        if len(path) > 2:
            raise ValueError("Discord commands nest at most /command group subcommand")
        guild_spec = None if dm else (guild or self._guild_channel(channel or "general", guild)[0])
        resolved: Payload = {}
        leaf = []
        for name, value in (options or {}).items():
            option = self._option(name, value, resolved, guild_spec)
            if name == focused:
                option["focused"] = True
            leaf.append(option)
        nested: list[Payload] = leaf
        for depth, name in reversed(list(enumerate(path))):
            nested = [{"name": name, "type": 2 if depth == 0 and len(path) == 2 else 1, "options": nested}]
        synced, scope = self._synced_command(root, 1, guild_spec, command_guild)
        data: Payload = {"id": str(synced["id"]) if synced else str(self.ids.next()), "name": root, "type": 1,
                         "options": nested}
        if scope is not None:
            data["guild_id"] = str(scope)
        if resolved:
            data["resolved"] = resolved
        return self._interaction(4 if focused else 2, data, user=user, channel=channel, guild=guild,
                                 locale=locale, guild_locale=guild_locale, dm=dm)

    def context_menu_payload(self, name: str, target: UserSpec | Payload, *, user: str | int | UserSpec = "alice",
                             channel: str | int | ChannelSpec | None = None, guild: GuildSpec | None = None,
                             locale: str | None = None) -> Payload:
        """INTERACTION_CREATE for a user (target: UserSpec) or message (target: message payload) command."""
        guild_spec, channel_spec = self._guild_channel(channel or "general", guild)
        resolved: Payload = {}
        if isinstance(target, UserSpec):
            self._option("target", target, resolved, guild_spec)
            command_type, target_id = 2, target.id
        else:
            resolved["messages"] = {target["id"]: target}
            command_type, target_id = 3, int(target["id"])
        synced, scope = self._synced_command(name, command_type, guild_spec, None)
        data: Payload = {"id": str(synced["id"]) if synced else str(self.ids.next()), "name": name,
                         "type": command_type, "target_id": str(target_id), "resolved": resolved}
        if scope is not None:
            data["guild_id"] = str(scope)
        return self._interaction(2, data, user=user, channel=channel_spec, guild=guild_spec, locale=locale,
                                 guild_locale=None)

    def _synced_command(self, name: str, command_type: int, guild: GuildSpec | None,
                        command_guild: bool | None) -> tuple[Payload | None, int | None]:
        def find(scope: int | None) -> Payload | None:
            return next((c for c in self.commands.get(scope, [])
                         if c["name"] == name and c.get("type", 1) == command_type), None)

        if guild is not None and command_guild is not False and (found := find(guild.id)) is not None:
            return found, guild.id
        if command_guild:
            return None, guild.id if guild else None
        return find(None), None

    def component_payload(self, custom_id: str, *, message: Payload | int, user: str | int | UserSpec = "alice",
                          component_type: int = 2, values: Sequence[str] | None = None,
                          locale: str | None = None) -> Payload:
        """INTERACTION_CREATE (type 3) for a click on a button (``component_type`` 2) or a select
        (3, 5-8, with ``values``) on ``message`` (a payload, or the id of a message the stand-in knows)."""
        message_data = self.messages[int(message)] if isinstance(message, int | str) else message
        data: Payload = {"custom_id": custom_id, "component_type": component_type}
        if values is not None:
            data["values"] = list(values)
        channel_id = int(message_data["channel_id"])
        if channel_id in self.dm_channels:
            return self._interaction(3, data, user=user, channel=None, guild=None, locale=locale, guild_locale=None,
                                     message=message_data, dm=True)
        return self._interaction(3, data, user=user, channel=channel_id, guild=None, locale=locale,
                                 guild_locale=None, message=message_data)

    def modal_submit_payload(self, custom_id: str, values: Mapping[str, str], *,
                             user: str | int | UserSpec = "alice", channel: str | int | ChannelSpec | None = None,
                             modal: Payload | None = None, message: Payload | None = None,
                             locale: str | None = None) -> Payload:
        """INTERACTION_CREATE (type 5) submitting text inputs ``values`` (custom_id -> text). Given the
        ``modal`` the bot sent (the ``data`` of its type-9 callback), the submission mirrors its layout
        (action rows or labels) as Discord does; otherwise each value comes in its own action row."""
        if modal is not None:
            components = [_submitted(c, values) for c in modal.get("components", [])]
        else:
            components = [{"type": 1, "components": [{"type": 4, "custom_id": k, "value": v}]}
                          for k, v in values.items()]
        data: Payload = {"custom_id": custom_id, "components": components}
        return self._interaction(5, data, user=user, channel=channel, guild=None, locale=locale, guild_locale=None,
                                 message=message)

    def _apply(self, event: str, payload: Payload) -> None:
        if event in ("MESSAGE_CREATE", "MESSAGE_UPDATE"):
            self.messages[int(payload["id"])] = payload
            found = self.find_channel(int(payload["channel_id"]))
            if event == "MESSAGE_CREATE" and found and found[1].is_thread:
                found[1].message_count += 1
        elif event == "MESSAGE_DELETE":
            self.messages.pop(int(payload["id"]), None)
        elif event == "INTERACTION_CREATE" and (record := self.interactions.get(int(payload["id"]))):
            record.dispatched_at = self.clock.now()
        elif event in ("THREAD_DELETE", "CHANNEL_DELETE"):
            if (found := self.find_channel(int(payload["id"]))) is not None:
                found[0].channels.remove(found[1])
        elif event == "GUILD_DELETE" and not payload.get("unavailable"):
            self.guilds = [g for g in self.guilds if g.id != int(payload["id"])]


def unique_users(users: Sequence[UserSpec]) -> list[UserSpec]:
    return list({u.id: u for u in users}.values())


def _submitted(component: Payload, values: Mapping[str, str]) -> Payload:
    """The submission of one modal component: rows and labels recurse, text inputs carry a value."""
    kind = component.get("type")
    if kind == 1:
        return {"type": 1, "components": [_submitted(c, values) for c in component.get("components", [])]}
    if kind == 18:
        return {"type": 18, "id": component.get("id", 0), "component": _submitted(component["component"], values)}
    submitted: Payload = {"type": kind, "custom_id": component.get("custom_id"), "id": component.get("id", 0)}
    if kind == 4:
        submitted["value"] = values.get(component.get("custom_id", ""), "")
    else:
        submitted["values"] = list(values.get(component.get("custom_id", ""), []))
    return submitted
