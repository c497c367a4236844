"""The store phases of ``heyan bench load``: build Heyan's store to N memories and measure it at
checkpoints, then give the same memories (the same vectors, from the same embedder) to
qdrant-client's local mode and to Chroma and measure them at the same checkpoints, up to their caps.

Heyan's phase writes through the production path (``memory.retrieval.index_facts``: batched
embedding, BM25 encoding, the codec's payloads, one upsert per tenant) and recalls through
``Retriever.recall`` (the session summary, then hybrid dense + BM25 with feedback), timing the
query's embedding with it. Every store is also asked the like-for-like question — a dense top-10
filtered by tenant — so the ratios compare stores, not retrieval methods. The alternatives get the
vectors Heyan's phase wrote to a file (plain writes, so they never count in this process's RSS
while Heyan's store is measured) and are timed store-only for ingest.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from adapters.bench.measure import TimedEmbedder, dir_mb, peak_rss_mb, rss_mb, summary
from adapters.bench.synth import SynthMemory, memory_at
from memory.codec import PayloadCodec, fact_to_payload
from memory.embedders import bounded
from memory.models import Scope
from memory.ports import MemoryStore, RecordFilter, StoredPoint, VectorQuery
from memory.retrieval import Retriever, index_facts
from memory.sparse import Bm25Encoder

__all__ = ["Alternative", "ChromaAlternative", "LoadConfig", "StoreAlternative", "checkpoints", "measure_alternative",
           "measure_heyan", "read_vectors"]

#: Sizes at which every store is measured (those below N, then N itself).
CHECKPOINTS = (1_000, 10_000, 50_000, 100_000, 200_000, 500_000, 1_000_000)
#: Hits asked of every store in the like-for-like dense query.
DENSE_K = 10

Tick = Callable[[int], None]


@dataclass(frozen=True)
class LoadConfig:
    """What ``heyan bench load`` measures; see its ``--help`` for each option."""

    memories: int = 100_000
    tenants: int = 100
    store: Literal["edge", "server"] = "edge"
    batch: int = 256
    queries: int = 200
    local_max: int = 50_000
    local_queries: int = 20
    chroma_max: int = 100_000
    chroma_queries: int = 100
    messages: int = 500
    seed: int = 14
    compare: tuple[str, ...] = ("local", "chroma")

    @property
    def compare_max(self) -> int:
        caps = [self.local_max if "local" in self.compare else 0, self.chroma_max if "chroma" in self.compare else 0]
        return min(self.memories, max(caps))


def replace_feedback(retriever: Retriever) -> Retriever:
    """The same retriever with BM25 pseudo-relevance feedback off (one BM25 pass)."""
    return Retriever(retriever.store, retriever.embedder, retriever.sparse, method=retriever.method,
                     dense_weight=retriever.dense_weight, fusion=retriever.fusion, k=retriever.k,
                     threshold=retriever.threshold, candidates=retriever.candidates, feedback=0,
                     feedback_weight=retriever.feedback_weight, codec=retriever.codec)


def checkpoints(n: int) -> list[int]:
    return [s for s in CHECKPOINTS if s < n] + [n]


def _sample(cfg: LoadConfig, size: int, count: int) -> list[SynthMemory]:
    """The memories whose questions are asked at ``size``: the same for every store."""
    rng = random.Random(cfg.seed * 7919 + size)
    return [memory_at(rng.randrange(size), cfg.tenants, seed=cfg.seed) for _ in range(count)]


async def _dense_query(store: MemoryStore, embedder: TimedEmbedder, m: SynthMemory) -> tuple[float, float]:
    """(embed ms, store ms) of one like-for-like dense top-10 in the memory's tenant."""
    t0 = time.perf_counter()
    vector = (await embedder.embed([m.question]))[0]
    t1 = time.perf_counter()
    await store.search("facts", Scope(tenant=m.fact.tenant), RecordFilter(),
                       [VectorQuery(using="dense", dense=vector)], DENSE_K)
    return (t1 - t0) * 1000, (time.perf_counter() - t1) * 1000


