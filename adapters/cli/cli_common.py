"""What every ``heyan`` command group shares: consoles, one-line failures, running async bodies on a
runtime or on Redis alone, and the local operator's view of the moderation service.

Each group imports only this and ``bot``/``jobs``; ``adapters.cli.app`` registers them. A known startup
problem ends in one line on stderr saying what to do, and exit status 2.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Sequence
from contextlib import asynccontextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

import typer
from rich.markup import escape as escape_markup

from adapters.cli.cli_style import Typer
from adapters.cli.terminal import SafeConsole

if TYPE_CHECKING:  # imported where used: `heyan --help` must not load the runtime, arq or the stores
    from arq.connections import ArqRedis

    from adapters.runtime.composition import Runtime
    from bot.actors import Actor
    from bot.config.settings import Settings
    from bot.text.names import TenantNames

__all__ = [
    "NOW_HELP",
    "SESSION_HELP",
    "TENANT_HELP",
    "Typer",
    "console",
    "err",
    "fail",
    "find_in_tenants",
    "parse_time",
    "redis_only",
    "run",
    "tenant_names",
    "tenants_of",
    "with_redis",
    "with_runtime",
]

# members' names and words reach these: they print control characters as visible escapes
console = SafeConsole()
err = SafeConsole(stderr=True)
T = TypeVar("T")

TENANT_HELP = "only this tenant, e.g. discord:<guild id> or console:local (default: every tenant)"
SESSION_HELP = "only this thread or channel id (default: every session)"


def fail(message: str) -> typer.Exit:
    """Print ``error: message`` on stderr; raise the returned Exit (status 2). The message may echo
    what a member or the operator typed: it is printed as text, never as markup."""
    err.print(f"[bold red]error:[/] {escape_markup(message)}", highlight=False, soft_wrap=True, markup=True)
    return typer.Exit(2)


NOW_HELP = "as of this time (ISO-8601 with an offset; default: now) — e.g. to replay a script's past"


def parse_time(value: str | None, what: str = "--now") -> datetime | None:
    """An ISO-8601 time with an offset, or None; ``fail`` naming ``what`` otherwise."""
    if value is None:
        return None
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        raise fail(f"{what} {value!r} is not an ISO-8601 time (e.g. 2026-12-01T15:00+08:00)") from None
    if when.tzinfo is None:
        raise fail(f"{what} {value!r} has no UTC offset; add one, e.g. +08:00 or Z")
    return when


def one_of(what: str, value: str, choices: Sequence[str]) -> str:
    """``value`` when it is one of ``choices``; else the error naming them (``fail``)."""
    if value not in choices:
        raise fail(f"unknown {what} {value!r}; use one of: {', '.join(choices)}")
    return value


def run(main: Callable[[Settings], Coroutine[Any, Any, T]]) -> T:
    """Load settings and run an async command; known failures become one clear line and exit 2."""
    # here, not at the top: a command pays for the runtime's imports only when it runs
    from adapters.runtime.logs import configure_logging
    from bot.config.settings import load_settings
    from memory.errors import HeyanError

    try:
        settings = load_settings()
        configure_logging(settings)
        return asyncio.run(main(settings))
    except HeyanError as exc:  # every error Heyan raises on purpose says what to do in its message
        raise fail(str(exc)) from None
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
    except Exception as exc:  # anything else still ends in one line (the traceback goes to the log at DEBUG)
        logging.getLogger("heyan.cli").debug("the command failed", exc_info=True)
        raise fail(f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__) from None


def with_runtime(body: Callable[[Runtime], Awaitable[T]], **kw: Any) -> T:
    """Run ``body`` on a runtime without a worker (admin commands must not run jobs)."""

    from adapters.runtime.composition import Runtime

    async def main(settings: Settings) -> T:
        rt = await Runtime.start(settings, worker=False, **kw)
        try:
            return await body(rt)
        finally:
            await rt.stop()

    return run(main)


@asynccontextmanager
async def redis_only(settings: Settings) -> AsyncIterator[ArqRedis]:
    """The queue's Redis: the configured server, or the embedded Valkey through a worker-less runtime."""
    from adapters.runtime.composition import Runtime, StartupError
    from bot.config.settings import mask_url
    from jobs.queue import connect

    url = settings.redis.url
    if url is None:
        rt = await Runtime.start(settings, worker=False)
        try:
            yield rt.redis
        finally:
            await rt.stop()
        return
    try:
        pool = await connect(url)
    except Exception as exc:
        raise StartupError(f"cannot reach Redis at {mask_url(url)}: {exc}. Start it or fix HEYAN_REDIS_URL.") from exc
    try:
        yield pool
    finally:
        await pool.aclose()


def with_redis(body: Callable[[ArqRedis], Awaitable[T]]) -> T:
    async def main(settings: Settings) -> T:
        async with redis_only(settings) as redis:
            return await body(redis)

    return run(main)


async def tenants_of(rt: Runtime, tenant: str | None) -> list[str]:
    """``[tenant]``, or every tenant holding memories."""
    return [tenant] if tenant else await rt.store.tenants("facts")


async def tenant_names(rt: Runtime, tenants: set[str]) -> TenantNames:
    """Everyone's latest display name in these tenants, read from all of their records — so a
    filtered listing names people as the unfiltered one does."""
    from bot.actors import Actor
    from bot.text.names import TenantNames

    facts = []
    for t in sorted(tenants):
        facts += await rt.moderation.memory_list(Actor.operator(t))
    return TenantNames(facts)


async def find_in_tenants(
    rt: Runtime, tenant: str | None, call: Callable[[Actor], Awaitable[T]], what: str
) -> T:
    """Run a lookup as the local operator in ``tenant``, or in every tenant when none is given;
    exactly one tenant must answer (else one clear error)."""
    from bot.actors import Actor, NotFound

    found: list[T] = []
    missing: NotFound | None = None
    for t in await tenants_of(rt, tenant):
        try:
            found.append(await call(Actor.operator(t)))
        except NotFound as exc:
            missing = exc
    if len(found) > 1:
        raise fail(f"{what} matches in {len(found)} tenants; add --tenant")
    if not found:
        raise fail(str(missing) if missing else f"no {what} here; nothing is stored yet")
    return found[0]
