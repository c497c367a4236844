"""``ServerStore``: the distributed ``MemoryStore`` on a Qdrant server or cluster through qdrant-client.

Each layer is reached through an alias (``<prefix>_facts``, ``<prefix>_summaries``) naming the live
generation ``<prefix>_<layer>_v<N>``, so a rebuild fills N+1 and switches (``ServerAdmin``); a legacy
collection named like the alias works until its first rebuild. A tenant payload index co-locates each
tenant's points. ``location=":memory:"`` is for tests only (it scans every point). The only module that
imports qdrant-client (``tests/test_layers.py``), hence its length.
"""

from __future__ import annotations

import warnings
from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from qdrant_client import AsyncQdrantClient, models
from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

from memory.errors import StoreError
from memory.models import Scope
from memory.ports import DENSE, SPARSE, Hit, Layer, RecordFilter, StoredPoint, VectorQuery
from memory.store.common import (
    LAYERS,
    PRIVATE,
    Condition,
    check_dense,
    check_embedder,
    check_ids,
    check_payload_in_scope,
    check_points_in_scope,
    check_scope,
    generation_name,
    generation_number,
    plan_filter,
    tenant_condition,
)

__all__ = ["Generation", "LayerState", "ServerAdmin", "ServerStore"]

T = TypeVar("T")

#: Metadata keys on each collection: the embedder its vectors came from, and whether every record is
#: in it (a generation a rebuild is filling is not; an alias only ever points to a complete one).
_META_EMBEDDER = "heyan_embedder"
_META_DIM = "heyan_dim"
_META_COMPLETE = "heyan_complete"

_INDEXES: dict[str, models.PayloadSchemaType | models.KeywordIndexParams] = {
    "tenant": models.KeywordIndexParams(type=models.KeywordIndexType.KEYWORD, is_tenant=True),
    "session": models.PayloadSchemaType.KEYWORD,
    "subject": models.PayloadSchemaType.KEYWORD,
    "kind": models.PayloadSchemaType.KEYWORD,
    "status": models.PayloadSchemaType.KEYWORD,
    "users": models.PayloadSchemaType.KEYWORD,
    "due_ts": models.PayloadSchemaType.FLOAT,
    "expires_ts": models.PayloadSchemaType.FLOAT,
    "visibility": models.PayloadSchemaType.KEYWORD,
    # the message ids a fact cites: taking back one message finds its records by this index
    "messages": models.PayloadSchemaType.KEYWORD,
    # a relation's member ids and name keys: recall's one hop finds relations by them (memory.recall.hops)
    "mentions": models.PayloadSchemaType.KEYWORD,
}


def _condition(cond: Condition) -> models.Condition:
    if cond.op == "eq":
        return models.FieldCondition(key=cond.key, match=models.MatchValue(value=cond.value))
    if cond.op == "any":
        return models.FieldCondition(key=cond.key, match=models.MatchAny(any=list(cond.values)))
    if cond.op == "ids":
        return models.HasIdCondition(has_id=list(cond.values))
    if cond.op == "lt":
        return models.FieldCondition(key=cond.key, range=models.Range(lt=cond.bound))
    if cond.op == "alive":
        return models.Filter(should=[
            models.IsEmptyCondition(is_empty=models.PayloadField(key=cond.key)),
            models.FieldCondition(key=cond.key, range=models.Range(gt=cond.bound)),
        ])
    if cond.op == "any_or_empty":
        return models.Filter(should=[
            models.FieldCondition(key=cond.key, match=models.MatchAny(any=list(cond.values))),
            models.IsEmptyCondition(is_empty=models.PayloadField(key=cond.key)),
        ])
    if cond.op == "visible":
        private = models.FieldCondition(key="visibility", match=models.MatchValue(value=PRIVATE))
        return models.Filter(should=[
            models.FieldCondition(key=cond.key, match=models.MatchValue(value=cond.value)),
            models.Filter(must_not=[private]),
        ])
    raise AssertionError(f"unknown filter op {cond.op!r}")


def _filter(conditions: Sequence[Condition]) -> models.Filter:
    return models.Filter(must=[_condition(c) for c in conditions])


def _hit(point: models.ScoredPoint | models.Record, score: float = 0.0) -> Hit:
    return Hit(id=str(point.id), score=score, payload=dict(point.payload or {}))


