"""Hybrid retrieval over the fact layer, and the one write path that indexes facts and summaries.

``Retriever.search`` embeds all queries in one batch, fuses a dense and a BM25 ranking per query
(weighted sum; dense-only hits below a cosine threshold dropped), repeats BM25 with pseudo-relevance
feedback, adds one hop through relations (``memory.recall.hops``) and returns the top k. Status filtering
happens in the store, never after. Defaults and their measurements: docs/BENCHMARKS.md.
``index_facts``/``index_summaries`` are the one indexing path (memory service and bench).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Literal, TypeVar

from memory.index.embedders import QUERY_CACHE_SIZE, QueryVectors, bounded
from memory.models import RECALLABLE, Fact, Kind, Scope, ScoredFact, Summary, summary_id, utcnow
from memory.ports import (
    Embedder,
    Hit,
    Layer,
    MemoryStore,
    RecordFilter,
    SparseEncoder,
    StoredPoint,
    VectorQuery,
)
from memory.recall.cache import RecallCache
from memory.recall.feedback import (
    DEFAULT_FEEDBACK,
    DEFAULT_FEEDBACK_SKIP,
    DEFAULT_FEEDBACK_TERMS,
    DEFAULT_FEEDBACK_WEIGHT,
    Expander,
    Feedback,
)
from memory.recall.hops import Hops
from memory.recall.importance import RANKING_WEIGHTING, Weighting
from memory.recall.importance import weight as weigh
from memory.recall.ranking import RRF_K, Candidate, Fusion, Signals, fuse, kept, merge, query_names, reweigh
from memory.recall.timeq import query_window, wants_latest
from memory.store.codec import PLAIN, PayloadCodec

__all__ = [
    "DEFAULT_CANDIDATES",
    "DEFAULT_DENSE_WEIGHT",
    "DEFAULT_ENTITY_WEIGHT",
    "DEFAULT_FEEDBACK",
    "DEFAULT_FEEDBACK_SKIP",
    "DEFAULT_FEEDBACK_TERMS",
    "DEFAULT_FEEDBACK_WEIGHT",
    "DEFAULT_FUSION",
    "DEFAULT_IMPORTANCE_WEIGHT",
    "DEFAULT_RECENCY_WEIGHT",
    "DEFAULT_THRESHOLD",
    "DEFAULT_TIME_WEIGHT",
    "IMPORTANCE_POOL",
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

#: Share of the dense score in fusion (the rest is BM25). Measured on locomo-dev, weighted fusion:
#: R@5 0.667 / 0.673 / 0.664 at 0.5 / 0.6 / 0.7 (the seed's 70/30 is on the plateau), 0.656 at 0.3-0.4.
DEFAULT_DENSE_WEIGHT = 0.6
DEFAULT_FUSION: Fusion = "weighted"
#: Minimum dense score (calibrated, ``memory.index.embedders.calibrate``) for a fact to be returned (USE
#: cosines: paraphrases 0.5-0.9, related statements 0.2-0.5, off-topic questions below ~0.17 on the dev set).
DEFAULT_THRESHOLD = 0.2
#: Hits fetched per store query before fusion; bounds per-query work independently of store size.
DEFAULT_CANDIDATES = 50
#: Added to a fact whose subject the query names (``memory.recall.ranking``); 0: off. Hybrid R@5 locomo-dev
#: / Chinese dev: off 0.689 / 0.935; 0.05 0.698 / 0.932; 0.1 0.696 / 0.915; 0.2 0.693 / 0.902. It
#: helps one set and hurts the other (a Chinese question names its speaker, and every fact of that
#: speaker then outranks the facts of the others that answer it): off.
DEFAULT_ENTITY_WEIGHT = 0.0
#: Added to a fact said within the span of time the query names. Hybrid R@5 locomo-dev / Chinese dev
#: (its 22 time questions): off 0.689 / 0.935 (0.818); 0.05 0.689 / 0.942 (0.864); 0.1 0.694 / 0.952
#: (0.936); 0.2 0.694 / 0.954 (0.947); 0.4 0.689 / 0.956 (0.962). 0.2 kept.
DEFAULT_TIME_WEIGHT = 0.2
#: Scales the newest-in-its-dispute bonus when the query asks how things stand now; 0: off. Hybrid
#: R@5 locomo-dev / Chinese dev: off 0.689 / 0.935; 0.05 0.689 / 0.925; 0.1 0.683 / 0.925; 0.2 0.683
#: / 0.925 (its "latest" questions 0.938 → 0.875: the answer is often the agreement, not the newest
#: statement): off.
DEFAULT_RECENCY_WEIGHT = 0.0
#: Scales a fact's weight as ranking reads it (``memory.recall.importance.RANKING_WEIGHTING``: uses, a
#: moderator's confirmation, its dispute closed — not plain age), added to the fused score of the best
#: ``IMPORTANCE_POOL`` × k facts before the top k are taken; 0: off. ``heyan bench importance``, the
#: community history (dev seed) R@5 / MRR: off 0.923 / 0.627; 0.05 0.936 / 0.631; 0.1 0.949 / 0.622;
#: 0.15 0.949 / 0.633; 0.2 0.923 / 0.634; 0.4 0.821 / 0.573. locomo-dev and the Chinese dev set have no
#: uses, confirmations or closes: unchanged (with age in the weight, 0.2 cost locomo-dev 0.694 → 0.673).
DEFAULT_IMPORTANCE_WEIGHT = 0.15
#: How many times k fused facts the weight may reorder: a weight lifts a fact a few places, never
#: from the bottom of the candidates (and only these are opened to read it).
IMPORTANCE_POOL = 3


@dataclass(frozen=True, slots=True)
class Recall:
    """What recall returns: the session summary first, then the details, and the relations
    linking them (one hop's context)."""

    summary: Summary | None
    facts: list[ScoredFact]
    #: The relations behind the facts (``memory.recall.hops``): what the answers about relations read.
    relations: list[Fact] = field(default_factory=list)


class Retriever:
    """Hybrid (dense + BM25) search over facts, and recall (session summary, then facts).

    ``method`` is "hybrid" (default), "dense" or "sparse"; ``fusion`` "weighted" (default) or
    "rrf"; ``dense_weight`` the dense share in either fusion (RRF weights each list's 1/(60+rank));
    ``threshold`` the minimum dense score for facts that BM25 did not find (None: no threshold;
    facts BM25 ranked are kept whatever their cosine); ``candidates`` the hits fetched per store query;
    ``feedback`` the top fused facts per query whose terms expand its BM25 query for a second BM25
    pass (0: one pass), each term weighted ``feedback_weight`` × the share of those facts holding it,
    at most ``feedback_terms`` of them (0: all), the pass skipped when the first one's best fact leads
    by ``feedback_skip`` (None: never; ``memory.recall.feedback``). ``entity_weight``, ``time_weight`` and
    ``recency_weight`` weigh the ranking signals of ``memory.recall.ranking`` (0: off).

    Speed: the store returns ids and scores for every candidate (whole payloads only when a ranking
    signal applies to the query); only the feedback facts and the facts returned are fetched and
    opened by ``codec`` (a Heyan process's holds its cipher). Query vectors are cached by text
    (``query_cache`` entries, ``memory.index.embedders.QueryVectors``; 0: no cache).
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
        feedback_terms: int = DEFAULT_FEEDBACK_TERMS,
        feedback_skip: float | None = DEFAULT_FEEDBACK_SKIP,
        entity_weight: float = DEFAULT_ENTITY_WEIGHT,
        time_weight: float = DEFAULT_TIME_WEIGHT,
        recency_weight: float = DEFAULT_RECENCY_WEIGHT,
        importance_weight: float = DEFAULT_IMPORTANCE_WEIGHT,
        weighting: Weighting = RANKING_WEIGHTING,
        query_cache: int = QUERY_CACHE_SIZE,
        recall_cache: RecallCache | None = None,
        codec: PayloadCodec = PLAIN,
        hops: Hops | None = None,
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
        if min(entity_weight, time_weight, recency_weight, importance_weight) < 0.0:
            raise ValueError("entity_weight, time_weight, recency_weight and importance_weight must be >= 0")
        self.store = store
        self.embedder = embedder
        self.sparse = sparse
        self.method: Method = method
        self.dense_weight = dense_weight
        self.fusion: Fusion = fusion
        self.k = k
        self.threshold = threshold
        self.candidates = candidates
        self.feedback_settings = Feedback(feedback, feedback_weight, feedback_terms, feedback_skip)
        self.entity_weight = entity_weight
        self.time_weight = time_weight
        self.recency_weight = recency_weight
        self.importance_weight = importance_weight
        self.weighting = weighting
        self.codec = codec
        #: One hop through relations after the direct search (``memory.recall.hops``; ``Hops(limit=0)``: off).
        self.hops = hops or Hops()
        self.queries = QueryVectors(embedder, query_cache)
        #: Recall results reused while their tenant is unwritten (``memory.recall.cache``; None: off).
        self.recall_cache = recall_cache
        self._expander = Expander(sparse, self.feedback_settings)
        self._calibrate: Callable[[float], float] | None = getattr(embedder, "calibrate", None)
        #: Second BM25 passes run and skipped as confident (for the benches).
        self.feedback_runs = 0
        self.feedback_skipped = 0

    @property
    def feedback(self) -> int:
        return self.feedback_settings.facts

    @property
    def feedback_weight(self) -> float:
        return self.feedback_settings.weight

    def __repr__(self) -> str:
        f = self.feedback_settings
        return (
            f"Retriever(method={self.method!r}, fusion={self.fusion!r}, dense_weight={self.dense_weight}, "
            f"k={self.k}, threshold={self.threshold}, candidates={self.candidates}, feedback={f.facts}, "
            f"feedback_weight={f.weight}, feedback_terms={f.terms}, feedback_skip={f.skip_margin}, "
            f"entity_weight={self.entity_weight}, time_weight={self.time_weight}, "
            f"recency_weight={self.recency_weight}, importance_weight={self.importance_weight}, "
            f"hops={self.hops.limit}/{self.hops.decay})"
        )

    def tuned(self, **changes: Any) -> Retriever:
        """A retriever on the same store, embedder and encoder with some settings changed (benches)."""
        f = self.feedback_settings
        settings: dict[str, Any] = {
            "method": self.method, "dense_weight": self.dense_weight, "fusion": self.fusion, "k": self.k,
            "threshold": self.threshold, "candidates": self.candidates, "feedback": f.facts,
            "feedback_weight": f.weight, "feedback_terms": f.terms, "feedback_skip": f.skip_margin,
            "entity_weight": self.entity_weight, "time_weight": self.time_weight,
            "recency_weight": self.recency_weight, "importance_weight": self.importance_weight,
            "weighting": self.weighting, "query_cache": self.queries.size, "codec": self.codec,
            "hops": self.hops,
        }  # never the recall cache: its answers were made with these settings
        settings.update(changes)
        return Retriever(self.store, self.embedder, self.sparse, **settings)

    def _signals(self, scope: Scope, text: str, now: datetime) -> Signals:
        subjects: set[str] = set()
        if self.entity_weight:
            subjects = {self.codec.subject_key(scope.tenant, name) for name in query_names(text)}
        window = query_window(text, now) if self.time_weight else None
        latest = bool(self.recency_weight) and wants_latest(text)
        return Signals(subjects, window, latest, self.entity_weight, self.time_weight, self.recency_weight)

    async def search(
        self,
        scope: Scope,
        queries: Sequence[str],
        flt: RecordFilter | None = None,
        k: int | None = None,
        method: Method | None = None,
        include_inactive: bool = False,
        now: datetime | None = None,
    ) -> list[ScoredFact]:
        """The top ``k`` facts in scope for any of ``queries``, best first.

        Blank queries are skipped; with none left the result is empty. Unless ``include_inactive``,
        only statuses in ``models.RECALLABLE`` are searched (intersected with ``flt.statuses``).
        ``now``: when the question is asked, for its time words ("last week"); default the clock.
        """
        found, _ = await self._search(scope, queries, flt, k, method, include_inactive, now)
        return found

    async def _search(
        self,
        scope: Scope,
        queries: Sequence[str],
        flt: RecordFilter | None,
        k: int | None,
        method: Method | None,
        include_inactive: bool,
        now: datetime | None,
    ) -> tuple[list[ScoredFact], list[Fact]]:
        """``search``, and the relations behind its result (``memory.recall.hops.Expansion.context``)."""
        k = k or self.k
        method = method or self.method
        texts = [q for q in queries if q and q.strip()]
        if not texts:
            return [], []
        now = now or utcnow()
        flt = flt or RecordFilter()
        # one hop through relations (memory.recall.hops) for recall, not for a search of chosen kinds or history
        hop = self.hops.limit > 0 and not include_inactive and not flt.kinds and not flt.ids
        if not include_inactive:
            statuses = frozenset(s.value for s in RECALLABLE)
            wanted = flt.statuses & statuses if flt.statuses else statuses
            if not wanted:
                return [], []
            # an expired record is gone from recall at once, before the purge deletes it
            flt = replace(flt, statuses=wanted, alive_at=flt.alive_at or now)

        use_dense = method in ("dense", "hybrid")
        use_sparse = method in ("sparse", "hybrid")
        vectors = await self.queries.embed(texts) if use_dense else [None] * len(texts)
        queries_sparse = [self.sparse.encode_query(bounded(text)[0]) for text in texts] if use_sparse else []
        requests: list[VectorQuery] = []
        for i, vector in enumerate(vectors):
            if use_dense:
                requests.append(VectorQuery(using="dense", dense=vector))
            if use_sparse:
                requests.append(VectorQuery(using="bm25", sparse=queries_sparse[i]))
        limit = max(self.candidates, k)
        signals = [self._signals(scope, text, now) for text in texts]
        # Candidates come back as ids and scores only, unless a signal must read their clear fields:
        # then whole payloads (Edge answers a list of keys slower than the whole payload, 2.6 vs 0.4 ms
        # for 50 hits at 100k), which also spares fetching the facts returned.
        whole = any(sig.active for sig in signals)
        results = await self.store.search("facts", scope, flt, requests, limit, with_payload=whole)

        per_query = (1 if use_dense else 0) + (1 if use_sparse else 0)
        dense_lists = [results[i * per_query] if use_dense else None for i in range(len(texts))]
        sparse_lists = [results[(i + 1) * per_query - 1] if use_sparse else None for i in range(len(texts))]
        # Alone, a method is its own "fusion" with weight 1, so scores stay raw cosine / BM25 share.
        weight = self.dense_weight if method == "hybrid" else (1.0 if use_dense else 0.0)
        # Facts the query's own words matched in BM25: the threshold spares these, not facts that
        # only feedback terms reached.
        matched = [{h.id for h in lst} if lst else set() for lst in sparse_lists]

        def ranked(i: int, sparse: list[Hit] | None) -> list[Candidate]:
            fused = fuse(dense_lists[i], sparse, self.fusion, weight, self._calibrate)
            signals[i].apply(fused)
            return kept(fused, matched[i], self.threshold)

        per_text = [ranked(i, sparse_lists[i]) for i in range(len(texts))]
        decoded: dict[str, Fact] = {}  # each fact is fetched and opened at most once per search
        fb = self.feedback_settings
        if use_sparse and fb.on:
            again = [
                i for i, cands in enumerate(per_text)
                if cands and not queries_sparse[i].empty and not fb.confident(cands)
            ]
            self.feedback_skipped += sum(1 for cands in per_text if cands) - len(again)
            if again:
                await self._open(scope, [c.hit for i in again for c in per_text[i][: fb.facts]], decoded)
                expanded = [
                    self._expander.expand(
                        queries_sparse[i],
                        [bounded(decoded[c.hit.id].embed_text())[0] for c in per_text[i][: fb.facts]
                         if c.hit.id in decoded],
                    )
                    for i in again
                ]
                lists = await self.store.search(
                    "facts", scope, flt, [VectorQuery(using="bm25", sparse=vec) for vec in expanded], limit,
                    with_payload=whole,
                )
                self.feedback_runs += len(again)
                for i, lst in zip(again, lists, strict=True):
                    per_text[i] = ranked(i, lst)

        fused = merge(per_text)
        top = fused[: k * IMPORTANCE_POOL] if self.importance_weight else fused[:k]
        await self._open(scope, [c.hit for c in top], decoded)
        top = [c for c in top if c.hit.id in decoded]  # a fact deleted between the search and the fetch
        if self.importance_weight:
            earned = {c.hit.id: weigh(decoded[c.hit.id], now, self.weighting) for c in top}
            top = reweigh(top, earned, self.importance_weight)
        top = _without_echoes(top, decoded)[:k]
        found = [ScoredFact(decoded[c.hit.id], c.score, c.dense, c.sparse_rank, weigh(decoded[c.hit.id], now))
                 for c in top]
        if not hop:
            return found, []
        expansion = await self.hops.expand(self.store, self.codec, scope, flt, texts, found, now)
        if expansion.candidates:  # each below what led to it; the direct hit first on a tie
            found = sorted([*found, *expansion.candidates], key=lambda s: -s.score)[:k]
        return found, expansion.context(found)

    async def _open(self, scope: Scope, hits: Sequence[Hit], decoded: dict[str, Fact]) -> None:
        """Decode the facts not opened yet into ``decoded``: from the hit when it came with its payload,
        else fetched in one ``retrieve``."""
        wanted: list[str] = []
        for hit in hits:
            if hit.id in decoded:
                continue
            if hit.payload:
                decoded[hit.id] = self.codec.fact_from_payload(hit.payload)
            else:
                wanted.append(hit.id)
        if wanted:
            for found in await self.store.retrieve("facts", scope, list(dict.fromkeys(wanted))):
                decoded[found.id] = self.codec.fact_from_payload(found.payload)

    async def recall(
        self, scope: Scope, queries: Sequence[str], k: int | None = None, now: datetime | None = None
    ) -> Recall:
        """The session summary (when ``scope.session`` is set), then the top facts for ``queries``.

        With a session, the facts are those that may be shown there: the session's own and the
        tenant's public records (a private thread's records never surface in another thread).
        """
        cache = self.recall_cache
        if cache is None:
            return await self._recall(scope, queries, k, now)
        key = cache.key(scope, queries, k, now or utcnow())
        found = cache.get(key)
        if isinstance(found, Recall):
            return found
        generation = cache.store.generation(scope.tenant)  # before: a write meanwhile makes it stale
        result = await self._recall(scope, queries, k, now)
        cache.put(key, result, generation)
        return result

    async def _recall(self, scope: Scope, queries: Sequence[str], k: int | None, now: datetime | None) -> Recall:
        summary: Summary | None = None
        if not scope.session:
            facts, relations = await self._search(scope, queries, None, k, None, False, now)
            return Recall(None, facts, relations)
        sid = summary_id(scope.tenant, scope.session)
        hits = await self.store.retrieve("summaries", Scope(tenant=scope.tenant, session=scope.session), [sid])
        if hits:
            summary = self.codec.summary_from_payload(hits[0].payload)
        wide = Scope(tenant=scope.tenant, user=scope.user)
        facts, relations = await self._search(wide, queries, RecordFilter(visible_in=scope.session), k, None, False,
                                              now)
        return Recall(summary, facts, relations)


def _without_echoes(top: list[Candidate], decoded: dict[str, Fact]) -> list[Candidate]:
    """``top`` without the relations that echo a fact ranked above them (one they link): the fact
    says it in the member's words, the relation would take a second place for the same message."""
    kept: list[Candidate] = []
    seen: set[str] = set()
    for c in top:
        fact = decoded[c.hit.id]
        if fact.kind is Kind.RELATION and seen.intersection(fact.links):
            continue
        kept.append(c)
        seen.add(c.hit.id)
    return kept


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