async def _measure_queries(
    cfg: LoadConfig, size: int, count: int, store: MemoryStore, embedder: TimedEmbedder, retriever: Retriever
) -> dict[str, Any]:
    sample = _sample(cfg, size, count)
    await retriever.recall(Scope(tenant=sample[0].fact.tenant, session="warm-up"), ["warm up"])
    recall_ms: list[float] = []
    found = 0
    for m in sample:
        started = time.perf_counter()
        got = await retriever.recall(Scope(tenant=m.fact.tenant, session=m.fact.session), [m.question])
        recall_ms.append((time.perf_counter() - started) * 1000)
        found += any(s.fact.id == m.fact.id for s in got.facts)
    # The same recall with BM25 feedback off: how much of recall the second BM25 pass costs
    # (a measurement of the production default, which stays on).
    plain_ms: list[float] = []
    one_pass = replace_feedback(retriever)
    for m in sample:
        started = time.perf_counter()
        await one_pass.recall(Scope(tenant=m.fact.tenant, session=m.fact.session), [m.question])
        plain_ms.append((time.perf_counter() - started) * 1000)
    embed_ms: list[float] = []
    store_ms: list[float] = []
    for m in sample:
        e, s = await _dense_query(store, embedder, m)
        embed_ms.append(e)
        store_ms.append(s)
    return {
        "memories": size,
        "recall": summary(recall_ms),
        "found_at_k": round(found / max(1, len(sample)), 3),
        "recall_feedback_off": summary(plain_ms),
        "dense": summary([e + s for e, s in zip(embed_ms, store_ms, strict=True)]),
        "dense_store_only": summary(store_ms),
        "query_embed": summary(embed_ms),
    }


async def measure_heyan(
    cfg: LoadConfig, store: MemoryStore, store_dir: Path | None, embedder: TimedEmbedder, k: int,
    vectors_file: Path, tick: Tick, codec: PayloadCodec,
) -> dict[str, Any]:
    """Ingest ``cfg.memories`` through the production write path (payloads sealed by ``codec``),
    measuring at each checkpoint."""
    sparse = Bm25Encoder()
    retriever = Retriever(store, embedder, sparse, k=k, codec=codec)
    keep = cfg.compare_max
    base_rss = rss_mb()
    points: list[dict[str, Any]] = []
    ingest_s = 0.0
    embed_s = 0.0
    done = 0
    with vectors_file.open("wb") as out:
        for size in checkpoints(cfg.memories):
            while done < size:
                stop = min(size, done + cfg.batch)
                batch = [memory_at(i, cfg.tenants, seed=cfg.seed) for i in range(done, stop)]
                embed_before = embedder.seconds
                started = time.perf_counter()
                await index_facts(store, embedder, sparse, [m.fact for m in batch], codec=codec)
                ingest_s += time.perf_counter() - started
                embed_s += embedder.seconds - embed_before
                if done < keep:  # the alternatives get the very vectors index_facts embedded
                    out.write(np.asarray(embedder.last[: keep - done], dtype=np.float32).tobytes())
                done = stop
                tick(len(batch))
            await store.flush()
            row = await _measure_queries(cfg, size, cfg.queries, store, embedder, retriever)
            grown = max(0.0, rss_mb() - base_rss)
            row["rss_mb"] = round(rss_mb(), 1)
            row["rss_growth_per_1k_mb"] = round(grown / (size / 1000), 3)
            if store_dir is not None:
                disk = dir_mb(store_dir)
                row["disk_mb"] = round(disk, 1)
                row["disk_per_1k_mb"] = round(disk / (size / 1000), 3)
            points.append(row)
    return {
        "store": store.name,
        "ingest": {
            "memories": cfg.memories,
            "seconds": round(ingest_s, 2),
            "memories_per_s": round(cfg.memories / ingest_s, 1) if ingest_s else 0.0,
            "embed_share": round(min(1.0, embed_s / ingest_s), 3) if ingest_s else 0.0,
            "embed_per_memory_ms": round(embed_s * 1000 / cfg.memories, 3),
        },
        "checkpoints": points,
        "peak_rss_mb": round(peak_rss_mb(), 1),
        "baseline_rss_mb": round(base_rss, 1),
    }


def read_vectors(vectors_file: Path, start: int, stop: int, dim: int) -> np.ndarray[Any, np.dtype[np.float32]]:
    with vectors_file.open("rb") as f:
        f.seek(start * dim * 4)
        raw = f.read((stop - start) * dim * 4)
    return np.frombuffer(raw, dtype=np.float32).reshape(-1, dim)


class Alternative:
    """A store to compare with: write precomputed rows, answer a dense query, maybe a recall."""

    name: str
    store: MemoryStore | None = None  # a MemoryStore alternative also runs Heyan's Retriever on it

    async def write(self, rows: list[SynthMemory], vectors: np.ndarray[Any, np.dtype[np.float32]]) -> None:
        raise NotImplementedError

    async def dense(self, tenant: str, vector: list[float]) -> None:
        raise NotImplementedError


