"""Hybrid retrieval over the fact layer, and the one write path that indexes facts and summaries.

``Retriever.search`` embeds every query in one batch, sends a dense and a BM25 query per query to
the store as one batch, fuses the two rankings per query, drops facts that only the dense side found
with a cosine below a threshold, asks BM25 again with each query expanded by the terms of its top
facts (pseudo-relevance feedback, one more store batch) and fuses again, merges the queries (best
score per fact) and returns the top k, decoded through ``memory.codec``. Status filtering happens in the store (``RecordFilter.statuses``), never after.
Per-query work is bounded by ``candidates``, not by the store's size.

Defaults were chosen on /work/shared/data/locomo-dev.jsonl (184 queries) with ``heyan bench
retrieval``; the numbers are in the bench notes (docs/BENCHMARKS.md):

* fusion: a weighted sum of the raw dense cosine and the BM25 score divided by the query's best
  BM25 score, ``dense_weight`` 0.6. Weighted fusion beat RRF at every weight tried (hybrid R@5
  0.656-0.673 for weights 0.3-0.7, against 0.629-0.640 for RRF); 0.5-0.7 is a plateau and 0.6 its
  middle. RRF stays available (``fusion="rrf"``, k=60).
* threshold: dense cosine 0.2. On locomo-dev 99% of (query, relevant memory) pairs score above
  0.217 and dev recall is unchanged from no threshold up to 0.25; the best match of 20 off-topic
  questions ("What is the capital of Peru?") against each dev conversation scored at most 0.163.
* candidates: 50 hits per store query (20: R@5 0.657; 100: 0.681 on ~175-memory corpora).
* BM25 feedback (pseudo-relevance feedback, RM3-style): the terms of each query's top
  ``feedback`` (3) fused facts are added to its BM25 query with weight ``feedback_weight`` (0.5)
  times the share of those facts that hold the term, and BM25 is asked again; the dense list is
  reused. One extra BM25 store query per query (~4 ms p50), no extra embedding, no reindex. Hybrid
  R@5 0.676 → 0.689, R@10 0.741 → 0.761, R@1 0.490 → 0.481 on locomo-dev; 0 turns it off.

``index_facts``/``index_summaries`` embed a batch (the bounded embed text), encode BM25 and upsert
``StoredPoint``s: the memory service and the bench both write through them.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal, TypeVar

from memory.codec import PLAIN, PayloadCodec
from memory.embedders import bounded
from memory.models import RECALLABLE, Fact, Kind, Scope, Summary, embed_text, summary_id, utcnow
from memory.ports import (
    Embedder,
    Hit,
    Layer,
    MemoryStore,
    RecordFilter,
    SparseEncoder,
    SparseVector,
    StoredPoint,
    VectorQuery,
)

__all__ = [
    "DEFAULT_CANDIDATES",
    "DEFAULT_DENSE_WEIGHT",
    "DEFAULT_FEEDBACK",
    "DEFAULT_FEEDBACK_WEIGHT",
    "DEFAULT_FUSION",
    "DEFAULT_THRESHOLD",
    "RRF_K",
    "Fusion",
    "Method",
    "Recall",
    "Retriever",
    "ScoredFact",
    "index_facts",
    "index_summaries",
]

log = logging.getLogger(__name__)

Method = Literal["dense", "sparse", "hybrid"]
Fusion = Literal["rrf", "weighted"]

#: Reciprocal-rank-fusion constant from Cormack et al. (2009); 60 is the usual choice.
RRF_K = 60
#: Share of the dense score in fusion (the rest is BM25). Measured on locomo-dev, weighted fusion:
#: R@5 0.667 / 0.673 / 0.664 at 0.5 / 0.6 / 0.7 (the seed's 70/30 is on the plateau), 0.656 at 0.3-0.4.
DEFAULT_DENSE_WEIGHT = 0.6
DEFAULT_FUSION: Fusion = "weighted"
#: Minimum dense cosine for a fact to be returned (USE cosines: paraphrases 0.5-0.9, related
#: statements 0.2-0.5, off-topic questions below ~0.17 on the dev set).
DEFAULT_THRESHOLD = 0.2
#: Hits fetched per store query before fusion; bounds per-query work independently of store size.
DEFAULT_CANDIDATES = 50
#: Top fused facts per query whose terms expand its BM25 query (pseudo-relevance feedback); 0: off.
#: Measured on locomo-dev (bench harness run), hybrid R@5 / R@10: off 0.670 / 0.735; 2 facts 0.689 / 0.753; 3 facts
#: 0.689 / 0.761; 5 facts 0.678 / 0.761; 10 facts 0.681 / 0.741 (weight 0.5).
DEFAULT_FEEDBACK = 3
#: Weight of a feedback term held by every feedback fact (a query term weighs 1.0). Measured at 3
#: facts, hybrid R@5 / R@10: 0.2 0.685 / 0.750; 0.3 0.678 / 0.758; 0.5 0.689 / 0.761; 0.7 0.691 /
#: 0.750; 1.0 0.696 / 0.752 (R@1 0.488 → 0.480). 0.5 is the middle of the plateau.
DEFAULT_FEEDBACK_WEIGHT = 0.5


@dataclass(frozen=True, slots=True)
class ScoredFact:
    """A recalled fact: its fused ``score``, its dense cosine (None if it came from BM25 alone, or the
    method was sparse) and its 1-based rank in the best BM25 list it appeared in (None if not found by BM25)."""

    fact: Fact
    score: float
    dense: float | None
    sparse_rank: int | None


@dataclass(frozen=True, slots=True)
class Recall:
    """What recall returns: the session summary first, then the details."""

    summary: Summary | None
    facts: list[ScoredFact]


@dataclass(slots=True)
class _Candidate:
    hit: Hit
    score: float
    dense: float | None
    sparse_rank: int | None


def _fuse(
    dense: list[Hit] | None, sparse: list[Hit] | None, fusion: Fusion, dense_weight: float
) -> dict[str, _Candidate]:
    """Fuse one query's dense and sparse rankings (either may be absent) into candidates by id."""
    out: dict[str, _Candidate] = {}
    if dense is not None:
        for rank, hit in enumerate(dense):
            score = dense_weight / (RRF_K + rank + 1) if fusion == "rrf" else dense_weight * hit.score
            out[hit.id] = _Candidate(hit, score, hit.score, None)
    if sparse:
        best = sparse[0].score or 1.0
        for rank, hit in enumerate(sparse):
            weight = 1.0 - dense_weight
            score = weight / (RRF_K + rank + 1) if fusion == "rrf" else weight * hit.score / best
            found = out.get(hit.id)
            if found is None:
                out[hit.id] = _Candidate(hit, score, None, rank + 1)
            else:
                found.score += score
                found.sparse_rank = rank + 1
    return out


