"""A loopback stand-in of Discord's OAuth2 and REST endpoints and of Sign in with Slack, answering as
their documentation describes (the requests they expect, their answers and error answers):

Discord (https://discord.com/developers/docs/topics/oauth2):
* ``GET  /discord/oauth2/authorize`` — needs ``response_type=code``, the client id, ``scope`` with
  ``identify`` and ``guilds``, a registered ``redirect_uri``; redirects back with ``code`` and
  ``state`` (or ``error=access_denied`` when the user declines).
* ``POST /discord/api/oauth2/token`` — form ``grant_type=authorization_code``, ``code``,
  ``redirect_uri``; client credentials as HTTP Basic (or in the form). 400 ``invalid_grant`` for a
  bad, used or mismatched code; 401 ``invalid_client``.
* ``GET  /discord/api/users/@me`` and ``/users/@me/guilds`` (``limit`` ≤ 200, ``after``; partial
  guilds with ``permissions`` as a string) — Bearer; 401 ``{"message": "401: Unauthorized", "code": 0}``.
* ``GET  /discord/api/guilds/{id}/members/{user}`` and ``/guilds/{id}/roles`` — ``Bot`` token; 404
  ``Unknown Member`` (10007).

Slack (https://docs.slack.dev/authentication/sign-in-with-slack):
* ``GET  /slack/openid/connect/authorize`` — ``response_type=code``, ``scope`` with ``openid``.
* ``POST /slack/api/openid.connect.token`` — form client_id, client_secret, code, redirect_uri;
  ``{"ok": false, "error": "invalid_code"}`` and so on, always HTTP 200.
* ``POST /slack/api/openid.connect.userInfo`` — Bearer user token; the claims Slack documents.
* ``POST /slack/api/auth.test`` — the bot token's workspace (``bot_team``).
* ``POST /slack/api/users.info``, ``usergroups.list``, ``usergroups.users.list`` — bot token; a user
  of another workspace is ``user_not_found``, as for a bot installed in one workspace only.
"""

from __future__ import annotations

import base64
import secrets
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlencode

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

MANAGE_MESSAGES = 1 << 13


@dataclass
class DiscordUser:
    id: str
    name: str
    #: guild id -> (guild name, permissions bits, owner)
    guilds: dict[str, tuple[str, int, bool]] = field(default_factory=dict)
    #: guild id -> role ids
    roles: dict[str, list[str]] = field(default_factory=dict)


@dataclass
class SlackUser:
    id: str
    name: str
    team: str
    team_name: str
    team_domain: str
    admin: bool = False


