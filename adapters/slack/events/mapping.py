"""Slack's ids and text in Heyan's terms: tenant, session, message, speaker, actor.

Tenant ``slack:<team>`` (Grid: ``slack:<enterprise>:<team>``); session ``<channel>[:<thread ts>]``
(refined by ``adapters.slack.events.places``); message ``<channel>:<ts>``, which edits and deletions name too.
Private channels and DMs are private sessions; a user's ``tz`` and ``locale`` give zone and language;
admins, owners and moderator user groups moderate. Slack markup becomes readable text (``@bob``,
``label (https://x)``), so memory holds no live markup; lookups are cached per process (rate limits).
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

from slack_sdk.errors import SlackApiError, SlackClientError
from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack.display.texts import t
from bot.actors import Actor, Capability
from bot.config.tenants import TenantConfig
from bot.models import Message
from memory.errors import HeyanError
from memory.models import Lang, Scope, Visibility

__all__ = [
    "Directory",
    "MalformedPayload",
    "People",
    "Profile",
    "mentioned_users",
    "message_id",
    "readable",
    "session_of",
    "slack_time",
    "split_session",
    "tenant_from",
    "tenant_of",
]

log = logging.getLogger(__name__)

#: How long a cached users.info / conversations.info / group answer is used (seconds).
CACHE_SECONDS = 600.0

_MARKUP = re.compile(r"<([^<>]*)>")
_USER = re.compile(r"<@([UW][A-Z0-9]+)(?:\|[^<>]*)?>")
_V = TypeVar("_V")


class MalformedPayload(HeyanError, ValueError):
    """A Slack payload lacks what every payload of its kind carries (a team, a channel, a user)."""


# --- ids -----------------------------------------------------------------------------------------


def tenant_of(team_id: str, enterprise_id: str | None = None) -> str:
    """``slack:<team>``, or ``slack:<enterprise>:<team>`` on Enterprise Grid."""
    if not team_id:
        raise MalformedPayload("no team id")
    return f"slack:{enterprise_id}:{team_id}" if enterprise_id else f"slack:{team_id}"


def tenant_from(context: Mapping[str, Any], body: Mapping[str, Any]) -> str:
    """The tenant of a request: bolt's context (which reads ``authorizations`` first, right for
    shared channels), else the payload's own team fields."""
    team = context.get("team_id") or body.get("team_id")
    if not team and isinstance(body.get("team"), Mapping):
        team = body["team"].get("id")
    if not team and isinstance(body.get("user"), Mapping):
        team = body["user"].get("team_id")
    enterprise = context.get("enterprise_id") or body.get("enterprise_id")
    return tenant_of(str(team or ""), str(enterprise) if enterprise else None)


def session_of(channel: str, thread_ts: str | None = None, ts: str | None = None) -> str:
    """``<channel>:<thread ts>`` for a reply in a thread; ``<channel>`` for everything else
    (a thread's parent has ``thread_ts == ts``)."""
    if not channel:
        raise MalformedPayload("no channel")
    if thread_ts and thread_ts != ts:
        return f"{channel}:{thread_ts}"
    return channel


def split_session(session: str) -> tuple[str, str | None]:
    """``(channel, thread ts or None)`` of a session id."""
    channel, _, thread = session.partition(":")
    return channel, (thread or None)


def message_id(channel: str, ts: str) -> str:
    return f"{channel}:{ts}"


def slack_time(ts: str) -> datetime:
    """A Slack ``ts`` ("1700000000.000100") as an aware UTC datetime."""
    try:
        return datetime.fromtimestamp(float(ts), UTC)
    except (TypeError, ValueError):
        raise MalformedPayload(f"not a Slack timestamp: {ts!r}") from None


# --- text ----------------------------------------------------------------------------------------


def mentioned_users(text: str) -> list[str]:
    """The user ids ``<@U…>`` markup in ``text`` names, in order, each once."""
    return list(dict.fromkeys(_USER.findall(text)))


def _unescape(text: str) -> str:
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def readable(text: str, names: Mapping[str, str] | None = None, *, drop: Iterable[str] = ()) -> str:
    """Slack message text as people read it: ``<@U1>`` → ``@name``, ``<!channel>`` → ``@channel``,
    ``<#C1|general>`` → ``#general``, ``<url|label>`` → ``label (url)``, entities unescaped.
    Mentions of the users in ``drop`` (the bot itself) are removed."""
    names = names or {}
    dropped = set(drop)

    def one(match: re.Match[str]) -> str:
        inner = match.group(1)
        target, _, label = inner.partition("|")
        if target.startswith("@"):
            user = target[1:]
            if user in dropped:
                return ""
            return "@" + (names.get(user) or label or user)
        if target.startswith("#"):
            return "#" + (label or target[1:])
        if target.startswith("!subteam^"):
            return label if label.startswith("@") else "@" + (label or target.removeprefix("!subteam^"))
        if target.startswith("!date^"):
            return label
        if target.startswith("!"):
            return "@" + target[1:]
        address = target.removeprefix("mailto:")
        return f"{label} ({address})" if label and label != address else address

    plain = _unescape(_MARKUP.sub(one, text))
    return re.sub(r"[ \t]{2,}", " ", plain).strip()