class Retriever:
    """Hybrid (dense + BM25) search over facts, and recall (session summary, then facts).

    ``method`` is "hybrid" (default), "dense" or "sparse"; ``fusion`` "weighted" (default) or
    "rrf"; ``dense_weight`` the dense share in either fusion (RRF weights each list's 1/(60+rank));
    ``threshold`` the minimum dense cosine for facts that BM25 did not find (None: no threshold;
    facts BM25 ranked are kept whatever their cosine); ``candidates`` the hits fetched per store query;
    ``feedback`` the top fused facts per query whose terms expand its BM25 query for a second BM25
    pass (0: one pass), each term weighted ``feedback_weight`` × the share of those facts holding it.
    ``codec`` opens the payloads (a Heyan process's holds its cipher): only the hits returned and
    the feedback facts are decoded, so encryption costs a few decryptions per query, not one per candidate.
    """

    def __init__(
        self,
        store: MemoryStore,
        embedder: Embedder,
        sparse: SparseEncoder,
        *,
        method: Method = "hybrid",
        dense_weight: float = DEFAULT_DENSE_WEIGHT,
        fusion: Fusion = DEFAULT_FUSION,
        k: int = 5,
        threshold: float | None = DEFAULT_THRESHOLD,
        candidates: int = DEFAULT_CANDIDATES,
        feedback: int = DEFAULT_FEEDBACK,
        feedback_weight: float = DEFAULT_FEEDBACK_WEIGHT,
        codec: PayloadCodec = PLAIN,
    ) -> None:
        if method not in ("dense", "sparse", "hybrid"):
            raise ValueError(f"method must be dense, sparse or hybrid; got {method!r}")
        if fusion not in ("rrf", "weighted"):
            raise ValueError(f"fusion must be rrf or weighted; got {fusion!r}")
        if not 0.0 <= dense_weight <= 1.0:
            raise ValueError(f"dense_weight must be within [0, 1]; got {dense_weight}")
        if k < 1 or candidates < 1:
            raise ValueError("k and candidates must be >= 1")
        if feedback < 0 or feedback_weight < 0.0:
            raise ValueError("feedback and feedback_weight must be >= 0")
        self.store = store
        self.embedder = embedder
        self.sparse = sparse
        self.method: Method = method
        self.dense_weight = dense_weight
        self.fusion: Fusion = fusion
        self.k = k
        self.threshold = threshold
        self.candidates = candidates
        self.feedback = feedback
        self.feedback_weight = feedback_weight
        self._scaffold_terms: frozenset[int] | None = None
        self.codec = codec

    def __repr__(self) -> str:
        return (
            f"Retriever(method={self.method!r}, fusion={self.fusion!r}, dense_weight={self.dense_weight}, "
            f"k={self.k}, threshold={self.threshold}, candidates={self.candidates}, "
            f"feedback={self.feedback}, feedback_weight={self.feedback_weight})"
        )

    async def search(
        self,
        scope: Scope,
        queries: Sequence[str],
        flt: RecordFilter | None = None,
        k: int | None = None,
        method: Method | None = None,
        include_inactive: bool = False,
    ) -> list[ScoredFact]:
        """The top ``k`` facts in scope for any of ``queries``, best first.

        Blank queries are skipped; with none left the result is empty. Unless ``include_inactive``,
        only statuses in ``models.RECALLABLE`` are searched (intersected with ``flt.statuses``).
        """
        k = k or self.k
        method = method or self.method
        texts = [q for q in queries if q and q.strip()]
        if not texts:
            return []
        flt = flt or RecordFilter()
        if not include_inactive:
            statuses = frozenset(s.value for s in RECALLABLE)
            wanted = flt.statuses & statuses if flt.statuses else statuses
            if not wanted:
                return []
            # an expired record is gone from recall at once, before the purge deletes it
            flt = replace(flt, statuses=wanted, alive_at=flt.alive_at or utcnow())

        use_dense = method in ("dense", "hybrid")
        use_sparse = method in ("sparse", "hybrid")
        vectors = await self.embedder.embed(texts) if use_dense else [None] * len(texts)
        queries_sparse = [self.sparse.encode_query(bounded(text)[0]) for text in texts] if use_sparse else []
        requests: list[VectorQuery] = []
        for i, vector in enumerate(vectors):
            if use_dense:
                requests.append(VectorQuery(using="dense", dense=vector))
            if use_sparse:
                requests.append(VectorQuery(using="bm25", sparse=queries_sparse[i]))
        limit = max(self.candidates, k)
        results = await self.store.search("facts", scope, flt, requests, limit)

        per_query = (1 if use_dense else 0) + (1 if use_sparse else 0)
        dense_lists = [results[i * per_query] if use_dense else None for i in range(len(texts))]
        sparse_lists = [results[(i + 1) * per_query - 1] if use_sparse else None for i in range(len(texts))]
        # Alone, a method is its own "fusion" with weight 1, so scores stay raw cosine / BM25 share.
        weight = self.dense_weight if method == "hybrid" else (1.0 if use_dense else 0.0)
        # Facts the query's own words matched in BM25: the threshold spares these, not facts that
        # only feedback terms reached.
        matched = [{h.id for h in lst} if lst else set() for lst in sparse_lists]
        decoded: dict[str, Fact] = {}  # each hit is opened at most once per search
        per_text = [
            self._kept(_fuse(d, sp, self.fusion, weight), m)
            for d, sp, m in zip(dense_lists, sparse_lists, matched, strict=True)
        ]
        if use_sparse and self.feedback > 0:
            again = [
                (i, self._expand(queries_sparse[i], cands[: self.feedback], decoded))
                for i, cands in enumerate(per_text)
                if cands and not queries_sparse[i].empty
            ]
            if again:
                expanded = await self.store.search(
                    "facts", scope, flt, [VectorQuery(using="bm25", sparse=vec) for _, vec in again], limit
                )
                for (i, _), lst in zip(again, expanded, strict=True):
                    per_text[i] = self._kept(_fuse(dense_lists[i], lst, self.fusion, weight), matched[i])

        merged: dict[str, _Candidate] = {}
        for cands in per_text:
            for cand in cands:
                pid = cand.hit.id
                best = merged.get(pid)
                if best is None or cand.score > best.score:
                    merged[pid] = cand
                    if best is not None:  # keep what the other query knew
                        cand.dense = _max(cand.dense, best.dense)
                        cand.sparse_rank = _min(cand.sparse_rank, best.sparse_rank)
                else:
                    best.dense = _max(cand.dense, best.dense)
                    best.sparse_rank = _min(cand.sparse_rank, best.sparse_rank)

        ranked = sorted(merged.values(), key=lambda c: (-c.score, c.hit.id))[:k]
        return [ScoredFact(self._fact(c.hit, decoded), c.score, c.dense, c.sparse_rank) for c in ranked]

    def _fact(self, hit: Hit, decoded: dict[str, Fact]) -> Fact:
        fact = decoded.get(hit.id)
        if fact is None:
            fact = decoded[hit.id] = self.codec.fact_from_payload(hit.payload)
        return fact

    def _kept(self, fused: dict[str, _Candidate], matched: set[str]) -> list[_Candidate]:
        """One query's candidates best first, without those the threshold cuts.

        The threshold cuts facts that the query's own BM25 terms did not match (``matched``) and
        whose dense cosine is weak. A BM25 match is evidence of its own: short keyword queries
        ("deposit") have low cosines (~0.07) to the sentence that holds the word.
        """
        out = [
            c
            for c in fused.values()
            if self.threshold is None or c.hit.id in matched or c.dense is None or c.dense >= self.threshold
        ]
        out.sort(key=lambda c: (-c.score, c.hit.id))
        return out

    def _expand(self, query: SparseVector, top: list[_Candidate], decoded: dict[str, Fact]) -> SparseVector:
        """``query`` plus the terms of the ``top`` facts, each weighted ``feedback_weight`` times the
        share of those facts that hold it (RM3-style pseudo-relevance feedback; the store adds IDF)."""
        weights = dict.fromkeys(query.indices, 1.0)
        share = self.feedback_weight / len(top)
        scaffold = self._scaffold()
        for cand in top:
            text = bounded(self._fact(cand.hit, decoded).embed_text())[0]
            for term in self.sparse.encode_document(text).indices:
                if term not in scaffold or term in weights:
                    weights[term] = weights.get(term, 0.0) + share
        ids = sorted(weights)
        return SparseVector(tuple(ids), tuple(weights[i] for i in ids))

    def _scaffold(self) -> frozenset[int]:
        """The terms of the embed template itself ("About", "is", "关于", "的事实", the kind names):
        every fact of a language holds them, so as feedback they only make the second BM25 pass
        longer and slower without telling facts apart."""
        if self._scaffold_terms is None:
            words: set[int] = set()
            for kind in Kind:
                for lang in ("en", "zh"):
                    words.update(self.sparse.encode_document(embed_text(kind, "", "", "", lang)).indices)
            self._scaffold_terms = frozenset(words)
        return self._scaffold_terms

    async def recall(self, scope: Scope, queries: Sequence[str], k: int | None = None) -> Recall:
        """The session summary (when ``scope.session`` is set), then the top facts for ``queries``.

        With a session, the facts are those that may be shown there: the session's own and the
        tenant's public records (a private thread's records never surface in another thread).
        """
        summary: Summary | None = None
        if not scope.session:
            return Recall(None, await self.search(scope, queries, k=k))
        sid = summary_id(scope.tenant, scope.session)
        hits = await self.store.retrieve("summaries", Scope(tenant=scope.tenant, session=scope.session), [sid])
        if hits:
            summary = self.codec.summary_from_payload(hits[0].payload)
        wide = Scope(tenant=scope.tenant, user=scope.user)
        facts = await self.search(wide, queries, RecordFilter(visible_in=scope.session), k=k)
        return Recall(summary, facts)


