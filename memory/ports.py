"""The ports of the memory layer: what a vector store, an embedder and a sparse encoder must do.

Stores work on points (id, JSON payload, a dense and a sparse vector) so that a codec between the
typed models and the store (``memory.store.codec``) is the one place that knows the payload layout — the
seam where encryption at rest will go. Every store call takes a ``Scope`` with a tenant.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, Protocol, runtime_checkable

from memory.models import Scope

__all__ = [
    "DENSE",
    "SPARSE",
    "Embedder",
    "Hit",
    "Layer",
    "MemoryStore",
    "RecordFilter",
    "SparseEncoder",
    "SparseVector",
    "StoredPoint",
    "VectorQuery",
]

#: Names of the two vectors every collection has.
DENSE = "dense"
SPARSE = "bm25"

#: The two collections: typed facts and session summaries.
Layer = Literal["facts", "summaries"]

Payload = dict[str, Any]


@dataclass(frozen=True, slots=True)
class SparseVector:
    """A sparse vector: term ids (stable hashes) and their weights."""

    indices: tuple[int, ...]
    values: tuple[float, ...]

    def __post_init__(self) -> None:
        if len(self.indices) != len(self.values):
            raise ValueError("sparse vector needs as many values as indices")

    @property
    def empty(self) -> bool:
        return not self.indices


@dataclass(frozen=True, slots=True)
class StoredPoint:
    """One point to write: ``payload['tenant']`` must equal the call's scope tenant."""

    id: str
    payload: Mapping[str, Any]
    dense: Sequence[float]
    sparse: SparseVector


@dataclass(frozen=True, slots=True)
class Hit:
    """A point read back: its id, score (0.0 when not from a search) and payload."""

    id: str
    score: float
    payload: Payload


@dataclass(frozen=True, slots=True)
class VectorQuery:
    """One ranked query on one named vector: ``using`` is ``DENSE`` or ``SPARSE``."""

    using: Literal["dense", "bm25"]
    dense: Sequence[float] | None = None
    sparse: SparseVector | None = None


@dataclass(frozen=True, slots=True)
class RecordFilter:
    """Payload conditions beyond the scope. Empty sets mean "any".

    ``due_before``/``expires_before`` compare the payload's ``due_ts``/``expires_ts`` (epoch seconds).
    ``visible_in`` keeps what may be shown in that session: its own records and the tenant's public
    ones (a record without a ``visibility`` is public). ``alive_at`` drops records expired by then.
    """

    kinds: frozenset[str] = field(default_factory=frozenset)
    statuses: frozenset[str] = field(default_factory=frozenset)
    subjects: frozenset[str] = field(default_factory=frozenset)
    ids: frozenset[str] = field(default_factory=frozenset)
    due_before: datetime | None = None
    expires_before: datetime | None = None
    visible_in: str | None = None
    #: Only records not expired at this time (no ``expires_ts``, or a later one).
    alive_at: datetime | None = None
    #: Only records citing one of these message ids (payload ``messages``, indexed) — and records
    #: written before that index existed (no ``messages``), which the caller must check itself.
    cites: frozenset[str] = field(default_factory=frozenset)
    #: Only relations naming one of these (payload ``mentions``: member ids and name keys, indexed).
    mentions: frozenset[str] = field(default_factory=frozenset)


@runtime_checkable
class MemoryStore(Protocol):
    """A tenant-partitioned vector store with a dense and a BM25 sparse vector per point.

    Every method raises ``ScopeError`` when ``scope.tenant`` is empty; scope.session narrows to
    ``payload.session``; scope.user narrows to points whose ``payload.users`` contains the user.
    """

    name: str

    async def upsert(self, layer: Layer, scope: Scope, points: Sequence[StoredPoint]) -> None:
        """Insert or replace points (by id). Raises ScopeError if a payload's tenant differs."""
        ...

    async def set_payload(self, layer: Layer, scope: Scope, point_id: str, payload: Mapping[str, Any]) -> None:
        """Overwrite some payload keys of one point in scope, keeping its vectors."""
        ...

    async def retrieve(self, layer: Layer, scope: Scope, ids: Sequence[str]) -> list[Hit]:
        """The points with these ids that lie in scope (score 0.0), in no particular order."""
        ...

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
        """Run the queries as one batch; one ranked hit list (best first) per query.

        ``with_payload=False``: hits carry ids and scores only (empty payloads); a list of keys: only
        those payload keys (those present). For callers that rank many candidates on a few clear
        fields and then ``retrieve`` the few they keep.
        """
        ...

    async def scroll(
        self, layer: Layer, scope: Scope, flt: RecordFilter, limit: int = 256, offset: str | None = None
    ) -> tuple[list[Hit], str | None]:
        """One page of points in scope, and the offset of the next page (None at the end)."""
        ...

    async def count(self, layer: Layer, scope: Scope, flt: RecordFilter | None = None) -> int:
        """How many points lie in scope and match the filter."""
        ...

    async def delete(self, layer: Layer, scope: Scope, flt: RecordFilter | None = None) -> int:
        """Delete the points in scope that match the filter; returns how many were deleted."""
        ...

    async def tenants(self, layer: Layer) -> list[str]:
        """Every tenant holding points in ``layer`` (admin and cron use: purge, reconcile, listing)."""
        ...

    async def flush(self) -> None:
        """Make every write durable."""
        ...

    async def optimize(self) -> bool:
        """Merge and index what was written since the last time, so searches stay fast (the embedded
        store; a server optimizes by itself and answers False). True if anything changed."""
        ...

    async def close(self) -> None:
        """Flush and release the store (and its lock, for the embedded store)."""
        ...


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into dense vectors, in batches. ``name`` and ``dim`` are recorded per collection."""

    name: str
    dim: int

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One L2-normalised vector per text. Raises InvalidTextError on empty text."""
        ...


@runtime_checkable
class SparseEncoder(Protocol):
    """BM25 term weights: documents get saturated, length-normalised TF; queries get 1.0 per term.

    The store applies IDF (Qdrant's ``Modifier.IDF``), so weights here do not depend on the corpus.
    """

    name: str

    def encode_document(self, text: str) -> SparseVector: ...

    def encode_query(self, text: str) -> SparseVector: ...