@dataclass
class Standin:
    """The stand-in's state; ``app`` serves it. ``signs_in`` names who the next authorize consents as."""

    discord_client: tuple[str, str] = ("disc-client", "disc-secret")
    slack_client: tuple[str, str] = ("slack-client", "slack-secret")
    discord_bot_token: str = "discord-bot-token"
    slack_bot_token: str = "xoxb-standin"
    #: The workspace the Slack bot token belongs to (where Heyan is installed).
    bot_team: str = "T1"
    redirect_base: str = ""
    discord_users: dict[str, DiscordUser] = field(default_factory=dict)
    slack_users: dict[str, SlackUser] = field(default_factory=dict)
    roles: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    groups: dict[str, tuple[str, list[str]]] = field(default_factory=dict)
    signs_in: str = ""
    decline: bool = False
    codes: dict[str, tuple[str, str, str]] = field(default_factory=dict)  # code -> (platform, user, redirect)
    tokens: dict[str, tuple[str, str]] = field(default_factory=dict)  # access token -> (platform, user)
    calls: list[str] = field(default_factory=list)

    # --- Discord ---------------------------------------------------------------------------------

    async def discord_authorize(self, request: Request) -> Response:
        q = request.query_params
        scopes = set(q.get("scope", "").split())
        redirect = q.get("redirect_uri", "")
        if (q.get("response_type") != "code" or q.get("client_id") != self.discord_client[0]
                or not {"identify", "guilds"} <= scopes or not redirect.startswith(self.redirect_base)):
            return JSONResponse({"message": "Invalid OAuth2 redirect_uri or parameters"}, status_code=400)
        if self.decline:
            return RedirectResponse(f"{redirect}?{urlencode({'error': 'access_denied', 'state': q.get('state', '')})}",
                                    status_code=302)
        code = secrets.token_hex(10)
        self.codes[code] = ("discord", self.signs_in, redirect)
        return RedirectResponse(f"{redirect}?{urlencode({'code': code, 'state': q.get('state', '')})}", status_code=302)

    def _client(self, request: Request, form: dict[str, str]) -> tuple[str, str]:
        header = request.headers.get("authorization", "")
        if header.lower().startswith("basic "):
            cid, _, secret = base64.b64decode(header[6:]).decode().partition(":")
            return cid, secret
        return form.get("client_id", ""), form.get("client_secret", "")

    async def discord_token(self, request: Request) -> Response:
        form = {k: v[0] for k, v in parse_qs((await request.body()).decode()).items()}
        if self._client(request, form) != self.discord_client:
            return JSONResponse({"error": "invalid_client"}, status_code=401)
        if form.get("grant_type") != "authorization_code":
            return JSONResponse({"error": "unsupported_grant_type"}, status_code=400)
        held = self.codes.pop(form.get("code", ""), None)
        if held is None or held[0] != "discord" or held[2] != form.get("redirect_uri"):
            return JSONResponse({"error": "invalid_grant", "error_description": 'Invalid "code" in request.'},
                                status_code=400)
        token = secrets.token_hex(16)
        self.tokens[token] = ("discord", held[1])
        return JSONResponse({"access_token": token, "token_type": "Bearer", "expires_in": 604800,
                             "refresh_token": secrets.token_hex(16), "scope": "identify guilds"})

    def _discord_user(self, request: Request) -> DiscordUser | None:
        header = request.headers.get("authorization", "")
        held = self.tokens.get(header.removeprefix("Bearer ")) if header.startswith("Bearer ") else None
        return self.discord_users.get(held[1]) if held and held[0] == "discord" else None

    async def discord_me(self, request: Request) -> Response:
        self.calls.append("discord:/users/@me")
        user = self._discord_user(request)
        if user is None:
            return JSONResponse({"message": "401: Unauthorized", "code": 0}, status_code=401)
        return JSONResponse({"id": user.id, "username": user.name.lower(), "global_name": user.name,
                             "discriminator": "0", "avatar": None, "locale": "en-US"})

    async def discord_guilds(self, request: Request) -> Response:
        self.calls.append("discord:/users/@me/guilds")
        user = self._discord_user(request)
        if user is None:
            return JSONResponse({"message": "401: Unauthorized", "code": 0}, status_code=401)
        limit = min(200, int(request.query_params.get("limit", "200")))
        after = int(request.query_params.get("after", "0"))
        rows = [{"id": gid, "name": name, "icon": None, "owner": owner, "permissions": str(perms), "features": []}
                for gid, (name, perms, owner) in sorted(user.guilds.items(), key=lambda g: int(g[0]))
                if int(gid) > after]
        return JSONResponse(rows[:limit])

    def _bot(self, request: Request) -> bool:
        return request.headers.get("authorization") == f"Bot {self.discord_bot_token}"

    async def discord_member(self, request: Request) -> Response:
        if not self._bot(request):
            return JSONResponse({"message": "401: Unauthorized", "code": 0}, status_code=401)
        user = self.discord_users.get(request.path_params["user"])
        gid = request.path_params["guild"]
        if user is None or gid not in user.guilds:
            return JSONResponse({"message": "Unknown Member", "code": 10007}, status_code=404)
        return JSONResponse({"user": {"id": user.id, "username": user.name}, "roles": user.roles.get(gid, [])})

    async def discord_roles(self, request: Request) -> Response:
        if not self._bot(request):
            return JSONResponse({"message": "401: Unauthorized", "code": 0}, status_code=401)
        return JSONResponse(self.roles.get(request.path_params["guild"], []))

    # --- Slack -----------------------------------------------------------------------------------

    async def slack_authorize(self, request: Request) -> Response:
        q = request.query_params
        redirect = q.get("redirect_uri", "")
        if (q.get("response_type") != "code" or q.get("client_id") != self.slack_client[0]
                or "openid" not in q.get("scope", "").split() or not redirect.startswith(self.redirect_base)):
            return JSONResponse({"ok": False, "error": "invalid_request"}, status_code=400)
        code = secrets.token_hex(10)
        self.codes[code] = ("slack", self.signs_in, redirect)
        return RedirectResponse(f"{redirect}?{urlencode({'code': code, 'state': q.get('state', '')})}", status_code=302)

    async def _slack_form(self, request: Request) -> dict[str, str]:
        return {k: v[0] for k, v in parse_qs((await request.body()).decode()).items()}

    async def slack_token(self, request: Request) -> Response:
        form = await self._slack_form(request)
        if (form.get("client_id"), form.get("client_secret")) != self.slack_client:
            return JSONResponse({"ok": False, "error": "invalid_client_id"})
        held = self.codes.pop(form.get("code", ""), None)
        if held is None or held[0] != "slack":
            return JSONResponse({"ok": False, "error": "invalid_code"})
        if held[2] != form.get("redirect_uri"):
            return JSONResponse({"ok": False, "error": "bad_redirect_uri"})
        token = "xoxp-" + secrets.token_hex(12)
        self.tokens[token] = ("slack", held[1])
        return JSONResponse({"ok": True, "access_token": token, "token_type": "Bearer", "id_token": "eyJ.standin.jwt"})

    async def slack_userinfo(self, request: Request) -> Response:
        header = request.headers.get("authorization", "")
        held = self.tokens.get(header.removeprefix("Bearer "))
        user = self.slack_users.get(held[1]) if held and held[0] == "slack" else None
        if user is None:
            return JSONResponse({"ok": False, "error": "invalid_auth"})
        return JSONResponse({"ok": True, "sub": user.id, "https://slack.com/user_id": user.id,
                             "https://slack.com/team_id": user.team, "name": user.name, "given_name": user.name,
                             "locale": "en-US", "https://slack.com/team_name": user.team_name,
                             "https://slack.com/team_domain": user.team_domain})

    def _slack_bot(self, request: Request) -> bool:
        return request.headers.get("authorization") == f"Bearer {self.slack_bot_token}"

    async def slack_users_info(self, request: Request) -> Response:
        self.calls.append("slack:users.info")
        if not self._slack_bot(request):
            return JSONResponse({"ok": False, "error": "not_authed"})
        user = self.slack_users.get((await self._slack_form(request)).get("user", ""))
        if user is None or user.team != self.bot_team:
            return JSONResponse({"ok": False, "error": "user_not_found"})
        return JSONResponse({"ok": True, "user": {"id": user.id, "name": user.name, "is_admin": user.admin,
                                                  "is_owner": False, "is_primary_owner": False, "is_bot": False}})

    async def slack_auth_test(self, request: Request) -> Response:
        self.calls.append("slack:auth.test")
        if not self._slack_bot(request):
            return JSONResponse({"ok": False, "error": "invalid_auth"})
        return JSONResponse({"ok": True, "url": "https://acme.slack.com/", "team": "Acme", "user": "heyan",
                             "team_id": self.bot_team, "user_id": "UBOT", "bot_id": "BBOT"})

    async def slack_groups(self, request: Request) -> Response:
        if not self._slack_bot(request):
            return JSONResponse({"ok": False, "error": "not_authed"})
        return JSONResponse({"ok": True, "usergroups": [{"id": gid, "handle": handle, "name": handle}
                                                        for gid, (handle, _) in self.groups.items()]})

    async def slack_group_users(self, request: Request) -> Response:
        if not self._slack_bot(request):
            return JSONResponse({"ok": False, "error": "not_authed"})
        group = self.groups.get((await self._slack_form(request)).get("usergroup", ""))
        if group is None:
            return JSONResponse({"ok": False, "error": "no_such_subteam"})
        return JSONResponse({"ok": True, "users": group[1]})

    @property
    def app(self) -> Starlette:
        return Starlette(routes=[
            Route("/discord/oauth2/authorize", self.discord_authorize),
            Route("/discord/api/oauth2/token", self.discord_token, methods=["POST"]),
            Route("/discord/api/users/@me", self.discord_me),
            Route("/discord/api/users/@me/guilds", self.discord_guilds),
            Route("/discord/api/guilds/{guild}/members/{user}", self.discord_member),
            Route("/discord/api/guilds/{guild}/roles", self.discord_roles),
            Route("/slack/openid/connect/authorize", self.slack_authorize),
            Route("/slack/api/openid.connect.token", self.slack_token, methods=["POST"]),
            Route("/slack/api/openid.connect.userInfo", self.slack_userinfo, methods=["GET", "POST"]),
            Route("/slack/api/auth.test", self.slack_auth_test, methods=["POST"]),
            Route("/slack/api/users.info", self.slack_users_info, methods=["POST"]),
            Route("/slack/api/usergroups.list", self.slack_groups, methods=["POST"]),
            Route("/slack/api/usergroups.users.list", self.slack_group_users, methods=["POST"]),
        ])
