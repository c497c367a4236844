"""Deterministic stand-ins for an embedder and a BM25 encoder, and the store fixtures' factory.

The stores are what the store tests test, so vectors are made here without a model: a seeded
random unit vector per text (dense) and one term id per distinct word (sparse).
"""

from __future__ import annotations

import hashlib
import os
import zlib
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import numpy as np
from qdrant_client import AsyncQdrantClient

from memory.models import Fact, Kind
from memory.ports import MemoryStore, SparseVector, StoredPoint
from memory.store.codec import fact_to_payload
from memory.store.edge import EdgeStore
from memory.store.server import ServerStore

DIM = 32
EMBEDDER = "fake-embedder"

#: Store kinds every contract test runs on; "server" only when a real Qdrant is configured.
STORE_KINDS = ["edge", "local"] + (["server"] if os.environ.get("HEYAN_QDRANT_URL") else [])


def dense(text: str) -> list[float]:
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")
    v = np.random.default_rng(seed).standard_normal(DIM)
    return [float(x) for x in v / np.linalg.norm(v)]


def near(vector: Sequence[float], text: str, eps: float = 0.01) -> list[float]:
    """A vector within ``eps`` of ``vector``: near-identical memories."""
    v = np.asarray(vector) + eps * np.asarray(dense(text))
    return [float(x) for x in v / np.linalg.norm(v)]


def sparse(text: str) -> SparseVector:
    terms = sorted({zlib.crc32(w.encode()) & 0x7FFFFFFF for w in text.lower().split()})
    return SparseVector(tuple(terms), tuple(1.0 for _ in terms))


def point(pid: str, payload: dict[str, Any], text: str, vector: Sequence[float] | None = None) -> StoredPoint:
    return StoredPoint(id=pid, payload=payload, dense=list(vector or dense(text)), sparse=sparse(text))


def fact(tenant: str = "discord:1", **kw: Any) -> Fact:
    data: dict[str, Any] = {
        "tenant": tenant,
        "session": "thread-1",
        "kind": Kind.DEMAND,
        "subject": "u1",
        "attribute": "wants",
        "value": "the meeting moved to Friday",
        "asserted_by": "u1",
        "users": ("u1",),
    }
    data.update(kw)
    return Fact(**data).with_id()


def fact_point(f: Fact) -> StoredPoint:
    return point(f.id, fact_to_payload(f), f.embed_text())


@asynccontextmanager
async def open_store(kind: str, tmp_path: Path, prefix: str = "t") -> AsyncIterator[MemoryStore]:
    store: EdgeStore | ServerStore
    if kind == "edge":
        store = await EdgeStore.open(tmp_path / "store", embedder_name=EMBEDDER, dim=DIM)
    elif kind == "local":
        store = await ServerStore.open(location=":memory:", embedder_name=EMBEDDER, dim=DIM)
    else:
        # A unique prefix per test so runs against a shared server never see each other's points.
        prefix = f"{prefix}_{hashlib.sha1(str(tmp_path).encode()).hexdigest()[:10]}"
        store = await ServerStore.open(
            url=os.environ["HEYAN_QDRANT_URL"],
            api_key=os.environ.get("HEYAN_QDRANT_API_KEY"),
            prefix=prefix,
            embedder_name=EMBEDDER,
            dim=DIM,
        )
    try:
        yield store
    finally:
        await store.close()
        if kind == "server":
            cleanup = AsyncQdrantClient(
                url=os.environ["HEYAN_QDRANT_URL"], api_key=os.environ.get("HEYAN_QDRANT_API_KEY")
            )
            for layer in ("facts", "summaries"):
                await cleanup.delete_collection(f"{prefix}_{layer}")
            await cleanup.close()
