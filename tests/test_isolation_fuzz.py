"""A seeded fuzz of tenant isolation: 50 tenants hold the same memories, thousands of random reads.

Every tenant holds the same records (the tenant's name swapped into the text, vectors within 0.001
of each other, the same sessions, users, kinds, statuses, subjects, visibilities, due and expiry
times), so every filter matches in every tenant and another tenant's point is always the nearest
neighbour of a query built from it. Random scopes, filters (ids drawn from every tenant), dense and
sparse queries, limits and page sizes then go through ``search``, ``scroll``, ``count`` and
``retrieve`` (and refused cross-tenant ``delete``/``set_payload``), each result checked against a
plain-Python model of the scope and filter: 0 cross-tenant results, exact counts.

A failure names its seed and step; replay it with ``HEYAN_ISOLATION_SEED=<seed> pytest <this file>``.
"""

from __future__ import annotations

import os
import random
import uuid
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from memory.errors import StoreError
from memory.index.embedders import LocalEmbedder
from memory.index.sparse import Bm25Encoder
from memory.models import Fact, FactStatus, Kind, Scope, Source, Summary, Visibility
from memory.ports import DENSE, Hit, MemoryStore, RecordFilter, VectorQuery
from memory.recall.retrieval import Retriever
from memory.service import MemoryService
from memory.store.edge import EdgeStore
from tests.local_embedder import shared_local_embedder
from tests.store_fakes import STORE_KINDS, dense, near, open_store, point, sparse

SEED = int(os.environ.get("HEYAN_ISOLATION_SEED", "20261103"))
#: Store calls per store kind (a step is one call, or several for a scroll paging through). qdrant-client's
#: local mode scans in Python (~8 ms a call on 400 points), Qdrant Edge ~0.2 ms: ~16 s and ~1.5 s here
#: (so the local run is marked slow: `make test` runs it, `make test-fast` does not).
CALLS = {"edge": 6000, "local": 2000, "server": 2000}

#: Tenant names that are prefixes of one another, across platforms, then plain guild ids up to 50.
TENANTS = [
    "discord:1", "discord:10", "discord:100", "discord:dm:1", "discord:dm:10",
    "slack:T1", "slack:T10", "slack:E1:T1", "slack:E1:T10", "console:1",
    *(f"discord:{2000 + i}" for i in range(40)),
]
SESSIONS = ["general", "thread-1", "private-1"]
USERS = ["alice", "bob", "carol"]
KINDS = ["demand", "commitment", "emotion", "boundary"]
STATUSES = ["active", "done", "disputed"]
T0 = datetime(2026, 11, 3, 12, tzinfo=UTC)
#: Hours from T0 used both for stored due/expiry times and for the filters' bounds.
OFFSETS = [-72.0, -24.0, -1.0, -0.5, 0.0, 0.5, 1.0, 24.0, 72.0]

TEMPLATES = [
    "{t} member alice wants the meeting moved to friday",
    "{t} member bob promised to send the draft by monday",
    "{t} member carol feels ignored in the channel",
    "{t} moderators agreed on quiet hours after ten",
    "{t} alice and bob share the parking spot on weekdays",
    "{t} bob will pay back the deposit before the trip",
    "{t} alice is upset about the noise at night",
    "{t} bob wants credit for the design in the release notes",
]


@dataclass(frozen=True, slots=True)
class Spec:
    """One record every tenant holds; ``visibility`` None means the payload has no such key (public)."""

    template: str
    session: str
    users: tuple[str, ...]
    kind: str
    status: str
    subject: str
    visibility: str | None
    due_h: float | None
    expires_h: float | None


def specs(rng: random.Random) -> list[Spec]:
    """The records of one tenant: every visibility, with and without due and expiry times."""
    out = []
    for i, template in enumerate(TEMPLATES):
        out.append(Spec(
            template=template,
            session=SESSIONS[i % len(SESSIONS)],
            users=tuple(sorted(rng.sample(USERS, rng.randint(1, 2)))),
            kind=rng.choice(KINDS),
            status=rng.choice(STATUSES),
            subject=rng.choice(USERS),
            visibility=[None, "public", "private", "private"][i % 4],
            due_h=rng.choice(OFFSETS) if i % 3 else None,
            expires_h=rng.choice(OFFSETS) if i % 2 else None,
        ))
    return out