class StoreAlternative(Alternative):
    """A ``MemoryStore`` (qdrant-client's local mode through ``ServerStore``) given Heyan's points."""

    def __init__(self, name: str, store: MemoryStore) -> None:
        self.name = name
        self.store = store
        self._sparse = Bm25Encoder()

    async def write(self, rows: list[SynthMemory], vectors: np.ndarray[Any, np.dtype[np.float32]]) -> None:
        assert self.store is not None
        by_tenant: dict[str, list[StoredPoint]] = {}
        for m, vec in zip(rows, vectors, strict=True):
            text = bounded(m.fact.embed_text())[0]
            point = StoredPoint(m.fact.id, fact_to_payload(m.fact), vec.tolist(), self._sparse.encode_document(text))
            by_tenant.setdefault(m.fact.tenant, []).append(point)
        for tenant, points in by_tenant.items():
            await self.store.upsert("facts", Scope(tenant=tenant), points)

    async def dense(self, tenant: str, vector: list[float]) -> None:
        assert self.store is not None
        await self.store.search("facts", Scope(tenant=tenant), RecordFilter(),
                                [VectorQuery(using="dense", dense=vector)], DENSE_K)


async def measure_alternative(
    cfg: LoadConfig, alt: Alternative, cap: int, count: int, embedder: TimedEmbedder, k: int,
    vectors_file: Path, tick: Tick,
) -> dict[str, Any]:
    """Write the first ``cap`` memories into ``alt`` and measure it at each checkpoint up to ``cap``."""
    retriever = Retriever(alt.store, embedder, Bm25Encoder(), k=k) if alt.store is not None else None
    points: list[dict[str, Any]] = []
    write_s = 0.0
    done = 0
    sizes = [s for s in checkpoints(cfg.memories) if s <= cap] or [cap]
    for size in sizes:
        while done < size:
            stop = min(size, done + cfg.batch)
            rows = [memory_at(i, cfg.tenants, seed=cfg.seed) for i in range(done, stop)]
            vectors = read_vectors(vectors_file, done, stop, embedder.dim)
            started = time.perf_counter()
            await alt.write(rows, vectors)
            write_s += time.perf_counter() - started
            tick(stop - done)
            done = stop
        sample = _sample(cfg, size, count)
        embed_ms: list[float] = []
        store_ms: list[float] = []
        for m in sample:
            t0 = time.perf_counter()
            vector = (await embedder.embed([m.question]))[0]
            t1 = time.perf_counter()
            await alt.dense(m.fact.tenant, vector)
            embed_ms.append((t1 - t0) * 1000)
            store_ms.append((time.perf_counter() - t1) * 1000)
        row: dict[str, Any] = {
            "memories": size,
            "dense": summary([e + s for e, s in zip(embed_ms, store_ms, strict=True)]),
            "dense_store_only": summary(store_ms),
        }
        if retriever is not None:
            recall_ms: list[float] = []
            for m in sample:
                started = time.perf_counter()
                await retriever.recall(Scope(tenant=m.fact.tenant, session=m.fact.session), [m.question])
                recall_ms.append((time.perf_counter() - started) * 1000)
            row["recall"] = summary(recall_ms)
        points.append(row)
    return {
        "store": alt.name,
        "cap": done,
        "ingest": {"memories": done, "store_seconds": round(write_s, 2),
                   "store_only_per_s": round(done / write_s, 1) if write_s else 0.0},
        "checkpoints": points,
    }


class ChromaAlternative(Alternative):
    """Chroma given the same rows: dense only (it has no BM25 vectors)."""

    def __init__(self, path: Path) -> None:
        from adapters.bench.chroma import ChromaDense

        self.name = "chroma"
        self.path = path
        self._chroma = ChromaDense(path)

    async def write(self, rows: list[SynthMemory], vectors: np.ndarray[Any, np.dtype[np.float32]]) -> None:
        self._chroma.add([m.fact.id for m in rows], vectors, [m.fact.tenant for m in rows],
                         [m.fact.embed_text() for m in rows])

    async def dense(self, tenant: str, vector: list[float]) -> None:
        self._chroma.query(tenant, vector, DENSE_K)

    def close(self) -> None:
        self._chroma.close()