def _max(a: float | None, b: float | None) -> float | None:
    return b if a is None else a if b is None else max(a, b)


def _min(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else min(a, b)


R = TypeVar("R", Fact, Summary)


async def _index(
    store: MemoryStore,
    embedder: Embedder,
    sparse: SparseEncoder,
    layer: Layer,
    records: Sequence[R],
    text_of: Callable[[R], str],
    payload_of: Callable[[R], dict[str, Any]],
    before_write: Callable[[], Awaitable[None]] | None = None,
) -> list[R]:
    """The one write path: embed the records' texts in one batch (bounded, ``truncated`` set when cut)
    and upsert them per tenant. Returns the records as written. ``before_write`` runs between the
    embedding (which may be slow) and the upsert: a writer under a lock checks it still holds it."""
    written: list[R] = []
    texts: list[str] = []
    for record in records:
        record = record.with_id()
        text, cut = bounded(text_of(record))
        if cut and not record.truncated:
            record = record.model_copy(update={"truncated": True})
        written.append(record)
        texts.append(text)
    if not written:
        return []
    vectors = await embedder.embed(texts)
    if before_write is not None:
        await before_write()
    by_tenant: dict[str, list[StoredPoint]] = {}
    for record, text, vector in zip(written, texts, vectors, strict=True):
        point = StoredPoint(record.id, payload_of(record), vector, sparse.encode_document(text))
        by_tenant.setdefault(record.tenant, []).append(point)
    for tenant, points in by_tenant.items():
        await store.upsert(layer, Scope(tenant=tenant), points)
    return written


async def index_facts(
    store: MemoryStore,
    embedder: Embedder,
    sparse: SparseEncoder,
    facts: Sequence[Fact],
    *,
    codec: PayloadCodec = PLAIN,
    before_write: Callable[[], Awaitable[None]] | None = None,
) -> list[Fact]:
    """Embed ``facts`` in one batch and upsert them (ids filled in, ``truncated`` set when the embed
    text was cut), their payloads made by ``codec``. Returns the facts as written. Facts of several
    tenants are written per tenant. ``before_write``: see ``_index``."""
    return await _index(store, embedder, sparse, "facts", facts, Fact.embed_text, codec.fact_to_payload,
                        before_write)


async def index_summaries(
    store: MemoryStore,
    embedder: Embedder,
    sparse: SparseEncoder,
    summaries: Sequence[Summary],
    *,
    codec: PayloadCodec = PLAIN,
    before_write: Callable[[], Awaitable[None]] | None = None,
) -> list[Summary]:
    """Embed and upsert session summaries (id = ``summary_id(tenant, session)``); returns them as written."""
    return await _index(
        store, embedder, sparse, "summaries", summaries, lambda s: s.text, codec.summary_to_payload, before_write
    )