# --- lookups -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Profile:
    """What Heyan needs to know about a Slack user."""

    id: str
    name: str
    tz: str | None = None
    locale: str | None = None
    is_admin: bool = False
    is_owner: bool = False
    is_bot: bool = False


class _Cache:
    """A small TTL cache (per process): values expire after ``ttl`` seconds."""

    def __init__(self, ttl: float, clock: Callable[[], float]) -> None:
        self.ttl = ttl
        self.clock = clock
        self._data: dict[str, tuple[float, Any]] = {}

    def get(self, key: str) -> Any | None:
        hit = self._data.get(key)
        if hit is None or hit[0] < self.clock():
            return None
        return hit[1]

    def put(self, key: str, value: _V) -> _V:
        if len(self._data) > 10_000:  # bound memory: drop expired entries, or everything
            now = self.clock()
            self._data = {k: v for k, v in self._data.items() if v[0] >= now}
            if len(self._data) > 10_000:
                self._data.clear()
        self._data[key] = (self.clock() + self.ttl, value)
        return value


class Directory:
    """Cached Slack lookups: users, conversations, user groups. A failed lookup never stops an
    event: it degrades (no zone, not a moderator, a private session) and is logged."""

    def __init__(self, client: AsyncWebClient, *, ttl: float = CACHE_SECONDS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.client = client
        self._users = _Cache(ttl, clock)
        self._channels = _Cache(ttl, clock)
        self._groups = _Cache(ttl, clock)

    def cached(self, user_id: str) -> Profile | None:
        """The profile if it is cached (no Slack call): for answers due before any lookup."""
        found = self._users.get(user_id)
        return found if isinstance(found, Profile) else None

    async def user(self, user_id: str) -> Profile:
        cached = self._users.get(user_id)
        if isinstance(cached, Profile):
            return cached
        try:
            data = (await self.client.users_info(user=user_id, include_locale=True))["user"]
        except (SlackApiError, SlackClientError, OSError, TimeoutError) as exc:
            log.warning("users.info %s failed (%s): no zone, locale or admin flag for them", user_id, exc)
            return Profile(id=user_id, name=user_id)
        profile = data.get("profile") or {}
        name = (profile.get("display_name") or profile.get("real_name") or data.get("real_name")
                or data.get("name") or user_id)
        return self._users.put(user_id, Profile(
            id=user_id, name=str(name), tz=data.get("tz") or None, locale=data.get("locale") or None,
            is_admin=bool(data.get("is_admin")), is_owner=bool(data.get("is_owner") or data.get("is_primary_owner")),
            is_bot=bool(data.get("is_bot")),
        ))

    async def names(self, user_ids: Iterable[str]) -> dict[str, str]:
        return {u: (await self.user(u)).name for u in dict.fromkeys(user_ids)}

    async def visibility(self, channel: str) -> Visibility:
        """Private for private channels, group DMs and DMs; private too when Slack will not say
        (failing safe: a private record is never recited elsewhere)."""
        cached = self._channels.get(channel)
        if isinstance(cached, Visibility):
            return cached
        try:
            info = (await self.client.conversations_info(channel=channel))["channel"]
        except (SlackApiError, SlackClientError, OSError, TimeoutError) as exc:
            log.warning("conversations.info %s failed (%s): treating it as private", channel, exc)
            return Visibility.PRIVATE
        private = any(bool(info.get(k)) for k in ("is_private", "is_im", "is_mpim", "is_group"))
        return self._channels.put(channel, Visibility.PRIVATE if private else Visibility.PUBLIC)

    async def group_members(self, group: str) -> frozenset[str]:
        """Members of a user group given by id (``S…``) or handle (``moderators`` / ``@moderators``)."""
        cached = self._groups.get(group)
        if isinstance(cached, frozenset):
            return cached
        try:
            group_id = group if re.fullmatch(r"S[A-Z0-9]+", group) else await self._group_id(group)
            users: frozenset[str] = frozenset()
            if group_id:
                users = frozenset((await self.client.usergroups_users_list(usergroup=group_id))["users"])
        except (SlackApiError, SlackClientError, OSError, TimeoutError) as exc:
            log.warning("members of the user group %s are unknown (%s): nobody is a moderator by it", group, exc)
            return frozenset()
        return self._groups.put(group, users)

    async def group_handles(self) -> dict[str, str]:
        """User group id → handle (for showing a group without pinging it); empty if unknown."""
        cached = self._groups.get("\x00handles")
        if isinstance(cached, dict):
            return cached
        try:
            groups = (await self.client.usergroups_list())["usergroups"]
        except (SlackApiError, SlackClientError, OSError, TimeoutError) as exc:
            log.warning("usergroups.list failed (%s): groups are shown by id", exc)
            return {}
        return self._groups.put("\x00handles", {str(g["id"]): str(g.get("handle") or g["id"]) for g in groups})

    async def _group_id(self, handle: str) -> str | None:
        handle = handle.lstrip("@")
        for g in (await self.client.usergroups_list())["usergroups"]:
            if g.get("handle") == handle or g.get("name") == handle:
                return str(g["id"])
        log.warning("no user group with the handle %s (HEYAN_SLACK_MODERATOR_GROUP)", handle)
        return None


class People:
    """Turns one workspace's Slack users and events into ``Actor``s and ``Message``s.

    Moderators are the workspace's admins and owners, the members of ``HEYAN_SLACK_MODERATOR_GROUP``
    (the deployment's default) and of the user groups the workspace's own moderators set
    (``/heyan settings moderators``: the tenant's ``moderator_roles``)."""

    def __init__(self, directory: Directory, tenants: TenantConfig, *, tenant: str = "", bot_user_id: str,
                 moderator_group: str | None = None) -> None:
        self.directory = directory
        self.tenants = tenants
        self.tenant = tenant
        self.bot_user_id = bot_user_id
        self.moderator_group = moderator_group

    async def moderator_groups(self, tenant: str) -> list[str]:
        """The user groups whose members moderate in ``tenant``."""
        groups = list((await self.tenants.get(tenant)).moderator_roles)
        if self.moderator_group and self.moderator_group not in groups:
            groups.insert(0, self.moderator_group)
        return groups

    async def lang(self, tenant: str, profile: Profile) -> Lang:
        """The workspace's ``language`` when set, else the user's locale (``zh*`` → Chinese)."""
        setting = (await self.tenants.get(tenant)).language
        if setting != "auto":
            return setting
        return "zh" if (profile.locale or "").lower().startswith("zh") else "en"

    def hint(self, lang: Lang, groups: Iterable[str] = ()) -> str:
        names = ", ".join(groups) or self.moderator_group
        if names:
            return t("moderator.hint.group", lang, group=names)
        return t("moderator.hint", lang)

    async def actor(self, tenant: str, user_id: str) -> Actor:
        profile = await self.directory.user(user_id)
        moderator = profile.is_admin or profile.is_owner
        groups = await self.moderator_groups(tenant)
        for group in groups:
            if moderator:
                break
            moderator = user_id in await self.directory.group_members(group)
        lang = await self.lang(tenant, profile)
        return Actor(tenant=tenant, user_id=user_id, name=profile.name,
                     capabilities=frozenset({Capability.MODERATE}) if moderator else frozenset(),
                     lang=lang, moderator_hint=self.hint(lang, groups))

    async def text(self, raw: str) -> str:
        """``raw`` Slack text made readable, with the bot's own mention removed."""
        others = [u for u in mentioned_users(raw) if u != self.bot_user_id]
        return readable(raw, await self.directory.names(others), drop=[self.bot_user_id])

    async def message(self, tenant: str, event: Mapping[str, Any], *, mention: bool,
                      session: str | None = None) -> Message:
        """A Slack message event (or the ``message`` of a ``message_changed``, or a message read
        from history) as a ``Message`` of ``session`` (default: its thread or channel)."""
        channel, ts, user = event.get("channel"), event.get("ts"), event.get("user")
        if not (isinstance(channel, str) and isinstance(ts, str) and isinstance(user, str)):
            raise MalformedPayload("a message needs channel, ts and user")
        profile = await self.directory.user(user)
        session = session or session_of(channel, event.get("thread_ts"), ts)
        return Message(
            id=message_id(channel, ts),
            scope=Scope(tenant=tenant, session=session, user=user),
            author_name=profile.name,
            text=await self.text(str(event.get("text") or "")),
            ts=slack_time(ts),
            mention=mention,
            visibility=await self.directory.visibility(channel),
            speaker_zone=profile.tz,
        )
