"""The composition root: builds every service from one ``Settings`` and tears them down cleanly.

Embedded by default — Qdrant Edge under the data dir, an embedded Valkey (append-only persistence)
and the arq worker inside this process. ``HEYAN_QDRANT_URL`` / ``HEYAN_REDIS_URL`` switch to servers.
This is the only module that picks concrete implementations.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from typing import Any

from arq.connections import ArqRedis, RedisSettings, create_pool
from arq.cron import CronJob

from bot.engine import Engine
from bot.llm.base import MediatorProvider, ProviderError
from bot.notify import Notifier, RecordingNotifier
from bot.offline.provider import OfflineProvider
from bot.settings import Settings
from bot.tenants import TenantConfig, TenantSettings
from bot.valkey import EmbeddedValkey
from bot.window import ConversationWindow
from jobs.queue import QUEUE, JobQueue
from memory.embedders import make_embedder
from memory.models import Fact
from memory.ports import Embedder, MemoryStore
from memory.retrieval import Retriever
from memory.service import MemoryService
from memory.sparse import Bm25Encoder

__all__ = ["Runtime", "StartupError", "build_embedder", "open_store"]

log = logging.getLogger(__name__)


class StartupError(RuntimeError):
    """Heyan could not start; the message says what to do."""


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
    if e.provider == "local":
        return make_embedder("local", threads=e.threads)
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
        from memory.store_server import ServerStore

        q = settings.qdrant
        return await ServerStore.open(
            url=q.url,
            api_key=q.api_key.get_secret_value() if q.api_key else None,
            prefix=q.prefix,
            embedder_name=embedder.name,
            dim=embedder.dim,
        )
    from memory.store_edge import EdgeStore

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
    """Every service of one Heyan process. Use ``await Runtime.start(settings)`` and ``await rt.stop()``."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.notifier: Notifier = RecordingNotifier()
        self.valkey: EmbeddedValkey | None = None
        self._worker_task: asyncio.Task[None] | None = None
        self._worker: Any = None
        # set by start()
        self.store: MemoryStore
        self.embedder: Embedder
        self.memory: MemoryService
        self.redis: ArqRedis
        self.window: ConversationWindow
        self.tenants: TenantConfig
        self.queue: JobQueue
        self.provider: MediatorProvider
        self.fallback: MediatorProvider
        self.engine: Engine

    @classmethod
    async def start(
        cls,
        settings: Settings,
        *,
        notifier: Notifier | None = None,
        worker: bool = True,
        provider: MediatorProvider | None = None,
    ) -> Runtime:
        """Build every service; on failure, release what was already opened and raise StartupError."""
        rt = cls(settings)
        if notifier is not None:
            rt.notifier = notifier
        try:
            await rt._open(provider)
        except BaseException:
            await rt.stop()
            raise
        if worker:
            rt.start_worker()
        return rt

    async def _open(self, provider: MediatorProvider | None) -> None:
        s = self.settings
        if not s.use_server_store or s.redis.url is None:
            _check_data_dir(s)
        self.embedder = build_embedder(s)
        start = getattr(self.embedder, "start", None)
        if start is not None:  # the OpenAI embedder learns its dimension with one probe call
            await start()
        sparse = Bm25Encoder()
        self.store = await open_store(s, self.embedder)
        retriever = Retriever(self.store, self.embedder, sparse, k=s.recall_k)
        self.memory = MemoryService(self.store, self.embedder, sparse, retriever)
        url = s.redis.url
        if url is None:
            self.valkey = EmbeddedValkey(s.data_dir / "valkey")
            url = await self.valkey.start()
        try:
            self.redis = await create_pool(
                RedisSettings.from_dsn(url), default_queue_name=QUEUE, retry=0
            )
        except Exception as exc:
            raise StartupError(
                f"cannot reach Redis at {url}: {exc}. Start it, fix HEYAN_REDIS_URL, or unset it for the "
                "embedded Valkey."
            ) from exc
        self.window = ConversationWindow(self.redis, size=s.window_size, ttl_seconds=s.window_ttl_seconds)
        self.tenants = TenantConfig(self.redis, TenantSettings(timezone=s.timezone))
        self.queue = JobQueue(self.redis)
        self.fallback = OfflineProvider()
        self.provider = provider or _provider(s)
        self.engine = Engine(self)

    # --- the worker ----------------------------------------------------------------------------

    def start_worker(self) -> None:
        """Run the arq worker inside this process (the embedded shape)."""
        from jobs.worker import build_worker

        self._worker = build_worker(self)
        self._worker_task = asyncio.create_task(self._worker.main(), name="heyan-worker")

    def cron_jobs(self) -> list[CronJob]:
        from jobs.cron import cron_jobs

        return cron_jobs(self.settings)

    async def drain(self, timeout: float = 60.0) -> None:
        """Wait until no job is ready to run or running (deferred jobs, like reminders, stay queued)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while loop.time() < deadline:
            now_ms = int(time.time() * 1000)  # arq scores jobs by wall-clock ms
            ready = await self.redis.zcount(QUEUE, "-inf", now_ms)
            running = self._worker.tasks if self._worker is not None else {}
            if ready == 0 and not any(not t.done() for t in running.values()):
                return
            await asyncio.sleep(0.1)
        raise TimeoutError(f"jobs still running after {timeout:.0f}s; see `heyan jobs status`")

    # --- provider calls with the offline fallback ---------------------------------------------

    async def provider_call(self, task: str, *args: Any) -> Any:
        """Call the provider; on failure fall back to the offline provider — except for extraction,
        where unusable output must never write memory: the job retries and, at last, dead-letters."""
        try:
            return await getattr(self.provider, task)(*args)
        except ProviderError as exc:
            if task == "extract" or self.provider is self.fallback:
                raise
            log.warning("%s failed on %s (request %s): %s; using the offline provider",
                        task, self.provider.name, exc.request_id, exc)
            return await getattr(self.fallback, task)(*args)

    async def tenant(self, tenant: str) -> TenantSettings:
        """The tenant's settings (``HEYAN_TIMEZONE`` and the other defaults, with its overrides)."""
        return await self.tenants.get(tenant)

    async def render_reminder(self, fact: Fact) -> str:
        """The follow-up text, with the due time in the tenant's timezone."""
        from bot.reminders import reminder_text

        return reminder_text(fact, (await self.tenant(fact.tenant)).zone)

    # --- shutdown ------------------------------------------------------------------------------

    async def stop(self) -> None:
        """Stop the worker (a running job is cancelled and re-run later), close Redis, stop Valkey,
        flush and close the store. Safe to call twice and on a half-started runtime."""
        if self._worker_task is not None:
            self._worker_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._worker_task
            self._worker_task = None
        if self._worker is not None:
            tasks = [t for t in self._worker.tasks.values() if not t.done()]
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            self._worker = None
        if hasattr(self, "redis"):
            await self.redis.aclose()
            del self.redis
        if self.valkey is not None:
            await self.valkey.stop()
            self.valkey = None
        if hasattr(self, "store"):
            await self.store.close()
            del self.store
