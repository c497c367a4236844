"""A record's weight (memory.recall.importance) and what reads it: ranking, the use counts in Redis
(bot.usage), and `heyan memory list`."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from redis.asyncio import Redis

from adapters.cli.views import memory_table
from bot.usage import UsageBook
from memory.index.sparse import Bm25Encoder
from memory.models import Fact, FactStatus, HistoryEntry, Kind, Scope
from memory.ports import Hit
from memory.recall.importance import DEFAULT_WEIGHTING, NEUTRAL, RANKING_WEIGHTING, protected, weight
from memory.recall.ranking import Candidate, reweigh
from memory.recall.retrieval import Retriever, index_facts
from memory.store.edge import EdgeStore
from tests.jobs_helpers import HashEmbedder

NOW = datetime(2027, 3, 1, 12, 0, tzinfo=UTC)
T = "console:weights"


def fact(value: str = "Ann will bring the spare keys", **kw: object) -> Fact:
    data: dict[str, object] = {"tenant": T, "session": "s", "kind": Kind.EVENT, "subject": "u-ann",
                               "attribute": "keys", "value": value, "asserted_by": "u-ann", "valid_from": NOW}
    data.update(kw)
    return Fact.model_validate(data).with_id()


def test_a_new_record_is_neutral_and_fades_with_age() -> None:
    assert weight(fact(), NOW) == NEUTRAL
    assert weight(fact(valid_from=NOW - timedelta(days=60)), NOW) == pytest.approx(0.25, abs=0.001)


def test_uses_confirmation_and_a_closed_dispute_move_the_weight() -> None:
    old = NOW - timedelta(days=90)
    base = fact(valid_from=old)
    used = base.model_copy(update={"uses": 6, "used_at": NOW - timedelta(days=1)})
    confirmed = base.model_copy(update={"confirmed_at": old})
    settled = base.model_copy(update={"settled_at": NOW - timedelta(days=30)})
    assert weight(used, NOW) > weight(confirmed, NOW) > weight(base, NOW) > weight(settled, NOW)
    assert weight(confirmed, NOW) >= DEFAULT_WEIGHTING.confirmed_share  # a confirmation does not fade
    # used after the close: it decays from the last use, not from the close
    revisited = settled.model_copy(update={"uses": 3, "used_at": NOW - timedelta(days=2)})
    assert weight(revisited, NOW) > weight(settled, NOW) * 2


def test_an_open_commitment_and_a_disputed_fact_do_not_settle() -> None:
    closed, said = NOW - timedelta(days=60), NOW - timedelta(days=70)
    promise = fact(kind=Kind.COMMITMENT, status=FactStatus.OVERDUE, settled_at=closed, valid_from=said)
    disputed = fact(status=FactStatus.DISPUTED, settled_at=closed, valid_from=said)
    contested = fact(contested=(HistoryEntry(version=1, value="no", asserted_by="u-bob", status=FactStatus.DISPUTED,
                                             valid_from=closed, valid_to=closed),), settled_at=closed, valid_from=said)
    kept = fact(kind=Kind.COMMITMENT, status=FactStatus.DONE, settled_at=closed, valid_from=said)
    assert protected(promise) and protected(disputed) and protected(contested) and not protected(kept)
    assert weight(promise, NOW) == weight(promise.model_copy(update={"settled_at": None}), NOW)
    assert weight(kept, NOW) < weight(kept.model_copy(update={"settled_at": None}), NOW)


def test_ranking_reads_what_was_earned_not_plain_age() -> None:
    old, new = fact(valid_from=NOW - timedelta(days=300)), fact(valid_from=NOW)
    assert weight(old, NOW, RANKING_WEIGHTING) == weight(new, NOW, RANKING_WEIGHTING)
    settled = old.model_copy(update={"settled_at": NOW - timedelta(days=30)})
    assert weight(settled, NOW, RANKING_WEIGHTING) < weight(old, NOW, RANKING_WEIGHTING)


def test_reweigh_adds_the_scaled_weight_and_reorders() -> None:
    a = Candidate(Hit("a", 0.0, {}), 0.70, 0.7, None)
    b = Candidate(Hit("b", 0.0, {}), 0.66, 0.6, None)
    assert [c.hit.id for c in reweigh([a, b], {"a": 0.2, "b": 0.6}, 0.15)] == ["b", "a"]
    assert a.score == pytest.approx(0.73) and b.score == pytest.approx(0.75)


async def test_the_retriever_lifts_a_used_record_over_a_settled_one(tmp_path: Path) -> None:
    """Two records that answer a question almost equally well: without the weight the better one
    comes first; once its dispute closed and replies kept using the other, the weight turns them."""
    embedder, sparse = HashEmbedder(), Bm25Encoder()
    store = await EdgeStore.open(tmp_path / "q", embedder_name=embedder.name, dim=embedder.dim)
    try:
        said = NOW - timedelta(days=40)
        pair = [fact("the rent is split evenly, Ann said", session="s1", valid_from=said),
                fact("the rent is split evenly, Bob said", session="s2", valid_from=said)]
        await index_facts(store, embedder, sparse, pair)
        question, scope = ["how is the rent split"], Scope(tenant=T)
        plain = Retriever(store, embedder, sparse, importance_weight=0.0)
        before = await plain.search(scope, question, now=NOW)
        better, other = before[0].fact, before[1].fact
        assert before[0].score - before[1].score < 0.06  # close: a weight can turn them
        await store.set_payload("facts", scope, better.id, {"settled_at": (NOW - timedelta(days=20)).isoformat()})
        await store.set_payload("facts", scope, other.id, {"uses": 5, "used_at": (NOW - timedelta(days=1)).isoformat()})
        ranked = await plain.search(scope, question, now=NOW)
        assert [s.fact.id for s in ranked] == [better.id, other.id]
        weighted = await plain.tuned(importance_weight=0.15).search(scope, question, now=NOW)
        assert [s.fact.id for s in weighted] == [other.id, better.id]
        # every recalled fact carries its weight (what `heyan memory list` shows)
        assert {s.fact.id: s.weight for s in weighted} == {s.fact.id: weight(s.fact, NOW) for s in ranked}
        assert weighted[0].weight > weighted[1].weight
    finally:
        await store.close()


async def test_uses_are_counted_per_tenant_and_taken_off_once_folded(redis_url: str) -> None:
    redis = Redis.from_url(redis_url)
    try:
        book = UsageBook(redis)
        await book.record(T, ["f1", "f2", "f1"], NOW)  # one reply: each record once
        await book.record(T, ["f1"], NOW + timedelta(minutes=5))
        await book.record("console:other", ["f9"], NOW)
        pending = await book.pending(T)
        assert {k: v.count for k, v in pending.items()} == {"f1": 2, "f2": 1}
        assert pending["f1"].last == NOW + timedelta(minutes=5)
        assert await book.tenants() == ["console:other", T]
        await book.record(T, ["f1"], NOW + timedelta(minutes=9))  # used again while the fold runs
        await book.take(T, "f1", pending["f1"])
        await book.take(T, "f2", pending["f2"])
        after = await book.pending(T)
        assert {k: v.count for k, v in after.items()} == {"f1": 1}
        assert after["f1"].last == NOW + timedelta(minutes=9)  # the later use keeps its time
        await book.take(T, "f1", after["f1"])
        assert await book.pending(T) == {} and await book.tenants() == ["console:other"]
    finally:
        await redis.aclose()


def test_the_memory_table_shows_each_weight() -> None:
    import io

    from rich.console import Console

    facts = [fact(valid_from=NOW - timedelta(days=60)),
             fact("Ann agreed to pay half", uses=4, used_at=NOW, forgotten_at=NOW,
                  expires_at=NOW + timedelta(days=7))]
    out = io.StringIO()
    Console(file=out, width=100, color_system=None).print(memory_table(facts, "2 memories", now=NOW))
    text = out.getvalue()
    assert "wt" in text and "0.25" in text and f"{weight(facts[1], NOW):.2f}" in text
    assert "fading, expires 03-08" in text
    assert json.dumps(weight(facts[0], NOW)) == "0.25"
