"""``heyan jobs``: queue and outbox status, the dead-letter lists (and retrying them), and
reconciliation now.

``status`` and ``dead-letter`` need only Redis (embedded: the runtime without its worker, for Valkey);
``reconcile`` reads the store, so it starts the runtime without a worker.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from adapters.cli.cli_common import console, fail, with_redis, with_runtime
from adapters.cli.cli_style import Typer

if TYPE_CHECKING:  # the commands import what they use: `heyan --help` must not load arq
    from arq.connections import ArqRedis

    from adapters.runtime.composition import Runtime
    from bot.delivery.outbox import Outbox, OutboxStats, PostRecord
    from jobs import admin
    from jobs.cron import ReconcileReport

__all__ = ["app"]

app = Typer(no_args_is_help=True, help="The background job queue and the outboxes.")


async def _status(redis: ArqRedis) -> tuple[admin.QueueStatus, list[OutboxStats]]:
    from bot.delivery.outbox import Outbox
    from jobs import admin

    return await admin.status(redis), await Outbox(redis).stats()


@app.command("status")
def jobs_status(as_json: Annotated[bool, typer.Option("--json", help="JSON instead of tables")] = False) -> None:
    """Jobs ready, deferred (reminders), running and dead-lettered; posts waiting per platform."""
    st, outboxes = with_redis(_status)
    if as_json:
        print(json.dumps({**st.as_dict(), "outbox": [o.as_dict() for o in outboxes]}))
        return
    table = Table(title="job queue")
    for col in ("ready", "deferred", "in progress", "dead"):
        table.add_column(col, justify="right")
    table.add_row(str(st.ready), str(st.deferred), str(st.in_progress), str(st.dead))
    console.print(table)
    posts = Table(title="outbox (posts waiting for the process connected to each platform)")
    for col in ("platform", "ready", "retrying", "sending", "dead"):
        posts.add_column(col, justify="right" if col != "platform" else "left")
    for o in outboxes:
        posts.add_row(o.platform, str(o.ready), str(o.waiting), str(o.leased), str(o.dead))
    console.print(posts)


def _outbox(redis: ArqRedis) -> Outbox:
    """The outbox with this process's keys: a dead post's body is sealed."""
    from adapters.runtime.composition import build_cipher
    from bot.config.settings import load_settings
    from bot.delivery.outbox import Outbox

    return Outbox(redis, cipher=build_cipher(load_settings()))


async def _dead_posts(redis: ArqRedis) -> list[PostRecord]:
    return await _outbox(redis).dead()


def _post_view(r: PostRecord) -> dict[str, Any]:
    return {"id": r.post.id, "platform": r.post.platform, "tenant": r.post.tenant, "session": r.post.session,
            "kind": r.post.kind.value, "attempts": r.attempts, "error": r.error, "permanent": r.permanent,
            "text": r.post.body.plain()}


@app.command("dead-letter")
def jobs_dead_letter(
    retry: Annotated[str | None, typer.Option("--retry", help="re-enqueue this dead job (or post) id")] = None,
    retry_all: Annotated[bool, typer.Option("--all", help="re-enqueue every dead job and post")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="JSON instead of tables")] = False,
) -> None:
    """List jobs and posts that failed their last try; --retry ID or --all enqueues them again."""
    from jobs import admin

    if retry is not None and retry_all:
        raise fail("use either --retry ID or --all, not both")
    if retry is not None or retry_all:
        target = None if retry_all else retry

        async def again(redis: ArqRedis) -> int:
            return await admin.retry_dead(redis, target) + await _outbox(redis).retry_dead(target)

        n = with_redis(again)
        if retry is not None and n == 0:
            raise fail(f"no dead job or post with id {retry}; `heyan jobs dead-letter` lists them")
        if as_json:
            print(json.dumps({"retried": n}))
        else:
            console.print(f"re-enqueued {n} dead job{'s' if n != 1 else ''} and posts")
        return

    async def both(redis: ArqRedis) -> tuple[list[admin.DeadLetter], list[PostRecord]]:
        # with this process's keys: a dead job's error message is sealed (it may quote members)
        from adapters.runtime.composition import build_cipher
        from bot.config.settings import load_settings
        from bot.delivery.deadletters import DeadLetters

        letters = DeadLetters(redis, cipher=build_cipher(load_settings()))
        return await admin.dead_letters(redis, letters), await _dead_posts(redis)

    dead, posts = with_redis(both)
    if as_json:
        print(json.dumps({"jobs": [d.as_dict() for d in dead], "posts": [_post_view(p) for p in posts]},
                         ensure_ascii=False, indent=1))
        return
    table = Table(title=f"{len(dead)} dead jobs")
    for col in ("job id", "function", "tries", "error", "at"):
        table.add_column(col, overflow="fold")
    for d in dead:
        table.add_row(d.job_id, d.function, str(d.tries), f"{d.error}: {d.detail}" if d.detail else d.error, d.at)
    console.print(table)
    ptable = Table(title=f"{len(posts)} dead posts")
    for col in ("post id", "platform", "attempts", "error"):
        ptable.add_column(col, overflow="fold")
    for p in posts:
        ptable.add_row(p.post.id, p.post.platform, str(p.attempts), p.error or "")
    console.print(ptable)


@app.command("reconcile")
def jobs_reconcile(as_json: Annotated[bool, typer.Option("--json", help="JSON instead of a sentence")] = False) -> None:
    """Rebuild missing reminder jobs from the store and mark past-due commitments overdue, now."""
    from jobs.cron import reconcile

    async def body(rt: Runtime) -> ReconcileReport:
        return await reconcile({"heyan": rt.services, "redis": rt.redis})

    report = with_runtime(body)
    if as_json:
        print(json.dumps(report.as_dict()))
    else:
        console.print(
            f"{report.open_commitments} open commitments in {report.tenants} tenants: "
            f"{report.scheduled} reminder jobs re-enqueued, {report.overdue} past due"
        )
