"""The engine phase of ``heyan bench load``: per message and per reply, with the offline provider, on the
store the store phase built — once without the job worker (the engine's own cost), once with the
in-process worker beside it (the embedded shape), then the jobs' pickup (``job_pickup``)."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from adapters.bench.scale.measure import summary
from adapters.bench.synth import dispute
from adapters.runtime.composition import Runtime
from bot.config.settings import (
    LimitSettings,
    LLMSettings,
    QdrantSettings,
    RedisSettings,
    Settings,
    load_settings,
)
from bot.models import Message
from memory.models import Scope
from memory.store.crypto import generate_key

__all__ = ["engine_settings", "measure_engine", "with_keys"]


def with_keys(settings: Settings) -> Settings:
    """``settings`` with encryption keys: the configured ones, else a throwaway key (the bench's records
    are its own and deleted afterwards), so every phase seals and opens with the same keys."""
    keys = settings.privacy.encryption_keys or SecretStr(generate_key())
    return settings.model_copy(update={"privacy": settings.privacy.model_copy(update={"encryption_keys": keys})})


def engine_settings(base: Settings, data_dir: Path, store: str, qdrant: QdrantSettings) -> Settings:
    """The settings of the engine phase: the bench's store, its own Valkey, no LLM, no rate limits, and
    the bench's keys (``with_keys``)."""
    return load_settings(
        privacy=base.privacy,
        data_dir=data_dir,
        store=store,
        embeddings=base.embeddings,
        qdrant=qdrant,
        redis=RedisSettings(url=None),
        llm=LLMSettings(base_url=None, api_key=None),
        limits=LimitSettings(enabled=False),
    )


async def _run(settings: Settings, tenant: str, session: str, messages: int, worker: bool, tick: Any) -> dict[str, Any]:
    rt = await Runtime.start(settings, worker=worker)
    try:
        loader = getattr(rt.embedder, "load", None)
        if loader is not None:
            loader()  # the model loads at start in a real process, not on the first reply
        start = datetime.now(UTC)
        observe_ms: list[float] = []
        reply_ms: list[float] = []
        for line in dispute(messages):
            msg = Message(
                id=f"bench-{session}-{line.index}",
                scope=Scope(tenant=tenant, session=session, user=line.user_id),
                author_name=line.name,
                text=line.text,
                ts=start + timedelta(seconds=line.index),
                mention=line.mention,
            )
            started = time.perf_counter()
            await rt.engine.handle(msg)
            (reply_ms if line.mention else observe_ms).append((time.perf_counter() - started) * 1000)
            tick(1)
        if not worker:
            await rt.redis.flushdb()  # the jobs this run queued are not the next run's work
            return {"worker": worker, "message": summary(observe_ms), "reply": summary(reply_ms)}
        await rt.drain(timeout=600)  # untimed: every job the run queued gets picked (issue 31: pickup ≤ 20 ms)
        return {"worker": worker, "message": summary(observe_ms), "reply": summary(reply_ms),
                "job_pickup": summary([float(ms) for ms in rt.job_pickups()])}
    finally:
        await rt.stop()


async def measure_engine(settings: Settings, tenant: str, tenant_memories: int, messages: int, tick: Any) -> dict[str, Any]:
    """Time ``Engine.handle`` over ``messages`` synthetic messages, without and with the worker."""
    alone = await _run(settings, tenant, "bench-engine", messages, False, tick)
    embedded = await _run(settings, tenant, "bench-embedded", messages, True, tick)
    return {"tenant": tenant, "tenant_memories": tenant_memories, "messages": messages,
            "engine": alone, "embedded": embedded}