def epoch(hours: float) -> float:
    return (T0 + timedelta(hours=hours)).timestamp()


def payload_of(tenant: str, n: int, spec: Spec) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "tenant": tenant,
        "session": spec.session,
        "users": list(spec.users),
        "kind": spec.kind,
        "status": spec.status,
        "subject": spec.subject,
        "text": spec.template.format(t=tenant),
        "n": n,
    }
    if spec.visibility is not None:
        payload["visibility"] = spec.visibility
    if spec.due_h is not None:
        payload["due_ts"] = epoch(spec.due_h)
    # An expiry key that is present but null must count as "never expires", like a missing one.
    payload["expires_ts"] = epoch(spec.expires_h) if spec.expires_h is not None else None
    if spec.expires_h is None and n % 2:
        del payload["expires_ts"]
    return payload


# --- the model: what a scope and a filter must select, in plain Python ----------------------------


def in_scope(p: Mapping[str, Any], scope: Scope) -> bool:
    return (
        p["tenant"] == scope.tenant
        and (scope.session is None or p["session"] == scope.session)
        and (scope.user is None or scope.user in p["users"])
    )


def matches(pid: str, p: Mapping[str, Any], flt: RecordFilter) -> bool:
    def before(key: str, bound: datetime | None) -> bool:
        return bound is None or (p.get(key) is not None and p[key] < bound.timestamp())

    return (
        (not flt.kinds or p["kind"] in flt.kinds)
        and (not flt.statuses or p["status"] in flt.statuses)
        and (not flt.subjects or p["subject"] in flt.subjects)
        and (not flt.ids or pid in flt.ids)
        and before("due_ts", flt.due_before)
        and before("expires_ts", flt.expires_before)
        and (flt.visible_in is None or p["session"] == flt.visible_in or p.get("visibility") != "private")
        and (flt.alive_at is None or p.get("expires_ts") is None or p["expires_ts"] > flt.alive_at.timestamp())
    )


@dataclass
class World:
    """Every stored point (id → payload, text, vector), and each tenant's ids."""

    payloads: dict[str, dict[str, Any]] = field(default_factory=dict)
    texts: dict[str, str] = field(default_factory=dict)
    vectors: dict[str, list[float]] = field(default_factory=dict)
    owned: dict[str, list[str]] = field(default_factory=dict)

    def expected(self, scope: Scope, flt: RecordFilter) -> set[str]:
        return {
            pid for pid in self.owned[scope.tenant]
            if in_scope(self.payloads[pid], scope) and matches(pid, self.payloads[pid], flt)
        }


async def fill(store: MemoryStore, rng: random.Random) -> World:
    world = World()
    records = specs(rng)
    for tenant in TENANTS:
        pts = []
        for n, spec in enumerate(records):
            pid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
            payload = payload_of(tenant, n, spec)
            vector = near(dense(spec.template), tenant, eps=0.001)
            pts.append(point(pid, payload, payload["text"], vector=vector))
            world.payloads[pid], world.texts[pid], world.vectors[pid] = payload, payload["text"], vector
        await store.upsert("facts", Scope(tenant=tenant), pts)
        world.owned[tenant] = [p.id for p in pts]
    return world


# --- random queries -------------------------------------------------------------------------------


def random_scope(rng: random.Random) -> Scope:
    return Scope(
        tenant=rng.choice(TENANTS),
        session=rng.choice(SESSIONS) if rng.random() < 0.3 else None,
        user=rng.choice(USERS) if rng.random() < 0.3 else None,
    )


def some(rng: random.Random, values: Sequence[str]) -> frozenset[str]:
    return frozenset(rng.sample(values, rng.randint(1, len(values))))


