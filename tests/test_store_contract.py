"""One contract for every ``MemoryStore``: Qdrant Edge on a temp dir, qdrant-client local mode,
``ServerStore`` over HTTP through the loopback Qdrant stand-in (``tests.qdrant_standin``), and a real
Qdrant server when HEYAN_QDRANT_URL is set."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from memory.errors import ScopeError, StoreError
from memory.models import FactStatus, Kind, Scope, Summary
from memory.ports import DENSE, SPARSE, MemoryStore, RecordFilter, SparseVector, VectorQuery
from memory.store.codec import fact_from_payload, summary_to_payload
from memory.store.server import ServerStore
from tests.qdrant_standin import QdrantStandIn
from tests.store_fakes import DIM, EMBEDDER, STORE_KINDS, dense, fact, fact_point, open_store, point, sparse

# qdrant-client checks the server version in a background thread; for the unreachable-server test
# its warning lands in whichever test runs next.
pytestmark = pytest.mark.filterwarnings("ignore:Failed to obtain server version:UserWarning")

T1 = Scope(tenant="discord:1")
ANY = RecordFilter()


@pytest.fixture(params=[*STORE_KINDS, "standin"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[MemoryStore]:
    if request.param == "standin":  # ServerStore over real HTTP, on a fresh in-memory stand-in
        async with QdrantStandIn() as url:
            s = await ServerStore.open(url=url, prefix="t", embedder_name=EMBEDDER, dim=DIM)
            try:
                yield s
            finally:
                await s.close()
        return
    async with open_store(request.param, tmp_path) as s:
        yield s


def payload(tenant: str = "discord:1", **kw: Any) -> dict[str, Any]:
    return {
        "tenant": tenant,
        "session": "thread-1",
        "kind": "demand",
        "status": "active",
        "users": ["u1"],
        **kw,
    }


def pid() -> str:
    return str(uuid.uuid4())


async def test_fact_round_trip(store: MemoryStore) -> None:
    due = datetime(2025, 11, 3, 9, 30, tzinfo=UTC)
    f = fact(
        kind=Kind.COMMITMENT, attribute="deliver draft", value="by Monday", due_at=due, users=("u1", "u2")
    )
    await store.upsert("facts", T1, [fact_point(f)])
    [hit] = await store.retrieve("facts", T1, [f.id])
    assert hit.id == f.id and hit.score == 0.0
    assert fact_from_payload(hit.payload) == f
    assert hit.payload["due_ts"] == due.timestamp()


async def test_upsert_same_id_replaces(store: MemoryStore) -> None:
    f = fact()
    await store.upsert("facts", T1, [fact_point(f)])
    newer = f.model_copy(update={"value": "the meeting moved to Monday", "version": 2})
    await store.upsert("facts", T1, [fact_point(newer)])
    assert await store.count("facts", T1) == 1
    [hit] = await store.retrieve("facts", T1, [f.id])
    assert hit.payload["value"] == "the meeting moved to Monday" and hit.payload["version"] == 2


async def test_dense_search_ranks_exact_vector_first(store: MemoryStore) -> None:
    texts = [f"memory number {i}" for i in range(20)]
    ids = [pid() for _ in texts]
    await store.upsert("facts", T1, [point(i, payload(), t) for i, t in zip(ids, texts, strict=True)])
    [hits] = await store.search("facts", T1, ANY, [VectorQuery(DENSE, dense=dense(texts[7]))], limit=5)
    assert len(hits) == 5
    assert hits[0].id == ids[7] and hits[0].score == pytest.approx(1.0, abs=1e-4)
    assert hits[0].payload["tenant"] == "discord:1"
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


async def test_sparse_search_ranks_shared_terms_first(store: MemoryStore) -> None:
    docs = {pid(): t for t in ["alice wants the blue room", "bob wants quiet hours", "carol feels ignored"]}
    await store.upsert("facts", T1, [point(i, payload(), t) for i, t in docs.items()])
    [hits] = await store.search(
        "facts", T1, ANY, [VectorQuery(SPARSE, sparse=sparse("quiet hours"))], limit=3
    )
    assert [docs[h.id] for h in hits] == ["bob wants quiet hours"]
    [hits] = await store.search("facts", T1, ANY, [VectorQuery(SPARSE, sparse=sparse("wants room"))], limit=3)
    assert docs[hits[0].id] == "alice wants the blue room" and len(hits) == 2


async def test_batch_search_returns_one_list_per_query(store: MemoryStore) -> None:
    a, b = pid(), pid()
    await store.upsert("facts", T1, [point(a, payload(), "alpha beta"), point(b, payload(), "gamma delta")])
    queries = [
        VectorQuery(DENSE, dense=dense("gamma delta")),
        VectorQuery(SPARSE, sparse=sparse("alpha")),
        VectorQuery(SPARSE, sparse=SparseVector((), ())),
        VectorQuery(DENSE, dense=dense("alpha beta")),
    ]
    results = await store.search("facts", T1, ANY, queries, limit=1)
    assert [[h.id for h in r] for r in results] == [[b], [a], [], [a]]
    assert await store.search("facts", T1, ANY, [], limit=3) == []


async def test_filters(store: MemoryStore) -> None:
    now = datetime(2025, 11, 3, tzinfo=UTC)
    ids = {name: pid() for name in ("demand", "done", "commit_soon", "commit_late", "other_session", "u2")}
    pts = [
        point(ids["demand"], payload(subject="u1"), "a"),
        point(ids["done"], payload(status="done", subject="u1"), "b"),
        point(
            ids["commit_soon"],
            payload(kind="commitment", subject="u2", due_ts=(now - timedelta(hours=1)).timestamp()),
            "c",
        ),
        point(
            ids["commit_late"],
            payload(
                kind="commitment",
                subject="u2",
                due_ts=(now + timedelta(days=1)).timestamp(),
                expires_ts=(now - timedelta(days=1)).timestamp(),
            ),
            "d",
        ),
        point(ids["other_session"], payload(session="thread-2"), "e"),
        point(ids["u2"], payload(users=["u2", "u3"], kind="relation", mentions=["u2", "k-docs"]), "f"),
    ]
    await store.upsert("facts", T1, pts)

    async def found(scope: Scope, flt: RecordFilter) -> set[str]:
        hits, nxt = await store.scroll("facts", scope, flt, limit=100)
        assert nxt is None
        names = {n for n, i in ids.items() if i in {h.id for h in hits}}
        searched = await store.search("facts", scope, flt, [VectorQuery(DENSE, dense=dense("a"))], limit=100)
        assert {h.id for h in searched[0]} == {h.id for h in hits}
        assert await store.count("facts", scope, flt) == len(hits)
        return names

    assert await found(T1, RecordFilter(kinds=frozenset({"commitment"}))) == {"commit_soon", "commit_late"}
    assert await found(T1, RecordFilter(statuses=frozenset({"done"}))) == {"done"}
    assert await found(
        T1, RecordFilter(statuses=frozenset({"done", "active"}), subjects=frozenset({"u1"}))
    ) == {"demand", "done"}
    assert await found(T1, RecordFilter(ids=frozenset({ids["u2"], ids["done"]}))) == {"u2", "done"}
    assert await found(T1, RecordFilter(due_before=now)) == {"commit_soon"}
    assert await found(T1, RecordFilter(expires_before=now)) == {"commit_late"}
    assert await found(T1.narrow(session="thread-2"), ANY) == {"other_session"}
    assert await found(T1.narrow(user="u3"), ANY) == {"u2"}
    assert await found(T1.narrow(session="thread-1", user="u2"), ANY) == {"u2"}
    assert len(await found(T1, ANY)) == 6
    # a relation is found by the member ids and name keys it mentions (memory.recall.hops)
    assert await found(T1, RecordFilter(mentions=frozenset({"k-docs", "k-other"}))) == {"u2"}
    assert await found(T1, RecordFilter(mentions=frozenset({"k-other"}))) == set()


async def test_count(store: MemoryStore) -> None:
    assert await store.count("facts", T1) == 0
    await store.upsert("facts", T1, [point(pid(), payload(), f"text {i}") for i in range(7)])
    assert await store.count("facts", T1) == 7
    assert await store.count("facts", T1, RecordFilter(kinds=frozenset({"emotion"}))) == 0


async def test_scroll_covers_every_point_once(store: MemoryStore) -> None:
    ids = {pid() for _ in range(23)}
    await store.upsert("facts", T1, [point(i, payload(), i) for i in ids])
    await store.upsert("facts", Scope(tenant="discord:2"), [point(pid(), payload("discord:2"), "x")])
    seen: list[str] = []
    offset: str | None = None
    pages = 0
    while True:
        hits, offset = await store.scroll("facts", T1, ANY, limit=5, offset=offset)
        seen.extend(h.id for h in hits)
        pages += 1
        if offset is None:
            break
    assert sorted(seen) == sorted(ids) and pages == 5


async def test_delete_by_filter(store: MemoryStore) -> None:
    keep = [pid() for _ in range(3)]
    drop = [pid() for _ in range(4)]
    await store.upsert("facts", T1, [point(i, payload(), i) for i in keep])
    await store.upsert("facts", T1, [point(i, payload(status="expired"), i) for i in drop])
    other = Scope(tenant="discord:2")
    await store.upsert("facts", other, [point(pid(), payload("discord:2", status="expired"), "o")])
    assert await store.delete("facts", T1, RecordFilter(statuses=frozenset({"expired"}))) == 4
    assert {h.id for h in (await store.scroll("facts", T1, ANY))[0]} == set(keep)
    assert await store.count("facts", other) == 1
    assert await store.delete("facts", T1, RecordFilter(statuses=frozenset({"expired"}))) == 0
    assert await store.delete("facts", T1) == 3
    assert await store.count("facts", T1) == 0 and await store.count("facts", other) == 1


async def test_set_payload_keeps_vectors(store: MemoryStore) -> None:
    f = fact()
    await store.upsert("facts", T1, [fact_point(f)])
    await store.set_payload(
        "facts", T1, f.id, {"status": FactStatus.DONE.value, "reminders_sent": ["2025-11-03T00:00:00Z"]}
    )
    [hit] = await store.retrieve("facts", T1, [f.id])
    assert hit.payload["status"] == "done" and hit.payload["value"] == f.value
    assert fact_from_payload(hit.payload).status is FactStatus.DONE
    flt = RecordFilter(statuses=frozenset({"done"}))
    [dense_hits, sparse_hits] = await store.search(
        "facts",
        T1,
        flt,
        [
            VectorQuery(DENSE, dense=dense(f.embed_text())),
            VectorQuery(SPARSE, sparse=sparse("meeting friday")),
        ],
        limit=3,
    )
    assert [h.id for h in dense_hits] == [f.id] and dense_hits[0].score == pytest.approx(1.0, abs=1e-4)
    assert [h.id for h in sparse_hits] == [f.id]


async def test_set_payload_stays_in_scope(store: MemoryStore) -> None:
    f = fact()
    await store.upsert("facts", T1, [fact_point(f)])
    with pytest.raises(ScopeError, match="tenant"):
        await store.set_payload("facts", T1, f.id, {"tenant": "discord:2"})
    with pytest.raises(StoreError, match="not in facts"):
        await store.set_payload("facts", Scope(tenant="discord:2"), f.id, {"status": "done"})
    with pytest.raises(StoreError):
        await store.set_payload("facts", T1, pid(), {"status": "done"})
    [hit] = await store.retrieve("facts", T1, [f.id])
    assert hit.payload["status"] == "active" and hit.payload["tenant"] == "discord:1"


@pytest.mark.parametrize(
    "bad", [None, "discord:1", Scope.model_construct(tenant=""), {"tenant": "discord:1"}]
)
async def test_calls_without_scope_raise(store: MemoryStore, bad: Any) -> None:
    p = point(pid(), payload(), "x")
    calls = [
        store.upsert("facts", bad, [p]),
        store.set_payload("facts", bad, p.id, {"status": "done"}),
        store.retrieve("facts", bad, [p.id]),
        store.search("facts", bad, ANY, [VectorQuery(DENSE, dense=dense("x"))], 3),
        store.scroll("facts", bad, ANY),
        store.count("facts", bad),
        store.delete("facts", bad),
    ]
    for call in calls:
        with pytest.raises(ScopeError):
            await call
    assert await store.count("facts", T1) == 0


def test_scope_refuses_empty_tenant() -> None:
    with pytest.raises(ValueError, match="tenant"):
        Scope(tenant="  ")


async def test_upsert_outside_scope_raises(store: MemoryStore) -> None:
    ok = point(pid(), payload(), "ok")
    with pytest.raises(ScopeError, match="discord:2"):
        await store.upsert("facts", T1, [ok, point(pid(), payload("discord:2"), "theirs")])
    with pytest.raises(ScopeError):
        await store.upsert("facts", T1, [point(pid(), {"session": "thread-1"}, "no tenant")])
    with pytest.raises(ScopeError, match="session"):
        await store.upsert("facts", T1.narrow(session="thread-9"), [ok])
    with pytest.raises(ScopeError, match="session"):
        await store.upsert(
            "facts", T1.narrow(session="thread-1"), [point(pid(), {"tenant": "discord:1"}, "no session")]
        )
    await store.upsert("facts", T1.narrow(session="thread-1"), [ok])
    assert await store.count("facts", T1) == 1
    await store.delete("facts", T1)
    assert await store.count("facts", T1) == 0  # nothing of a refused batch is written


async def test_layers_are_independent(store: MemoryStore) -> None:
    s = Summary(
        tenant="discord:1", session="thread-1", text="They agreed to meet on Friday.", users=("u1", "u2")
    ).with_id()
    await store.upsert("summaries", T1, [point(s.id, summary_to_payload(s), s.text)])
    f = fact()
    await store.upsert("facts", T1, [fact_point(f)])
    assert await store.count("summaries", T1) == 1 and await store.count("facts", T1) == 1
    assert await store.retrieve("facts", T1, [s.id]) == []
    [hit] = await store.retrieve("summaries", T1.narrow(user="u2"), [s.id])
    assert hit.payload["text"] == s.text and hit.payload["kind"] == "summary"
    assert await store.delete("facts", T1) == 1
    assert await store.count("summaries", T1) == 1


async def test_wrong_dimension_is_refused(store: MemoryStore) -> None:
    with pytest.raises(ValueError, match="dimensions"):
        await store.upsert("facts", T1, [point(pid(), payload(), "x", vector=[1.0, 0.0])])
    with pytest.raises(ValueError, match="dimensions"):
        await store.search("facts", T1, ANY, [VectorQuery(DENSE, dense=[1.0])], 3)


async def test_closed_store_refuses_calls(store: MemoryStore) -> None:
    await store.close()
    await store.close()  # twice is fine
    with pytest.raises(StoreError, match="closed"):
        await store.count("facts", T1)


async def test_unreachable_server_names_the_url() -> None:
    with pytest.raises(StoreError, match=r"127\.0\.0\.1:9.*HEYAN_QDRANT_URL"):
        await ServerStore.open(url="http://127.0.0.1:9", embedder_name="x", dim=4)


async def test_non_uuid_ids_are_refused(store: MemoryStore) -> None:
    await store.upsert("facts", T1, [point(pid(), payload(), "x")])
    with pytest.raises(ValueError, match="uuid"):
        await store.retrieve("facts", T1, ["fact-1"])
    with pytest.raises(ValueError, match="uuid"):
        await store.delete("facts", T1, RecordFilter(ids=frozenset({"fact-1"})))
    assert await store.count("facts", T1) == 1  # never "no valid ids, so no id condition"
    [hit] = (await store.scroll("facts", T1, ANY))[0]
    assert [h.id for h in await store.retrieve("facts", T1, [hit.id.upper()])] == [hit.id]


async def test_is_a_memory_store(store: MemoryStore) -> None:
    assert isinstance(store, MemoryStore) and store.name in {"edge", "server"}


async def test_search_without_payloads_or_with_some_keys(store: MemoryStore) -> None:
    texts = [f"memory number {i}" for i in range(6)]
    ids = [pid() for _ in texts]
    await store.upsert("facts", T1, [point(i, payload(subject="s1"), t) for i, t in zip(ids, texts, strict=True)])
    query = [VectorQuery(DENSE, dense=dense(texts[2]))]
    [full] = await store.search("facts", T1, ANY, query, limit=3)
    [bare] = await store.search("facts", T1, ANY, query, limit=3, with_payload=False)
    [some] = await store.search("facts", T1, ANY, query, limit=3, with_payload=["subject", "session", "absent"])
    assert [h.id for h in bare] == [h.id for h in full] == [h.id for h in some]
    assert [h.score for h in bare] == pytest.approx([h.score for h in full])
    assert all(h.payload == {} for h in bare)
    assert all(h.payload == {"subject": "s1", "session": "thread-1"} for h in some)
    assert full[0].payload["tenant"] == "discord:1"


async def test_optimize_answers_and_keeps_every_point(store: MemoryStore) -> None:
    ids = [pid() for _ in range(30)]
    await store.upsert("facts", T1, [point(i, payload(), f"memory {n}") for n, i in enumerate(ids)])
    assert isinstance(await store.optimize(), bool)
    assert await store.count("facts", T1) == 30
    [hits] = await store.search("facts", T1, ANY, [VectorQuery(DENSE, dense=dense("memory 4"))], limit=1)
    assert hits[0].id == ids[4]
