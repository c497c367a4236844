"""One hop of recall through relations: entities → relations naming them → the facts they link.

After the direct search, the entities the query names and those of relations from the hits' messages
find relations by the payload's ``mentions`` index; what they link joins as candidates scored
``decay`` × what led to them. Members reached through a hit are not followed (one the query names is).
At most three bounded ``scroll`` calls, all under the caller's filter.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from memory.models import Fact, Kind, Scope, ScoredFact
from memory.ports import MemoryStore, RecordFilter
from memory.recall.importance import weight as weigh
from memory.recall.relations import query_entities
from memory.store.codec import PayloadCodec

__all__ = ["DEFAULT_HOP_DECAY", "DEFAULT_HOP_LIMIT", "HOP_RELATIONS", "RECALL_RELATIONS", "Expansion", "Hops"]

#: Facts one hop may add per search (the brief's bound: 10).
DEFAULT_HOP_LIMIT = 10
#: A hop candidate's score as a share of what led to it. ``heyan bench relations`` on the dev file,
#: R@5 without the hop 0.807; with it, decay 0.5 / 0.6 / 0.7 / 0.8 / 0.9 / 0.95: 0.919 / 0.919 / 0.938
#: / 0.912 / 0.919 / 0.919 — from 0.8 up a hop candidate displaces direct hits of questions that need
#: no hop (their R@5 1.000 → 0.955); below 0.7 it falls under direct hits it should pass.
DEFAULT_HOP_DECAY = 0.7
#: Relations read per step: bounds the work whatever the tenant holds.
HOP_RELATIONS = 48

#: Relations a recall hands on beside its facts (``Expansion.context``), for the answers that read them.
RECALL_RELATIONS = 10

_RELATION = frozenset({Kind.RELATION.value})


@dataclass(frozen=True, slots=True)
class Expansion:
    """What one hop found: the candidates it adds, and every relation it read on the way."""

    candidates: list[ScoredFact]
    relations: list[Fact]

    def context(self, final: Sequence[ScoredFact]) -> list[Fact]:
        """The relations behind ``final`` (the search's result): those linking one of its facts, or
        standing for themselves among them — not those in it already. At most ``RECALL_RELATIONS``."""
        ids = {s.fact.id for s in final}
        return [r for r in self.relations if r.id not in ids and ids.intersection(r.links)][:RECALL_RELATIONS]


@dataclass(frozen=True, slots=True)
class Hops:
    """The expansion's settings: ``limit`` facts at most (0: off), scored ``decay`` × their anchor."""

    limit: int = DEFAULT_HOP_LIMIT
    decay: float = DEFAULT_HOP_DECAY
    relations: int = HOP_RELATIONS

    async def expand(
        self,
        store: MemoryStore,
        codec: PayloadCodec,
        scope: Scope,
        flt: RecordFilter,
        texts: Sequence[str],
        top: Sequence[ScoredFact],
        now: datetime,
    ) -> Expansion:
        """Candidates one hop from ``top`` and the entities ``texts`` name, best first, none of
        ``top``; ``flt`` is the direct search's (statuses, visibility, expiry)."""
        if self.limit <= 0:
            return Expansion([], [])
        best = top[0].score if top else 0.0
        anchor: dict[str, float] = {}
        for text in texts:
            for name in query_entities(text):
                anchor[codec.subject_key(scope.tenant, name)] = best
        by_message: dict[str, float] = {}
        near: list[Fact] = []
        for hit in top:
            for s in hit.fact.sources:
                by_message[s.message_id] = max(by_message.get(s.message_id, 0.0), hit.score)
        if by_message:
            near = await self._relations(store, codec, scope, replace(flt, cites=frozenset(by_message)))
            for rel in near:
                score = max((by_message.get(s.message_id, 0.0) for s in rel.sources), default=0.0)
                for member_or_name, key in zip((rel.subject, rel.target), _keys(codec, rel), strict=True):
                    if member_or_name and member_or_name not in rel.users:
                        anchor[key] = max(anchor.get(key, 0.0), score)
        if not anchor:
            return Expansion([], near)
        found = await self._relations(store, codec, scope, replace(flt, mentions=frozenset(anchor)))
        seen = {s.fact.id for s in top}
        scored: dict[str, float] = {}
        themselves: dict[str, Fact] = {}
        for rel in found:
            score = self.decay * max((anchor.get(k, 0.0) for k in codec.mentions(rel)), default=0.0)
            for fact_id in rel.links or (rel.id,):
                if fact_id not in seen and score > scored.get(fact_id, -1.0):
                    scored[fact_id] = score
            if not rel.links:
                themselves[rel.id] = rel
        chosen = sorted(scored, key=lambda i: -scored[i])[: self.limit]
        facts = {i: themselves[i] for i in chosen if i in themselves}
        wanted = [i for i in chosen if i not in facts]
        if wanted:
            hits, _ = await store.scroll("facts", scope, replace(flt, ids=frozenset(wanted)), len(wanted))
            facts.update({h.id: codec.fact_from_payload(h.payload) for h in hits})
        added = [ScoredFact(facts[i], scored[i], None, None, weigh(facts[i], now)) for i in chosen if i in facts]
        return Expansion(added, list({r.id: r for r in (*near, *found)}.values()))

    async def _relations(self, store: MemoryStore, codec: PayloadCodec, scope: Scope, flt: RecordFilter) -> list[Fact]:
        hits, _ = await store.scroll("facts", scope, replace(flt, kinds=_RELATION), self.relations)
        return [codec.fact_from_payload(h.payload) for h in hits]


def _keys(codec: PayloadCodec, rel: Fact) -> tuple[str, str]:
    """The keys of a relation's subject and object as ``mentions`` holds them (id, or name key)."""
    def key(value: str) -> str:
        return value if value in rel.users else codec.subject_key(rel.tenant, value)

    return key(rel.subject), key(rel.target)
