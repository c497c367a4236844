"""The store phase of ``heyan bench load``: Heyan's store built to N memories and, beside it, the same
vectors in qdrant-client's local mode and Chroma, all measured at the same checkpoints.

Fair by construction: the same questions, warm-up and time window for every store (rounds, order
rotating), no query cache, and a like-for-like dense top-10 by tenant. Heyan goes through the
production path, optimized (and timed) after each bulk ingest; the others read vectors from a file.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from adapters.bench.scale.measure import TimedEmbedder, dir_mb, peak_rss_mb, rss_mb, rss_split_mb, summary
from adapters.bench.synth import SynthMemory, memory_at
from memory.index.embedders import bounded
from memory.index.sparse import Bm25Encoder
from memory.models import Scope
from memory.ports import MemoryStore, RecordFilter, StoredPoint, VectorQuery
from memory.recall.retrieval import Retriever, index_facts
from memory.store.codec import PayloadCodec, fact_to_payload

__all__ = ["Alternative", "ChromaAlternative", "LoadConfig", "StoreAlternative", "checkpoints", "measure_stores",
           "read_vectors"]

#: Sizes at which every store is measured (those below N, then N itself).
CHECKPOINTS = (1_000, 10_000, 50_000, 100_000, 200_000, 500_000, 1_000_000)
#: Hits asked of every store in the like-for-like dense query.
DENSE_K = 10
#: Untimed questions every store answers at each checkpoint before the timed rounds.
WARMUP = 10

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
    return retriever.tuned(feedback=0)


def checkpoints(n: int) -> list[int]:
    return [s for s in CHECKPOINTS if s < n] + [n]


def _sample(cfg: LoadConfig, size: int, count: int) -> list[SynthMemory]:
    """The memories whose questions are asked at ``size``: the same for every store."""
    rng = random.Random(cfg.seed * 7919 + size)
    return [memory_at(rng.randrange(size), cfg.tenants, seed=cfg.seed) for _ in range(count)]


async def _dense_query(store: MemoryStore, embedder: TimedEmbedder, m: SynthMemory) -> tuple[float, float]:
    """(embed ms, store ms) of one like-for-like dense top-10 in the memory's tenant."""
    t0 = time.perf_counter()
    vector = (await embedder.embed_queries([m.question]))[0]
    t1 = time.perf_counter()
    await store.search("facts", Scope(tenant=m.fact.tenant), RecordFilter(),
                       [VectorQuery(using="dense", dense=vector)], DENSE_K)
    return (t1 - t0) * 1000, (time.perf_counter() - t1) * 1000


class _Timings:
    """One store's latencies at one checkpoint."""

    def __init__(self) -> None:
        self.recall: list[float] = []
        self.plain: list[float] = []
        self.embed: list[float] = []
        self.store: list[float] = []
        self.found = 0


class _Heyan:
    """Heyan's store as a measured target: recall (with and without feedback) and the dense query."""

    name = "heyan"

    def __init__(self, store: MemoryStore, embedder: TimedEmbedder, retriever: Retriever) -> None:
        self.store = store
        self.embedder = embedder
        self.retriever = retriever
        self.one_pass = replace_feedback(retriever)

    async def ask(self, m: SynthMemory, t: _Timings) -> None:
        scope = Scope(tenant=m.fact.tenant, session=m.fact.session)
        started = time.perf_counter()
        got = await self.retriever.recall(scope, [m.question])
        t.recall.append((time.perf_counter() - started) * 1000)
        t.found += any(s.fact.id == m.fact.id for s in got.facts)
        # the same recall with BM25 feedback off: what the second BM25 pass costs
        started = time.perf_counter()
        await self.one_pass.recall(scope, [m.question])
        t.plain.append((time.perf_counter() - started) * 1000)
        e, s = await _dense_query(self.store, self.embedder, m)
        t.embed.append(e)
        t.store.append(s)