async def _call(where: str, what: str, collection: str, call: Awaitable[T]) -> T:
    """Await one qdrant-client call, turning its failures into one-line StoreErrors."""
    try:
        return await call
    except ResponseHandlingException as exc:
        raise StoreError(
            f"cannot reach Qdrant at {where} to {what} in {collection}: {exc}. Check that the "
            f"server is running and reachable, and that HEYAN_QDRANT_URL and HEYAN_QDRANT_API_KEY are right."
        ) from exc
    except UnexpectedResponse as exc:
        hint = " Check HEYAN_QDRANT_API_KEY." if exc.status_code in (401, 403) else ""
        raise StoreError(f"Qdrant at {where} failed to {what} in {collection}: {exc}.{hint}") from exc
    except Exception as exc:
        raise StoreError(f"Qdrant at {where} failed to {what} in {collection}: {exc}") from exc


@dataclass(frozen=True, slots=True)
class Generation:
    """One collection holding a layer; ``number`` is None for a legacy collection named like the alias."""

    name: str
    number: int | None
    embedder: str | None
    dim: int | None
    complete: bool


@dataclass(frozen=True, slots=True)
class LayerState:
    """Where a layer lives: the ``alias`` every store call names, the ``live`` collection it resolves
    to (None: nothing yet) and the layer's ``other`` generations (a rebuild's, or leftovers)."""

    alias: str
    live: Generation | None
    other: tuple[Generation, ...]


