"""Signing in with Discord (OAuth2, scopes ``identify guilds``) and Slack (Sign in with Slack, OpenID
Connect), and asking the platform, as its documentation describes, who moderates what.

Moderators are decided as each adapter decides them (``adapters.discord.events.mapping.is_moderator``,
``adapters.slack.events.mapping.People.actor``). Errors: ``SignInFailed`` (sign in again) and
``PlatformUnavailable`` (try later). Nothing here caches; the gate does.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import httpx

from bot.config.settings import Settings
from memory.errors import HeyanError

__all__ = [
    "ADMINISTRATOR",
    "MANAGE_MESSAGES",
    "DiscordSignIn",
    "Guild",
    "Identity",
    "PlatformUnavailable",
    "SignInFailed",
    "SlackSignIn",
]

log = logging.getLogger(__name__)

#: Discord permission bits (https://discord.com/developers/docs/topics/permissions).
ADMINISTRATOR = 1 << 3
MANAGE_MESSAGES = 1 << 13
DISCORD_API = "https://discord.com/api/v10"
SLACK_API = "https://slack.com/api/"
#: Discord returns at most 200 guilds per page.
_GUILD_PAGE = 200


class SignInFailed(HeyanError):
    """The platform refused the sign-in (a bad or used code, a revoked token): sign in again."""


class PlatformUnavailable(HeyanError):
    """The platform could not be asked (network, 5xx, rate limited): try again later."""


@dataclass(frozen=True, slots=True)
class Identity:
    """Who signed in: the platform user id and name, the access token, and (Slack) the workspace."""

    user_id: str
    name: str
    access_token: str
    locale: str = ""
    tenant: str = ""
    team_name: str = ""
    team_domain: str = ""


@dataclass(frozen=True, slots=True)
class Guild:
    """A Discord server the user is in, and whether they moderate it by their permissions."""

    id: str
    name: str
    moderator: bool


def slack_tenant(team_id: str, enterprise_id: str = "") -> str:
    """The Slack adapter's tenant id (``adapters.slack.events.mapping.tenant_of``): ``slack:<team>``, or
    ``slack:<enterprise>:<team>`` on Enterprise Grid. Kept here so signing in needs no slack_sdk."""
    return f"slack:{enterprise_id}:{team_id}" if enterprise_id else f"slack:{team_id}"


async def _send(http: httpx.AsyncClient, method: str, url: str, what: str, **kw: Any) -> httpx.Response:
    try:
        response = await http.request(method, url, **kw)
    except httpx.HTTPError as exc:
        raise PlatformUnavailable(f"could not reach {what}: {type(exc).__name__}") from exc
    if response.status_code == 429 or response.status_code >= 500:
        raise PlatformUnavailable(f"{what} answered {response.status_code}; try again in a moment")
    return response


class DiscordSignIn:
    """Discord OAuth2 for the console.

    ``POST /oauth2/token`` (client id and secret as HTTP Basic) exchanges the code; ``/users/@me`` and
    ``/users/@me/guilds`` name the user and their guild-wide permissions. Moderator roles need the bot
    token (``/guilds/{id}/members/{user}`` and ``/roles``): ``identify guilds`` shows no roles.
    """

    def __init__(self, settings: Settings, http: httpx.AsyncClient) -> None:
        web = settings.web
        assert web.discord_client_id and web.discord_client_secret and web.base_url
        self.client_id = web.discord_client_id
        self.client_secret = web.discord_client_secret.get_secret_value()
        self.redirect_uri = f"{web.base_url}/auth/discord/callback"
        self.authorize = web.discord_authorize_url
        self.api = (settings.discord.api_url or DISCORD_API).rstrip("/")
        bot = settings.discord.token
        self.bot_token = bot.get_secret_value() if bot else None
        self.moderator_role = (settings.discord.moderator_role or "").strip()
        self.http = http

    def authorize_url(self, state: str) -> str:
        query = {"response_type": "code", "client_id": self.client_id, "scope": "identify guilds",
                 "redirect_uri": self.redirect_uri, "state": state, "prompt": "none"}
        return f"{self.authorize}?{urlencode(query)}"

    async def sign_in(self, code: str) -> Identity:
        """Exchange the code and name the user."""
        response = await _send(self.http, "POST", f"{self.api}/oauth2/token", "Discord", data={
            "grant_type": "authorization_code", "code": code, "redirect_uri": self.redirect_uri,
        }, auth=(self.client_id, self.client_secret))
        if response.status_code != 200:
            raise SignInFailed(f"Discord refused the sign-in code ({_error(response)}); sign in again")
        token = str(response.json().get("access_token") or "")
        if not token:
            raise SignInFailed("Discord sent no access token; sign in again")
        me = await self._get("/users/@me", token)
        name = me.get("global_name") or me.get("username") or str(me["id"])
        return Identity(user_id=str(me["id"]), name=str(name), access_token=token, locale=str(me.get("locale") or ""))

    async def _get(self, path: str, token: str, *, bot: bool = False, params: dict[str, Any] | None = None) -> Any:
        auth = f"Bot {token}" if bot else f"Bearer {token}"
        response = await _send(self.http, "GET", f"{self.api}{path}", "Discord", headers={"Authorization": auth},
                               params=params)
        if response.status_code == 401 and not bot:
            raise SignInFailed("Discord no longer accepts this sign-in; sign in again")
        if response.status_code != 200:
            raise PlatformUnavailable(f"Discord answered {response.status_code} to {path} ({_error(response)})")
        return response.json()

    async def guilds(self, token: str) -> list[Guild]:
        """The user's servers, each with the moderator flag their guild-wide permissions give."""
        out: list[Guild] = []
        after = "0"
        while True:
            page = await self._get("/users/@me/guilds", token, params={"limit": _GUILD_PAGE, "after": after})
            for g in page:
                perms = int(g.get("permissions") or 0)
                moderator = bool(g.get("owner")) or bool(perms & (MANAGE_MESSAGES | ADMINISTRATOR))
                out.append(Guild(id=str(g["id"]), name=str(g.get("name") or g["id"]), moderator=moderator))
            if len(page) < _GUILD_PAGE:
                return out
            after = str(page[-1]["id"])

    async def has_moderator_role(self, guild_id: str, user_id: str, roles: Sequence[str] = ()) -> bool:
        """The user holds ``HEYAN_DISCORD_MODERATOR_ROLE`` (by id or name) or one of the community's
        ``moderator_roles`` (ids) in the guild; False without either, without the bot token, or when
        the bot is not in that guild."""
        if not ((self.moderator_role or roles) and self.bot_token):
            return False
        try:
            member = await self._get(f"/guilds/{guild_id}/members/{user_id}", self.bot_token, bot=True)
        except PlatformUnavailable as exc:
            log.warning("cannot read the roles of %s in guild %s (%s): not a moderator by role", user_id, guild_id, exc)
            return False
        held = {str(r) for r in member.get("roles") or ()}
        if held & {*roles, self.moderator_role}:
            return True
        if not self.moderator_role or self.moderator_role.isdigit():
            return False
        named = await self._get(f"/guilds/{guild_id}/roles", self.bot_token, bot=True)
        wanted = self.moderator_role.casefold()
        return any(str(r["id"]) in held and str(r.get("name", "")).casefold() == wanted for r in named)


