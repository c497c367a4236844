"""arq worker wiring: the task list, retries with backoff, the dead-letter list, and worker settings.

In the embedded shape the runtime (``adapters.runtime``) runs ``build_worker(services)`` inside the
bot process. In the distributed shape ``heyan worker`` runs ``worker_settings(settings, open=...)``:
its startup calls ``open`` (the composition root, which ``jobs/`` does not import) to build the
services into ``ctx``. Both read job timeout, tries and the cron interval from Settings when the
worker is built, never at import.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from arq import Retry
from arq.connections import ArqRedis, RedisSettings
from arq.worker import Function, Worker, func

from bot.backoff import backoff
from bot.deadletters import DEAD_LETTER, DeadLetters, describe_error
from bot.services import Services
from bot.settings import Settings
from jobs import card_digest, tasks
from jobs.cron import cron_jobs as default_cron_jobs
from jobs.queue import QUEUE, deserialize, serialize
from memory.errors import HeyanError

__all__ = ["DEAD_LETTER", "JobFailed", "OpenServices", "build_worker", "task_functions", "worker_settings"]

log = logging.getLogger(__name__)

Task = Callable[..., Awaitable[Any]]

#: Builds the services of a standalone worker from Settings; returns them and how to close them.
OpenServices = Callable[[Settings], Awaitable[tuple[Services, Callable[[], Awaitable[None]]]]]


#: Seconds arq's own timeout allows beyond ours: our timeout fires first, as an ordinary failure
#: (retried, then dead-lettered) — arq's would end the job with neither.
_ARQ_TIMEOUT_GRACE = 5


class JobFailed(HeyanError):
    """A job failed its last try. Raised instead of the job's own exception, whose message may quote
    members (it is sealed in the dead letter): arq logs and keeps this one as the job's result."""


def resilient(task: Task, timeout: float | None = None) -> Task:
    """Run a task within ``timeout`` seconds; retry a failure (a timeout included) with backoff;
    after the last try, put it in the dead-letter list (``bot.deadletters``: the error's message is
    sealed there) and fail with ``JobFailed``. Logs name the error's type, never its message."""

    @functools.wraps(task)
    async def run(ctx: dict[str, Any], *args: Any) -> Any:
        try:
            async with asyncio.timeout(timeout):
                return await task(ctx, *args)
        except Retry:
            raise
        except Exception as exc:
            job_try = int(ctx.get("job_try", 1))
            max_tries = int(ctx.get("max_tries", 5))
            shown, _ = describe_error(exc, timeout)
            if job_try < max_tries:
                log.warning("%s try %d failed (%s); retrying", task.__name__, job_try, shown)
                raise Retry(defer=backoff(job_try)) from exc
            svc = ctx.get("heyan")
            letters = getattr(svc, "dead_letters", None) or DeadLetters(ctx["redis"])
            await letters.add(job_id=str(ctx.get("job_id") or ""), function=task.__name__, args=args, exc=exc,
                              tries=job_try, timeout=timeout)
            log.error("%s dead-lettered after %d tries: %s", task.__name__, job_try, shown)
            raise JobFailed(f"{task.__name__} dead-lettered after {job_try} tries: {shown}") from None

    return run


def task_functions(max_tries: int, timeout: int) -> list[Function]:
    plain: list[Task] = [
        tasks.extract_memories,
        tasks.extract_idle,
        tasks.summarize_session,
        tasks.send_reminder,
        tasks.forget_user,
        tasks.purge_tenant,
        *card_digest.TASKS,
    ]
    # arq's own max_tries is one above ours so that our wrapper, not arq, decides the last try; its
    # timeout is above ours so that ours, which retries and dead-letters, fires first.
    return [
        func(resilient(t, timeout), name=t.__name__, max_tries=max_tries + 1,  # type: ignore[arg-type]
             timeout=timeout + _ARQ_TIMEOUT_GRACE)
        for t in plain
    ]


def _worker_kwargs(settings: Settings) -> dict[str, Any]:
    """The arq Worker arguments both shapes share, from Settings (read when the worker is built)."""
    jobs = settings.jobs
    return {
        "functions": task_functions(jobs.max_tries, jobs.job_timeout),
        "cron_jobs": [*default_cron_jobs(settings), *card_digest.cron_jobs()],
        "queue_name": QUEUE,
        "job_timeout": jobs.job_timeout + _ARQ_TIMEOUT_GRACE,
        "max_tries": jobs.max_tries + 1,  # see task_functions
        "keep_result": 3600,
        "job_serializer": serialize,
        "job_deserializer": deserialize,
    }


def build_worker(svc: Services, *, burst: bool = False) -> Worker:
    """An arq worker for these services' queue, sharing their Redis pool (an arq pool)."""
    if not isinstance(svc.redis, ArqRedis):
        raise TypeError("the in-process worker needs the services' Redis to be an arq pool (create_pool)")
    return Worker(
        **_worker_kwargs(svc.settings),
        redis_pool=svc.redis,
        burst=burst,
        handle_signals=False,
        ctx={"heyan": svc, "max_tries": svc.settings.jobs.max_tries},
        poll_delay=0.2,
        log_results=False,
    )


def worker_settings(settings: Settings, *, open: OpenServices) -> dict[str, Any]:
    """``heyan worker``: the standalone worker of the distributed shape (needs HEYAN_REDIS_URL), as
    arq ``WorkerSettings`` built from ``settings`` — job timeout, tries and the reconcile interval
    included. Its startup builds the services with ``open`` into ``ctx``; its shutdown closes them."""

    async def startup(ctx: dict[str, Any]) -> None:
        svc, close = await open(settings)
        ctx["heyan"], ctx["heyan_close"], ctx["max_tries"] = svc, close, settings.jobs.max_tries

    async def shutdown(ctx: dict[str, Any]) -> None:
        close = ctx.get("heyan_close")
        if close is not None:
            await close()

    redis = settings.redis.url
    return {
        **_worker_kwargs(settings),
        "on_startup": startup,
        "on_shutdown": shutdown,
        **({"redis_settings": RedisSettings.from_dsn(redis)} if redis else {}),
    }
