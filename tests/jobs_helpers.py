"""Helpers for the runtime tests (their fixtures ``start`` and ``hash_embedder`` are in tests/conftest.py):
settings with short job timings, a scripted provider, a cheap deterministic embedder, a recording platform, and a worker process to kill.

Run as ``python -m tests.jobs_helpers worker DATA_DIR REDIS_URL MARKER`` it is a Heyan process with
an in-process worker whose extraction writes MARKER and then hangs — the test kills it with SIGKILL.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import redis
from arq.jobs import Job

from adapters.runtime.composition import Runtime
from bot.config.settings import JobSettings, LLMSettings, QdrantSettings, RedisSettings, Settings
from bot.delivery.outbox import Post
from bot.extraction.candidates import CandidateFact, ExtractionRequest
from bot.llm.base import ProviderError
from bot.models import Message
from bot.offline.provider import OfflineProvider
from jobs.queue import QUEUE, deserialize
from memory.models import Fact, Kind, Scope, utcnow


def flush_db(url: str) -> None:
    """FLUSHDB on a test database: Redis loses everything."""
    r = redis.Redis.from_url(url)
    try:
        r.flushdb()
    finally:
        r.close()


class HashEmbedder:
    """A deterministic 32-d embedder (token hashes): these tests are about jobs, not retrieval,
    and the local model costs ~4 s to load per runtime."""

    name = "test-hash"
    dim = 32

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        out = []
        for text in texts:
            v = [0.0] * self.dim
            for tok in text.lower().split() or [text]:
                h = hashlib.blake2b(tok.encode(), digest_size=4).digest()
                v[int.from_bytes(h, "big") % self.dim] += 1.0
            n = math.sqrt(sum(x * x for x in v)) or 1.0
            out.append([x / n for x in v])
        return out


def settings(data_dir: Path, redis_url: str, **jobs: Any) -> Settings:
    """Settings for one test: its own data dir, the test Redis, no LLM, short job timings."""
    defaults: dict[str, Any] = {"reminder_lead_seconds": 0, "job_timeout": 5, "max_tries": 3}
    return Settings(
        data_dir=data_dir,
        timezone="UTC",
        store="edge",
        redis=RedisSettings(url=redis_url),
        qdrant=QdrantSettings(url=None),
        llm=LLMSettings(base_url=None, api_key=None),
        jobs=JobSettings(**{**defaults, **jobs}),
    )


#: What the ``start`` fixture (tests/conftest.py) gives a test: start a Runtime, stopped at the end.
Start = Callable[..., Awaitable[Runtime]]


def ctx(rt: Runtime) -> dict[str, Any]:
    """What arq hands a job: the runtime's services."""
    return {"heyan": rt.services, "redis": rt.redis, "max_tries": rt.settings.jobs.max_tries}


async def feed(rt: Runtime, provider: ScriptedProvider, *items: tuple[Any, Any]) -> None:
    """Append the messages to their windows and enqueue one extraction per message."""
    for msg, cand in items:
        provider.script[msg.id] = [cand]
        await rt.window.append(msg)
        await rt.queue.extract(Scope(tenant=msg.scope.tenant, session=msg.session), [msg.id])


async def result(rt: Runtime, job_id: str, timeout: float) -> Any:
    return await Job(job_id, rt.redis, _queue_name=QUEUE, _deserializer=deserialize).result(timeout=timeout,
                                                                                            poll_delay=0.1)


def remind_id(fact: Fact) -> str:
    return f"remind:{fact.tenant}:{fact.id}:{fact.version}"


async def wait_for(check: Callable[[], Awaitable[bool]], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not await check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        await asyncio.sleep(0.1)


async def posted(notifier: TimedNotifier, n: int) -> bool:
    return len(notifier.posts) >= n


def use_hash_embedder() -> None:
    """Make every Runtime in this process use ``HashEmbedder``."""
    import adapters.runtime.composition

    adapters.runtime.composition.build_embedder = lambda _settings: HashEmbedder()  # type: ignore[assignment]


class ScriptedProvider(OfflineProvider):
    """The offline provider, except that ``extract`` returns the candidates scripted per message id.

    ``fail`` makes extraction raise ``ProviderError`` (a poison job) for the sessions listed, ``delay``
    makes it sleep, and ``started`` (a path) is written when an extraction begins.
    """

    name = "scripted"

    def __init__(self) -> None:
        super().__init__()
        self.script: dict[str, list[CandidateFact]] = {}
        self.fail: set[str] = set()
        self.delay = 0.0
        self.started: Path | None = None
        self.calls = 0

    async def extract(self, request: ExtractionRequest) -> list[CandidateFact]:
        self.calls += 1
        if self.started is not None:
            self.started.write_text(str(time.time()))
        if self.delay:
            await asyncio.sleep(self.delay)
        if request.session in self.fail:
            raise ProviderError(f"scripted failure in {request.session}")
        return [c for t in request.turns for c in self.script.get(t.message_id, [])]


class RecordingSender:
    """A platform connection that records what it was asked to post (one platform of a recorder)."""

    def __init__(self, recorder: TimedNotifier, platform: str) -> None:
        self.recorder = recorder
        self.platform = platform

    async def send(self, post: Post) -> str:
        self.recorder.posts.append((Scope(tenant=post.tenant, session=post.session), post.body.plain(),
                                    post.body.mentions[0] if post.body.mentions else None))
        self.recorder.times.append(utcnow())
        self.recorder.sent.append(post)
        return f"{self.platform}-msg-{len(self.recorder.posts)}"


class TimedNotifier:
    """Records every post delivered to any of the platforms it stands in for, and when."""

    PLATFORMS = ("console", "slack", "discord", "test")

    def __init__(self) -> None:
        self.posts: list[tuple[Scope, str, str | None]] = []
        self.times: list[datetime] = []
        self.sent: list[Post] = []

    def senders(self) -> list[RecordingSender]:
        return [RecordingSender(self, p) for p in self.PLATFORMS]


def promise(
    tenant: str, session: str, msg_id: str, user: str, name: str, task: str, due: datetime | None
) -> tuple[Message, CandidateFact]:
    """A message in which ``user`` promises ``task``, and the commitment an extractor would find."""
    text = f"I will {task} by then, promise."
    msg = Message(
        id=msg_id,
        scope=Scope(tenant=tenant, session=session, user=user),
        author_name=name,
        text=text,
        ts=utcnow(),
    )
    cand = CandidateFact(
        kind=Kind.COMMITMENT,
        subject=user,
        subject_name=name,
        attribute=task,
        value=task,
        message_id=msg_id,
        quote=f"I will {task}",
        asserted_by=user,
        due_at=due,
    )
    return msg, cand


async def _worker_process(data_dir: str, redis_url: str, marker: str) -> None:
    use_hash_embedder()
    provider = ScriptedProvider()
    provider.delay = 3600.0
    provider.started = Path(marker)
    rt = await Runtime.start(settings(Path(data_dir), redis_url), provider=provider, worker=True)
    try:
        await asyncio.Event().wait()  # until SIGKILL
    finally:
        await rt.stop()


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "worker":
        asyncio.run(_worker_process(*sys.argv[2:]))
    else:
        sys.exit("usage: python -m tests.jobs_helpers worker DATA_DIR REDIS_URL MARKER")
