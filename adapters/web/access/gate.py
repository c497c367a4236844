"""Who is calling the console, and as which ``Actor`` they reach a tenant.

A ``Principal`` is the local operator, a signed-in Discord or Slack user, or an API token.
``Gate.actor`` asks the platform what they moderate (cached ``HEYAN_WEB_RECHECK_SECONDS``) and refuses a
tenant they are not a member of; the service refuses the rest, as for every surface.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from adapters.web.access.communities import CommunityNames, fallback_label
from adapters.web.access.platforms import DiscordSignIn, Guild, SlackSignIn
from adapters.web.access.sessions import WebSession
from adapters.web.access.tokens import ApiToken
from bot.actors import Actor, Capability, PermissionDenied
from bot.moderation import ModerationService
from memory.models import Lang

__all__ = ["Community", "Gate", "Principal"]

PrincipalKind = Literal["operator", "discord", "slack", "token"]
_MODERATE = frozenset({Capability.MODERATE})


@dataclass(frozen=True, slots=True)
class Principal:
    """The caller of one request. ``session`` is set for a browser signed in with a cookie (its
    forms and calls that change something need the session's CSRF token); ``token`` for scripts."""

    kind: PrincipalKind
    user_id: str
    name: str
    session: WebSession | None = None
    token: ApiToken | None = None

    @property
    def read_only(self) -> bool:
        return self.token is not None and self.token.read_only


@dataclass(frozen=True, slots=True)
class Community:
    """A tenant as the console lists it."""

    id: str
    name: str
    platform: str


def platform_of(tenant: str) -> str:
    return tenant.split(":", 1)[0]


def _hint(kind: PrincipalKind, lang: Lang, discord_role: str, slack_group: str) -> str:
    if kind == "discord":
        role = f" 或 “{discord_role}” 身份组" if lang == "zh" and discord_role else (
            f" or the “{discord_role}” role" if discord_role else "")
        return (f"在 Discord 上：需要“管理消息”权限{role}" if lang == "zh"
                else f"on Discord: the Manage Messages permission{role}")
    if kind == "slack":
        group = (f" 或 {slack_group} 用户组成员" if lang == "zh" else f" or a member of {slack_group}") if slack_group else ""
        return (f"在 Slack 上：需要工作区管理员或所有者{group}" if lang == "zh"
                else f"on Slack: a workspace admin or owner{group}")
    return ""


class Gate:
    """Principal + tenant → Actor, with the platform's answers cached for ``ttl`` seconds."""

    def __init__(self, moderation: ModerationService, *, discord: DiscordSignIn | None = None,
                 slack: SlackSignIn | None = None, ttl: float = 60.0,
                 clock: Callable[[], float] = time.monotonic, names: CommunityNames | None = None) -> None:
        self.moderation = moderation
        self.discord = discord
        self.slack = slack
        self.names = names
        self.ttl = ttl
        self.clock = clock
        self._guilds: dict[str, tuple[float, dict[str, Guild]]] = {}
        self._moderates: dict[tuple[str, str], tuple[float, bool]] = {}

    def forget(self, session_key: str) -> None:
        """Drop what was cached for a session (sign-out)."""
        self._guilds.pop(session_key, None)
        self._moderates = {k: v for k, v in self._moderates.items() if k[0] != session_key}

    async def _discord_guilds(self, session: WebSession) -> dict[str, Guild]:
        assert self.discord is not None
        now = self.clock()
        held = self._guilds.get(session.key)
        if held is not None and held[0] > now:
            return held[1]
        guilds = {g.id: g for g in await self.discord.guilds(session.access_token)}
        if len(self._guilds) > 10_000:
            self._guilds = {k: v for k, v in self._guilds.items() if v[0] > now}
        self._guilds[session.key] = (now + self.ttl, guilds)
        return guilds

    async def _roles(self, tenant: str) -> list[str]:
        """The community's own moderator roles (Discord role ids, Slack user-group ids)."""
        return list((await self.moderation.tenants.get(tenant)).moderator_roles)

    async def _moderator(self, principal: Principal, tenant: str) -> bool | None:
        """Does the platform say the principal moderates ``tenant``? None: not a member of it at all."""
        session = principal.session
        if principal.kind == "operator":
            return True
        if principal.kind == "token":
            return True if principal.token is not None and principal.token.tenant == tenant else None
        if session is None:
            return None
        cache_key = (session.key, tenant)
        held = self._moderates.get(cache_key)
        if held is not None and held[0] > self.clock():
            return held[1]
        answer: bool | None
        if principal.kind == "discord" and self.discord is not None:
            guild = (await self._discord_guilds(session)).get(tenant.removeprefix("discord:"))
            if not tenant.startswith("discord:") or tenant.startswith("discord:dm:") or guild is None:
                return None
            answer = guild.moderator or await self.discord.has_moderator_role(
                guild.id, principal.user_id, await self._roles(tenant))
        elif principal.kind == "slack" and self.slack is not None:
            if tenant != session.tenant:
                return None
            if not await self.slack.installed(tenant):
                raise PermissionDenied(
                    f"Heyan is not installed in the Slack workspace you signed in to ({session.team_name or tenant}); "
                    "install it there first, then sign in again",
                    f"和言没有安装在你登录的 Slack 工作区（{session.team_name or tenant}）；请先安装，再重新登录")
            answer = await self.slack.is_moderator(principal.user_id, await self._roles(tenant))
        else:
            return None
        self._moderates[cache_key] = (self.clock() + self.ttl, answer)
        return answer

    async def actor(self, principal: Principal, tenant: str, lang: Lang) -> Actor:
        """The actor the moderation service sees for this caller in ``tenant``; PermissionDenied
        when the caller is not part of that community at all (or a token is for another one)."""
        if principal.kind == "operator":
            await self.moderation.check_tenant(tenant)  # a mistyped community is an error, not an empty page
            return Actor.operator(tenant, lang=lang)
        moderates = await self._moderator(principal, tenant)
        if moderates is None:
            if principal.token is not None:
                raise PermissionDenied(f"this API token is for {principal.token.tenant}, not {tenant}",
                                       f"这个 API 令牌属于 {principal.token.tenant}，不是 {tenant}")
            raise PermissionDenied(f"you are not a member of {tenant} (as {principal.kind.title()} reports it)",
                                   f"你不是 {tenant} 的成员（据 {principal.kind.title()} 所示）")
        # not counted against the chat commands' limits: the console counts its own (adapters.web.access.throttle)
        if principal.token is not None:
            return Actor(tenant=tenant, user_id=principal.token.actor_id, name=principal.token.label or "API token",
                         capabilities=_MODERATE, lang=lang, unlimited=True)
        discord_role = self.discord.moderator_role if self.discord is not None else ""
        slack_group = self.slack.moderator_group if self.slack is not None else ""
        return Actor(tenant=tenant, user_id=principal.user_id, name=principal.name,
                     capabilities=_MODERATE if moderates else frozenset(), lang=lang,
                     moderator_hint=_hint(principal.kind, lang, discord_role, slack_group), unlimited=True)

    async def communities(self, principal: Principal, lang: Lang = "en") -> list[Community]:
        """The communities the caller moderates and Heyan knows (it holds memories, summaries or
        settings for them), by name, sorted by name. Names the platform gives are remembered
        (``CommunityNames``) for callers who sign in without one (the operator, API tokens)."""
        known = await self.moderation.tenant_ids()
        names: dict[str, str] = {}
        if principal.kind == "operator":
            names = dict.fromkeys(known, "")
        elif principal.token is not None:
            names = {principal.token.tenant: ""}
        elif principal.kind == "discord" and principal.session is not None and self.discord is not None:
            guilds = await self._discord_guilds(principal.session)
            for tenant in known:
                guild = guilds.get(tenant.removeprefix("discord:"))
                if guild is not None and tenant.startswith("discord:") and await self._moderator(principal, tenant):
                    names[tenant] = guild.name
        elif principal.kind == "slack" and principal.session is not None:
            tenant = principal.session.tenant
            try:
                moderates = await self._moderator(principal, tenant)
            except PermissionDenied:  # not installed there: nothing to list
                moderates = False
            if moderates:
                names[tenant] = principal.session.team_name or principal.session.team_domain
        if self.names is not None:
            await self.names.learn({t: n for t, n in names.items() if n})
            held = await self.names.names([t for t, n in names.items() if not n])
            names = {t: n or held.get(t, "") for t, n in names.items()}
        return sorted((Community(t, n or fallback_label(t, lang), platform_of(t)) for t, n in names.items()),
                      key=lambda c: (c.name.casefold(), c.id))

    async def label(self, tenant: str, lang: Lang = "en") -> str:
        """What the console calls ``tenant``: its platform name when seen, else a label from its id."""
        return await self.names.label(tenant, lang) if self.names is not None else fallback_label(tenant, lang)