class ServerAdmin:
    """The generations and aliases of one prefix on one server: what opening a store and the rebuilds
    (``adapters.maintenance.rebuild``) need. ``await ServerAdmin.connect(url=..., prefix=...)``; ``close()``."""

    def __init__(self, client: AsyncQdrantClient, where: str, prefix: str) -> None:
        self.client = client
        self.where = where
        self.prefix = prefix

    def __repr__(self) -> str:
        return f"ServerAdmin(where={self.where!r}, prefix={self.prefix!r})"

    @classmethod
    async def connect(
        cls, *, url: str | None = None, api_key: str | None = None, location: str | None = None, prefix: str = "heyan"
    ) -> ServerAdmin:
        """A client for ``url`` (a Qdrant server) or ``location`` (local mode); StoreError if it cannot be made."""
        if (url is None) == (location is None):
            raise ValueError("a Qdrant connection needs exactly one of url= (a Qdrant server) or location=")
        where = url or str(location)
        try:
            # qdrant-client's own `prefix` is a URL path prefix, not our collection prefix.
            client = AsyncQdrantClient(url=url, api_key=api_key, location=location)
        except Exception as exc:
            raise StoreError(f"cannot create a Qdrant client for {where}: {exc}") from exc
        return cls(client, where, prefix)

    async def close(self) -> None:
        try:
            await self.client.close()
        except Exception as exc:
            raise StoreError(f"cannot close the Qdrant client for {self.where}: {exc}") from exc

    def alias(self, layer: str) -> str:
        if layer not in LAYERS:
            raise ValueError(f"unknown layer {layer!r}; expected one of {LAYERS}")
        return f"{self.prefix}_{layer}"

    async def _describe(self, name: str, number: int | None) -> Generation:
        info = await _call(self.where, "read the collection", name, self.client.get_collection(name))
        meta = info.config.metadata or {}
        vectors = info.config.params.vectors
        dim = vectors[DENSE].size if isinstance(vectors, dict) and DENSE in vectors else None
        embedder = meta.get(_META_EMBEDDER)
        complete = number is None or meta.get(_META_COMPLETE) is True
        return Generation(name, number, embedder if isinstance(embedder, str) else None, dim, complete)

    async def state(self, layer: str) -> LayerState:
        """Where ``layer`` lives now. A complete generation left without an alias (a switch killed
        between deleting a legacy collection and creating the alias, or a first copy killed after its
        marking) is made live here, as any open would."""
        alias = self.alias(layer)
        listed = await _call(self.where, "list aliases", alias, self.client.get_aliases())
        aliases = {a.alias_name: a.collection_name for a in listed.aliases}
        collections = await _call(self.where, "list collections", alias, self.client.get_collections())
        names = {c.name for c in collections.collections}
        live_name = aliases.get(alias) or (alias if alias in names else None)
        live = None
        if live_name is not None:
            live = await self._describe(live_name, generation_number(self.prefix, layer, live_name))
        numbered = sorted(
            (n, name) for name in names if (n := generation_number(self.prefix, layer, name)) is not None
        )
        other = [await self._describe(name, n) for n, name in numbered if name != live_name]
        if live is None and any(g.complete for g in other):
            live = [g for g in other if g.complete][-1]
            await self.point_alias(alias, live.name)
            other.remove(live)
        return LayerState(alias, live, tuple(other))

    async def point_alias(self, alias: str, target: str) -> None:
        """Create ``alias`` → ``target`` (replacing an alias of that name, as Qdrant does)."""
        create = models.CreateAliasOperation(create_alias=models.CreateAlias(collection_name=target, alias_name=alias))
        await _call(self.where, f"point the alias {alias} to it", target, self.client.update_collection_aliases([create]))

    async def create(self, layer: str, number: int, embedder_name: str, dim: int, *, complete: bool) -> Generation:
        """Create generation ``number`` of ``layer`` with its indexes; a 409 (another process made it)
        is not an error — the caller reads what is there."""
        name = generation_name(self.prefix, layer, number)
        create = self.client.create_collection(
            name,
            vectors_config={DENSE: models.VectorParams(size=dim, distance=models.Distance.COSINE)},
            sparse_vectors_config={SPARSE: models.SparseVectorParams(modifier=models.Modifier.IDF)},
            metadata={_META_EMBEDDER: embedder_name, _META_DIM: dim, _META_COMPLETE: complete},
        )
        try:
            await _call(self.where, "create the collection", name, create)
        except StoreError as exc:
            cause = exc.__cause__
            if not (isinstance(cause, UnexpectedResponse) and cause.status_code == 409):
                raise
        generation = await self._describe(name, number)
        await self.ensure_indexes(name)
        return generation

    async def ensure_indexes(self, name: str) -> None:
        info = await _call(self.where, "read the collection", name, self.client.get_collection(name))
        present = info.payload_schema or {}
        with warnings.catch_warnings():
            # Local mode warns that payload indexes have no effect there; the server needs them.
            warnings.filterwarnings("ignore", message="Payload indexes have no effect", category=UserWarning)
            for field, schema in _INDEXES.items():
                if field not in present:
                    index = self.client.create_payload_index(name, field, field_schema=schema, wait=True)
                    await _call(self.where, f"create the {field} index", name, index)

    async def set_complete(self, name: str, complete: bool) -> None:
        """Mark a generation complete (every record written) or not (being written to again)."""
        update = self.client.update_collection(name, metadata={_META_COMPLETE: complete})
        await _call(self.where, "mark the collection complete" if complete else "mark it incomplete", name, update)

    async def drop(self, name: str) -> None:
        await _call(self.where, "delete the collection", name, self.client.delete_collection(name))

    async def switch(self, states: Mapping[Layer, LayerState], targets: Mapping[Layer, str]) -> None:
        """Point each layer's alias to its target in one atomic call. A legacy collection named like
        the alias must be deleted first (an alias cannot shadow a collection): that one step is not
        atomic, and an interruption there is finished by ``state``."""
        for layer in targets:
            live = states[layer].live
            if live is not None and live.number is None:
                await self.drop(live.name)
        ops: list[models.CreateAliasOperation | models.DeleteAliasOperation] = []
        for layer, target in targets.items():
            alias = states[layer].alias
            live = states[layer].live
            if live is not None and live.number is not None:
                ops.append(models.DeleteAliasOperation(delete_alias=models.DeleteAlias(alias_name=alias)))
            create = models.CreateAlias(collection_name=target, alias_name=alias)
            ops.append(models.CreateAliasOperation(create_alias=create))
        names = ", ".join(targets.values())
        await _call(self.where, "switch the aliases", names, self.client.update_collection_aliases(ops))

    def store(self, collections: Mapping[Layer, str], dim: int) -> ServerStore:
        """A store on these collections (layer → name) sharing this client; closing it leaves the client open."""
        return ServerStore(self.client, self.where, self.prefix, dim, collections=collections, owns_client=False)


