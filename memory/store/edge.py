"""``EdgeStore``: the embedded ``MemoryStore`` on Qdrant Edge, one shard directory per layer.

Shards ``<path>/facts/`` and ``<path>/summaries/`` (lock, meta and rebuild files: ``memory.store.files``).
Every filter starts with the tenant, and BM25 IDF is computed over the tenant's own points, so one
tenant never shifts another's scores. Edge never optimizes by itself: ``memory.store.edge_upkeep.Optimizer``
does, in the background. Writes are counted per tenant (``generation``) for the recall cache.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from qdrant_edge import (
    CountRequest,
    Distance,
    EdgeConfig,
    EdgeShard,
    EdgeSparseVectorParams,
    EdgeVectorParams,
    FacetRequest,
    FieldCondition,
    Filter,
    FloatIndexParams,
    HasIdCondition,
    IdfParams,
    IsEmptyCondition,
    KeywordIndexParams,
    MatchAny,
    MatchValue,
    Modifier,
    PayloadSchemaType,
    Point,
    Query,
    QueryBatchRequest,
    QueryRequest,
    RangeFloat,
    Record,
    ScoredPoint,
    ScrollRequest,
    SearchParams,
    UpdateOperation,
)
from qdrant_edge import SparseVector as EdgeSparse

from memory.errors import StoreError
from memory.models import Scope
from memory.ports import DENSE, SPARSE, Hit, Layer, RecordFilter, StoredPoint, VectorQuery
from memory.store.common import (
    LAYERS,
    PRIVATE,
    Condition,
    check_dense,
    check_ids,
    check_payload_in_scope,
    check_points_in_scope,
    check_scope,
    plan_filter,
    tenant_condition,
)
from memory.store.edge_upkeep import OPTIMIZE_AFTER, OPTIMIZE_EVERY, Generations, Optimizer
from memory.store.files import (
    DirLock,
    check_complete,
    refuse_fresh_store_beside_swap,
    take_swap_guard,
    use_meta,
)

if TYPE_CHECKING:
    from qdrant_edge import ConditionType, PayloadSchemaParams

__all__ = ["EdgeStore"]

T = TypeVar("T")

#: Payload indexes of every shard: the tenant index partitions storage by tenant.
#: Indexes and vectors live in memory-mapped files, paged in as queries touch them (not read whole
#: into RAM when a shard opens): a small store costs little, a large one as much as its hot part.
_KEYWORD = KeywordIndexParams(on_disk=True)
_FLOAT = FloatIndexParams(on_disk=True)
_INDEXES: dict[str, PayloadSchemaParams | PayloadSchemaType] = {
    "tenant": KeywordIndexParams(is_tenant=True, on_disk=True),
    "session": _KEYWORD,
    "subject": _KEYWORD,
    "kind": _KEYWORD,
    "status": _KEYWORD,
    "users": _KEYWORD,
    "due_ts": _FLOAT,
    "expires_ts": _FLOAT,
    "visibility": _KEYWORD,
    # the message ids a fact cites: taking back one message finds its records by this index
    "messages": _KEYWORD,
    # a relation's member ids and name keys: recall's one hop finds relations by them (memory.recall.hops)
    "mentions": _KEYWORD,
}

#: One search thread: on the 2-core target machines a dense+BM25 batch over 5k points takes 0.28 ms
#: with one thread and 0.39 ms with the CPU-derived default (thread hand-off costs more than it saves).
_SEARCH_THREADS = 1


def _lock_message(path: Path, holder: str) -> str:
    who = f" (pid {holder})" if holder else ""
    return (
        f"another Heyan process{who} holds {path}; the embedded store is single-process. Stop the other "
        f"process, or run several processes against a Qdrant server (HEYAN_QDRANT_URL) and Redis "
        f"(HEYAN_REDIS_URL)."
    )


def _config(dim: int) -> EdgeConfig:
    return EdgeConfig(
        vectors={DENSE: EdgeVectorParams(size=dim, distance=Distance.Cosine, on_disk=True)},
        sparse_vectors={SPARSE: EdgeSparseVectorParams(modifier=Modifier.Idf, on_disk=True)},
        max_search_threads=_SEARCH_THREADS,
    )


#: Summaries (one a session) are found by tenant, session and member; any other filter on them reads
#: the few points a tenant has rather than keep an index (each costs a few MB of mapped pages).
_SUMMARY_INDEXES = ("tenant", "session", "users")


def _indexes(layer: str) -> dict[str, PayloadSchemaParams | PayloadSchemaType]:
    return {k: v for k, v in _INDEXES.items() if k in _SUMMARY_INDEXES} if layer == "summaries" else _INDEXES


def _open_shard(shard_dir: Path, dim: int) -> EdgeShard:
    config = _config(dim)
    try:
        if (shard_dir / "edge_config.json").exists():
            shard = EdgeShard.load(str(shard_dir), config)
        else:
            shard = EdgeShard.create(str(shard_dir), config)
        present = shard.info().payload_schema
        for field, schema in _indexes(shard_dir.name).items():
            if field not in present:
                shard.update(UpdateOperation.create_field_index(field, schema))
    except Exception as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise StoreError(
            f"cannot open the memory store's shard at {shard_dir}: {reason}. Restore the data dir from a "
            f"backup; to start over with no memories, move {shard_dir.parent} aside"
        ) from exc
    return shard


def _condition(cond: Condition) -> ConditionType:
    if cond.op == "eq":
        return FieldCondition(cond.key, match=MatchValue(cond.value))
    if cond.op == "any":
        return FieldCondition(cond.key, match=MatchAny(list(cond.values)))
    if cond.op == "ids":
        return HasIdCondition(set(cond.values))
    if cond.op == "lt":
        return FieldCondition(cond.key, range=RangeFloat(lt=cond.bound))
    if cond.op == "alive":
        return Filter(should=[IsEmptyCondition(cond.key), FieldCondition(cond.key, range=RangeFloat(gt=cond.bound))])
    if cond.op == "any_or_empty":
        return Filter(should=[FieldCondition(cond.key, match=MatchAny(list(cond.values))), IsEmptyCondition(cond.key)])
    if cond.op == "visible":
        private = FieldCondition("visibility", match=MatchValue(PRIVATE))
        return Filter(should=[FieldCondition(cond.key, match=MatchValue(cond.value)), Filter(must_not=[private])])
    raise AssertionError(f"unknown filter op {cond.op!r}")


def _filter(conditions: Sequence[Condition]) -> Filter:
    must: list[ConditionType] = [_condition(c) for c in conditions]
    return Filter(must=must)


def _hit(point: ScoredPoint | Record, score: float = 0.0) -> Hit:
    return Hit(id=str(point.id), score=score, payload=dict(point.payload or {}))


def _bare(point: ScoredPoint) -> Hit:
    return Hit(id=str(point.id), score=point.score, payload={})


class EdgeStore:
    """The embedded ``MemoryStore``: Qdrant Edge shards in one directory, owned by one process.

    Open with ``await EdgeStore.open(path, embedder_name=..., dim=...)``; ``close()`` flushes and
    releases the directory lock.
    """

    name = "edge"

    def __init__(
        self,
        path: Path,
        shards: dict[str, EdgeShard],
        lock: DirLock,
        dim: int,
        *,
        optimize_after: int = OPTIMIZE_AFTER,
        optimize_every: float = OPTIMIZE_EVERY,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.path = path
        self.dim = dim
        self._shards: dict[str, EdgeShard] | None = shards
        self._lock = lock
        # Writes are serialised so delete's count-then-delete sees no concurrent write of ours.
        self._write_lock = asyncio.Lock()
        self._optimizer = Optimizer(self._optimize_shards, str(path), after=optimize_after, every=optimize_every,
                                    clock=clock)
        self._generations = Generations()  # writes per tenant (memory.recall.cache reads them)

    def __repr__(self) -> str:
        return f"EdgeStore(path={str(self.path)!r}, dim={self.dim}, open={self._shards is not None})"

    @classmethod
    async def open(
        cls,
        path: Path,
        *,
        embedder_name: str,
        dim: int,
        guard: DirLock | None = None,
        optimize_after: int = OPTIMIZE_AFTER,
        optimize_every: float = OPTIMIZE_EVERY,
        clock: Callable[[], float] = time.monotonic,
    ) -> EdgeStore:
        """Lock ``path``, check the embedder recorded there and open (or create) both shards.

        ``guard`` is the swap guard (``memory.store.files.take_swap_guard``) when the caller — a
        rebuild — already holds it; otherwise it is taken for the moment of locking the directory, so
        no store is opened while a rebuild swaps it. ``optimize_after``/``optimize_every``/``clock``:
        when background optimizations start (see the module docstring); one starts at open. Raises
        StoreLockedError if another process holds
        ``path`` or a rebuild is running, EmbedderMismatchError if the store was built with another
        embedder, StoreError if a shard cannot be opened or an interrupted swap must be recovered first.
        """
        path = Path(path)
        held = guard or take_swap_guard(path)
        try:
            refuse_fresh_store_beside_swap(path)
            try:
                path.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(f"cannot create the memory store directory {path}: {exc}") from exc
            lock = DirLock.take(path / ".lock", lambda holder: _lock_message(path, holder))
            try:
                check_complete(path)
                use_meta(path, embedder_name, dim)
            except BaseException:
                lock.release()
                raise
        finally:
            if guard is None:
                held.release()
        try:
            # Opening replays the WAL and creating builds indexes (~0.2 s per new shard, mostly
            # fsync): off the event loop, both layers at once.
            opened = await asyncio.gather(
                *(asyncio.to_thread(_open_shard, path / layer, dim) for layer in LAYERS),
                return_exceptions=True,
            )
        except BaseException:
            lock.release()
            raise
        shards = {layer: s for layer, s in zip(LAYERS, opened, strict=True) if isinstance(s, EdgeShard)}
        failures = [s for s in opened if not isinstance(s, EdgeShard)]
        if failures:
            for shard in shards.values():
                with contextlib.suppress(Exception):
                    shard.close()
            lock.release()
            raise failures[0]
        store = cls(path, shards, lock, dim, optimize_after=optimize_after, optimize_every=optimize_every,
                    clock=clock)
        store._optimizer.start()  # a store written by an older version, or killed mid-merge
        return store

    # -- plumbing ---------------------------------------------------------------------------------

    def _shard(self, layer: Layer) -> EdgeShard:
        if self._shards is None:
            raise StoreError(f"the memory store at {self.path} is closed")
        try:
            return self._shards[layer]
        except KeyError:
            raise ValueError(f"unknown layer {layer!r}; expected one of {LAYERS}") from None

    def _call(self, what: str, layer: str, fn: Callable[..., T], *args: Any) -> T:
        """Run one Qdrant Edge call, wrapping its errors in StoreError."""
        # Reads run directly on the event loop: a dense+BM25 search batch over 5k points takes 0.30 ms
        # (p95 0.39 ms), while asyncio.to_thread would add 0.1-0.3 ms to every read.
        try:
            return fn(*args)
        except Exception as exc:
            raise StoreError(f"Qdrant Edge failed to {what} in {layer} at {self.path}: {exc}") from exc

    async def _write(self, what: str, layer: Layer, op: UpdateOperation) -> None:
        # Writes go to a thread: a flush takes ~25 ms and a large upsert tens of ms, while a thread
        # hop costs ~0.1-0.3 ms, which only matters for reads. Edge releases the GIL while it works.
        shard = self._shard(layer)
        await asyncio.to_thread(self._call, what, layer, shard.update, op)

    def _count(self, layer: Layer, conditions: Sequence[Condition]) -> int:
        shard = self._shard(layer)
        return self._call(
            "count points", layer, shard.count, CountRequest(exact=True, filter=_filter(conditions))
        )

    # -- MemoryStore ------------------------------------------------------------------------------

    async def upsert(self, layer: Layer, scope: Scope, points: Sequence[StoredPoint]) -> None:
        scope = check_scope(scope)
        check_points_in_scope(scope, points)
        if not points:
            return
        edge_points = []
        for p in points:
            check_dense(p.dense, self.dim, f"point {p.id}")
            vector: dict[str, Any] = {DENSE: [float(x) for x in p.dense]}
            if not p.sparse.empty:
                vector[SPARSE] = EdgeSparse(list(p.sparse.indices), list(p.sparse.values))
            edge_points.append(Point(p.id, vector, dict(p.payload)))
        async with self._write_lock:
            self._generations.bump(scope.tenant)
            await self._write(
                f"upsert {len(points)} points", layer, UpdateOperation.upsert_points(edge_points)
            )
            self._generations.bump(scope.tenant)  # a recall that ran during the write read the old points or the new
        self._optimizer.wrote(len(points))

    async def set_payload(
        self, layer: Layer, scope: Scope, point_id: str, payload: Mapping[str, Any]
    ) -> None:
        scope = check_scope(scope)
        check_payload_in_scope(scope, payload, f"the new payload of point {point_id}")
        conditions = [*plan_filter(scope), Condition("ids", values=check_ids([point_id]))]
        async with self._write_lock:
            if self._count(layer, conditions) == 0:
                raise StoreError(
                    f"cannot set the payload of point {point_id}: it is not in {layer} for {scope}"
                )
            op = UpdateOperation.set_payload_by_filter(_filter(conditions), dict(payload))
            self._generations.bump(scope.tenant)
            await self._write(f"set the payload of point {point_id}", layer, op)
            self._generations.bump(scope.tenant)

    async def retrieve(self, layer: Layer, scope: Scope, ids: Sequence[str]) -> list[Hit]:
        scope = check_scope(scope)
        wanted = check_ids(ids)
        if not wanted:
            return []
        # A scoped scroll rather than retrieve-by-id, so the engine enforces the scope.
        conditions = [*plan_filter(scope), Condition("ids", values=wanted)]
        request = ScrollRequest(
            limit=len(wanted), filter=_filter(conditions), with_payload=True, with_vector=False
        )
        records, _ = self._call("retrieve points", layer, self._shard(layer).scroll, request)
        return [_hit(r) for r in records]

    async def search(
        self,
        layer: Layer,
        scope: Scope,
        flt: RecordFilter,
        queries: Sequence[VectorQuery],
        limit: int,
        *,
        with_payload: bool | Sequence[str] = True,
    ) -> list[list[Hit]]:
        scope = check_scope(scope)
        if not queries:
            return []
        wanted_payload: bool | list[str] = (
            with_payload if isinstance(with_payload, bool) else (list(with_payload) or False)
        )
        flt_ = _filter(plan_filter(scope, flt))
        # IDF over the tenant's own points: other tenants' documents never change this tenant's scores.
        idf = SearchParams(idf=IdfParams(corpus=_filter([tenant_condition(scope)])))
        requests: list[QueryRequest] = []
        slots: list[int | None] = []
        for q in queries:
            if q.using == DENSE:
                if q.dense is None:
                    raise ValueError("a dense VectorQuery needs a dense vector")
                check_dense(q.dense, self.dim, "the query vector")
                query = Query.Nearest([float(x) for x in q.dense], using=DENSE)
                params = None
            elif q.using == SPARSE:
                if q.sparse is None:
                    raise ValueError("a sparse VectorQuery needs a sparse vector")
                if q.sparse.empty:  # no terms: nothing can match
                    slots.append(None)
                    continue
                query = Query.Nearest(EdgeSparse(list(q.sparse.indices), list(q.sparse.values)), using=SPARSE)
                params = idf
            else:
                raise ValueError(f"unknown vector {q.using!r}; expected {DENSE!r} or {SPARSE!r}")
            slots.append(len(requests))
            requests.append(
                QueryRequest(limit=limit, query=query, filter=flt_, with_payload=wanted_payload, params=params)
            )
        results: list[list[ScoredPoint]] = []
        if requests:
            shard = self._shard(layer)
            results = self._call(
                f"search ({len(requests)} queries)", layer, shard.query_batch, QueryBatchRequest(requests)
            )
        make = (lambda p: _hit(p, p.score)) if wanted_payload else _bare
        return [[] if slot is None else [make(p) for p in results[slot]] for slot in slots]

    async def scroll(
        self, layer: Layer, scope: Scope, flt: RecordFilter, limit: int = 256, offset: str | None = None
    ) -> tuple[list[Hit], str | None]:
        scope = check_scope(scope)
        request = ScrollRequest(
            offset=offset,
            limit=limit,
            filter=_filter(plan_filter(scope, flt)),
            with_payload=True,
            with_vector=False,
        )
        records, next_offset = self._call("scroll points", layer, self._shard(layer).scroll, request)
        return [_hit(r) for r in records], (str(next_offset) if next_offset is not None else None)

    async def count(self, layer: Layer, scope: Scope, flt: RecordFilter | None = None) -> int:
        scope = check_scope(scope)
        return self._count(layer, plan_filter(scope, flt))

    async def delete(self, layer: Layer, scope: Scope, flt: RecordFilter | None = None) -> int:
        scope = check_scope(scope)
        conditions = plan_filter(scope, flt)
        async with self._write_lock:
            n = self._count(layer, conditions)
            if n:
                self._generations.bump(scope.tenant)
                await self._write(
                    f"delete {n} points", layer, UpdateOperation.delete_points_by_filter(_filter(conditions))
                )
                self._generations.bump(scope.tenant)
        if n:
            self._optimizer.wrote(n)
        return n

    async def tenants(self, layer: Layer) -> list[str]:
        # A facet on the tenant index: reads the index, not the points.
        request = FacetRequest(key="tenant", limit=1_000_000, exact=True)
        response = self._call("list tenants", layer, self._shard(layer).facet, request)
        return sorted(str(hit.value) for hit in response.hits)

    async def flush(self) -> None:
        if self._shards is None:
            raise StoreError(f"the memory store at {self.path} is closed")
        for layer, shard in self._shards.items():
            await asyncio.to_thread(self._call, "flush", layer, shard.flush)  # ~25 ms: fsync

    # -- optimization -----------------------------------------------------------------------------

    async def optimize(self) -> bool:
        """Merge and index both shards now (in a worker thread; searches go on). True if any segment
        changed. One optimization at a time: a call during a background one waits for it, then runs."""
        return await self._optimizer.optimize()

    async def _optimize_shards(self) -> bool:
        changed = False
        for layer in LAYERS:
            shard = self._shard(layer)  # type: ignore[arg-type]
            changed |= await asyncio.to_thread(self._call, "optimize", layer, shard.optimize)
        return changed

    async def optimized_now(self) -> None:
        """Wait for the background optimization, if one is running (benches and tests)."""
        await self._optimizer.wait()

    @property
    def optimizations(self) -> int:
        """Optimizations that ran so far (background or called)."""
        return self._optimizer.runs

    def generation(self, tenant: str) -> int:
        """How many writes ``tenant`` has had since the store opened: a recall cached at one generation
        is stale at the next (``memory.recall.cache``). This process is the only writer (the lock)."""
        return self._generations(tenant)

    async def close(self) -> None:
        """Flush both shards, close them and release the directory lock. Safe to call twice."""
        if self._shards is None:
            return
        if self._optimizer.task is not None:
            with contextlib.suppress(Exception):
                await self._optimizer.task  # its thread cannot be interrupted: let it finish first
        shards, self._shards = self._shards, None
        failure: StoreError | None = None
        try:
            for layer, shard in shards.items():
                try:
                    await asyncio.to_thread(self._call, "flush", layer, shard.flush)
                    await asyncio.to_thread(self._call, "close", layer, shard.close)
                except StoreError as exc:
                    failure = failure or exc
        finally:
            self._lock.release()
        if failure is not None:
            raise failure