class _Other:
    """An alternative as a measured target: the dense query, and recall when it is a MemoryStore."""

    def __init__(self, alt: Alternative, embedder: TimedEmbedder, k: int) -> None:
        self.alt = alt
        self.name = alt.name
        self.embedder = embedder
        self.retriever = (Retriever(alt.store, embedder, Bm25Encoder(), k=k, query_cache=0)
                          if alt.store is not None else None)

    async def ask(self, m: SynthMemory, t: _Timings) -> None:
        t0 = time.perf_counter()
        vector = (await self.embedder.embed_queries([m.question]))[0]
        t1 = time.perf_counter()
        await self.alt.dense(m.fact.tenant, vector)
        t.embed.append((t1 - t0) * 1000)
        t.store.append((time.perf_counter() - t1) * 1000)
        if self.retriever is not None:
            started = time.perf_counter()
            await self.retriever.recall(Scope(tenant=m.fact.tenant, session=m.fact.session), [m.question])
            t.recall.append((time.perf_counter() - started) * 1000)


async def _rounds(cfg: LoadConfig, size: int, count: int, targets: list[Any]) -> list[_Timings]:
    """The same warm-up, then the same questions to every target, one question per round, the order
    of the targets rotating each round."""
    warm = [memory_at(random.Random(cfg.seed + size).randrange(size), cfg.tenants, seed=cfg.seed)
            for _ in range(WARMUP)]
    for target in targets:
        scratch = _Timings()
        for m in warm:
            await target.ask(m, scratch)
    timings = [_Timings() for _ in targets]
    for i, m in enumerate(_sample(cfg, size, count)):
        order = list(range(len(targets)))
        order = order[i % len(order):] + order[: i % len(order)]
        for j in order:
            await targets[j].ask(m, timings[j])
    return timings


class _Ingest:
    """Seconds and memories one target was given so far."""

    def __init__(self) -> None:
        self.done = 0
        self.seconds = 0.0


