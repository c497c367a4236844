"""``SlackPlatform``: Heyan's Slack connection for ``heyan run`` (``adapters.platforms.Platform``).

Start-up checks everything Slack can tell before the first member talks to Heyan, and stops with
one line naming what to fix: the bot token (``auth.test``), the bot scopes (the ``x-oauth-scopes``
header of the same answer against ``REQUIRED_SCOPES``), the app token (Socket Mode) or the signing
secret and port (HTTP mode).

Socket Mode (``HEYAN_SLACK_APP_TOKEN``): bolt's aiohttp ``AsyncSocketModeHandler`` on the app token;
no public URL needed. HTTP mode (``HEYAN_SLACK_SIGNING_SECRET`` and no app token): uvicorn serves
bolt's ASGI adapter at ``/slack/events`` on ``HEYAN_SLACK_HTTP_PORT``; signals are left to ``heyan
run``, which calls ``stop()``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import Iterator, Mapping
from typing import Any

import aiohttp
import uvicorn
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_bolt.async_app import AsyncApp
from slack_sdk.errors import SlackApiError, SlackClientError
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
)
from slack_sdk.web.async_client import AsyncWebClient

from adapters.runtime import Runtime, StartupError
from adapters.slack.app import EVENTS_PATH, HeyanRequestHandler, Identity, build_app
from adapters.slack.bridge import Bridge
from bot.delivery import PostSender
from bot.settings import Settings

__all__ = ["DEFAULT_API_URL", "REQUIRED_SCOPES", "SlackPlatform", "check_identity", "make_client"]

log = logging.getLogger(__name__)

#: Slack's Web API (``HEYAN_SLACK_API_URL`` replaces it for proxies and tests).
DEFAULT_API_URL = "https://slack.com/api/"

#: The bot scopes Heyan uses, each for one thing (adapters/slack/manifest.yaml grants exactly these).
REQUIRED_SCOPES: tuple[str, ...] = (
    "app_mentions:read",  # app_mention events
    "channels:history",  # messages in public channels where a dispute is open
    "channels:read",  # conversations.info: is a channel public?
    "chat:write",  # replies, follow-ups, ephemeral answers
    "commands",  # /heyan
    "files:write",  # exports sent as a file
    "groups:history",  # messages in private channels
    "groups:read",  # conversations.info for private channels
    "im:history",  # direct messages to Heyan
    "im:read",  # conversations.info for DMs
    "im:write",  # conversations.open: the DM an export is sent to
    "mpim:history",  # group DMs
    "mpim:read",  # conversations.info for group DMs
    "usergroups:read",  # members of HEYAN_SLACK_MODERATOR_GROUP
    "users:read",  # users.info: name, tz, locale, admin/owner
)

#: Seconds to wait for the Socket Mode connection at start-up.
CONNECT_SECONDS = 30.0


def make_client(token: str, api_url: str | None = None) -> AsyncWebClient:
    """The Web API client: ``retry_handlers`` replaces slack_sdk's defaults, so the connection-error
    handler is listed again beside the rate-limit one (which waits ``Retry-After`` once)."""
    return AsyncWebClient(
        token=token,
        base_url=api_url or DEFAULT_API_URL,
        timeout=30,
        retry_handlers=[AsyncConnectionErrorRetryHandler(), AsyncRateLimitErrorRetryHandler(max_retry_count=1)],
    )


def _header(headers: Mapping[str, Any], name: str) -> str | None:
    for key, value in headers.items():
        if str(key).lower() == name:
            return str(value[0] if isinstance(value, list | tuple) and value else value)
    return None


async def check_identity(client: AsyncWebClient) -> Identity:
    """``auth.test`` with the bot token; StartupError (one line) for a bad token or missing scopes."""
    try:
        response = await client.auth_test()
    except SlackApiError as exc:
        error = exc.response.get("error") or f"HTTP {exc.response.status_code}"
        raise StartupError(f"Slack refused HEYAN_SLACK_BOT_TOKEN ({error}): set it to the app's Bot User OAuth "
                           "Token (xoxb-…) from OAuth & Permissions") from None
    except (SlackClientError, aiohttp.ClientError, OSError, TimeoutError) as exc:
        raise StartupError(f"cannot reach Slack's Web API at {client.base_url} ({type(exc).__name__}: {exc}); "
                           "check the network or HEYAN_SLACK_API_URL") from None
    if not response.get("bot_id"):
        raise StartupError("HEYAN_SLACK_BOT_TOKEN is not a bot token: use the Bot User OAuth Token (xoxb-…), "
                           "not a user token")
    header = _header(response.headers, "x-oauth-scopes")
    granted = frozenset(s.strip() for s in (header or "").split(",") if s.strip())
    if header is None:
        log.warning("Slack did not say which scopes the bot token has; not checking them")
    else:
        missing = [s for s in REQUIRED_SCOPES if s not in granted]
        if missing:
            raise StartupError(
                f"the Slack bot token lacks the scope{'s' if len(missing) > 1 else ''} {', '.join(missing)}: "
                "add it under OAuth & Permissions (adapters/slack/manifest.yaml lists every scope) and "
                "reinstall the app")
    return Identity(team_id=str(response.get("team_id") or ""), bot_user_id=str(response["user_id"]),
                    bot_id=str(response["bot_id"]), enterprise_id=response.get("enterprise_id"), scopes=granted)


class _Server(uvicorn.Server):
    """uvicorn without its own signal handling: ``heyan run`` owns SIGINT/SIGTERM and calls stop()."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


