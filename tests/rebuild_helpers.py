"""Helpers for the reindex and migrate tests: cheap deterministic embedders of any dimension, settings
for each store, a seeded memory across tenants, and ways to stop a rebuild at a chosen call."""

from __future__ import annotations

import hashlib
import io
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console

from adapters.maintenance.rebuild import Records, read_records
from bot.config.settings import LLMSettings, QdrantSettings, RedisSettings, Settings
from memory.index.sparse import Bm25Encoder
from memory.models import Fact, Kind, Scope, Summary
from memory.ports import DENSE, MemoryStore, RecordFilter, VectorQuery
from memory.recall.retrieval import index_facts, index_summaries
from memory.store.codec import PayloadCodec
from memory.store.crypto import Cipher, parse_keys
from tests.keys import TEST_KEY

TENANTS = ("discord:1", "discord:2", "slack:T3")

#: The codec of the test run's key (``HEYAN_ENCRYPTION_KEYS``): what reindex and migrate read and write with.
CODEC = PayloadCodec(Cipher(parse_keys(TEST_KEY)))


class SeededEmbedder:
    """A random unit vector per (embedder name, text): distinct texts never collide, any dimension.
    ``texts`` counts what was embedded, so a test can tell a resumed fill from a full one."""

    def __init__(self, name: str, dim: int) -> None:
        self.name = name
        self.dim = dim
        self.texts = 0

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.texts += len(texts)
        out = []
        for text in texts:
            seed = int.from_bytes(hashlib.sha256(f"{self.name}\x1f{text}".encode()).digest()[:8], "big")
            v = np.random.default_rng(seed).standard_normal(self.dim)
            out.append([float(x) for x in v / np.linalg.norm(v)])
        return out


def old_embedder() -> SeededEmbedder:
    return SeededEmbedder("test-old", 32)


def new_embedder() -> SeededEmbedder:
    return SeededEmbedder("test-new", 48)


def quiet() -> Console:
    return Console(file=io.StringIO(), width=120)


def edge_settings(data_dir: Path) -> Settings:
    return Settings(
        data_dir=data_dir, store="edge", qdrant=QdrantSettings(url=None), redis=RedisSettings(url=None),
        llm=LLMSettings(base_url=None, api_key=None),
    )  # fmt: skip


def server_settings(data_dir: Path, url: str, store: str = "server") -> Settings:
    """The server store (``store="auto"`` too: what ``heyan memory migrate`` runs with)."""
    return Settings(
        data_dir=data_dir, store=store, qdrant=QdrantSettings(url=url, prefix="heyan"),
        redis=RedisSettings(url=None), llm=LLMSettings(base_url=None, api_key=None),
    )  # fmt: skip


def memories(facts_per_tenant: int = 50, tag: str = "") -> tuple[list[Fact], list[Summary]]:
    """Facts (more than two embedding batches in all) and two summaries per tenant."""
    facts = [
        Fact(
            tenant=tenant, session=f"thread-{i % 3}", kind=Kind.COMMITMENT if i % 4 == 0 else Kind.DEMAND,
            subject=f"u{i % 7}", attribute=f"wants item {tag}{i}", value=f"the {tag}{i}th thing, colour {i * 7}",
            asserted_by=f"u{i % 7}", users=(f"u{i % 7}",),
        ).with_id()
        for tenant in TENANTS
        for i in range(facts_per_tenant)
    ]  # fmt: skip
    summaries = [
        Summary(tenant=tenant, session=f"thread-{s}", text=f"{tag}they agreed on step {s} in {tenant}",
                users=("u1", "u2")).with_id()
        for tenant in TENANTS
        for s in range(2)
    ]  # fmt: skip
    return facts, summaries


async def seed(store: MemoryStore, embedder: Any, facts: Sequence[Fact], summaries: Sequence[Summary]) -> Records:
    """Write the records through the normal write path; returns them as the store now holds them."""
    sparse = Bm25Encoder()
    await index_facts(store, embedder, sparse, facts, codec=CODEC)
    await index_summaries(store, embedder, sparse, summaries, codec=CODEC)
    return await read_records(store, "seed", codec=CODEC)


async def check_holds(store: MemoryStore, expected: Records, embedder: Any) -> None:
    """``store`` holds exactly ``expected``, and its vectors are ``embedder``'s (exact top hits)."""
    got = await read_records(store, "check", codec=CODEC)
    assert got.facts.keys() == expected.facts.keys()
    assert got.summaries.keys() == expected.summaries.keys()
    assert got.same_as(expected)
    for f in list(expected.facts.values())[::37]:
        [vector] = await embedder.embed([f.embed_text()])
        [hits] = await store.search("facts", Scope(tenant=f.tenant), RecordFilter(),
                                    [VectorQuery(DENSE, dense=vector)], limit=1)  # fmt: skip
        assert hits[0].id == f.id and hits[0].score > 0.999


class Interrupt(BaseException):
    """Stands for the process being killed at that point: like a kill, no ``except Exception`` stops it."""


def fail_on(call: int, real: Callable[..., Any], when: Callable[..., bool] = lambda *a, **k: True) -> Callable[..., Any]:
    """``real``, except that its ``call``-th call (counting only calls where ``when`` holds) raises Interrupt."""
    seen = 0

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        nonlocal seen
        if when(*args, **kwargs):
            seen += 1
            if seen == call:
                raise Interrupt(f"interrupted at call {call} of {getattr(real, '__name__', real)}")
        return real(*args, **kwargs)

    return wrapper
