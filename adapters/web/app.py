"""The FastAPI application: the REST API (/api/v1, schema at /api/v1/openapi.json), the pages, the
sign-in routes and the vendored static files, over one ``Console`` (``adapters.web.access.auth``).

No interactive API docs page: FastAPI's loads its scripts from a CDN, and the console loads nothing
from anywhere but itself (the Content-Security-Policy says so). ``--local`` accepts only requests
addressed to 127.0.0.1 or localhost (a DNS-rebinding page cannot reach it under another name).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from starlette.middleware.trustedhost import TrustedHostMiddleware

from adapters.web import errors
from adapters.web.access import login
from adapters.web.access.auth import Console
from adapters.web.api import api
from adapters.web.pages import member_pages, pages, settings_page

__all__ = ["HERE", "SECURITY_HEADERS", "create_app", "secure", "templates"]

HERE = Path(__file__).parent
_CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        "form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'")
SECURITY_HEADERS = {"Content-Security-Policy": _CSP, "X-Content-Type-Options": "nosniff",
                    "Referrer-Policy": "same-origin", "X-Frame-Options": "DENY"}


def templates() -> Jinja2Templates:
    """The page templates, autoescaped (Starlette turns autoescape on for .html)."""
    found = Jinja2Templates(directory=str(HERE / "templates"))
    found.env.autoescape = True  # every template, whatever its name: member text is always text
    return found


def create_app(console: Console) -> FastAPI:
    """The app over ``console``."""
    app = FastAPI(title="Heyan console API", version="1", openapi_url="/api/v1/openapi.json", docs_url=None,
                  redoc_url=None, summary="Review what Heyan remembers: the same moderation service as every surface.")
    app.state.console = console
    app.include_router(api.router)
    app.include_router(login.router)
    app.include_router(pages.router)
    app.include_router(member_pages.router)
    app.include_router(settings_page.router)
    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")
    errors.install(app, secure)
    if console.local:
        app.add_middleware(TrustedHostMiddleware, allowed_hosts=["127.0.0.1", "localhost"])

    @app.middleware("http")
    async def security_headers(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        return secure(request, await call_next(request))

    return app


def secure(request: Request, response: Response) -> Response:
    """``response`` with the security headers every answer carries (errors and 500 included)."""
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    if not request.url.path.startswith("/static/"):
        response.headers.setdefault("Cache-Control", "no-store")
    return response
