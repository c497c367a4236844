"""50 tenants holding near-identical memories: every read for one tenant sees only that tenant."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from memory.models import Scope
from memory.ports import DENSE, SPARSE, MemoryStore, RecordFilter, VectorQuery
from tests.store_fakes import STORE_KINDS, dense, near, open_store, point, sparse

TENANTS = [f"discord:{1000 + i}" for i in range(50)]
TEMPLATES = [
    "{t} member alice wants the meeting moved to friday",
    "{t} member bob promised to send the draft by monday",
    "{t} member carol feels ignored in the channel",
    "{t} moderators agreed on quiet hours after ten",
]
ANY = RecordFilter()


@pytest.fixture(params=STORE_KINDS)
async def filled(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[tuple[MemoryStore, dict[str, set[str]]]]:
    """A store where each tenant holds the same four memories, tenant name swapped in, vectors ~equal."""
    owned: dict[str, set[str]] = {}
    async with open_store(request.param, tmp_path, prefix="iso") as store:
        for tenant in TENANTS:
            pts = []
            for i, template in enumerate(TEMPLATES):
                text = template.format(t=tenant)
                payload = {
                    "tenant": tenant,
                    "session": "general",
                    "kind": "demand",
                    "status": "active",
                    "users": ["alice", "bob"],
                    "text": text,
                    "n": i,
                }
                pts.append(
                    point(str(uuid.uuid4()), payload, text, vector=near(dense(template), tenant, eps=0.001))
                )
            await store.upsert("facts", Scope(tenant=tenant), pts)
            owned[tenant] = {p.id for p in pts}
        yield store, owned


async def test_every_read_stays_in_its_tenant(filled: tuple[MemoryStore, dict[str, set[str]]]) -> None:
    store, owned = filled
    all_ids = set().union(*owned.values())
    for i, tenant in enumerate(TENANTS):
        scope = Scope(tenant=tenant)
        mine = owned[tenant]
        neighbour = TENANTS[(i + 1) % len(TENANTS)]
        queries = [
            # The neighbour's exact vector and words: globally nearest to the neighbour's points.
            VectorQuery(DENSE, dense=near(dense(TEMPLATES[0]), neighbour, eps=0.001)),
            VectorQuery(SPARSE, sparse=sparse(TEMPLATES[1].format(t=neighbour))),
            VectorQuery(DENSE, dense=dense(TEMPLATES[2])),
        ]
        for hits in await store.search("facts", scope, ANY, queries, limit=10):
            assert hits and {h.id for h in hits} <= mine
            assert all(h.payload["tenant"] == tenant for h in hits)
        page, nxt = await store.scroll("facts", scope, ANY, limit=100)
        assert {h.id for h in page} == mine and nxt is None
        assert await store.count("facts", scope) == len(mine)
        assert {h.id for h in await store.retrieve("facts", scope, sorted(all_ids))} == mine
        assert await store.retrieve("facts", scope, sorted(owned[neighbour])) == []
        user_scope = scope.narrow(session="general", user="alice")
        assert await store.count("facts", user_scope, RecordFilter(ids=frozenset(owned[neighbour]))) == 0


async def test_delete_and_set_payload_stay_in_their_tenant(
    filled: tuple[MemoryStore, dict[str, set[str]]],
) -> None:
    store, owned = filled
    first, second = Scope(tenant=TENANTS[0]), Scope(tenant=TENANTS[1])
    theirs = next(iter(owned[TENANTS[1]]))
    assert await store.delete("facts", first, RecordFilter(ids=frozenset(owned[TENANTS[1]]))) == 0
    assert await store.delete("facts", first) == 4
    assert await store.count("facts", second) == 4
    with pytest.raises(Exception, match="not in facts"):
        await store.set_payload("facts", first, theirs, {"status": "done"})
    [hit] = await store.retrieve("facts", second, [theirs])
    assert hit.payload["status"] == "active"


async def test_bm25_statistics_are_per_tenant(filled: tuple[MemoryStore, dict[str, set[str]]]) -> None:
    """Another tenant's documents do not move this tenant's BM25 scores (IDF is computed per tenant)."""
    store, _ = filled
    scope = Scope(tenant=TENANTS[0])
    query = [VectorQuery(SPARSE, sparse=sparse("quiet hours"))]
    before = [(h.id, h.score) for h in (await store.search("facts", scope, ANY, query, limit=4))[0]]
    crowd = Scope(tenant="discord:crowd")
    await store.upsert(
        "facts",
        crowd,
        [point(str(uuid.uuid4()), {"tenant": "discord:crowd"}, f"quiet hours again {i}") for i in range(40)],
    )
    after = [(h.id, h.score) for h in (await store.search("facts", scope, ANY, query, limit=4))[0]]
    assert [i for i, _ in after] == [i for i, _ in before]
    assert [s for _, s in after] == pytest.approx([s for _, s in before], rel=1e-5)