class SlackSignIn:
    """Sign in with Slack (OpenID Connect) for the console.

    ``openid.connect.token`` and ``.userInfo`` name the user and workspace; ``auth.test`` with the bot
    token names the workspace Heyan is in (only a sign-in there reaches anything). Sign-in tells
    nothing of admin rights, so the bot token asks ``users.info`` and the moderator user group's
    members; without it nobody moderates through Slack sign-in.
    """

    def __init__(self, settings: Settings, http: httpx.AsyncClient) -> None:
        web = settings.web
        assert web.slack_client_id and web.slack_client_secret and web.base_url
        self.client_id = web.slack_client_id
        self.client_secret = web.slack_client_secret.get_secret_value()
        self.redirect_uri = f"{web.base_url}/auth/slack/callback"
        self.authorize = web.slack_authorize_url
        api = settings.slack.api_url or SLACK_API
        self.api = api if api.endswith("/") else api + "/"
        bot = settings.slack.bot_token
        self.bot_token = bot.get_secret_value() if bot else None
        self.moderator_group = (settings.slack.moderator_group or "").strip()
        self.http = http
        #: The tenant of the bot token's own workspace (``auth.test``, asked once).
        self._home: str | None = None

    def authorize_url(self, state: str, nonce: str) -> str:
        query = {"response_type": "code", "client_id": self.client_id, "scope": "openid profile",
                 "redirect_uri": self.redirect_uri, "state": state, "nonce": nonce}
        return f"{self.authorize}?{urlencode(query)}"

    async def _call(self, method: str, token: str, **data: Any) -> dict[str, Any]:
        response = await _send(self.http, "POST", f"{self.api}{method}", "Slack", data=data or None,
                               headers={"Authorization": f"Bearer {token}"} if token else None)
        if response.status_code != 200:
            raise PlatformUnavailable(f"Slack answered {response.status_code} to {method}")
        body: dict[str, Any] = response.json()
        return body

    async def sign_in(self, code: str) -> Identity:
        token_answer = await self._call("openid.connect.token", "", client_id=self.client_id,
                                        client_secret=self.client_secret, code=code, redirect_uri=self.redirect_uri)
        if not token_answer.get("ok"):
            raise SignInFailed(f"Slack refused the sign-in code ({token_answer.get('error')}); sign in again")
        token = str(token_answer.get("access_token") or "")
        info = await self._call("openid.connect.userInfo", token)
        if not info.get("ok"):
            raise SignInFailed(f"Slack would not say who signed in ({info.get('error')}); sign in again")
        user = str(info.get("https://slack.com/user_id") or info.get("sub") or "")
        team = str(info.get("https://slack.com/team_id") or "")
        if not (user and team):
            raise SignInFailed("Slack's answer named no user or workspace; sign in again")
        return Identity(
            user_id=user, name=str(info.get("name") or info.get("given_name") or user), access_token=token,
            locale=str(info.get("locale") or ""),
            tenant=slack_tenant(team, str(info.get("https://slack.com/enterprise_id") or "")),
            team_name=str(info.get("https://slack.com/team_name") or team),
            team_domain=str(info.get("https://slack.com/team_domain") or ""),
        )

    async def installed(self, tenant: str) -> bool:
        """Is Heyan installed in the workspace of ``tenant``? The bot token's own workspace is
        (``auth.test``, asked once per process); any other is not, and without a bot token none is.
        A workspace admin elsewhere reaches nothing here, not even its settings."""
        if not self.bot_token:
            return False
        if self._home is None:
            info = await self._call("auth.test", self.bot_token)
            if not info.get("ok"):
                raise PlatformUnavailable(f"Slack auth.test failed ({info.get('error')})")
            self._home = slack_tenant(str(info.get("team_id") or ""), str(info.get("enterprise_id") or ""))
        return tenant == self._home

    async def is_moderator(self, user_id: str, groups: Sequence[str] = ()) -> bool:
        """A workspace admin or owner, or a member of ``HEYAN_SLACK_MODERATOR_GROUP`` or of one of the
        community's ``moderator_roles`` (user-group ids), asked with the bot token; False without it."""
        if not self.bot_token:
            log.warning("HEYAN_SLACK_BOT_TOKEN is not set: Slack sign-ins cannot be checked for moderator rights")
            return False
        info = await self._call("users.info", self.bot_token, user=user_id)
        if not info.get("ok"):
            raise PlatformUnavailable(f"Slack users.info failed ({info.get('error')})")
        user = info.get("user") or {}
        if user.get("is_admin") or user.get("is_owner") or user.get("is_primary_owner"):
            return True
        for group in (*([self.moderator_group] if self.moderator_group else []), *groups):
            if not re.fullmatch(r"S[A-Z0-9]+", group):
                listed = await self._call("usergroups.list", self.bot_token)
                handle = group.lstrip("@")
                group = next((str(g["id"]) for g in listed.get("usergroups") or ()
                              if handle in (g.get("handle"), g.get("name"))), "")
                if not group:
                    continue
            members = await self._call("usergroups.users.list", self.bot_token, usergroup=group)
            if user_id in (members.get("users") or ()):
                return True
        return False


def _error(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return str(response.status_code)
    if isinstance(body, dict):
        return str(body.get("error") or body.get("message") or response.status_code)
    return str(response.status_code)
