"""Refusals as HTTP answers: a status code and one sentence in the caller's language saying what was
wrong and what to do.

``{"error", "detail"}`` for every refusal and failure (pages show the sentence): 401 not signed in, 403
``PermissionDenied``/CSRF/read-only, 404, 409 ``Ambiguous``, 400 ``InvalidRequest``, 422 malformed, 429
with ``Retry-After``, 500 (logged), 503 platform unreachable. Every answer carries the security headers.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse, Response
from starlette.exceptions import HTTPException

from adapters.web.access.auth import SESSION_COOKIE, AuthError, request_lang
from adapters.web.access.platforms import PlatformUnavailable, SignInFailed
from adapters.web.access.throttle import TooMany
from adapters.web.pages.pages import error_page
from adapters.web.views.i18n import t
from bot.actors import Ambiguous, InvalidRequest, ModerationError, NotFound, PermissionDenied
from bot.limits import SlowDown

__all__ = ["install", "validation_detail"]

log = logging.getLogger(__name__)

_HTTP_CODES = {404: "not_found", 405: "method_not_allowed", 413: "too_large"}

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


def validation_detail(errors: list[dict[str, object]]) -> str:
    """A malformed request in one sentence: "body.retention_days.demand: Input should be a finite number"."""
    parts = []
    for e in errors[:5]:
        where = ".".join(str(p) for p in e.get("loc", ()) if isinstance(p, str | int))  # type: ignore[attr-defined]
        parts.append(f"{where}: {e.get('msg', 'invalid')}" if where else str(e.get("msg", "invalid")))
    return "; ".join(parts) + ("; fix these and send it again" if parts else "the request is malformed")


def install(app: FastAPI, secure: Callable[[Request, Response], Response]) -> None:
    """Register the handlers on ``app``; ``secure`` adds the security headers (to a 500, which no
    middleware sees)."""

    @app.exception_handler(HTTPException)
    async def http(request: Request, exc: HTTPException) -> Response:
        lang = request_lang(request)
        code = _HTTP_CODES.get(exc.status_code, "refused")
        detail = t(lang, "error.not_found") if exc.status_code == 404 else str(exc.detail)
        return _answer(request, exc.status_code, code, detail, headers=dict(exc.headers or {}))

    @app.exception_handler(RequestValidationError)
    async def malformed(request: Request, exc: RequestValidationError) -> Response:
        return _answer(request, 422, "invalid_request", validation_detail(list(exc.errors())))

    @app.exception_handler(Exception)
    async def failed(request: Request, exc: Exception) -> Response:
        log.error("the console failed on %s %s", request.method, request.url.path, exc_info=exc)
        detail = t(request_lang(request), "error.internal")
        try:
            answer = _answer(request, 500, "internal_error", detail)
        except Exception:  # the page itself could not be drawn: the same words as JSON
            answer = JSONResponse({"error": "internal_error", "detail": detail}, status_code=500)
        return secure(request, answer)

    @app.exception_handler(TooMany)
    async def too_many(request: Request, exc: TooMany) -> Response:
        return _answer(request, 429, "too_many_requests", exc.text(request_lang(request)),
                       headers={"Retry-After": str(exc.retry_after)})

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