def random_filter(rng: random.Random, world: World, tenant: str) -> RecordFilter:
    def maybe_time(p: float) -> datetime | None:
        return T0 + timedelta(hours=rng.choice(OFFSETS)) if rng.random() < p else None

    ids: frozenset[str] = frozenset()
    if rng.random() < 0.25:  # ids of any tenant, often only other tenants'
        pool = list(world.payloads) if rng.random() < 0.5 else [i for i in world.payloads if i not in world.owned[tenant]]
        ids = frozenset(rng.sample(pool, rng.randint(1, 40)))
    return RecordFilter(
        kinds=some(rng, KINDS) if rng.random() < 0.2 else frozenset(),
        statuses=some(rng, STATUSES) if rng.random() < 0.2 else frozenset(),
        subjects=some(rng, USERS) if rng.random() < 0.2 else frozenset(),
        ids=ids,
        due_before=maybe_time(0.1),
        expires_before=maybe_time(0.1),
        visible_in=rng.choice([*SESSIONS, "elsewhere"]) if rng.random() < 0.25 else None,
        alive_at=maybe_time(0.2),
    )


def foreign_id(rng: random.Random, world: World, tenant: str) -> str:
    other = rng.choice([t for t in TENANTS if t != tenant])
    return rng.choice(world.owned[other])


def random_query(rng: random.Random, world: World, tenant: str) -> VectorQuery:
    """Mostly built from another tenant's point: its exact vector, or its words (tenant name included)."""
    roll = rng.random()
    if roll < 0.45:
        return VectorQuery("dense", dense=world.vectors[foreign_id(rng, world, tenant)])
    if roll < 0.55:
        return VectorQuery("dense", dense=dense(f"random {rng.random()}"))
    if roll < 0.9:
        return VectorQuery("bm25", sparse=sparse(world.texts[foreign_id(rng, world, tenant)]))
    return VectorQuery("bm25", sparse=sparse(rng.choice([t for t in TENANTS if t != tenant])))


def shares_terms(query: VectorQuery, text: str) -> bool:
    assert query.sparse is not None
    return bool(set(query.sparse.indices) & set(sparse(text).indices))


# --- the fuzz -------------------------------------------------------------------------------------


@dataclass
class Tally:
    calls: int = 0  # store calls made
    results: int = 0  # result lists checked (a batch search returns one per query)
    answered: int = 0  # result lists holding at least one point
    hits: int = 0
    cross_tenant: int = 0

    def check(self, hits: Sequence[Hit], scope: Scope, allowed: set[str], where: str) -> None:
        """Every hit is in the scope's tenant (and session/user) and among the allowed ids."""
        self.results += 1
        self.answered += bool(hits)
        self.hits += len(hits)
        self.cross_tenant += sum(1 for h in hits if h.payload.get("tenant") != scope.tenant)
        assert len({h.id for h in hits}) == len(hits), f"duplicate hits; {where}"
        for h in hits:
            assert h.payload["tenant"] == scope.tenant, f"{h.payload['tenant']}'s point {h.id} leaked; {where}"
            assert in_scope(h.payload, scope), f"point {h.id} outside {scope}; {where}"
            assert h.id in allowed, f"point {h.id} does not match the filter; {where}"


@pytest.fixture(params=[pytest.param(k, marks=pytest.mark.slow) if k == "local" else k for k in STORE_KINDS])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[tuple[str, MemoryStore]]:
    async with open_store(request.param, tmp_path, prefix="fuzz") as s:
        yield request.param, s


