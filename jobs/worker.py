"""arq worker wiring: the task list, retries with backoff, the dead-letter list, and WorkerSettings.

In the embedded shape the runtime runs ``build_worker(runtime)`` inside the bot process. In the
distributed shape ``heyan worker`` runs ``WorkerSettings``, whose startup builds the services from
Settings into ``ctx``.
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from arq import Retry
from arq.worker import Function, Worker, func

from jobs import tasks
from jobs.cron import cron_jobs as default_cron_jobs
from jobs.queue import QUEUE
from memory.models import utcnow

if TYPE_CHECKING:
    from bot.runtime import Runtime

__all__ = ["DEAD_LETTER", "WorkerSettings", "build_worker", "task_functions"]

log = logging.getLogger(__name__)

#: Redis list of jobs that failed their last try, newest last, as JSON.
DEAD_LETTER = "heyan:dead-letter"

Task = Callable[..., Awaitable[Any]]


def _backoff(job_try: int) -> int:
    """Seconds before the next try: 2, 4, 8, ... capped at 5 minutes."""
    return int(min(300, 2**job_try))


def resilient(task: Task) -> Task:
    """Retry a failing task with backoff; after the last try, put it in the dead-letter list."""

    @functools.wraps(task)
    async def run(ctx: dict[str, Any], *args: Any) -> Any:
        try:
            return await task(ctx, *args)
        except Retry:
            raise
        except Exception as exc:
            job_try = int(ctx.get("job_try", 1))
            max_tries = int(ctx.get("max_tries", 5))
            if job_try < max_tries:
                log.warning("%s try %d failed (%s); retrying", task.__name__, job_try, exc)
                raise Retry(defer=_backoff(job_try)) from exc
            entry = {
                "job_id": ctx.get("job_id"),
                "function": task.__name__,
                "args": list(args),
                "error": f"{type(exc).__name__}: {exc}",
                "tries": job_try,
                "at": utcnow().isoformat(),
            }
            await ctx["redis"].rpush(DEAD_LETTER, json.dumps(entry, ensure_ascii=False))
            log.error("%s dead-lettered after %d tries: %s", task.__name__, job_try, exc)
            raise

    return run


def task_functions(max_tries: int, timeout: int) -> list[Function]:
    plain: list[Task] = [
        tasks.extract_memories,
        tasks.extract_idle,
        tasks.summarize_session,
        tasks.send_reminder,
        tasks.forget_user,
    ]
    # arq's own max_tries is one above ours so that our wrapper, not arq, decides the last try.
    return [
        func(resilient(t), name=t.__name__, max_tries=max_tries + 1, timeout=timeout)  # type: ignore[arg-type]
        for t in plain
    ]


def build_worker(rt: Runtime, *, burst: bool = False) -> Worker:
    """An arq worker for this runtime's queue, sharing its Redis pool and services."""
    jobs = rt.settings.jobs
    return Worker(
        functions=task_functions(jobs.max_tries, jobs.job_timeout),
        cron_jobs=rt.cron_jobs(),
        redis_pool=rt.redis,
        queue_name=QUEUE,
        burst=burst,
        handle_signals=False,
        ctx={"heyan": rt, "max_tries": jobs.max_tries},
        job_timeout=jobs.job_timeout,
        max_tries=jobs.max_tries + 1,
        poll_delay=0.2,
        keep_result=3600,
        log_results=False,
    )


async def _startup(ctx: dict[str, Any]) -> None:
    from bot.runtime import Runtime
    from bot.settings import load_settings

    rt = await Runtime.start(load_settings(), worker=False)
    ctx["heyan"] = rt
    ctx["max_tries"] = rt.settings.jobs.max_tries


async def _shutdown(ctx: dict[str, Any]) -> None:
    rt = ctx.get("heyan")
    if rt is not None:
        await rt.stop()


class WorkerSettings:
    """``heyan worker``: a standalone worker for the distributed shape (needs HEYAN_REDIS_URL)."""

    functions = task_functions(5, 120)
    cron_jobs = default_cron_jobs()
    queue_name = QUEUE
    on_startup = _startup
    on_shutdown = _shutdown
    max_tries = 6
    job_timeout = 120