class ServerStore:
    """The ``MemoryStore`` on a Qdrant server (or qdrant-client's local mode in tests).

    Open with ``await ServerStore.open(url=..., embedder_name=..., dim=...)``.
    """

    name = "server"

    def __init__(
        self,
        client: AsyncQdrantClient,
        where: str,
        prefix: str,
        dim: int,
        *,
        collections: Mapping[Layer, str] | None = None,
        owns_client: bool = True,
    ) -> None:
        self._client = client
        self.where = where
        self.prefix = prefix
        self.dim = dim
        # Layer -> collection: the aliases for a store that was opened, a rebuild's generations otherwise.
        self.collections: dict[str, str] = {layer: f"{prefix}_{layer}" for layer in LAYERS}
        if collections is not None:
            self.collections = {str(layer): name for layer, name in collections.items()}
        self._owns_client = owns_client
        self._closed = False

    def __repr__(self) -> str:
        return f"ServerStore(where={self.where!r}, collections={self.collections!r}, dim={self.dim})"

    @classmethod
    async def open(
        cls,
        *,
        url: str | None = None,
        api_key: str | None = None,
        location: str | None = None,
        prefix: str = "heyan",
        embedder_name: str,
        dim: int,
    ) -> ServerStore:
        """Connect, resolve each layer's alias (creating generation 1 and its alias on a new server)
        and check the embedder recorded on the live collection.

        Raises StoreError when the server cannot be reached or a layer has only an unfinished rebuild,
        EmbedderMismatchError when a collection was built with another embedder.
        """
        admin = await ServerAdmin.connect(url=url, api_key=api_key, location=location, prefix=prefix)
        try:
            for layer in LAYERS:
                state = await admin.state(layer)
                live = state.live
                if live is None and state.other:
                    building = ", ".join(g.name for g in state.other)
                    raise StoreError(
                        f"{state.alias} at {admin.where} has no live collection, only the unfinished "
                        f"{building} of a `heyan memory reindex` or `migrate`: wait for it, or run it "
                        f"again to finish it"
                    )
                if live is None:
                    live = await admin.create(layer, 1, embedder_name, dim, complete=True)
                    if not live.complete:  # a rebuild created it between our look and our create
                        raise StoreError(
                            f"{live.name} at {admin.where} is being filled by a `heyan memory migrate`: wait "
                            f"for it to finish, then start again"
                        )
                    await admin.point_alias(state.alias, live.name)
                await cls._check_embedder(admin, live, embedder_name, dim)
        except BaseException:
            await admin.close()
            raise
        return cls(admin.client, admin.where, prefix, dim)

    @staticmethod
    async def _check_embedder(admin: ServerAdmin, live: Generation, embedder_name: str, dim: int) -> None:
        where = f"the Qdrant collection {live.name} at {admin.where}"
        # Without our metadata (made by hand or an older Heyan) only the vector size can be checked;
        # then the embedder is recorded.
        check_embedder(where, live.embedder or embedder_name, live.dim, embedder_name, dim)
        if live.embedder is None:
            update = admin.client.update_collection(live.name, metadata={_META_EMBEDDER: embedder_name, _META_DIM: dim})
            await _call(admin.where, "record the embedder", live.name, update)
        await admin.ensure_indexes(live.name)

    # -- plumbing ---------------------------------------------------------------------------------

    def _collection(self, layer: str) -> str:
        if self._closed:
            raise StoreError(f"the memory store at {self.where} is closed")
        try:
            return self.collections[layer]
        except KeyError:
            raise ValueError(f"unknown layer {layer!r}; expected one of {LAYERS}") from None

    async def _call(self, what: str, collection: str, call: Awaitable[T]) -> T:
        return await _call(self.where, what, collection, call)

    async def _count(self, collection: str, conditions: Sequence[Condition]) -> int:
        result = await self._call(
            "count points",
            collection,
            self._client.count(collection, count_filter=_filter(conditions), exact=True),
        )
        return result.count

    # -- MemoryStore ------------------------------------------------------------------------------

    async def upsert(self, layer: Layer, scope: Scope, points: Sequence[StoredPoint]) -> None:
        scope = check_scope(scope)
        check_points_in_scope(scope, points)
        collection = self._collection(layer)
        if not points:
            return
        structs = []
        for p in points:
            check_dense(p.dense, self.dim, f"point {p.id}")
            vector: dict[str, Any] = {DENSE: [float(x) for x in p.dense]}
            if not p.sparse.empty:
                vector[SPARSE] = models.SparseVector(
                    indices=list(p.sparse.indices), values=list(p.sparse.values)
                )
            structs.append(models.PointStruct(id=p.id, vector=vector, payload=dict(p.payload)))
        await self._call(
            f"upsert {len(structs)} points", collection, self._client.upsert(collection, structs, wait=True)
        )

    async def set_payload(
        self, layer: Layer, scope: Scope, point_id: str, payload: Mapping[str, Any]
    ) -> None:
        scope = check_scope(scope)
        check_payload_in_scope(scope, payload, f"the new payload of point {point_id}")
        collection = self._collection(layer)
        conditions = [*plan_filter(scope), Condition("ids", values=check_ids([point_id]))]
        if await self._count(collection, conditions) == 0:
            raise StoreError(f"cannot set the payload of point {point_id}: it is not in {layer} for {scope}")
        call = self._client.set_payload(collection, dict(payload), points=_filter(conditions), wait=True)
        await self._call(f"set the payload of point {point_id}", collection, call)

    async def retrieve(self, layer: Layer, scope: Scope, ids: Sequence[str]) -> list[Hit]:
        scope = check_scope(scope)
        collection = self._collection(layer)
        wanted = check_ids(ids)
        if not wanted:
            return []
        # A scoped scroll rather than retrieve-by-id, so the server enforces the scope.
        conditions = [*plan_filter(scope), Condition("ids", values=wanted)]
        call = self._client.scroll(
            collection,
            scroll_filter=_filter(conditions),
            limit=len(wanted),
            with_payload=True,
            with_vectors=False,
        )
        records, _ = await self._call("retrieve points", collection, call)
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
        collection = self._collection(layer)
        if not queries:
            return []
        wanted_payload: bool | list[str] = (
            with_payload if isinstance(with_payload, bool) else (list(with_payload) or False)
        )
        flt_ = _filter(plan_filter(scope, flt))
        # IDF over the tenant's own points: other tenants' documents never change this tenant's scores.
        idf = models.SearchParams(idf=models.IdfCorpusParams(corpus=_filter([tenant_condition(scope)])))
        requests: list[models.QueryRequest] = []
        slots: list[int | None] = []
        for q in queries:
            if q.using == DENSE:
                if q.dense is None:
                    raise ValueError("a dense VectorQuery needs a dense vector")
                check_dense(q.dense, self.dim, "the query vector")
                query: list[float] | models.SparseVector = [float(x) for x in q.dense]
                params = None
            elif q.using == SPARSE:
                if q.sparse is None:
                    raise ValueError("a sparse VectorQuery needs a sparse vector")
                if q.sparse.empty:  # no terms: nothing can match
                    slots.append(None)
                    continue
                query = models.SparseVector(indices=list(q.sparse.indices), values=list(q.sparse.values))
                params = idf
            else:
                raise ValueError(f"unknown vector {q.using!r}; expected {DENSE!r} or {SPARSE!r}")
            slots.append(len(requests))
            requests.append(
                models.QueryRequest(
                    query=query, using=q.using, filter=flt_, limit=limit, with_payload=wanted_payload, params=params
                )
            )
        responses: list[models.QueryResponse] = []
        if requests:
            call = self._client.query_batch_points(collection, requests)
            responses = await self._call(f"search ({len(requests)} queries)", collection, call)
        return [[] if s is None else [_hit(p, p.score) for p in responses[s].points] for s in slots]

    async def scroll(
        self, layer: Layer, scope: Scope, flt: RecordFilter, limit: int = 256, offset: str | None = None
    ) -> tuple[list[Hit], str | None]:
        scope = check_scope(scope)
        collection = self._collection(layer)
        call = self._client.scroll(
            collection,
            scroll_filter=_filter(plan_filter(scope, flt)),
            limit=limit,
            offset=offset,
            with_payload=True,
            with_vectors=False,
        )
        records, next_offset = await self._call("scroll points", collection, call)
        return [_hit(r) for r in records], (str(next_offset) if next_offset is not None else None)

    async def count(self, layer: Layer, scope: Scope, flt: RecordFilter | None = None) -> int:
        scope = check_scope(scope)
        return await self._count(self._collection(layer), plan_filter(scope, flt))

    async def tenants(self, layer: Layer) -> list[str]:
        collection = self._collection(layer)
        response = await self._call(
            "list tenants",
            collection,
            self._client.facet(collection, key="tenant", limit=1_000_000, exact=True),
        )
        return sorted(str(hit.value) for hit in response.hits)

    async def delete(self, layer: Layer, scope: Scope, flt: RecordFilter | None = None) -> int:
        scope = check_scope(scope)
        collection = self._collection(layer)
        conditions = plan_filter(scope, flt)
        n = await self._count(collection, conditions)
        if n:
            selector = models.FilterSelector(filter=_filter(conditions))
            await self._call(
                f"delete {n} points", collection, self._client.delete(collection, selector, wait=True)
            )
        return n

    async def flush(self) -> None:
        """Nothing to do: every write waits for the server to apply it (``wait=True``) and its WAL."""
        if self._closed:
            raise StoreError(f"the memory store at {self.where} is closed")

    async def optimize(self) -> bool:
        """Nothing to do: a Qdrant server runs its optimizers by itself."""
        if self._closed:
            raise StoreError(f"the memory store at {self.where} is closed")
        return False

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if not self._owns_client:
            return
        try:
            await self._client.close()
        except Exception as exc:
            raise StoreError(f"cannot close the Qdrant client for {self.where}: {exc}") from exc