class SlackPlatform:
    """Slack for ``heyan run``: ``await start(rt)`` → the outbox sender; ``serve()``; ``stop()``.

    ``host`` is HTTP mode's listening address (all interfaces, as bolt's own server; tests use
    loopback)."""

    name = "slack"

    def __init__(self, settings: Settings, *, host: str | None = None) -> None:
        self.settings = settings
        self.host = host or settings.slack.http_host
        self.app: AsyncApp | None = None
        self.bridge: Bridge | None = None
        self.identity: Identity | None = None
        self._socket_mode: AsyncSocketModeHandler | None = None
        self._server: _Server | None = None
        self._sock: socket.socket | None = None
        self._stopped = asyncio.Event()
        self._serving = False
        self._served = asyncio.Event()

    def __repr__(self) -> str:
        mode = "socket" if self.settings.slack.socket_mode else f"http:{self.settings.slack.http_port}"
        return f"SlackPlatform(mode={mode!r})"

    async def start(self, rt: Runtime) -> PostSender:
        s = self.settings.slack
        if s.bot_token is None:
            raise StartupError("HEYAN_SLACK_BOT_TOKEN is not set: give the app's Bot User OAuth Token (xoxb-…)")
        if s.app_token is None and s.signing_secret is None:
            raise StartupError("set HEYAN_SLACK_APP_TOKEN (Socket Mode) or HEYAN_SLACK_SIGNING_SECRET (HTTP mode) "
                               "for Slack")
        client = make_client(s.bot_token.get_secret_value(), s.api_url)
        self.identity = await check_identity(client)
        secret = s.signing_secret.get_secret_value() if s.signing_secret else ""
        self.app, self.bridge = build_app(rt, client, self.identity, signing_secret=secret,
                                          moderator_group=s.moderator_group)
        if s.app_token is not None:
            await self._connect(self.app, client, s.app_token.get_secret_value())
        else:
            self._listen(self.app, secret, s.http_port)
        log.info("Slack: %s as %s in %s", "Socket Mode" if s.app_token else f"HTTP on :{s.http_port}",
                 self.identity.bot_user_id, self.identity.team_id)
        return self.bridge.sender

    async def _connect(self, app: AsyncApp, client: AsyncWebClient, app_token: str) -> None:
        """Check the app token (one ``apps.connections.open``, whose URL is then used) and connect."""
        if not app_token.startswith("xapp-"):
            raise StartupError("HEYAN_SLACK_APP_TOKEN is not an app-level token (xapp-…): create one with the "
                               "connections:write scope under Basic Information")
        try:
            url = (await client.apps_connections_open(app_token=app_token))["url"]
        except SlackApiError as exc:
            raise StartupError(f"Slack refused HEYAN_SLACK_APP_TOKEN ({exc.response.get('error')}): use an app-level "
                               "token with connections:write, and turn Socket Mode on for the app") from None
        handler = AsyncSocketModeHandler(app, app_token=app_token, web_client=client)
        handler.client.wss_uri = url
        self._socket_mode = handler
        try:
            await asyncio.wait_for(handler.connect_async(), CONNECT_SECONDS)  # type: ignore[no-untyped-call]
        except TimeoutError:
            await handler.close_async()  # type: ignore[no-untyped-call]
            self._socket_mode = None
            raise StartupError(f"the Socket Mode connection did not open within {CONNECT_SECONDS:.0f} s; check that "
                               "wss-primary.slack.com is reachable from here") from None

    def _listen(self, app: AsyncApp, secret: str, port: int) -> None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((self.host, port))
        except OSError as exc:
            sock.close()
            raise StartupError(f"cannot listen on {self.host}:{port} for Slack ({exc.strerror}): free the port or "
                               "set HEYAN_SLACK_HTTP_PORT") from None
        sock.listen(2048)  # connections queue from now on; uvicorn accepts them once serve() runs
        sock.setblocking(False)
        config = uvicorn.Config(HeyanRequestHandler(app, secret, EVENTS_PATH), lifespan="off", log_config=None,
                                log_level="warning", access_log=False, timeout_graceful_shutdown=5)
        self._sock, self._server = sock, _Server(config)

    @property
    def port(self) -> int | None:
        """HTTP mode's listening port (known after ``start``)."""
        return int(self._sock.getsockname()[1]) if self._sock is not None else None

    async def serve(self) -> None:
        """Until ``stop()``: serve HTTP, or keep the Socket Mode connection (slack_sdk reconnects it)."""
        self._serving = True
        try:
            if self._server is not None and self._sock is not None:
                await self._server.serve(sockets=[self._sock])
                if not self._server.started and not self._stopped.is_set():
                    raise StartupError(f"the Slack HTTP server on port {self.port} did not start; see the log")
            else:
                await self._stopped.wait()
        finally:
            self._served.set()

    async def stop(self) -> None:
        """Close the connection or the server (waiting for requests in flight); safe to repeat."""
        if self._stopped.is_set():
            return
        self._stopped.set()
        if self._socket_mode is not None:
            await self._socket_mode.close_async()  # type: ignore[no-untyped-call]
        if self._server is not None:
            self._server.should_exit = True
        if self._serving:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._served.wait(), 10.0)
        if self._sock is not None:
            self._sock.close()
