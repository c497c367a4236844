"""Refusals as HTTP answers: a status code and one sentence in the caller's language saying what was
wrong and what to do. The API answers ``{"error", "detail"}``; pages show the same sentence.

| refusal | status |
|---|---|
| not signed in, session ended, unknown token, sign-in refused by the platform | 401 |
| ``PermissionDenied``, a forged or missing CSRF token, a read-only token, a cross-site change | 403 |
| ``NotFound`` | 404 |
| ``Ambiguous`` (an id prefix matching several) | 409 |
| ``InvalidRequest`` (an empty value, a query too long, a bad setting, an expired confirmation) | 400 |
| ``SlowDown`` (rate limit), with ``Retry-After`` | 429 |
| the platform could not be asked who moderates what | 503 |
"""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response

from adapters.web.auth import SESSION_COOKIE, AuthError, request_lang
from adapters.web.i18n import t
from adapters.web.pages import error_page
from adapters.web.platforms import PlatformUnavailable, SignInFailed
from bot.actors import Ambiguous, InvalidRequest, ModerationError, NotFound, PermissionDenied
from bot.limits import SlowDown

__all__ = ["install"]

_STATUS: tuple[tuple[type[ModerationError], int, str], ...] = (
    (PermissionDenied, 403, "forbidden"),
    (NotFound, 404, "not_found"),
    (Ambiguous, 409, "ambiguous"),
    (InvalidRequest, 400, "invalid_request"),
)


def _answer(request: Request, status: int, code: str, detail: str, headers: dict[str, str] | None = None) -> Response:
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": code, "detail": detail}, status_code=status, headers=headers)
    return error_page(request, status, detail, headers=headers)


def install(app: FastAPI) -> None:
    """Register the handlers on ``app``."""

    @app.exception_handler(ModerationError)
    async def moderation(request: Request, exc: ModerationError) -> Response:
        status, code = next(((s, c) for cls, s, c in _STATUS if isinstance(exc, cls)), (400, "refused"))
        return _answer(request, status, code, exc.text(request_lang(request)))

    @app.exception_handler(SlowDown)
    async def slow(request: Request, exc: SlowDown) -> Response:
        return _answer(request, 429, "slow_down", exc.text(request_lang(request)),
                       headers={"Retry-After": str(int(exc.retry_after + 0.5))})

    @app.exception_handler(AuthError)
    async def auth(request: Request, exc: AuthError) -> Response:
        if exc.status == 401 and not request.url.path.startswith("/api/"):
            response = RedirectResponse("/login", status_code=303)
            if exc.code == "session_expired":
                response.delete_cookie(SESSION_COOKIE, path="/")
            return response
        return _answer(request, exc.status, exc.code, exc.text(request_lang(request)))

    @app.exception_handler(SignInFailed)
    async def refused(request: Request, exc: SignInFailed) -> Response:
        return _answer(request, 401, "sign_in_failed", str(exc))

    @app.exception_handler(PlatformUnavailable)
    async def unavailable(request: Request, exc: PlatformUnavailable) -> Response:
        lang = request_lang(request)
        platform = "Slack" if "Slack" in str(exc) else "Discord"
        return _answer(request, 503, "platform_unavailable",
                       t(lang, "auth.unavailable", platform=platform, detail=str(exc)), headers={"Retry-After": "5"})
