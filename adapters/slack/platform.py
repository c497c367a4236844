"""``SlackPlatform``: Heyan's Slack connection for ``heyan run`` (``adapters.runtime.platforms.Platform``).

Start-up checks tokens, scopes (``REQUIRED_SCOPES``) and mode settings, stopping with one line naming
what to fix; then claims the Redis database for this app (``claim_redis``), starts the redo worker
and catches up (``catchup_done``). Slack's one composition module: the only one in ``adapters/slack``
that sees the runtime. Socket Mode with ``HEYAN_SLACK_APP_TOKEN``, else HTTP (``/slack/events``).
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
from slack_sdk.web.async_client import AsyncWebClient

from adapters.runtime.composition import Runtime
from adapters.runtime.startup import StartupError
from adapters.slack.app import EVENTS_PATH, HeyanRequestHandler, Identity, OAuthConfig, build_app
from adapters.slack.bridge import Bridge, SlackStores
from adapters.slack.connection.clients import DEFAULT_API_URL, make_client
from adapters.slack.connection.scopes import REQUIRED_SCOPES, ScopeNotices
from adapters.slack.connection.workspaces import (
    RedisInstallationStore,
    RedisOAuthStateStore,
    Workspace,
    Workspaces,
)
from adapters.slack.events.catchup import CatchUp, catch_up
from adapters.slack.events.dedupe import EventGate
from adapters.slack.events.mapping import tenant_of
from adapters.slack.events.places import Places
from adapters.slack.events.redo import EventRedo
from adapters.slack.events.redo_job import redo_worker
from bot.config.settings import Settings, SlackSettings
from bot.delivery.deliverer import PostSender

__all__ = ["DEFAULT_API_URL", "REQUIRED_SCOPES", "SlackPlatform", "check_identity", "claim_redis", "make_client"]

log = logging.getLogger(__name__)

#: Seconds to wait for the Socket Mode connection at start-up.
CONNECT_SECONDS = 30.0
#: Rounds and pause of the start-up catch-up's retries of disputes Slack rate-limited.
CATCHUP_RETRIES = 5
CATCHUP_PAUSE = 60.0
#: Which Slack app this Redis database serves (``claim_redis``).
APP_KEY = "heyan:slack-app"


async def claim_redis(redis: Any, app: str) -> None:
    """Record which Slack app this Redis database serves; StartupError if it serves another one.

    Everything Heyan keeps in Redis — conversation windows, the job queue, the outbox — is shared by
    the processes of one deployment; a second deployment (another Slack app) on the same database
    would take the first one's jobs and posts. Two deployments share one Redis server with a
    database each (``HEYAN_REDIS_URL=redis://host:6379/1``)."""
    await redis.setnx(APP_KEY, app)
    held = await redis.get(APP_KEY)
    held = held.decode() if isinstance(held, bytes) else held
    if held is not None and held != app:
        raise StartupError(
            f"this Redis database already serves another Slack app ({held}; this one is {app}): give each "
            f"deployment its own database, e.g. HEYAN_REDIS_URL=redis://<host>:6379/1 — or, if this database "
            f"now belongs to this app, delete the key {APP_KEY}")


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


def _check_mode(s: SlackSettings) -> None:
    """One line naming what to fix when the Slack settings do not make one mode."""
    if s.oauth and s.bot_token is not None:
        raise StartupError("set either HEYAN_SLACK_BOT_TOKEN (one workspace) or HEYAN_SLACK_CLIENT_ID and "
                           "HEYAN_SLACK_CLIENT_SECRET (workspaces install Heyan through OAuth), not both")
    if s.oauth:
        if s.client_secret is None:
            raise StartupError("HEYAN_SLACK_CLIENT_SECRET is not set: copy the app's Client Secret from Basic "
                               "Information → App Credentials")
        if s.app_token is not None or s.signing_secret is None:
            raise StartupError("installing Heyan through OAuth needs HTTP mode (/slack/install and "
                               "/slack/oauth_redirect): set HEYAN_SLACK_SIGNING_SECRET and unset HEYAN_SLACK_APP_TOKEN")
        return
    if s.bot_token is None:
        raise StartupError("HEYAN_SLACK_BOT_TOKEN is not set: give the app's Bot User OAuth Token (xoxb-…), or "
                           "HEYAN_SLACK_CLIENT_ID/SECRET for many workspaces")
    if s.app_token is None and s.signing_secret is None:
        raise StartupError("set HEYAN_SLACK_APP_TOKEN (Socket Mode) or HEYAN_SLACK_SIGNING_SECRET (HTTP mode) "
                           "for Slack")


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
        #: What the start-up catch-up did, once it is done (``catchup_done``).
        self.catchup: CatchUp | None = None
        self.catchup_done = asyncio.Event()
        #: Seconds before rate-limited disputes are read back again (a Tier 3 method's minute).
        self.catchup_pause = CATCHUP_PAUSE
        self._tasks: list[asyncio.Task[Any]] = []
        self._redo: Any = None
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
        _check_mode(s)
        secret = s.signing_secret.get_secret_value() if s.signing_secret else ""
        oauth: OAuthConfig | None = None
        if s.oauth:
            assert s.client_id is not None and s.client_secret is not None
            workspaces = Workspaces(installations=RedisInstallationStore(rt.redis, rt.cipher))
            oauth = OAuthConfig(s.client_id, s.client_secret.get_secret_value(), s.redirect_uri)
            await claim_redis(rt.redis, f"client:{s.client_id}")
            where = f"{len(await workspaces.tenants())} installed workspaces"
        else:
            assert s.bot_token is not None
            token = s.bot_token.get_secret_value()
            self.identity = identity = await check_identity(make_client(token, s.api_url))
            tenant = tenant_of(identity.team_id, identity.enterprise_id)
            workspaces = Workspaces(single=Workspace(
                tenant=tenant, team_id=identity.team_id, bot_token=token, bot_user_id=identity.bot_user_id,
                bot_id=identity.bot_id, enterprise_id=identity.enterprise_id, scopes=identity.scopes))
            await claim_redis(rt.redis, f"bot:{tenant}:{identity.bot_id}")
            where = f"{identity.bot_user_id} in {identity.team_id}"
        # the composition: the core's port, and what Slack keeps in the process's Redis
        stores = SlackStores(gate=EventGate(rt.redis), places=Places(rt.redis, rt.port.sessions),
                             redo=EventRedo(rt.redis, rt.cipher), scopes=ScopeNotices(rt.redis),
                             oauth_states=RedisOAuthStateStore(rt.redis))
        self.app, self.bridge = build_app(rt.port, workspaces, stores, signing_secret=secret,
                                          moderator_group=s.moderator_group, api_url=s.api_url, oauth=oauth,
                                          leave_purge_days=s.leave_purge_days)
        if s.app_token is not None:
            assert s.bot_token is not None
            await self._connect(self.app, make_client(s.bot_token.get_secret_value(), s.api_url),
                                s.app_token.get_secret_value())
        else:
            self._listen(self.app, secret, s.http_port)
        jobs = rt.settings.jobs
        self._redo = redo_worker(self.bridge, rt.redis, rt.services, max_tries=jobs.max_tries,
                                 timeout=jobs.job_timeout)
        self._tasks = [asyncio.create_task(self._redo.main(), name="heyan-slack-redo"),
                       asyncio.create_task(self._catch_up(self.bridge), name="heyan-slack-catchup")]
        log.info("Slack: %s, %s", "Socket Mode" if s.app_token else f"HTTP on :{s.http_port}", where)
        return self.bridge.sender

    async def _catch_up(self, bridge: Bridge) -> None:
        try:
            report = await catch_up(bridge)
            for _ in range(CATCHUP_RETRIES):  # a 429 storm: those disputes again, later in this run
                if not report.rate_limited:
                    break
                log.info("catch-up: Slack rate-limited %d disputes; again in %g s", len(report.rate_limited),
                         self.catchup_pause)
                await asyncio.sleep(self.catchup_pause)
                report = report.then(await catch_up(bridge, only=report.rate_limited))
            self.catchup = report
        except Exception:
            log.exception("catch-up after the start failed; open disputes are read back at the next start")
        finally:
            self.catchup_done.set()

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
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self._redo is not None:  # not Worker.close(): that would close the runtime's Redis pool
            running = [t for t in self._redo.tasks.values() if not t.done()]
            for task in running:
                task.cancel()
            await asyncio.gather(*running, return_exceptions=True)
        if self._socket_mode is not None:
            await self._socket_mode.close_async()  # type: ignore[no-untyped-call]
        if self._server is not None:
            self._server.should_exit = True
        if self._serving:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._served.wait(), 10.0)
        if self._sock is not None:
            self._sock.close()
