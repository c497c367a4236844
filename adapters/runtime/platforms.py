"""What a platform adapter gives the process that runs it (``heyan run``).

A platform connects with its own settings, calls the platform port (``rt.port``) and hands back a
``PostSender``; ``start(rt)`` is its one composition step. ``heyan run`` starts the runtime and every
configured platform, delivers their outboxes, serves the web console with ``HEYAN_WEB_PORT``, and stops
everything in order on a signal or a lost connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from typing import Protocol

from adapters.runtime.composition import Runtime, StartupError
from adapters.runtime.observability import ObservabilityServer, start_observability
from bot.config.settings import Settings
from bot.delivery.deliverer import PostSender

__all__ = ["Platform", "configured_platforms", "run_platforms"]

log = logging.getLogger(__name__)


class Platform(Protocol):
    """One platform connection of a bot process."""

    name: str

    async def start(self, rt: Runtime) -> PostSender:
        """Connect and log in; raise ``StartupError`` with one line saying what to fix (a bad token,
        a missing intent or scope). Returns the sender for this platform's outbox."""
        ...

    async def serve(self) -> None:
        """Run until the connection ends or ``stop()`` is called."""
        ...

    async def stop(self) -> None:
        """Disconnect; safe to call twice or before ``start``."""
        ...


def configured_platforms(settings: Settings) -> list[Platform]:
    """The platforms whose settings are present (each adapter imported only when configured)."""
    platforms: list[Platform] = []
    if settings.discord.enabled:
        from adapters.discord import DiscordPlatform

        platforms.append(DiscordPlatform(settings))
    if settings.slack.enabled:
        from adapters.slack import SlackPlatform

        platforms.append(SlackPlatform(settings))
    return platforms


async def run_platforms(settings: Settings, *, worker: bool | None = None) -> None:
    """``heyan run``: the runtime, its worker (embedded shape, or when asked) and every configured
    platform, until a signal or a platform stops."""
    platforms = configured_platforms(settings)
    if not platforms:
        raise StartupError(
            "no platform is configured: set HEYAN_DISCORD_TOKEN for Discord, or HEYAN_SLACK_BOT_TOKEN with "
            "HEYAN_SLACK_APP_TOKEN (Socket Mode) or HEYAN_SLACK_SIGNING_SECRET (HTTP) for Slack"
        )
    in_process = settings.redis.url is None if worker is None else worker
    rt = await Runtime.start(settings, worker=in_process)
    # Metrics and /healthz (HEYAN_METRICS_PORT): before the platforms start, so every reply is timed.
    try:
        observability: ObservabilityServer | None = await start_observability(
            settings.metrics_port, rt.redis, provider=rt.provider, engine=rt.engine)
    except OSError as exc:
        await rt.stop()
        raise StartupError(f"cannot serve metrics on HEYAN_METRICS_PORT={settings.metrics_port}: {exc}") from exc
    # The web console (HEYAN_WEB_PORT): FastAPI is imported only when it is asked for.
    web = None
    if settings.web.port is not None:
        from adapters.web.server import start_web

        try:
            web = await start_web(settings, rt)
        except BaseException:
            if observability is not None:
                await observability.stop()
            await rt.stop()
            raise
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):  # not on the main thread (tests)
            loop.add_signal_handler(sig, stop.set)
    started: list[Platform] = []
    try:
        for platform in platforms:
            sender = await platform.start(rt)
            started.append(platform)
            rt.connect(sender)
            log.info("%s connected", platform.name)
        serving = [asyncio.create_task(p.serve(), name=f"heyan-{p.name}") for p in started]
        stopper = asyncio.create_task(stop.wait(), name="heyan-stop")
        watch = asyncio.create_task(_worker_watch(rt), name="heyan-worker-watch")
        done, _ = await asyncio.wait([*serving, stopper, watch], return_when=asyncio.FIRST_COMPLETED)
        for task in (stopper, watch, *serving):
            if not task.done():
                task.cancel()
        for task in done:
            failure = None if task is stopper else task.exception()
            if failure is not None:
                raise failure
    finally:
        for platform in reversed(started):
            await platform.stop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.remove_signal_handler(sig)
        if web is not None:
            await web.stop()
        if observability is not None:
            await observability.stop()
        await rt.stop()


async def _worker_watch(rt: Runtime) -> None:
    """Raise when the in-process worker gave up, so the bot stops instead of taking messages that no
    job would process."""
    await rt.worker_failed.wait()
    raise StartupError(f"the job worker stopped and could not be restarted: {rt.worker_failure}")