async def test_random_reads_never_cross_tenants(store: tuple[str, MemoryStore]) -> None:
    kind, memory = store
    rng = random.Random(SEED)
    world = await fill(memory, rng)
    tally = Tally()
    step = 0
    while tally.calls < CALLS[kind]:
        step += 1
        scope = random_scope(rng)
        flt = random_filter(rng, world, scope.tenant)
        expected = world.expected(scope, flt)
        where = f"seed={SEED} step={step} store={kind} scope={scope} flt={flt}"
        op = rng.random()
        if op < 0.4:
            queries = [random_query(rng, world, scope.tenant) for _ in range(rng.randint(1, 2))]
            limit = rng.randint(1, 40)
            results = await memory.search("facts", scope, flt, queries, limit)
            tally.calls += 1
            assert len(results) == len(queries), where
            for q, hits in zip(queries, results, strict=True):
                tally.check(hits, scope, expected, where)
                # Dense search ranks every matching point; sparse those sharing a term with the query.
                reachable = expected if q.using == DENSE else {i for i in expected if shares_terms(q, world.texts[i])}
                assert len(hits) == min(limit, len(reachable)), f"{len(hits)} hits for {q.using}; {where}"
        elif op < 0.6:
            page_size, offset, seen = rng.randint(1, 25), None, []
            while True:
                page, offset = await memory.scroll("facts", scope, flt, limit=page_size, offset=offset)
                tally.calls += 1
                tally.check(page, scope, expected, where)
                assert len(page) <= page_size, where
                seen += [h.id for h in page]
                if offset is None:
                    break
            assert sorted(seen) == sorted(expected), where
        elif op < 0.8:
            assert await memory.count("facts", scope, flt) == len(expected), where
            tally.calls += 1
        elif op < 0.96:  # ids of every tenant, own ones among them
            ids = rng.sample(list(world.payloads), rng.randint(1, 30)) + rng.sample(world.owned[scope.tenant], 2)
            hits = await memory.retrieve("facts", scope, ids)
            tally.calls += 1
            wanted = {i for i in ids if in_scope(world.payloads[i], scope)}
            tally.check(hits, scope, wanted, where)
            assert {h.id for h in hits} == wanted, where
        elif op < 0.98:  # a delete naming only other tenants' ids deletes nothing
            theirs = frozenset(foreign_id(rng, world, scope.tenant) for _ in range(rng.randint(1, 5)))
            flt = RecordFilter(ids=theirs, kinds=flt.kinds, statuses=flt.statuses)
            assert await memory.delete("facts", scope, flt) == 0, where
            tally.calls += 1
        else:  # so does a payload update of another tenant's point
            with pytest.raises(StoreError, match="not in facts"):
                await memory.set_payload("facts", scope, foreign_id(rng, world, scope.tenant), {"status": "done"})
            tally.calls += 1

    # Nothing any tenant did changed another's points.
    for tenant in TENANTS:
        page, nxt = await memory.scroll("facts", Scope(tenant=tenant), RecordFilter(), limit=100)
        assert nxt is None and {h.id: h.payload for h in page} == {i: world.payloads[i] for i in world.owned[tenant]}
    summary = (f"{kind}: {tally.calls} store calls over {step} steps, {tally.results} result lists, "
               f"{tally.answered} non-empty, {tally.hits} hits, {tally.cross_tenant} cross-tenant; seed={SEED}")
    print(summary)
    assert tally.cross_tenant == 0 and tally.calls >= 2000, summary
    assert tally.answered > tally.results // 2, f"too few reads found anything to be telling; {summary}"


# --- recall through MemoryService: hybrid dense + BM25 over 50 tenants' identical facts -------------

RECALLS = 500
#: (subject, kind, attribute, value, session, visibility, status): the same facts in every tenant.
FACT_SPECS = [
    ("alice", Kind.DEMAND, "parking", "the parking spot on weekdays", "general", Visibility.PUBLIC, FactStatus.ACTIVE),
    ("bob", Kind.COMMITMENT, "send draft", "the draft by Monday", "thread-1", Visibility.PUBLIC, FactStatus.ACTIVE),
    ("carol", Kind.DEMAND, "home address", "nobody posts her home address", "private-1", Visibility.PRIVATE,
     FactStatus.ACTIVE),
    ("alice", Kind.EMOTION, "noise", "upset about the noise at night", "private-1", Visibility.PRIVATE,
     FactStatus.DISPUTED),
    ("bob", Kind.DEMAND, "design credit", "credit for the design in the release notes", "thread-1",
     Visibility.PUBLIC, FactStatus.ACTIVE),
    ("carol", Kind.EVENT, "retro", "booked the room for the retro", "general", Visibility.PUBLIC, FactStatus.DONE),
    ("bob", Kind.COMMITMENT, "deposit", "pays back the deposit before the trip", "private-1", Visibility.PRIVATE,
     FactStatus.ACTIVE),
]


def codeword(tenant: str) -> str:
    return f"wifi-{TENANTS.index(tenant)}-{tenant.replace(':', '-')}"


