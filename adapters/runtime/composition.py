"""The composition root: builds every service of a Heyan process from one ``Settings``, starts the
in-process worker and the outbox delivery of the platforms this process is connected to, and tears
everything down in order.

Embedded by default — Qdrant Edge under the data dir, an embedded Valkey (append-only persistence)
and the arq worker inside this process. ``HEYAN_QDRANT_URL`` / ``HEYAN_REDIS_URL`` switch to servers.
This is the only module that picks concrete implementations; it sits above ``bot/`` and ``jobs/``
(which never import it) beside the entry points.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import time
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime, timedelta

from arq.connections import ArqRedis

from adapters.runtime.startup import StartupError, build_cipher
from adapters.runtime.valkey import EmbeddedValkey, ValkeyStartError
from bot.config.settings import Settings, mask_url
from bot.config.tenants import TenantConfig, TenantSettings
from bot.conversation import Conversation, MessageLog
from bot.delivery.deadletters import DeadLetters
from bot.delivery.deliverer import Deliverer, PostSender
from bot.delivery.outbox import Outbox
from bot.delivery.posts import Post, reply_post
from bot.delivery.reminders import FollowUpKeeper, record_delivery
from bot.disputes.escalation_alerts import EscalationMonitor, model_confirm
from bot.disputes.joins import DisputeJoins
from bot.engine import Engine, EngineConfig
from bot.limits import LimitRules, RateLimits
from bot.llm.base import MediatorProvider
from bot.llm.fallback import FallbackProvider
from bot.locking.locks import RedisLocks
from bot.models import Message, Stage
from bot.moderation import ModerationService
from bot.offline.provider import OfflineProvider
from bot.platform_port import PlatformPort
from bot.privacy.audit import AuditLog
from bot.privacy.departures import Departures
from bot.privacy.erasure import Erasure
from bot.privacy.sealing import check_keys
from bot.privacy.session_deletion import DeletedConversations
from bot.services import Services
from bot.sessions import SessionBook
from jobs.card_digest import enqueue_proposal
from jobs.queue import QUEUE, JobQueue, bring_forward, connect, take_over_jobs
from jobs.worker import DoorbellWorker, build_worker
from memory import clock
from memory.errors import EncryptionError
from memory.index.embedders import make_embedder
from memory.index.sparse import Bm25Encoder
from memory.models import Scope
from memory.ports import Embedder, MemoryStore
from memory.recall.cache import RecallCache
from memory.recall.retrieval import Retriever
from memory.service import MemoryService
from memory.store.codec import PayloadCodec
from memory.store.crypto import Cipher

__all__ = ["Runtime", "StartupError", "build_cipher", "build_embedder", "open_services", "open_store"]

log = logging.getLogger(__name__)


#: Worker failures within five minutes after which the process stops instead of restarting it again.
_WORKER_RESTARTS = 5
#: Seconds before the first restart of a failed worker (doubling each time, at most 30).
_RESTART_BACKOFF = 1.0
#: Jobs scored up to this many ms ahead count as ready in ``drain`` (arq rounds its scores).
_READY_SLACK_MS = 50
#: Seconds ``drain`` waits for a job to end before it reads the queue again regardless (a job taken
#: by another process, a worker being restarted, no worker in this process).
_DRAIN_RECHECK = 0.1


def _check_data_dir(settings: Settings) -> None:
    path = settings.data_dir
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StartupError(f"cannot create the data dir {path}: {exc.strerror}. Set HEYAN_DATA_DIR.") from exc
    if not os.access(path, os.W_OK):
        raise StartupError(f"the data dir {path} is not writable: set HEYAN_DATA_DIR to a writable folder")


def build_embedder(settings: Settings) -> Embedder:
    """The configured dense embedder."""
    e = settings.embeddings
    if e.provider in ("local", "e5"):
        return make_embedder(e.provider, threads=e.threads)
    return make_embedder(
        "openai",
        model=e.model,
        base_url=e.base_url,
        api_key=e.api_key.get_secret_value() if e.api_key else None,
        dim=e.dim,
    )


async def open_store(settings: Settings, embedder: Embedder) -> MemoryStore:
    """The configured vector store: Qdrant Edge under the data dir, or a Qdrant server."""
    if settings.use_server_store:
        from memory.store.server import ServerStore

        q = settings.qdrant
        return await ServerStore.open(
            url=q.url,
            api_key=q.api_key.get_secret_value() if q.api_key else None,
            prefix=q.prefix,
            embedder_name=embedder.name,
            dim=embedder.dim,
        )
    from memory.store.edge import EdgeStore
    from memory.store.files import recover_interrupted_swap

    # A reindex or migrate killed mid-swap: finish it or roll it back before opening, never open an empty store.
    recovered = recover_interrupted_swap(settings.data_dir / "qdrant")
    if recovered is not None:
        log.warning("%s", recovered.message)
    return await EdgeStore.open(settings.data_dir / "qdrant", embedder_name=embedder.name, dim=embedder.dim)


def _provider(settings: Settings) -> MediatorProvider:
    llm = settings.llm
    if not llm.enabled:
        return OfflineProvider()
    from bot.llm.openai_provider import OpenAIProvider

    return OpenAIProvider(
        base_url=llm.base_url,
        api_key=llm.api_key.get_secret_value() if llm.api_key else "not-needed",
        model=llm.model,
        fast_model=llm.fast_model or llm.model,
        timeout=min(llm.timeout, settings.jobs.job_timeout / (llm.max_attempts + 1)),
        max_attempts=llm.max_attempts,
        structured=llm.structured,
    )


class Runtime:
    """Every service of one Heyan process. ``await Runtime.start(settings, senders=[...])`` and
    ``await rt.stop()``.

    ``senders`` are the platform connections this process holds: it delivers their outboxes. A
    process without a sender for a platform (``heyan worker``) never posts there; its posts wait.
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        #: Names this process in the leases it takes (outbox tokens, logs).
        self.owner = f"{os.getpid()}-{secrets.token_hex(3)}"
        self.valkey: EmbeddedValkey | None = None
        self.redis_url: str = ""
        self._worker: DoorbellWorker | None = None
        self._worker_task: asyncio.Task[None] | None = None
        #: Set when the supervised worker gave up: the process must stop (``heyan run`` does).
        self.worker_failure: BaseException | None = None
        self.worker_failed = asyncio.Event()
        self._deliverers: dict[str, tuple[Deliverer, asyncio.Task[None]]] = {}
        #: What this process took over from a dead predecessor at start (the embedded shape).
        self.took_over = 0
        self._orphans: asyncio.Task[None] | None = None
        # set by _open()
        self.cipher: Cipher
        self.codec: PayloadCodec
        self.store: MemoryStore
        self.embedder: Embedder
        self.memory: MemoryService
        self.locks: RedisLocks
        self.redis: ArqRedis
        self.conversation: Conversation
        self.window: MessageLog
        self.tenants: TenantConfig
        self.queue: JobQueue
        self.provider: FallbackProvider
        self.outbox: Outbox
        self.sessions: SessionBook
        self.audit: AuditLog
        self.dead_letters: DeadLetters
        self.erasure: Erasure
        self.limits: RateLimits | None
        self.services: Services
        self.engine: Engine
        self.moderation: ModerationService
        self.escalation: EscalationMonitor
        self.joins: DisputeJoins
        #: What the platform adapters get of this process (``bot.platform_port``), instead of all of it.
        self.port: PlatformPort

    @classmethod
    async def start(
        cls,
        settings: Settings,
        *,
        senders: Sequence[PostSender] = (),
        worker: bool = True,
        provider: MediatorProvider | None = None,
    ) -> Runtime:
        """Build every service; on failure, release what was already opened and raise StartupError."""
        rt = cls(settings)
        try:
            await rt._open(provider)
        except BaseException:
            await rt.stop()
            raise
        for sender in senders:
            rt.connect(sender)
        if worker:
            rt.start_worker()
        return rt

    async def _open(self, provider: MediatorProvider | None) -> None:
        s = self.settings
        if not s.use_server_store or s.redis.url is None:
            _check_data_dir(s)
        self.cipher = build_cipher(s)
        self.codec = PayloadCodec(self.cipher)
        self.embedder = build_embedder(s)
        start = getattr(self.embedder, "start", None)
        if start is not None:  # the OpenAI embedder learns its dimension with one probe call
            await start()
        sparse = Bm25Encoder()
        self.store = await open_store(s, self.embedder)
        url = s.redis.url
        if url is None:
            self.valkey = EmbeddedValkey(s.data_dir / "valkey")
            try:
                url = await self.valkey.start()
            except ValkeyStartError as exc:
                raise StartupError(str(exc)) from exc
        self.redis_url = url
        try:
            self.redis = await connect(url)
        except Exception as exc:
            raise StartupError(
                f"cannot reach Redis at {mask_url(url)}: {exc}. Start it, fix HEYAN_REDIS_URL, or unset it for the "
                "embedded Valkey."
            ) from exc
        try:
            await check_keys(self.redis, self.store, self.codec)
        except EncryptionError as exc:
            raise StartupError(str(exc)) from exc
        # one codec and one cipher: every free-text field stored in Qdrant or Redis is sealed with it
        # the recall cache only where this process sees every write (the embedded store): memory.recall.cache
        retriever = Retriever(self.store, self.embedder, sparse, k=s.recall_k, codec=self.codec,
                              recall_cache=RecallCache.for_store(self.store))
        # record locks in the shared Redis: every process's writes to one record are serialised
        self.locks = RedisLocks(self.redis)
        self.memory = MemoryService(self.store, self.embedder, sparse, retriever, locks=self.locks, codec=self.codec)
        self.conversation = Conversation.open(self.redis, size=s.window_size, ttl_seconds=s.window_ttl_seconds,
                                              cipher=self.cipher)
        self.window = self.conversation.log  # the recent messages: what adapters and tools read
        self.tenants = TenantConfig(self.redis, TenantSettings(timezone=s.timezone))
        self.queue = JobQueue(self.redis)
        offline = OfflineProvider()
        self.provider = FallbackProvider(provider or _provider(s), offline)
        self.outbox = Outbox(self.redis, cipher=self.cipher, max_age_seconds=s.jobs.post_retry_hours * 3600)
        # every write of a commitment (any path: moderation, CLI, platforms, extraction) keeps its follow-up in step
        self.memory.watch(FollowUpKeeper(self.outbox, self.queue, lead_seconds=s.jobs.reminder_lead_seconds,
                                         no_due_followup_seconds=s.jobs.no_due_followup_seconds))
        self.sessions = SessionBook(self.redis, cipher=self.cipher)
        self.audit = AuditLog(self.redis, cipher=self.cipher, tenants=self.tenants)
        self.dead_letters = DeadLetters(self.redis, cipher=self.cipher)
        lim = s.limits
        self.limits = RateLimits(url, LimitRules(
            replies_per_user=lim.replies_per_user, replies_per_tenant=lim.replies_per_tenant,
            commands_per_user=lim.commands_per_user, commands_per_tenant=lim.commands_per_tenant,
        )) if lim.enabled else None
        self.erasure = Erasure(
            memory=self.memory, conversation=self.conversation, outbox=self.outbox, audit=self.audit,
            redis=self.redis, scheduler=self.queue, settle_seconds=s.jobs.job_timeout + 30,
            keep_seconds=s.window_ttl_seconds + 86_400, sessions=self.sessions, dead_letters=self.dead_letters,
        )
        self.services = Services(
            settings=s, store=self.store, memory=self.memory, redis=self.redis, conversation=self.conversation,
            tenants=self.tenants, scheduler=self.queue, provider=self.provider, outbox=self.outbox,
            sessions=self.sessions, audit=self.audit, erasure=self.erasure, dead_letters=self.dead_letters,
        )
        self.engine = Engine(
            conversation=self.conversation, memory=self.memory, scheduler=self.queue, provider=self.provider,
            tenants=self.tenants, sessions=self.sessions, limits=self.limits, audit=self.audit,
            config=EngineConfig(context_tokens=s.context_tokens, batch_turns=s.jobs.batch_turns,
                                idle_seconds=s.jobs.idle_seconds, summary_turns=s.jobs.summary_turns,
                                answer_claim_seconds=s.answer_claim_seconds, redact_pii=s.privacy.redact_pii),
        )
        self.moderation = ModerationService(
            memory=self.memory, sessions=self.sessions, audit=self.audit, outbox=self.outbox,
            scheduler=self.queue, window=self.window, stages=self.conversation.stages, provider=self.provider,
            redis=self.redis, jobs=s.jobs, erasure=self.erasure, tenants=self.tenants, limits=self.limits,
        )
        if self.valkey is not None:
            await self._take_over()
        # early escalation alerts and dispute joins watch every observed message; the card is
        # proposed (as a job, after extraction) when a reply reaches "confirming agreement"
        self.escalation = EscalationMonitor(
            redis=self.redis, window=self.window, outbox=self.outbox, audit=self.audit, tenants=self.tenants,
            confirm=model_confirm(self.provider.primary) if s.llm.enabled else None)
        self.joins = DisputeJoins(redis=self.redis, memory=self.memory, sessions=self.sessions, outbox=self.outbox,
                                  audit=self.audit, tenants=self.tenants)
        self.engine.on_observed = self._watch
        self.engine.on_stage = self._staged
        self.port = PlatformPort(
            engine=self.engine, moderation=self.moderation, sessions=self.sessions, tenants=self.tenants,
            outbox=self.outbox, departures=Departures(self.redis, self.queue),
            deletions=DeletedConversations(store=self.store, conversation=self.conversation, sessions=self.sessions,
                                           audit=self.audit, outbox=self.outbox),
        )

    async def _watch(self, msg: Message) -> None:
        await self.escalation.observe(msg)
        await self.joins.observe(msg)

    async def _staged(self, scope: Scope, stage: Stage, msg: Message) -> None:
        if stage is Stage.CONFIRMING:
            await enqueue_proposal(self.redis, scope, msg.id)

    async def _take_over(self) -> None:
        """The embedded shape: this process holds the data dir's lock and the embedded Valkey is its
        own, so whoever left locks, answer claims, outbox leases or running jobs in it is dead (a
        SIGKILL, a power cut). Take them over now instead of waiting for their TTLs (60-125 s), so a
        restart resumes at once: the jobs run again (every job is idempotent), the posts are sent
        again (with the same idempotency keys), the mentions are answered by the orphan sweep."""
        report = {"locks": await self.locks.take_over(), "answer claims": await self.conversation.answers.take_over(),
                  "outbox leases": await self.outbox.take_over(), "running jobs": await take_over_jobs(self.redis)}
        self.took_over = sum(report.values())
        if self.took_over:
            log.warning("the previous process on %s stopped without finishing; took over its %s",
                        self.settings.data_dir, ", ".join(f"{n} {what}" for what, n in report.items() if n))

    # --- the worker and the outbox --------------------------------------------------------------

    def start_worker(self) -> None:
        """Run the arq worker inside this process (the embedded shape), supervised."""
        self._worker_task = asyncio.create_task(self._supervise(), name="heyan-worker")

    async def _supervise(self) -> None:
        """Keep the in-process worker running: if it stops (Redis went away, a bug), say so and start a
        new one with backoff; after ``_WORKER_RESTARTS`` failures in five minutes, give up loudly —
        ``worker_failure`` is set and ``heyan run`` stops with that error instead of accepting
        messages no job would ever process."""
        failures: list[float] = []
        while True:
            self._worker = build_worker(self.services)
            try:
                await self._worker.main()
                problem: BaseException = RuntimeError("the job worker stopped on its own")
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                problem = exc
            now = time.monotonic()
            failures = [t for t in failures if t > now - 300] + [now]
            await self._cancel_worker_tasks()
            if len(failures) >= _WORKER_RESTARTS:
                self.worker_failure = problem
                self.worker_failed.set()
                log.critical("the job worker failed %d times in five minutes (%s); giving up", len(failures), problem)
                return
            wait = min(30.0, _RESTART_BACKOFF * 2.0 ** len(failures))
            log.error("the job worker stopped (%s: %s); restarting it in %.0f s",
                      type(problem).__name__, problem, wait)
            await asyncio.sleep(wait)

    async def _cancel_worker_tasks(self) -> None:
        if self._worker is not None:
            tasks = [t for t in self._worker.tasks.values() if not t.done()]
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    def job_pickups(self) -> list[int]:
        """Milliseconds from when each job could run (queued, or due) to when this process's worker
        started it, the latest 10,000 of the current worker (``heyan bench load``, scripts/replay_script.py)."""
        return list(self._worker.pickup_ms) if self._worker is not None else []

    @property
    def worker_alive(self) -> bool:
        """True while the in-process worker runs (or is being restarted)."""
        return self._worker_task is not None and not self._worker_task.done()

    def connect(self, sender: PostSender, *, poll_seconds: float = 0.5) -> Deliverer:
        """Deliver the outbox of ``sender.platform`` through it, from now until ``stop()``."""
        if sender.platform in self._deliverers:
            raise ValueError(f"this process already delivers the {sender.platform} outbox")
        deliverer = Deliverer(self.outbox, sender, on_delivered=self._delivered, poll_seconds=poll_seconds,
                              owner=self.owner)
        task = asyncio.create_task(deliverer.run(), name=f"heyan-deliver-{sender.platform}")
        self._deliverers[sender.platform] = (deliverer, task)
        if self._orphans is None:
            self._orphans = asyncio.create_task(self._answer_orphans(), name="heyan-orphaned-answers")
        return deliverer

    def deliverer(self, platform: str) -> Deliverer | None:
        """The deliverer of ``platform``'s outbox in this process, if it holds that connection."""
        found = self._deliverers.get(platform)
        return found[0] if found else None

    async def _answer_orphans(self) -> None:
        """Answer the mentions a dead process left half-answered, through the outbox (so the
        platform's sender posts them where they were asked). Runs in the process that holds the
        platform connections, every ``answer_claim_seconds``."""
        every = max(5, self.settings.answer_claim_seconds)
        first = True
        while True:
            if not first:
                await asyncio.sleep(every)
            try:
                # right after a takeover the dead owner's mentions are orphans however recent
                older_than = 0.0 if first and self.took_over else None
                first = False
                for msg in await self.engine.unanswered(older_than=older_than):
                    reply = await self.engine.handle(msg, confirm=True)
                    if reply is None:
                        continue
                    await self.outbox.append(reply_post(msg, reply))
                    await self.engine.answered(msg)
                    log.info("answered mention %s, left half-answered by a process that stopped", msg.id)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("answering half-answered mentions failed; trying again later")

    async def _delivered(self, post: Post, message_id: str) -> None:
        await record_delivery(self.memory, post, message_id)

    async def deliver_now(self) -> int:
        """Deliver every due post of the connected platforms now (script replays, tests)."""
        return sum([await d.deliver_once() for d, _ in self._deliverers.values()])

    async def advance_clock(self, to: datetime) -> int:
        """Move the process clock (``memory.clock``) forward to ``to`` — a script replay reaching its
        next line — and the queue's deferred jobs with it, so a follow-up or an idle watch due by then
        runs now (``drain`` waits for it). A time not after now changes nothing. Returns how many
        deferred jobs moved."""
        delta = to - clock.now()
        if delta <= timedelta(0):
            return 0
        clock.set_now(to)
        return await bring_forward(self.redis, delta)

    async def drain(self, timeout: float = 60.0) -> None:
        """Wait until no job is ready to run or running (deferred jobs, like reminders, stay queued),
        then deliver what the jobs posted. Between two looks at the queue it waits for one of this
        process's jobs to end (``DoorbellWorker.job_ended``), not for a fixed time."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while loop.time() < deadline:
            worker = self._worker
            if worker is not None:
                worker.job_ended.clear()  # before the look: a job ending after it wakes the wait below
            # arq scores a job by the wall-clock ms it may run from, rounded: a job enqueued in this
            # very millisecond can score a little ahead of int(now) — count it as ready
            now_ms = int(time.time() * 1000) + _READY_SLACK_MS
            ready = await self.redis.zcount(QUEUE, "-inf", now_ms)
            running = worker.tasks if worker is not None else {}
            if ready == 0 and not any(not t.done() for t in running.values()):
                await self.deliver_now()
                return
            wait = min(_DRAIN_RECHECK, max(0.0, deadline - loop.time()))
            if worker is None:
                await asyncio.sleep(wait)
                continue
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(wait):
                    await worker.job_ended.wait()
        raise TimeoutError(f"jobs still running after {timeout:.0f}s; see `heyan jobs status`")

    # --- shutdown ------------------------------------------------------------------------------

    async def stop(self) -> None:
        """Stop delivering and the worker (a running job is cancelled and re-run later), close
        Redis, stop Valkey, flush and close the store. Safe to call twice and on a half-started
        runtime."""
        if self._orphans is not None:
            self._orphans.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._orphans
            self._orphans = None
        # each delivery loop finishes the batch it is sending (acknowledged, recorded) before it stops
        await asyncio.gather(*(d.stop(task) for d, task in self._deliverers.values()))
        self._deliverers.clear()
        if self._worker_task is not None:
            self._worker_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._worker_task
            self._worker_task = None
        await self._cancel_worker_tasks()
        self._worker = None
        if hasattr(self, "conversation"):
            await self.conversation.answers.close()  # their claims lapse, or the next owner takes them over
        if hasattr(self, "redis"):
            await self.redis.aclose()
            del self.redis
        if self.valkey is not None:
            await self.valkey.stop()
            self.valkey = None
        if hasattr(self, "store"):
            await self.store.close()
            del self.store


async def open_services(settings: Settings) -> tuple[Services, Callable[[], Awaitable[None]]]:
    """The services of a standalone worker (``heyan worker``): a runtime with no worker of its own
    and no platform connection — its posts wait in the outbox for the process that has one."""
    rt = await Runtime.start(settings, worker=False)
    return rt.services, rt.stop
