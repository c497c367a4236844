"""arq worker wiring: the task list, retries with backoff, the dead-letter list, and worker settings.

In the embedded shape the runtime (``adapters.runtime.composition``) runs ``build_worker(services)`` inside the
bot process. In the distributed shape ``heyan worker`` runs ``worker_settings(settings, open=...)``:
its startup calls ``open`` (the composition root, which ``jobs/`` does not import) to build the
services into ``ctx``. Both read job timeout, tries and the cron interval from Settings when the
worker is built, never at import.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import secrets
import string
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from arq import Retry
from arq.connections import ArqRedis, RedisSettings
from arq.utils import timestamp_ms
from arq.worker import Function, Worker, func

from bot.config.settings import Settings
from bot.delivery.backoff import backoff
from bot.delivery.deadletters import DEAD_LETTER, DeadLetters, describe_error
from bot.services import Services
from jobs import card_digest, tasks
from jobs.cron import cron_jobs as default_cron_jobs
from jobs.queue import DOORBELL, QUEUE, deserialize, ring, serialize
from memory.errors import HeyanError

__all__ = ["DEAD_LETTER", "DoorbellWorker", "JobFailed", "OpenServices", "build_worker", "task_functions",
           "worker_settings"]

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
    after the last try, put it in the dead-letter list (``bot.delivery.deadletters``: the error's message is
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


class DoorbellWorker(Worker):
    """arq's Worker, woken by the queue's doorbell (``jobs.queue.DOORBELL``) instead of sleeping
    ``poll_delay`` between two reads of the queue.

    arq reads the queue, starts what is due, then sleeps ``poll_delay``: a job queued just after a
    read waits up to that long. This worker runs arq's loop with no sleep, and ends each of its
    iterations (``_poll_iteration``) by waiting: on the doorbell, which every enqueue rings
    (``jobs.queue.enqueue``), with BLPOP for at most ``poll_delay``, so an idle worker still reads
    the queue that often (jobs queued by a plain ``enqueue_job``, a retry's backoff, a clock moved).
    A deferred job due sooner than that sets an alarm: a task that rings this worker's own doorbell
    at its time (Redis times a BLPOP out only at its ``hz`` tick, 100 ms). With every slot busy
    (``max_jobs``) it waits for a job to end instead.

    Several workers may share the doorbell: a ring wakes one of them, which reads every due job; the
    others read the queue at their ``poll_delay``, as plain arq workers do.
    """

    def __init__(self, *args: Any, poll_delay: float = 0.5, **kwargs: Any) -> None:
        super().__init__(*args, poll_delay=0, **kwargs)
        #: The longest wait between two reads of the queue: arq's ``poll_delay``.
        self.idle_wait = float(poll_delay)
        #: This worker's own doorbell, rung by its alarm (letters only: no digits to mistake for an id).
        self.alarm_key = f"{DOORBELL}:" + "".join(secrets.choice(string.ascii_lowercase) for _ in range(12))
        #: Set whenever one of this worker's jobs ends (``Runtime.drain`` waits on it).
        self.job_ended = asyncio.Event()
        self._slot_freed = asyncio.Event()  # the same, for this worker's own wait when every slot is busy
        #: Milliseconds from when each job could run (its score in the queue) to its start, the latest 10,000.
        self.pickup_ms: deque[int] = deque(maxlen=10_000)

    async def _poll_iteration(self) -> None:
        read_from = timestamp_ms()
        await super()._poll_iteration()
        await self._wait_for_work(read_from)

    async def _wait_for_work(self, read_from: int) -> None:
        """Until the doorbell rings, the next deferred job is due, or ``idle_wait`` passed."""
        if self.job_counter >= self.max_jobs:  # no slot: nothing can start before a job ends
            self._slot_freed.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.idle_wait):
                    await self._slot_freed.wait()
            return
        # the earliest job not due at the read (one due since is read again at once)
        upcoming = await self.pool.zrangebyscore(self.queue_name, f"({read_from}", "+inf", start=0, num=1,
                                                 withscores=True)
        due_in = (upcoming[0][1] - timestamp_ms()) / 1000 if upcoming else None
        if due_in is not None and due_in <= 0:
            return
        alarm = None
        if due_in is not None and due_in < self.idle_wait:
            alarm = asyncio.create_task(self._alarm(due_in), name="heyan-worker-alarm")
        try:
            # redis-py's stub says int; Redis takes a float (seconds)
            rang = await self.pool.blpop([DOORBELL, self.alarm_key], timeout=self.idle_wait)  # type: ignore[arg-type,misc]
        finally:
            if alarm is not None:
                alarm.cancel()
                await asyncio.gather(alarm, return_exceptions=True)  # its outcome, not this task's cancellation
        if rang:
            # one read serves every ring so far: the tokens left would only wake the worker for nothing
            await self.pool.delete(DOORBELL, self.alarm_key)

    async def _alarm(self, delay: float) -> None:
        await asyncio.sleep(delay)
        await ring(self.pool, self.alarm_key)

    async def run_job(self, job_id: str, score: int) -> None:
        self.pickup_ms.append(max(0, timestamp_ms() - score))
        try:
            await super().run_job(job_id, score)
        finally:
            # run after this task is done: a waiter sees it finished, and arq's done callback freed its slot
            asyncio.get_running_loop().call_soon(self._ended)

    def _ended(self) -> None:
        self.job_ended.set()
        self._slot_freed.set()


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


def build_worker(svc: Services, *, burst: bool = False) -> DoorbellWorker:
    """An arq worker for these services' queue, sharing their Redis pool (an arq pool)."""
    if not isinstance(svc.redis, ArqRedis):
        raise TypeError("the in-process worker needs the services' Redis to be an arq pool (create_pool)")
    return DoorbellWorker(
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
