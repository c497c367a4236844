"""Where a reply's time goes: cProfile of ``Engine.respond`` (offline provider) at scale.

    .venv/bin/python scripts/profile_reply.py [--memories 100000] [--tenants 100] [--replies 30]

Builds an Edge store of synthetic facts in a temp dir (``adapters.bench.synth``) with random unit
vectors instead of the local embedder, so the build takes a minute rather than an hour (retrieval
cost does not depend on what the vectors mean), then starts a runtime on it with the real embedder
for queries, no worker and no rate limits, replays a dispute in the first tenant and profiles only
the replies. Prints reply p50/p95 and the top of the cumulative profile. A diagnosis tool for
docs/BENCHMARKS.md; ``heyan bench load`` gives the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import pstats
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from adapters.bench.scale.load_engine import engine_settings
from adapters.bench.scale.measure import percentile
from adapters.bench.synth import dispute, memory_at, tenant_name
from adapters.runtime.composition import Runtime
from bot.config.settings import QdrantSettings, load_settings
from bot.models import Message
from memory.index.sparse import Bm25Encoder
from memory.models import Scope
from memory.recall.retrieval import index_facts
from memory.store.edge import EdgeStore


class RandomEmbedder:
    """Random unit vectors under the local embedder's name and size (the runtime checks both)."""

    name = "local:use-multilingual-v3"
    dim = 512

    def __init__(self) -> None:
        self._rng = np.random.default_rng(0)

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        v = self._rng.standard_normal((len(texts), self.dim)).astype(np.float32)
        v /= np.linalg.norm(v, axis=1, keepdims=True)
        return v.tolist()  # type: ignore[no-any-return]


async def main(memories: int, tenants: int, replies: int) -> None:
    work = Path(tempfile.mkdtemp(prefix="heyan-profile-"))
    try:
        store = await EdgeStore.open(work / "data" / "qdrant", embedder_name=RandomEmbedder.name, dim=512)
        embedder, sparse = RandomEmbedder(), Bm25Encoder()
        for start in range(0, memories, 2048):
            stop = min(memories, start + 2048)
            await index_facts(store, embedder, sparse, [memory_at(i, tenants).fact for i in range(start, stop)])
        await store.close()
        rt = await Runtime.start(engine_settings(load_settings(), work / "data", "edge", QdrantSettings(url=None)),
                                 worker=False)
        try:
            getattr(rt.embedder, "load", lambda: None)()
            t0 = datetime.now(UTC)
            profile = cProfile.Profile()
            latencies: list[float] = []
            for line in dispute(replies * 10 + 100):
                msg = Message(id=f"p-{line.index}", scope=Scope(tenant=tenant_name(0), session="profile", user=line.user_id),
                              author_name=line.name, text=line.text, ts=t0 + timedelta(seconds=line.index),
                              mention=line.mention)
                await rt.engine.observe(msg)
                if msg.mention and line.index > 100:
                    profile.enable()
                    started = time.perf_counter()
                    await rt.engine.respond(msg)
                    latencies.append((time.perf_counter() - started) * 1000)
                    profile.disable()
        finally:
            await rt.stop()
        print(f"{len(latencies)} replies at {memories:,} memories / {tenants} tenants: "
              f"p50 {percentile(latencies, 0.5):.1f} ms, p95 {percentile(latencies, 0.95):.1f} ms")
        out = io.StringIO()
        pstats.Stats(profile, stream=out).sort_stats("cumulative").print_stats(25)
        print(out.getvalue())
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--tenants", type=int, default=100)
    parser.add_argument("--replies", type=int, default=30)
    args = parser.parse_args()
    asyncio.run(main(args.memories, args.tenants, args.replies))
