"""The memory service: the one entry point the bot and the jobs use to write and read memory.

It consolidates new facts against what is stored (``memory.consolidation``), indexes what changed
in one embedding batch, and reads back through the store and the retriever. Every method takes a
``Scope`` with a tenant.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memory.codec import fact_from_payload, fact_to_payload, summary_from_payload
from memory.consolidation import Action, Outcome, consolidate
from memory.errors import ScopeError
from memory.models import OPEN_COMMITMENT, Fact, FactStatus, Kind, Scope, Source, Summary, summary_id, utcnow
from memory.ports import Embedder, MemoryStore, RecordFilter, SparseEncoder
from memory.retrieval import Recall, Retriever, index_facts, index_summaries

__all__ = ["MemoryService", "RememberResult", "RetractResult"]

log = logging.getLogger(__name__)

#: Page size when listing a scope; a page is one store round trip.
_PAGE = 256


@dataclass(frozen=True, slots=True)
class RememberResult:
    """What one ``remember`` call did, per action."""

    outcomes: tuple[Outcome, ...]

    def count(self, action: Action) -> int:
        return sum(1 for o in self.outcomes if o.action is action)

    @property
    def written(self) -> list[Fact]:
        return [o.fact for o in self.outcomes if o.action is not Action.NOOP]


@dataclass(frozen=True, slots=True)
class RetractResult:
    """What taking back one message did: records deleted (by id) and records updated."""

    deleted: tuple[str, ...]
    updated: tuple[Fact, ...]


def _without_message(fact: Fact, message_id: str, now: datetime) -> Fact | None:
    """``fact`` with ``message_id`` taken out of it: the same object when it never cited it, None when
    nothing is left (its only value came from that message and it has no earlier version)."""
    def keep(sources: tuple[Source, ...]) -> tuple[Source, ...]:
        return tuple(s for s in sources if s.message_id != message_id)

    cites = any(s.message_id == message_id for s in fact.sources)
    in_history = any(s.message_id == message_id for e in (*fact.history, *fact.contested) for s in e.sources)
    if not cites and not in_history:
        return fact
    history = tuple(e for e in fact.history if not e.sources or keep(e.sources))
    history = tuple(e.model_copy(update={"sources": keep(e.sources)}) for e in history)
    contested = tuple(e for e in fact.contested if not e.sources or keep(e.sources))
    update: dict[str, Any] = {"history": history, "contested": contested, "updated_at": now}
    remaining = keep(fact.sources)
    if cites and not remaining:
        if not history:
            return None
        previous = history[-1]
        update.update(value=previous.value, asserted_by=previous.asserted_by, sources=previous.sources,
                      status=previous.status, valid_from=previous.valid_from, valid_to=None,
                      history=history[:-1], version=fact.version + 1)
    else:
        update["sources"] = remaining
    if not contested and fact.status is FactStatus.DISPUTED and "status" not in update:
        update["status"] = FactStatus.ACTIVE
    return fact.model_copy(update=update)


class MemoryService:
    """Facts and summaries for every tenant, on one store with one embedder."""

    def __init__(
        self,
        store: MemoryStore,
        embedder: Embedder,
        sparse: SparseEncoder,
        retriever: Retriever,
        *,
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.sparse = sparse
        self.retriever = retriever
        self.clock = clock

    # --- facts ---------------------------------------------------------------------------------

    async def remember(self, facts: Sequence[Fact]) -> RememberResult:
        """Consolidate ``facts`` into the store: insert, update, mark disputed, or leave as is."""
        if not facts:
            return RememberResult(())
        facts = [f.with_id() for f in facts]
        tenants = {f.tenant for f in facts}
        if len(tenants) != 1:
            raise ScopeError(f"one remember() call writes one tenant; got {sorted(tenants)}")
        scope = Scope(tenant=facts[0].tenant)
        current = {f.id: f for f in await self.get_many(scope, [f.id for f in facts])}
        now = self.clock()
        outcomes: list[Outcome] = []
        for fact in facts:  # in order: two facts for one slot in a batch consolidate one after the other
            outcome = consolidate(current.get(fact.id), fact, now)
            current[fact.id] = outcome.fact
            outcomes.append(outcome)
        changed = {o.fact.id: o.fact for o in outcomes if o.action is not Action.NOOP}
        if changed:
            await index_facts(self.store, self.embedder, self.sparse, list(changed.values()))
        result = RememberResult(tuple(outcomes))
        log.info(
            "remember %s: %d inserted, %d updated, %d disputed, %d unchanged",
            scope,
            result.count(Action.INSERT),
            result.count(Action.UPDATE),
            result.count(Action.DISPUTE),
            result.count(Action.NOOP),
        )
        return result

    async def get(self, scope: Scope, fact_id: str) -> Fact | None:
        found = await self.get_many(scope, [fact_id])
        return found[0] if found else None

    async def get_many(self, scope: Scope, ids: Sequence[str]) -> list[Fact]:
        hits = await self.store.retrieve("facts", scope, list(ids))
        return [fact_from_payload(h.payload) for h in hits]

    async def iter_facts(self, scope: Scope, flt: RecordFilter | None = None) -> AsyncIterator[Fact]:
        """Every fact in scope matching ``flt``, page by page."""
        offset: str | None = None
        while True:
            hits, offset = await self.store.scroll("facts", scope, flt or RecordFilter(), _PAGE, offset)
            for hit in hits:
                yield fact_from_payload(hit.payload)
            if offset is None:
                return

    async def list_facts(self, scope: Scope, flt: RecordFilter | None = None) -> list[Fact]:
        facts = [f async for f in self.iter_facts(scope, flt)]
        return sorted(facts, key=lambda f: (f.created_at, f.id))

    async def update(self, fact: Fact) -> Fact:
        """Write a changed record as is (status changes, reminders sent); re-embeds only if its text changed."""
        fact = fact.model_copy(update={"updated_at": self.clock()})
        scope = Scope(tenant=fact.tenant)
        stored = await self.get(scope, fact.id)
        if stored is not None and stored.embed_text() == fact.embed_text():
            await self.store.set_payload("facts", scope, fact.id, fact_to_payload(fact))
        else:
            await index_facts(self.store, self.embedder, self.sparse, [fact])
        return fact

    async def set_status(self, scope: Scope, fact_id: str, status: FactStatus) -> Fact:
        fact = await self.get(scope, fact_id)
        if fact is None:
            raise KeyError(f"no memory {fact_id} in {scope}")
        if fact.status is status:
            return fact
        return await self.update(fact.model_copy(update={"status": status}))

    async def open_commitments(
        self, scope: Scope, users: Sequence[str] = (), *, visible_in: str | None = None
    ) -> list[Fact]:
        """Commitments still open in scope, of these owners when given; soonest due first.

        ``visible_in``: only those that may be shown in that session (its own and public ones).
        """
        flt = RecordFilter(
            kinds=frozenset({Kind.COMMITMENT.value}),
            statuses=frozenset(s.value for s in OPEN_COMMITMENT),
            subjects=frozenset(users),
            visible_in=visible_in,
        )
        facts = await self.list_facts(scope, flt)
        far = datetime.max.replace(tzinfo=utcnow().tzinfo)
        return sorted(facts, key=lambda f: f.due_at or far)

    async def delete(self, scope: Scope, ids: Sequence[str]) -> int:
        return await self.store.delete("facts", scope, RecordFilter(ids=frozenset(ids)))

    async def retract_message(self, scope: Scope, message_id: str) -> RetractResult:
        """Take back what one source message said (it was deleted, or edited and will be re-read).

        A record whose current value came only from that message returns to its previous version,
        or is deleted when it has none; the message is dropped from every other record's sources,
        history and contested values. ``scope.session`` bounds the search.
        """
        if not scope.session:
            raise ScopeError("retract_message needs the message's session")
        deleted: list[str] = []
        updated: list[Fact] = []
        async for fact in self.iter_facts(scope):
            changed = _without_message(fact, message_id, self.clock())
            if changed is fact:
                continue
            if changed is None:
                deleted.append(fact.id)
            else:
                updated.append(changed)
        if deleted:
            await self.delete(Scope(tenant=scope.tenant), deleted)
        for fact in updated:
            await self.update(fact)
        return RetractResult(tuple(deleted), tuple(updated))

    async def forget_user(self, scope: Scope) -> int:
        """Erase every fact and summary about or from ``scope.user``; returns how many records went."""
        if not scope.user:
            raise ScopeError("forget_user needs a scope with a user")
        return await self.store.delete("facts", scope) + await self.store.delete("summaries", scope)

    # --- summaries -----------------------------------------------------------------------------

    async def summary(self, scope: Scope) -> Summary | None:
        if not scope.session:
            return None
        hits = await self.store.retrieve("summaries", scope, [summary_id(scope.tenant, scope.session)])
        return summary_from_payload(hits[0].payload) if hits else None

    async def save_summary(self, summary: Summary) -> Summary:
        """Store a new version of the session summary, keeping earlier texts in its history."""
        summary = summary.with_id()
        old = await self.summary(Scope(tenant=summary.tenant, session=summary.session))
        if old is not None:
            if old.text == summary.text:
                return old
            summary = summary.model_copy(
                update={
                    "version": old.version + 1,
                    "history": (*old.history, old.text),
                    "created_at": old.created_at,
                    "updated_at": self.clock(),
                }
            )
        await index_summaries(self.store, self.embedder, self.sparse, [summary])
        return summary

    async def iter_summaries(self, scope: Scope) -> AsyncIterator[Summary]:
        """Every session summary in scope (``scope.user``: those the user took part in)."""
        offset: str | None = None
        while True:
            hits, offset = await self.store.scroll("summaries", scope, RecordFilter(), _PAGE, offset)
            for hit in hits:
                yield summary_from_payload(hit.payload)
            if offset is None:
                return

    # --- reading -------------------------------------------------------------------------------

    async def recall(self, scope: Scope, queries: Sequence[str], k: int | None = None) -> Recall:
        """Summary first, then the top facts for the queries."""
        return await self.retriever.recall(scope, queries, k=k)
