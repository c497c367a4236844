"""Who is asking, for every request: an API token, a session cookie, or (``--local`` only) the
console operator; and the checks on requests that change something.

A Bearer API token is scoped to one tenant (read-only ones only read; no CSRF needed). The
``heyan_session`` cookie (HttpOnly, Secure, Lax) needs the session's CSRF token on every change
(``X-CSRF-Token`` or ``csrf_token``), else 403. With ``--local`` (127.0.0.1 only) a request with
neither is the operator, but a change from another site's page is refused; without it, 401.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from urllib.parse import urlsplit

from fastapi import Request
from fastapi.templating import Jinja2Templates

from adapters.web.access.communities import CommunityNames
from adapters.web.access.gate import Gate, Principal
from adapters.web.access.platforms import DiscordSignIn, SlackSignIn
from adapters.web.access.sessions import SignInStates, WebSessions
from adapters.web.access.throttle import Throttle
from adapters.web.access.tokens import ApiTokens
from adapters.web.views.i18n import LANG_COOKIE, pick_lang, t
from bot.actors import OPERATOR_ID
from bot.config.settings import Settings
from bot.moderation import ModerationService
from memory.errors import HeyanError
from memory.models import Lang

__all__ = ["SAFE_METHODS", "SESSION_COOKIE", "AuthError", "Console", "address", "check_change", "console",
           "counted", "principal_of", "request_lang"]

SESSION_COOKIE = "heyan_session"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


class AuthError(HeyanError):
    """Not signed in (401) or not allowed to send this request (403); ``key`` names the text."""

    def __init__(self, status: int, key: str, code: str, **values: object) -> None:
        super().__init__(key)
        self.status = status
        self.key = key
        self.code = code
        self.values = values

    def text(self, lang: Lang) -> str:
        return t(lang, self.key, **self.values)


@dataclass(slots=True)
class Console:
    """Everything the routes use, built once per process (``adapters.web.server``, the web's one
    composition module): the moderation service of the platform port, and the console's own stores."""

    moderation: ModerationService
    sessions: WebSessions
    tokens: ApiTokens
    gate: Gate
    #: Sign-ins in progress (their one-time OAuth states).
    states: SignInStates
    settings: Settings
    local: bool
    templates: Jinja2Templates
    #: The console's own limits (sign-in starts, bad tokens, page views, changes).
    throttle: Throttle
    #: Communities' names as the platforms gave them.
    names: CommunityNames
    discord: DiscordSignIn | None = None
    slack: SlackSignIn | None = None


def console(request: Request) -> Console:
    found: Console = request.app.state.console
    return found


def request_lang(request: Request) -> Lang:
    return pick_lang(request.query_params.get("lang"), request.cookies.get(LANG_COOKIE),
                     request.headers.get("accept-language"))


def address(request: Request) -> str:
    """The client's address (the proxy's ``X-Forwarded-For`` when uvicorn trusts it), for limits."""
    return request.client.host if request.client is not None else "unknown"


async def principal_of(request: Request) -> Principal | None:
    """The caller, None when nobody signed in; AuthError for a bad token or an ended session. An
    address that sent too many bad tokens this minute is refused (429) before its token is read."""
    c = console(request)
    header = request.headers.get("authorization", "")
    if header:
        await c.throttle.check("bad_token", address(request))
        scheme, _, value = header.partition(" ")
        token = await c.tokens.check(value) if scheme.lower() == "bearer" else None
        if token is None:
            await c.throttle.hit("bad_token", address(request))
            raise AuthError(401, "auth.token", "bad_token")
        return Principal(kind="token", user_id=token.actor_id, name=token.label or token.actor_id, token=token)
    cookie = request.cookies.get(SESSION_COOKIE)
    if cookie:
        session = await c.sessions.get(cookie)
        if session is not None:
            return Principal(kind=session.kind, user_id=session.user_id, name=session.name, session=session)
        if not c.local:
            raise AuthError(401, "auth.expired", "session_expired")
    if c.local:
        return Principal(kind="operator", user_id=OPERATOR_ID, name="local operator")
    return None


def _cross_site(request: Request) -> bool:
    site = request.headers.get("sec-fetch-site")
    if site in ("cross-site", "same-site"):
        return True
    origin = request.headers.get("origin")
    if origin and origin != "null":
        return urlsplit(origin).netloc != request.headers.get("host", "")
    return origin == "null"


def check_change(request: Request, principal: Principal, form_token: str | None = None) -> None:
    """Refuse a request that changes something unless the caller may: the CSRF token of a cookie
    session, not read-only for a token, not from another site for the cookie-less local operator."""
    if request.method in SAFE_METHODS:
        return
    if principal.read_only:
        raise AuthError(403, "auth.read_only", "read_only_token")
    if principal.session is not None:
        sent = request.headers.get("x-csrf-token") or form_token or ""
        if not sent or not secrets.compare_digest(sent, principal.session.csrf):
            raise AuthError(403, "auth.csrf", "csrf")
    elif principal.token is None and _cross_site(request):
        raise AuthError(403, "auth.cross_site", "cross_site")


async def counted(request: Request, principal: Principal) -> None:
    """Count a signed-in caller's request against the console's limits: a view (page or API read)
    or a change — never against the chat commands'."""
    who = f"{principal.kind}:{principal.user_id}"
    await console(request).throttle.hit("view" if request.method in SAFE_METHODS else "change", who)
