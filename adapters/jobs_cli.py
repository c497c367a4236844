"""``heyan jobs``: queue status, the dead-letter list (and retrying it), and reconciliation now.

``status`` and ``dead-letter`` need only Redis: with ``HEYAN_REDIS_URL`` they connect to it directly;
in the embedded shape (no URL) they start the runtime without its worker to reach the embedded
Valkey. ``reconcile`` reads the memory store, so it always starts the runtime (without a worker:
the jobs it enqueues run in the bot or in ``heyan worker``).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Annotated, TypeVar

import typer
from arq.connections import ArqRedis, RedisSettings, create_pool
from rich.table import Table

from adapters.cli import _fail, _with_runtime, console, jobs_app, run
from bot.runtime import Runtime, StartupError
from bot.settings import Settings
from jobs import admin
from jobs.cron import ReconcileReport, reconcile
from jobs.queue import QUEUE

__all__ = ["jobs_dead_letter", "jobs_reconcile", "jobs_status"]

T = TypeVar("T")


@asynccontextmanager
async def _redis(settings: Settings) -> AsyncIterator[ArqRedis]:
    """The queue's Redis: the configured server, or the embedded Valkey through a worker-less runtime."""
    url = settings.redis.url
    if url is None:
        rt = await Runtime.start(settings, worker=False)
        try:
            yield rt.redis
        finally:
            await rt.stop()
        return
    try:
        pool = await create_pool(RedisSettings.from_dsn(url), default_queue_name=QUEUE, retry=0)
    except Exception as exc:
        raise StartupError(f"cannot reach Redis at {url}: {exc}. Start it or fix HEYAN_REDIS_URL.") from exc
    try:
        yield pool
    finally:
        await pool.aclose()


def _with_redis(body: Callable[[ArqRedis], Awaitable[T]]) -> T:
    async def main(settings: Settings) -> T:
        async with _redis(settings) as redis:
            return await body(redis)

    return run(main)


@jobs_app.command("status")
def jobs_status(as_json: Annotated[bool, typer.Option("--json")] = False) -> None:
    """Jobs ready, deferred (reminders), running, and dead-lettered."""
    st = _with_redis(admin.status)
    if as_json:
        print(json.dumps(st.as_dict()))
        return
    table = Table(title="job queue")
    for col in ("ready", "deferred", "in progress", "dead"):
        table.add_column(col, justify="right")
    table.add_row(str(st.ready), str(st.deferred), str(st.in_progress), str(st.dead))
    console.print(table)


@jobs_app.command("dead-letter")
def jobs_dead_letter(
    retry: Annotated[str | None, typer.Option("--retry", help="re-enqueue this dead job id")] = None,
    retry_all: Annotated[bool, typer.Option("--all", help="re-enqueue every dead job")] = False,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """List jobs that failed their last try; --retry ID or --all enqueues them again."""
    if retry is not None and retry_all:
        raise _fail("use either --retry ID or --all, not both")
    if retry is not None or retry_all:
        n = _with_redis(lambda r: admin.retry_dead(r, None if retry_all else retry))
        if retry is not None and n == 0:
            raise _fail(f"no dead job with id {retry}; `heyan jobs dead-letter` lists them")
        if as_json:
            print(json.dumps({"retried": n}))
        else:
            console.print(f"re-enqueued {n} dead job{'s' if n != 1 else ''}")
        return
    dead = _with_redis(admin.dead_letters)
    if as_json:
        print(json.dumps([d.as_dict() for d in dead], ensure_ascii=False, indent=1))
        return
    table = Table(title=f"{len(dead)} dead jobs")
    for col in ("job id", "function", "tries", "error", "at"):
        table.add_column(col, overflow="fold")
    for d in dead:
        table.add_row(d.job_id, d.function, str(d.tries), d.error, d.at)
    console.print(table)


@jobs_app.command("reconcile")
def jobs_reconcile(as_json: Annotated[bool, typer.Option("--json")] = False) -> None:
    """Rebuild missing reminder jobs from the store and mark past-due commitments overdue, now."""

    async def body(rt: Runtime) -> ReconcileReport:
        return await reconcile({"heyan": rt, "redis": rt.redis})

    report = run(lambda s: _with_runtime(s, body, worker=False))
    if as_json:
        print(json.dumps(report.as_dict()))
    else:
        console.print(
            f"{report.open_commitments} open commitments in {report.tenants} tenants: "
            f"{report.scheduled} reminder jobs re-enqueued, {report.overdue} newly overdue"
        )
