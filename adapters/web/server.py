"""Serving the console: ``heyan web`` (a process of its own) and ``heyan run`` (beside the platforms,
when ``HEYAN_WEB_PORT`` is set). The web's one composition module: the only one of ``adapters/web``
that sees the runtime; it hands the routes the platform port's moderation service and the console's
own Redis-backed stores (``Console``). uvicorn on a socket bound here, so a port in use is one clear
``StartupError``; uvicorn's own signal handling is off (the command owns SIGINT/SIGTERM).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import socket
import time
from collections.abc import Callable, Iterator
from datetime import datetime

import httpx
import uvicorn

from adapters.runtime.composition import Runtime, StartupError
from adapters.runtime.observability import start_observability
from adapters.web.access.auth import Console
from adapters.web.access.communities import CommunityNames
from adapters.web.access.gate import Gate
from adapters.web.access.platforms import DiscordSignIn, SlackSignIn
from adapters.web.access.sessions import SignInStates, WebSessions
from adapters.web.access.throttle import Throttle, ThrottleRules
from adapters.web.access.tokens import ApiTokens
from adapters.web.app import create_app, templates
from bot.config.settings import Settings
from memory.models import utcnow

__all__ = ["LOOPBACK", "WebServer", "bind", "build_console", "serve_web", "start_web"]

log = logging.getLogger(__name__)

LOOPBACK = "127.0.0.1"
#: Seconds an OAuth call to Discord or Slack may take.
HTTP_TIMEOUT = 10.0


def build_console(rt: Runtime, *, local: bool, http: httpx.AsyncClient,
                  clock: Callable[[], datetime] = utcnow, monotonic: Callable[[], float] = time.monotonic) -> Console:
    """The console over a started runtime; sign-in providers from ``HEYAN_WEB_*`` (none with ``local``)."""
    s = rt.settings
    moderation = rt.port.moderation
    discord = DiscordSignIn(s, http) if s.web.discord_enabled and not local else None
    slack = SlackSignIn(s, http) if s.web.slack_enabled and not local else None
    names = CommunityNames(rt.redis)
    rules = ThrottleRules(views=s.web.views_per_minute, changes=s.web.changes_per_minute,
                          sign_ins=s.web.sign_ins_per_minute, bad_tokens=s.web.bad_tokens_per_minute)
    return Console(
        moderation=moderation, states=SignInStates(rt.redis), settings=s, local=local, templates=templates(),
        sessions=WebSessions(rt.redis, cipher=rt.cipher, hours=s.web.session_hours, clock=clock),
        tokens=ApiTokens(rt.redis, cipher=rt.cipher),
        gate=Gate(moderation, discord=discord, slack=slack, ttl=s.web.recheck_seconds, clock=monotonic, names=names),
        throttle=Throttle(rt.redis, rules, clock=lambda: clock().timestamp()), names=names,
        discord=discord, slack=slack,
    )


class _Server(uvicorn.Server):
    """uvicorn without its own signal handling."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


def bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise StartupError(f"cannot listen on {host}:{port} for the web console ({exc.strerror}): free the port, "
                           "or pick another with --port / HEYAN_WEB_PORT") from None
    sock.listen(512)
    sock.setblocking(False)
    return sock


class WebServer:
    """The console served on the current event loop until ``stop()``."""

    def __init__(self, console: Console, http: httpx.AsyncClient, host: str, port: int,
                 sock: socket.socket | None = None) -> None:
        self.sock = sock if sock is not None else bind(host, port)
        self.http = http
        config = uvicorn.Config(create_app(console), lifespan="off", log_config=None, log_level="warning",
                                access_log=False, server_header=False, proxy_headers=True,
                                forwarded_allow_ips=LOOPBACK, timeout_graceful_shutdown=5)
        self.server = _Server(config)
        self.task: asyncio.Task[None] | None = None

    @property
    def port(self) -> int:
        return int(self.sock.getsockname()[1])

    def start(self) -> None:
        self.task = asyncio.create_task(self.server.serve(sockets=[self.sock]), name="heyan-web")

    async def stop(self) -> None:
        """Stop serving (requests in flight finish) and close the socket; safe to repeat."""
        self.server.should_exit = True
        if self.task is not None:
            with contextlib.suppress(asyncio.CancelledError, TimeoutError):
                await asyncio.wait_for(self.task, 10.0)
            self.task = None
        self.sock.close()
        await self.http.aclose()


async def start_web(settings: Settings, rt: Runtime, *, host: str | None = None, port: int | None = None,
                    local: bool = False) -> WebServer | None:
    """Serve the console beside the platforms (``heyan run``); None when ``HEYAN_WEB_PORT`` is unset."""
    port = port if port is not None else settings.web.port
    if port is None:
        return None
    http = httpx.AsyncClient(timeout=HTTP_TIMEOUT)
    try:
        web = WebServer(build_console(rt, local=local, http=http), http, LOOPBACK if local else host or settings.web.host,
                        port)
    except BaseException:
        await http.aclose()
        raise
    web.start()
    if not (local or settings.web.discord_enabled or settings.web.slack_enabled):
        log.warning("the web console has no sign-in configured (HEYAN_WEB_DISCORD_* / HEYAN_WEB_SLACK_*): only API "
                    "tokens (heyan web token create) reach it")
    return web


async def serve_web(settings: Settings, *, host: str | None, port: int | None, local: bool,
                    ready: Callable[[str, int], None] | None = None) -> None:
    """``heyan web``: a runtime (with its worker in the embedded shape) and the console, until a
    signal. ``--local`` binds 127.0.0.1 whatever ``host`` says."""
    rt = await Runtime.start(settings, worker=settings.redis.url is None)
    observability = None
    try:
        # /metrics and /healthz on HEYAN_METRICS_PORT, as every Heyan process serves them (probes, scrapes)
        observability = await start_observability(settings.metrics_port, rt.redis, provider=rt.provider)
        chosen = port if port is not None else settings.web.port if settings.web.port is not None else 8080
        web = await start_web(settings, rt, host=host, port=chosen, local=local)
        assert web is not None
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, stop.set)
        if ready is not None:
            ready(LOOPBACK if local else host or settings.web.host, web.port)
        try:
            assert web.task is not None
            waiter = asyncio.create_task(stop.wait())
            await asyncio.wait([web.task, waiter], return_when=asyncio.FIRST_COMPLETED)
            waiter.cancel()
        finally:
            await web.stop()
    finally:
        if observability is not None:
            await observability.stop()
        await rt.stop()