async def measure_stores(
    cfg: LoadConfig, store: MemoryStore, store_dir: Path | None, embedder: TimedEmbedder, k: int,
    vectors_file: Path, tick: Tick, codec: PayloadCodec, alternatives: list[tuple[Alternative, int, Tick]],
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Ingest ``cfg.memories`` into Heyan's store through the production write path (payloads sealed by
    ``codec``) and each alternative up to its cap (``(alternative, cap, tick)``), measuring every store
    at each checkpoint in interleaved rounds. Returns Heyan's report and the alternatives' by name."""
    sparse = Bm25Encoder()
    retriever = Retriever(store, embedder, sparse, k=k, codec=codec, query_cache=0)
    heyan = _Heyan(store, embedder, retriever)
    others = [(_Other(alt, embedder, k), cap, atick) for alt, cap, atick in alternatives]
    keep = max([cap for _, cap, _ in alternatives], default=0)
    base_rss = rss_mb()
    grown_rss = 0.0  # RSS growth over Heyan's own ingest steps only (the alternatives live here too)
    grown_anon = grown_file = 0.0  # the same, split into anonymous and file-backed pages
    points: list[dict[str, Any]] = []
    alt_points: dict[str, list[dict[str, Any]]] = {o.name: [] for o, _, _ in others}
    heyan_in = _Ingest()
    alt_in = {o.name: _Ingest() for o, _, _ in others}
    embed_s = 0.0
    with vectors_file.open("wb") as out:
        for size in checkpoints(cfg.memories):
            rss_before = rss_mb()
            anon_before, file_before = rss_split_mb()
            while heyan_in.done < size:
                stop = min(size, heyan_in.done + cfg.batch)
                batch = [memory_at(i, cfg.tenants, seed=cfg.seed) for i in range(heyan_in.done, stop)]
                embed_before = embedder.seconds
                started = time.perf_counter()
                await index_facts(store, embedder, sparse, [m.fact for m in batch], codec=codec)
                heyan_in.seconds += time.perf_counter() - started
                embed_s += embedder.seconds - embed_before
                if heyan_in.done < keep:  # the alternatives get the very vectors index_facts embedded
                    out.write(np.asarray(embedder.last[: keep - heyan_in.done], dtype=np.float32).tobytes())
                heyan_in.done = stop
                tick(len(batch))
            await store.flush()
            started = time.perf_counter()
            await store.optimize()  # what the store does by itself after a bulk write
            optimize_s = time.perf_counter() - started
            grown_rss += max(0.0, rss_mb() - rss_before)
            anon_after, file_after = rss_split_mb()
            grown_anon += max(0.0, anon_after - anon_before)
            grown_file += max(0.0, file_after - file_before)
            out.flush()
            active: list[Any] = [heyan]
            for other, cap, atick in others:
                target = min(size, cap)
                if alt_in[other.name].done >= target and size > cap:
                    continue  # past its cap: measured at the cap already
                ing = alt_in[other.name]
                while ing.done < target:
                    stop = min(target, ing.done + cfg.batch)
                    rows = [memory_at(i, cfg.tenants, seed=cfg.seed) for i in range(ing.done, stop)]
                    vectors = read_vectors(vectors_file, ing.done, stop, embedder.dim)
                    started = time.perf_counter()
                    await other.alt.write(rows, vectors)
                    ing.seconds += time.perf_counter() - started
                    atick(stop - ing.done)
                    ing.done = stop
                active.append(other)
            counts = [cfg.queries] + [cfg.local_queries if o.name == "local_mode" else cfg.chroma_queries
                                      for o in active[1:]]
            # every store answers the smallest count of questions (the same ones), Heyan the most
            timings = await _rounds(cfg, size, min(counts), active)
            extra = cfg.queries - min(counts)
            if extra > 0:  # Heyan's remaining questions (the alternatives are capped lower: too slow)
                more = _Timings()
                for m in _sample(cfg, size, cfg.queries)[min(counts):]:
                    await heyan.ask(m, more)
                t = timings[0]
                t.recall += more.recall
                t.plain += more.plain
                t.embed += more.embed
                t.store += more.store
                t.found += more.found
            t = timings[0]
            n = len(t.recall)
            row: dict[str, Any] = {
                "memories": size,
                "recall": summary(t.recall),
                "found_at_k": round(t.found / max(1, n), 3),
                "recall_feedback_off": summary(t.plain),
                "dense": summary([e + s for e, s in zip(t.embed, t.store, strict=True)]),
                "dense_store_only": summary(t.store),
                "query_embed": summary(t.embed),
                "optimize_s": round(optimize_s, 2),
                "interleaved_with": [o.name for o in active[1:]],
            }
            row["rss_mb"] = round(rss_mb(), 1)
            row["rss_growth_per_1k_mb"] = round(grown_rss / (size / 1000), 3)
            row["anon_mb"], row["file_mb"] = (round(v, 1) for v in rss_split_mb())
            # per stored memory, over Heyan's own ingest steps (comparison stores grow between them)
            row["anon_per_memory_kb"] = round(grown_anon * 1024 / size, 2)
            row["file_per_memory_kb"] = round(grown_file * 1024 / size, 2)
            if store_dir is not None:
                disk = dir_mb(store_dir)
                row["disk_mb"] = round(disk, 1)
                row["disk_per_1k_mb"] = round(disk / (size / 1000), 3)
            points.append(row)
            for other, timing in zip(active[1:], timings[1:], strict=True):
                arow: dict[str, Any] = {
                    "memories": alt_in[other.name].done,
                    "dense": summary([e + s for e, s in zip(timing.embed, timing.store, strict=True)]),
                    "dense_store_only": summary(timing.store),
                }
                if timing.recall:
                    arow["recall"] = summary(timing.recall)
                alt_points[other.name].append(arow)
    ingest_s = heyan_in.seconds
    report = {
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
    alts = {
        o.name: {
            "store": o.name,
            "cap": alt_in[o.name].done,
            "ingest": {"memories": alt_in[o.name].done, "store_seconds": round(alt_in[o.name].seconds, 2),
                       "store_only_per_s": round(alt_in[o.name].done / alt_in[o.name].seconds, 1)
                       if alt_in[o.name].seconds else 0.0},
            "checkpoints": alt_points[o.name],
        }
        for o, _, _ in others
    }
    return report, alts


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


class ChromaAlternative(Alternative):
    """Chroma given the same rows: dense only (it has no BM25 vectors)."""

    def __init__(self, path: Path) -> None:
        from adapters.bench.scale.chroma import ChromaDense

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
