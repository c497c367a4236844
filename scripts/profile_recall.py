"""Recall at scale, variants side by side: every question goes to every variant in turn (the order
rotating), and each call's wall and CPU time is kept — CPU time is what a quiet machine would show
for this single-threaded path when the shared machine is busy.

    python scripts/profile_recall.py build DIR [--memories 100000 --tenants 100]   # once, ~4 min quiet
    python scripts/profile_recall.py run DIR [--optimize] [--queries 300]

``build`` writes the bench's synthetic memories (adapters.bench.synth, sealed with a key kept in
DIR/bench.key) through the production write path, with background optimization off, so ``run`` can
measure the store as built and then ``--optimize`` it. The figures of docs/BENCHMARKS.md (issue 23,
"Speed at 100,000 memories") came from this script.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import time
from pathlib import Path
from typing import Any

from adapters.bench.scale.measure import percentile
from adapters.bench.synth import memory_at
from memory.index.embedders import LocalEmbedder
from memory.index.sparse import Bm25Encoder
from memory.models import Scope
from memory.recall.retrieval import Retriever, index_facts
from memory.store.codec import PayloadCodec
from memory.store.crypto import Cipher, generate_key, parse_keys
from memory.store.edge import EdgeStore


def _codec(folder: Path) -> PayloadCodec:
    key_file = folder / "bench.key"
    if not key_file.exists():
        key_file.write_text(generate_key())
    return PayloadCodec(Cipher(parse_keys(key_file.read_text().strip())))


async def build(folder: Path, memories: int, tenants: int) -> None:
    embedder = LocalEmbedder()
    embedder.load()
    codec = _codec(folder)
    store = await EdgeStore.open(folder / "store", embedder_name=embedder.name, dim=embedder.dim, optimize_after=0)
    sparse = Bm25Encoder()
    try:
        for start in range(0, memories, 256):
            batch = [memory_at(i, tenants, seed=14).fact for i in range(start, min(memories, start + 256))]
            await index_facts(store, embedder, sparse, batch, codec=codec)
    finally:
        await store.close()


async def run(folder: Path, optimize: bool, queries: int, tenants: int, memories: int) -> dict[str, Any]:
    embedder = LocalEmbedder()
    embedder.load()
    store = await EdgeStore.open(folder / "store", embedder_name=embedder.name, dim=embedder.dim, optimize_after=0)
    out: dict[str, Any] = {"loadavg_start": os.getloadavg()}
    try:
        if optimize:
            started = time.perf_counter()
            await store.optimize()
            out["optimize_s"] = round(time.perf_counter() - started, 1)
        base = Retriever(store, embedder, Bm25Encoder(), k=5, codec=_codec(folder), query_cache=0)
        variants = {"default": base, "feedback_off": base.tuned(feedback=0),
                    "feedback_uncapped": base.tuned(feedback_terms=0, feedback_skip=None)}
        rng = random.Random(11)
        sample = [memory_at(rng.randrange(memories), tenants, seed=14) for _ in range(queries)]
        names = list(variants)
        wall: dict[str, list[float]] = {n: [] for n in names}
        cpu: dict[str, list[float]] = {n: [] for n in names}
        found = dict.fromkeys(names, 0)
        for r in variants.values():
            await r.recall(Scope(tenant=sample[0].fact.tenant, session="warm"), ["warm up"])
        for i, m in enumerate(sample):
            for name in names[i % len(names):] + names[: i % len(names)]:
                t, c = time.perf_counter(), time.process_time()
                got = await variants[name].recall(Scope(tenant=m.fact.tenant, session=m.fact.session), [m.question])
                wall[name].append((time.perf_counter() - t) * 1000)
                cpu[name].append((time.process_time() - c) * 1000)
                found[name] += any(s.fact.id == m.fact.id for s in got.facts)
        for name in names:
            out[name] = {"wall_p50": round(statistics.median(wall[name]), 2), "wall_p95": round(percentile(wall[name], 0.95), 2),
                         "cpu_p50": round(statistics.median(cpu[name]), 2), "cpu_p95": round(percentile(cpu[name], 0.95), 2),
                         "found@5": round(found[name] / len(sample), 3)}
        out["loadavg_end"] = os.getloadavg()
        return out
    finally:
        await store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("build", "run"))
    parser.add_argument("folder", type=Path)
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--tenants", type=int, default=100)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--optimize", action="store_true")
    args = parser.parse_args()
    if args.action == "build":
        args.folder.mkdir(parents=True, exist_ok=True)
        asyncio.run(build(args.folder, args.memories, args.tenants))
    else:
        print(json.dumps(asyncio.run(run(args.folder, args.optimize, args.queries, args.tenants, args.memories))))


if __name__ == "__main__":
    main()
