"""`heyan memory reindex`: re-embed every memory with the configured embedder.

For the embedded store the records are read with the embedder the store was built with (recorded
in its meta file), written into a new store built for the configured embedder, and the old one is
removed only after every record was copied — an interrupted reindex leaves the old store in place.
For a Qdrant server the records are re-embedded in place (same dimension required).
"""

from __future__ import annotations

import json
import shutil
from typing import Any

from rich.console import Console
from rich.progress import Progress

from adapters.runtime import build_embedder, open_store
from bot.settings import Settings
from memory.codec import fact_from_payload, summary_from_payload
from memory.models import Fact, Scope, Summary
from memory.ports import Layer, MemoryStore, RecordFilter
from memory.retrieval import index_facts, index_summaries
from memory.sparse import Bm25Encoder
from memory.store_edge import EdgeStore

__all__ = ["reindex"]

_BATCH = 64


async def _read_all(store: MemoryStore) -> tuple[list[Fact], list[Summary]]:
    facts: list[Fact] = []
    summaries: list[Summary] = []
    layers: tuple[Layer, ...] = ("facts", "summaries")
    for layer in layers:
        for tenant in await store.tenants(layer):
            offset: str | None = None
            while True:
                hits, offset = await store.scroll(layer, Scope(tenant=tenant), RecordFilter(), 256, offset)
                for h in hits:
                    if layer == "facts":
                        facts.append(fact_from_payload(h.payload))
                    else:
                        summaries.append(summary_from_payload(h.payload))
                if offset is None:
                    break
    return facts, summaries


async def reindex(settings: Settings, *, console: Console) -> int:
    embedder = build_embedder(settings)
    sparse = Bm25Encoder()
    if settings.use_server_store:
        store = await open_store(settings, embedder)
        old = None
    else:
        path = settings.data_dir / "qdrant"
        meta_file = path / "meta.json"
        meta: dict[str, Any] = json.loads(meta_file.read_text()) if meta_file.exists() else {"embedder": embedder.name,
                                                                             "dim": embedder.dim}
        source = await EdgeStore.open(path, embedder_name=str(meta["embedder"]), dim=int(meta["dim"]))
        try:
            facts, summaries = await _read_all(source)
        finally:
            await source.close()
        old = path.with_name("qdrant.before-reindex")
        if old.exists():
            shutil.rmtree(old)
        path.rename(old)
        store = await EdgeStore.open(path, embedder_name=embedder.name, dim=embedder.dim)
    try:
        if old is None:
            facts, summaries = await _read_all(store)
        total = len(facts) + len(summaries)
        with Progress(console=console, transient=True) as progress:
            task = progress.add_task("re-embedding", total=total)
            for i in range(0, len(facts), _BATCH):
                await index_facts(store, embedder, sparse, facts[i : i + _BATCH])
                progress.advance(task, len(facts[i : i + _BATCH]))
            for i in range(0, len(summaries), _BATCH):
                await index_summaries(store, embedder, sparse, summaries[i : i + _BATCH])
                progress.advance(task, len(summaries[i : i + _BATCH]))
        await store.flush()
    finally:
        await store.close()
    if old is not None:
        shutil.rmtree(old)
    return total
