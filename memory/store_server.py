"""``ServerStore``: the distributed ``MemoryStore`` on a Qdrant server or cluster through qdrant-client.

Two collections, ``<prefix>_facts`` and ``<prefix>_summaries``, each with a named dense vector
(cosine) and a BM25 sparse vector (IDF modifier), and a tenant payload index (``is_tenant``) so the
server co-locates each tenant's points. The embedder name and dimension live in the collection's
metadata. ``location=":memory:"`` runs qdrant-client's local mode: for tests of this code path only
(it scans every point; 200 ms per query at 10k points), never a runtime default.
"""

from __future__ import annotations

import warnings
from collections.abc import Awaitable, Mapping, Sequence
from typing import Any, TypeVar

from qdrant_client import AsyncQdrantClient, models
from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

from memory.errors import StoreError
from memory.models import Scope
from memory.ports import DENSE, SPARSE, Hit, Layer, RecordFilter, StoredPoint, VectorQuery
from memory.store_common import (
    LAYERS,
    PRIVATE,
    Condition,
    check_dense,
    check_embedder,
    check_ids,
    check_payload_in_scope,
    check_points_in_scope,
    check_scope,
    plan_filter,
    tenant_condition,
)

__all__ = ["ServerStore"]

T = TypeVar("T")

#: Metadata keys on each collection recording the embedder its vectors came from.
_META_EMBEDDER = "heyan_embedder"
_META_DIM = "heyan_dim"

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


class ServerStore:
    """The ``MemoryStore`` on a Qdrant server (or qdrant-client's local mode in tests).

    Open with ``await ServerStore.open(url=..., embedder_name=..., dim=...)``.
    """

    name = "server"

    def __init__(self, client: AsyncQdrantClient, where: str, prefix: str, dim: int) -> None:
        self._client = client
        self.where = where
        self.prefix = prefix
        self.dim = dim
        self._closed = False

    def __repr__(self) -> str:
        return f"ServerStore(where={self.where!r}, prefix={self.prefix!r}, dim={self.dim})"

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
        """Connect, create missing collections and indexes, and check the recorded embedder.

        Raises StoreError when the server cannot be reached, EmbedderMismatchError when a
        collection was built with another embedder.
        """
        if (url is None) == (location is None):
            raise ValueError("ServerStore.open needs exactly one of url= (a Qdrant server) or location=")
        where = url or str(location)
        try:
            # qdrant-client's own `prefix` is a URL path prefix, not our collection prefix.
            client = AsyncQdrantClient(url=url, api_key=api_key, location=location)
        except Exception as exc:
            raise StoreError(f"cannot create a Qdrant client for {where}: {exc}") from exc
        store = cls(client, where, prefix, dim)
        try:
            for layer in LAYERS:
                await store._ensure_collection(store._collection(layer), embedder_name)
        except BaseException:
            await client.close()
            raise
        return store

    # -- plumbing ---------------------------------------------------------------------------------

    def _collection(self, layer: str) -> str:
        if self._closed:
            raise StoreError(f"the memory store at {self.where} is closed")
        if layer not in LAYERS:
            raise ValueError(f"unknown layer {layer!r}; expected one of {LAYERS}")
        return f"{self.prefix}_{layer}"

    async def _call(self, what: str, collection: str, call: Awaitable[T]) -> T:
        try:
            return await call
        except ResponseHandlingException as exc:
            raise StoreError(
                f"cannot reach Qdrant at {self.where} to {what} in {collection}: {exc}. Check that the "
                f"server is running and reachable, and that HEYAN_QDRANT_URL and HEYAN_QDRANT_API_KEY are right."
            ) from exc
        except UnexpectedResponse as exc:
            hint = " Check HEYAN_QDRANT_API_KEY." if exc.status_code in (401, 403) else ""
            raise StoreError(
                f"Qdrant at {self.where} failed to {what} in {collection}: {exc}.{hint}"
            ) from exc
        except Exception as exc:
            raise StoreError(f"Qdrant at {self.where} failed to {what} in {collection}: {exc}") from exc

    async def _ensure_collection(self, collection: str, embedder_name: str) -> None:
        client = self._client
        if not await self._call("check the collection", collection, client.collection_exists(collection)):
            create = client.create_collection(
                collection,
                vectors_config={DENSE: models.VectorParams(size=self.dim, distance=models.Distance.COSINE)},
                sparse_vectors_config={SPARSE: models.SparseVectorParams(modifier=models.Modifier.IDF)},
                metadata={_META_EMBEDDER: embedder_name, _META_DIM: self.dim},
            )
            try:
                await self._call("create the collection", collection, create)
            except StoreError as exc:
                # Another process created it between our check and our create: use theirs.
                cause = exc.__cause__
                if not (isinstance(cause, UnexpectedResponse) and cause.status_code == 409):
                    raise
        info = await self._call("read the collection", collection, client.get_collection(collection))
        metadata = info.config.metadata or {}
        vectors = info.config.params.vectors
        stored_dim = vectors[DENSE].size if isinstance(vectors, dict) and DENSE in vectors else None
        where = f"the Qdrant collection {collection} at {self.where}"
        if _META_EMBEDDER in metadata:
            check_embedder(
                where, metadata.get(_META_EMBEDDER), metadata.get(_META_DIM), embedder_name, self.dim
            )
        else:
            # A collection without our metadata (made by hand or an older Heyan): check what can be
            # checked, the vector size, then record the embedder.
            check_embedder(where, embedder_name, stored_dim, embedder_name, self.dim)
            update = client.update_collection(
                collection, metadata={_META_EMBEDDER: embedder_name, _META_DIM: self.dim}
            )
            await self._call("record the embedder", collection, update)
        if stored_dim != self.dim:
            check_embedder(where, metadata.get(_META_EMBEDDER), stored_dim, embedder_name, self.dim)
        present = info.payload_schema or {}
        with warnings.catch_warnings():
            # Local mode warns that payload indexes have no effect there; the server needs them.
            warnings.filterwarnings("ignore", message="Payload indexes have no effect", category=UserWarning)
            for field, schema in _INDEXES.items():
                if field not in present:
                    index = client.create_payload_index(collection, field, field_schema=schema, wait=True)
                    await self._call(f"create the {field} index", collection, index)

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
        self, layer: Layer, scope: Scope, flt: RecordFilter, queries: Sequence[VectorQuery], limit: int
    ) -> list[list[Hit]]:
        scope = check_scope(scope)
        collection = self._collection(layer)
        if not queries:
            return []
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
                    query=query, using=q.using, filter=flt_, limit=limit, with_payload=True, params=params
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

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            await self._client.close()
        except Exception as exc:
            raise StoreError(f"cannot close the Qdrant client for {self.where}: {exc}") from exc
