"""50 tenants holding near-identical memories: every read for one tenant sees only that tenant."""

from __future__ import annotations

import inspect
import typing
import uuid
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from memory.errors import ScopeError
from memory.models import Scope
from memory.ports import DENSE, SPARSE, MemoryStore, RecordFilter, VectorQuery
from memory.recall.retrieval import Retriever
from memory.service import MemoryService
from memory.store.edge import EdgeStore
from memory.store.server import ServerStore
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


# --- every store call is scoped -------------------------------------------------------------------

#: Public store methods without a Scope, and why none is needed. A new method must take a
#: ``scope: Scope`` or be added here with its reason.
UNSCOPED = {
    "open": "opens the store",
    "flush": "makes writes durable",
    "close": "releases the store",
    "tenants": "lists tenant names for purge and reconcile (admin and cron), never records",
    "optimize": "compacts the store's segments (all tenants at once); reads and returns no records",
    "optimized_now": "waits for a running optimization; no records",
    "generation": "a tenant's write counter for the recall cache (memory.recall.cache); no records",
}
#: The same for the layers above the store: these take records (or a tenant) that carry the tenant.
UNSCOPED_ABOVE = {
    "remember": "writes facts of one tenant, refused when they name several",
    "save_summary": "writes one summary, whose tenant is the scope",
    "reseal": "re-encrypts one tenant's records by id, the tenant given",
    "watch": "registers a watcher of writes; reads and writes nothing",
    "feedback": "a setting of the retriever (feedback terms); no data",
    "feedback_weight": "a setting of the retriever; no data",
    "tuned": "a copy of the retriever with other settings; reads and writes nothing",
}


def public_methods(cls: type) -> dict[str, Callable[..., Any]]:
    return {n: getattr(cls, n) for n in dir(cls) if not n.startswith("_") and callable(getattr(cls, n))}


def scope_type(method: Callable[..., Any]) -> object:
    return typing.get_type_hints(method).get("scope")


@pytest.mark.parametrize("cls", [MemoryStore, EdgeStore, ServerStore], ids=lambda c: c.__name__)
def test_every_store_data_method_takes_a_scope(cls: type) -> None:
    methods = public_methods(cls)
    scoped = {n for n in methods if n not in UNSCOPED}
    assert scoped == {"upsert", "set_payload", "retrieve", "search", "scroll", "count", "delete"}
    for name in scoped:
        params = list(inspect.signature(methods[name]).parameters)
        assert params[:3] == ["self", "layer", "scope"], f"{cls.__name__}.{name}{params}"
        assert scope_type(methods[name]) is Scope, f"{cls.__name__}.{name} must take scope: Scope"


@pytest.mark.parametrize("cls", [MemoryService, Retriever], ids=lambda c: c.__name__)
def test_every_read_and_write_above_the_store_takes_a_scope(cls: type) -> None:
    for name, method in public_methods(cls).items():
        if name not in UNSCOPED_ABOVE:
            assert scope_type(method) is Scope, f"{cls.__name__}.{name} must take scope: Scope"


#: Arguments for every scoped store method, by parameter name (scope aside).
def store_args(pid: str) -> dict[str, Any]:
    return {
        "layer": "facts",
        "points": [point(pid, {"tenant": " ", "session": "general"}, "x")],
        "point_id": pid,
        "payload": {"status": "done"},
        "ids": [pid],
        "flt": RecordFilter(),
        "queries": [VectorQuery("dense", dense=dense("x"))],
        "limit": 3,
        "offset": None,
        "with_payload": True,
    }


@pytest.mark.parametrize("tenant", ["", "   "])
async def test_every_scoped_store_method_refuses_a_blank_tenant(
    filled: tuple[MemoryStore, dict[str, set[str]]], tenant: str
) -> None:
    """Found by introspection, so a method added later is covered too (test_store_contract lists them)."""
    store, owned = filled
    blank = Scope.model_construct(tenant=tenant, session=None, user=None)
    theirs = next(iter(owned[TENANTS[0]]))
    called = []
    for name, method in public_methods(type(store)).items():
        if name in UNSCOPED:
            continue
        params = [p for p in inspect.signature(method).parameters if p not in ("self", "scope")]
        args = store_args(theirs)
        with pytest.raises(ScopeError):
            await getattr(store, name)(scope=blank, **{p: args[p] for p in params})
        called.append(name)
    assert len(called) == 7
    assert await store.count("facts", Scope(tenant=TENANTS[0])) == len(TEMPLATES)
