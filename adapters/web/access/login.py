"""Signing in and out: Discord OAuth2 and Sign in with Slack.

``/auth/<platform>`` makes a one-time ``state`` (Redis, ten minutes, and a cookie) and redirects; the
callback requires this browser's unused state (login CSRF), exchanges the code and makes a session.
``POST /logout`` (with CSRF) ends it. Starts and bad callbacks are limited per address.
"""

from __future__ import annotations

import secrets

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from adapters.web.access.auth import SESSION_COOKIE, AuthError, address, check_change, console, principal_of
from adapters.web.access.platforms import DiscordSignIn, SlackSignIn
from adapters.web.access.sessions import STATE_SECONDS
from adapters.web.pages.pages import render, set_session_cookie

__all__ = ["router"]

router = APIRouter(include_in_schema=False)

_STATE_COOKIE = "heyan_oauth_state"


@router.get("/login", response_class=HTMLResponse)
async def login(request: Request) -> Response:
    c = console(request)
    if c.local:
        return RedirectResponse("/", status_code=303)
    return render(request, "login.html", discord=c.discord is not None, slack=c.slack is not None)


async def _start(request: Request, platform: str, url_for_state: str, state: str) -> Response:
    c = console(request)
    await c.throttle.hit("sign_in", address(request))  # anyone can call this: each call writes a state key
    await c.states.put(state, platform)
    response = RedirectResponse(url_for_state, status_code=303)
    response.set_cookie(_STATE_COOKIE, state, max_age=STATE_SECONDS, path="/auth", httponly=True, secure=True,
                        samesite="lax")
    return response


@router.get("/auth/discord")
async def discord_start(request: Request) -> Response:
    sign_in = console(request).discord
    if sign_in is None:
        raise AuthError(404, "auth.not_configured", "not_configured", platform="Discord")
    state = secrets.token_urlsafe(24)
    return await _start(request, "discord", sign_in.authorize_url(state), state)


@router.get("/auth/slack")
async def slack_start(request: Request) -> Response:
    sign_in = console(request).slack
    if sign_in is None:
        raise AuthError(404, "auth.not_configured", "not_configured", platform="Slack")
    state = secrets.token_urlsafe(24)
    return await _start(request, "slack", sign_in.authorize_url(state, secrets.token_urlsafe(16)), state)


async def _check_state(request: Request, platform: str) -> str:
    """The callback's code, once its state is this browser's, unused, and for this platform. A
    callback with a wrong state counts as a bad token of its address (guessing is limited)."""
    await console(request).throttle.check("bad_token", address(request))
    try:
        return await _checked_state(request, platform)
    except AuthError:
        await console(request).throttle.hit("bad_token", address(request))
        raise


async def _checked_state(request: Request, platform: str) -> str:
    if request.query_params.get("error"):
        raise AuthError(403, "auth.denied", "sign_in_cancelled")
    state = request.query_params.get("state", "")
    mine = request.cookies.get(_STATE_COOKIE, "")
    if not (state and mine and secrets.compare_digest(state, mine)):
        raise AuthError(403, "auth.state", "bad_state")
    if await console(request).states.take(state) != platform:
        raise AuthError(403, "auth.state", "bad_state")
    code = request.query_params.get("code", "")
    if not code or len(code) > 500:
        raise AuthError(403, "auth.state", "bad_state")
    return code


def _signed_in(request: Request, raw: str) -> Response:
    response = RedirectResponse("/", status_code=303)
    set_session_cookie(response, raw, console(request).sessions.hours)
    response.delete_cookie(_STATE_COOKIE, path="/auth")
    return response


@router.get("/auth/discord/callback")
async def discord_callback(request: Request) -> Response:
    c = console(request)
    sign_in: DiscordSignIn | None = c.discord
    if sign_in is None:
        raise AuthError(404, "auth.not_configured", "not_configured", platform="Discord")
    identity = await sign_in.sign_in(await _check_state(request, "discord"))
    raw, _ = await c.sessions.create("discord", identity.user_id, identity.name, access_token=identity.access_token)
    return _signed_in(request, raw)


@router.get("/auth/slack/callback")
async def slack_callback(request: Request) -> Response:
    c = console(request)
    sign_in: SlackSignIn | None = c.slack
    if sign_in is None:
        raise AuthError(404, "auth.not_configured", "not_configured", platform="Slack")
    identity = await sign_in.sign_in(await _check_state(request, "slack"))
    raw, _ = await c.sessions.create("slack", identity.user_id, identity.name, tenant=identity.tenant,
                                     team_domain=identity.team_domain, team_name=identity.team_name)
    return _signed_in(request, raw)


@router.post("/logout")
async def logout(request: Request) -> Response:
    principal = await principal_of(request)
    if principal is not None and principal.session is not None:
        data = await request.form()
        token = data.get("csrf_token")
        check_change(request, principal, token if isinstance(token, str) else None)
        c = console(request)
        await c.sessions.end(request.cookies.get(SESSION_COOKIE, ""))
        c.gate.forget(principal.session.key)
    response = RedirectResponse("/login", status_code=303)
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response