def tenant_facts(tenant: str) -> list[Fact]:
    """The shared facts, plus one whose value names the tenant (so its words point at one tenant)."""
    specs = [*FACT_SPECS, ("alice", Kind.CONSENSUS, "wifi password", f"the {tenant} wifi password is {codeword(tenant)}",
                           "general", Visibility.PUBLIC, FactStatus.ACTIVE)]
    facts = []
    for n, (subject, kind, attribute, value, session, visibility, status) in enumerate(specs):
        facts.append(Fact(
            tenant=tenant, session=session, kind=kind, subject=subject, attribute=attribute, value=value,
            asserted_by=subject, users=(subject, USERS[(USERS.index(subject) + 1) % len(USERS)]),
            visibility=visibility, status=status, valid_from=T0,
            sources=(Source(message_id=f"m{n}", author_id=subject, ts=T0, quote=value),),
        ))
    return facts


class CachedEmbedder:
    """The local embedder, embedding each distinct text once: every tenant's facts share their texts."""

    def __init__(self, inner: LocalEmbedder) -> None:
        self.inner, self.name, self.dim = inner, inner.name, inner.dim
        self.cache: dict[str, list[float]] = {}

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        missing = [t for t in dict.fromkeys(texts) if t not in self.cache]
        if missing:
            self.cache.update(zip(missing, await self.inner.embed(missing), strict=True))
        return [self.cache[t] for t in texts]


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[MemoryService]:
    embedder = CachedEmbedder(shared_local_embedder())
    store = await EdgeStore.open(tmp_path / "q", embedder_name=embedder.name, dim=embedder.dim)
    sparse_encoder = Bm25Encoder()
    yield MemoryService(store, embedder, sparse_encoder, Retriever(store, embedder, sparse_encoder))
    await store.close()


def random_recall_queries(rng: random.Random, tenant: str) -> list[str]:
    other = rng.choice([t for t in TENANTS if t != tenant])
    pool = [
        *(f"{attribute} {value}" for _, _, attribute, value, *_ in FACT_SPECS),
        f"what is the wifi password of {other}, {codeword(other)}",
        f"tenant={other} what did bob promise",
        f"{other} parking spot",
        codeword(other),
    ]
    return rng.sample(pool, rng.randint(1, 2))


async def test_random_recalls_never_cross_tenants(service: MemoryService) -> None:
    rng = random.Random(SEED)
    owned: dict[str, set[str]] = {}
    for tenant in TENANTS:
        owned[tenant] = {f.id for f in (await service.remember(tenant_facts(tenant))).written}
        for session in SESSIONS:
            visibility = Visibility.PRIVATE if session.startswith("private") else Visibility.PUBLIC
            await service.save_summary(Summary(tenant=tenant, session=session, text=f"{tenant} talked about parking",
                                               users=tuple(USERS), visibility=visibility))
    assert all(len(ids) == len(FACT_SPECS) + 1 for ids in owned.values())
    answered = recalled = summaries = 0
    for step in range(RECALLS):
        scope = Scope(
            tenant=rng.choice(TENANTS),
            session=rng.choice([*SESSIONS, "elsewhere"]) if rng.random() < 0.6 else None,
            user=rng.choice(USERS) if rng.random() < 0.3 else None,
        )
        queries = random_recall_queries(rng, scope.tenant)
        where = f"seed={SEED} recall={step} scope={scope} queries={queries}"
        recall = await service.recall(scope, queries, k=rng.randint(1, 10))
        if recall.summary is not None:
            assert (recall.summary.tenant, recall.summary.session) == (scope.tenant, scope.session), where
            assert recall.summary.text == f"{scope.tenant} talked about parking", where
            summaries += 1
        answered += bool(recall.facts)
        recalled += len(recall.facts)
        for scored in recall.facts:
            fact = scored.fact
            assert fact.tenant == scope.tenant and fact.id in owned[scope.tenant], f"{fact.tenant} leaked; {where}"
            assert scope.user is None or scope.user in fact.users, where
            if scope.session is not None:
                assert fact.session == scope.session or fact.visibility is Visibility.PUBLIC, where
            assert codeword(scope.tenant) in fact.value or fact.attribute != "wifi password", where
    summary = f"{RECALLS} recalls, {answered} with facts, {recalled} facts, {summaries} summaries; seed={SEED}"
    print(summary)
    assert answered > RECALLS * 3 // 4 and summaries > RECALLS // 4, f"too little found to be telling; {summary}"
