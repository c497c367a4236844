"""The memory service: the one entry point the bot and the jobs use to write and read memory.

It consolidates new facts against what is stored (``memory.consolidation``), indexes what changed
in one embedding batch, and reads back through the store and the retriever. Every method takes a
``Scope`` with a tenant.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from memory.consolidation import Action, Outcome, consolidate
from memory.errors import ScopeError
from memory.locks import LocalLocks, Locks
from memory.models import OPEN_COMMITMENT, Fact, FactStatus, Kind, Scope, Summary, summary_id, utcnow
from memory.ports import Embedder, Layer, MemoryStore, RecordFilter, SparseEncoder
from memory.recall.retrieval import Recall, Retriever, index_facts, index_summaries
from memory.retraction import Forgotten, RetractResult, without_message
from memory.store.codec import PayloadCodec
from memory.summary_versions import Keep, Rollback, RollbackResult, roll_back, roll_forward, without_user

__all__ = ["REMOVE", "Change", "FactWatcher", "Forgotten", "MemoryService", "RememberResult", "Remove",
           "RetractResult"]

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


class Remove:
    """Returned by a ``modify`` change: delete the record."""

    _instance: Remove | None = None

    def __new__(cls) -> Remove:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "REMOVE"


REMOVE = Remove()

#: A change of one record: the record as stored now in, the record to store (or REMOVE) out.
Change = Callable[[Fact], "Fact | Remove"]

#: Told of every write of a fact, still under its lock: ``(tenant, fact id, before, after)``; ``before``
#: is None for a new record (or a deletion by id, whose record was not read), ``after`` None when the
#: record was removed. What depends on a fact follows it here (a commitment's follow-up: bot.delivery.reminders).
FactWatcher = Callable[[str, str, "Fact | None", "Fact | None"], Awaitable[None]]


class MemoryService:
    """Facts and summaries for every tenant, on one store with one embedder.

    ``codec`` maps records to payloads (and seals their free text); by default the retriever's, so
    reads and writes always agree.
    """

    def __init__(
        self,
        store: MemoryStore,
        embedder: Embedder,
        sparse: SparseEncoder,
        retriever: Retriever,
        *,
        clock: Callable[[], datetime] = utcnow,
        locks: Locks | None = None,
        codec: PayloadCodec | None = None,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.sparse = sparse
        self.retriever = retriever
        self.clock = clock
        self.locks: Locks = locks or LocalLocks()
        self.codec: PayloadCodec = codec or retriever.codec
        self.watchers: list[FactWatcher] = []

    def watch(self, watcher: FactWatcher) -> None:
        """Tell ``watcher`` of every fact written, changed or removed from now on."""
        self.watchers.append(watcher)

    async def _changed(self, tenant: str, fact_id: str, before: Fact | None, after: Fact | None) -> None:
        for watcher in self.watchers:
            await watcher(tenant, fact_id, before, after)

    @staticmethod
    def _lock_key(tenant: str, fact_id: str) -> str:
        return f"fact:{tenant}:{fact_id}"

    @staticmethod
    def _summary_lock_key(tenant: str, summary_id: str) -> str:
        return f"summary:{tenant}:{summary_id}"

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
        async with self.locks.hold([self._lock_key(scope.tenant, f.id) for f in facts]) as held:
            current = {f.id: f for f in await self.get_many(scope, [f.id for f in facts])}
            stored = dict(current)
            now = self.clock()
            outcomes: list[Outcome] = []
            for fact in facts:  # in order: two facts for one slot in a batch consolidate one after the other
                outcome = consolidate(current.get(fact.id), fact, now)
                current[fact.id] = outcome.fact
                outcomes.append(outcome)
            changed = {o.fact.id: o.fact for o in outcomes if o.action is not Action.NOOP}
            if changed:
                await index_facts(self.store, self.embedder, self.sparse, list(changed.values()), codec=self.codec,
                                  before_write=held.ensure)
                for fact in changed.values():
                    await self._changed(scope.tenant, fact.id, stored.get(fact.id), fact)
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
        return [self.codec.fact_from_payload(h.payload) for h in hits]

    async def iter_facts(self, scope: Scope, flt: RecordFilter | None = None) -> AsyncIterator[Fact]:
        """Every fact in scope matching ``flt``, page by page."""
        offset: str | None = None
        while True:
            hits, offset = await self.store.scroll("facts", scope, flt or RecordFilter(), _PAGE, offset)
            for hit in hits:
                yield self.codec.fact_from_payload(hit.payload)
            if offset is None:
                return

    async def list_facts(self, scope: Scope, flt: RecordFilter | None = None) -> list[Fact]:
        facts = [f async for f in self.iter_facts(scope, flt)]
        return sorted(facts, key=lambda f: (f.created_at, f.id))

    async def modify(self, scope: Scope, fact_id: str, change: Change, *, touch: bool = True) -> Fact | None:
        """Change one record safely: under its lock, ``change`` gets the record as stored now and
        returns the new record, the same object (nothing to do), or ``REMOVE`` (delete it).

        Returns the record as it stands afterwards; None when it does not exist (a record deleted
        meanwhile is never written back) or was removed. Re-embeds only if its embedded text changed.
        ``touch=False`` keeps ``updated_at``: bookkeeping (use counts, ``memory.recall.importance``) is not a
        change a reviewer should see first.
        """
        tenant = Scope(tenant=scope.tenant)
        async with self.locks.hold([self._lock_key(scope.tenant, fact_id)]) as held:
            current = await self.get(tenant, fact_id)
            if current is None:
                return None
            new = change(current)
            if new is REMOVE:
                await held.ensure()
                await self.store.delete("facts", tenant, RecordFilter(ids=frozenset({fact_id})))
                await self._changed(scope.tenant, fact_id, current, None)
                return None
            assert isinstance(new, Fact)
            if new is current or new == current:
                return current
            if new.id != current.id or new.tenant != current.tenant:
                raise ScopeError(f"a change of {fact_id} must keep its id and tenant")
            if touch:
                new = new.model_copy(update={"updated_at": self.clock()})
            if current.embed_text() == new.embed_text():
                await held.ensure()
                await self.store.set_payload(
                    "facts", tenant, new.id, self.codec.for_merge("facts", self.codec.fact_to_payload(new)))
            else:
                await index_facts(self.store, self.embedder, self.sparse, [new], codec=self.codec,
                                  before_write=held.ensure)
            await self._changed(scope.tenant, fact_id, current, new)
            return new

    async def set_status(self, scope: Scope, fact_id: str, status: FactStatus) -> Fact:
        """Set a record's status (KeyError when it is gone)."""
        def change(fact: Fact) -> Fact:
            return fact if fact.status is status else fact.model_copy(update={"status": status})

        fact = await self.modify(scope, fact_id, change)
        if fact is None:
            raise KeyError(f"no memory {fact_id} in {scope}")
        return fact

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
            alive_at=self.clock(),
        )
        facts = await self.list_facts(scope, flt)
        far = datetime.max.replace(tzinfo=utcnow().tzinfo)
        return sorted(facts, key=lambda f: f.due_at or far)

    async def open_commitment_stamps(self, scope: Scope) -> dict[str, tuple[int, float | None, str]]:
        """``id → (version, due_ts, status)`` of every open commitment in scope, read from the clear
        payload fields: nothing is decrypted or parsed, so a pass over every tenant stays cheap and a
        caller opens (``get_many``) only the records that changed since it last looked."""
        flt = RecordFilter(
            kinds=frozenset({Kind.COMMITMENT.value}),
            statuses=frozenset(s.value for s in OPEN_COMMITMENT),
            alive_at=self.clock(),
        )
        stamps: dict[str, tuple[int, float | None, str]] = {}
        offset: str | None = None
        while True:
            hits, offset = await self.store.scroll("facts", scope, flt, _PAGE, offset)
            for hit in hits:
                due = hit.payload.get("due_ts")
                stamps[hit.id] = (int(hit.payload.get("version", 0)), float(due) if due is not None else None,
                                  str(hit.payload.get("status", "")))
            if offset is None:
                return stamps

    async def delete(self, scope: Scope, ids: Sequence[str]) -> int:
        deleted = await self.store.delete("facts", scope, RecordFilter(ids=frozenset(ids)))
        for fact_id in ids:
            await self._changed(scope.tenant, fact_id, None, None)
        return deleted

    async def retract_message(self, scope: Scope, message_id: str) -> RetractResult:
        """Take back what one source message said (it was deleted, or edited and will be re-read).

        A record whose current value came only from that message returns to its previous version,
        or is deleted when it has none; the message is dropped from every other record's sources,
        history and contested values. The records are found through the index of cited message ids
        (payload ``messages``) within ``scope.session`` — records written before that index existed
        are opened and checked — never by reading every record of the session or tenant.
        """
        if not scope.session:
            raise ScopeError("retract_message needs the message's session")
        cited: list[str] = []
        said: list[datetime] = []
        async for fact in self.iter_facts(scope, RecordFilter(cites=frozenset({message_id}))):
            if without_message(fact, message_id, self.clock()) is not fact:
                cited.append(fact.id)
                sources = (*fact.sources, *(s for e in (*fact.history, *fact.contested) for s in e.sources))
                said += [s.ts for s in sources if s.message_id == message_id]
        deleted: list[str] = []
        updated: list[Fact] = []
        for fact_id in cited:
            def change(fact: Fact) -> Fact | Remove:
                taken = without_message(fact, message_id, self.clock())
                return REMOVE if taken is None else taken

            after = await self.modify(scope, fact_id, change)
            if after is None:
                deleted.append(fact_id)
            else:
                updated.append(after)
        return RetractResult(tuple(deleted), tuple(updated), min(said, default=None))

    async def forget_user(self, scope: Scope) -> Forgotten:
        """Erase every fact about or from ``scope.user``, and their words from every session summary:
        each summary that carried them (or whose authors are unknown) is rolled back to its last
        version without them, or deleted when there is none (``memory.summary_versions``)."""
        if not scope.user:
            raise ScopeError("forget_user needs a scope with a user")
        user, tenant = scope.user, Scope(tenant=scope.tenant)
        facts = await self.store.delete("facts", scope)
        sessions: list[str] = []
        offset: str | None = None
        while True:  # one summary per session: the tenant's are few, and their authors are in the clear
            hits, offset = await self.store.scroll("summaries", tenant, RecordFilter(), _PAGE, offset)
            sessions += [str(h.payload.get("session")) for h in hits
                         if user in (h.payload.get("users") or ()) or not h.payload.get("tracked")]
            if offset is None:
                break
        rewritten = deleted = 0
        for session in sessions:
            result = await self.roll_back_summary(tenant.narrow(session=session), without_user(user))
            if result is not None and result.action is Rollback.REWRITTEN:
                rewritten += 1
            elif result is not None and result.action is Rollback.DELETED:
                deleted += 1
        return Forgotten(facts, rewritten, deleted)

    # --- summaries -----------------------------------------------------------------------------

    async def summary(self, scope: Scope) -> Summary | None:
        if not scope.session:
            return None
        hits = await self.store.retrieve("summaries", scope, [summary_id(scope.tenant, scope.session)])
        return self.codec.summary_from_payload(hits[0].payload) if hits else None

    async def save_summary(self, summary: Summary) -> Summary:
        """Store a new version of the session summary: earlier texts go into its history with the
        authors they carried, and its ``users`` accumulate (``memory.summary_versions``)."""
        summary = summary.with_id()
        async with self.locks.hold([self._summary_lock_key(summary.tenant, summary.id)]) as held:
            old = await self.summary(Scope(tenant=summary.tenant, session=summary.session))
            if old is not None and old.text == summary.text and not old.stale \
                    and set(summary.users) <= set(old.users):
                return old
            summary = roll_forward(old, summary, self.clock())
            await index_summaries(self.store, self.embedder, self.sparse, [summary], codec=self.codec,
                                  before_write=held.ensure)
        return summary

    async def roll_back_summary(self, scope: Scope, keep: Keep) -> RollbackResult | None:
        """Take something back from the session summary without an LLM call: roll it back to its last
        version ``keep`` accepts (or delete it), marked stale for the next summary job. None when the
        session has no summary."""
        if not scope.session:
            raise ScopeError("roll_back_summary needs a session")
        sid = summary_id(scope.tenant, scope.session)
        async with self.locks.hold([self._summary_lock_key(scope.tenant, sid)]) as held:
            old = await self.summary(scope)
            if old is None:
                return None
            result = roll_back(old, keep, self.clock())
            tenant = Scope(tenant=scope.tenant)
            await held.ensure()
            if result.summary is None:
                await self.store.delete("summaries", tenant, RecordFilter(ids=frozenset({sid})))
            elif result.action is Rollback.REWRITTEN:
                await index_summaries(self.store, self.embedder, self.sparse, [result.summary], codec=self.codec)
            elif result.summary is not old:  # only marked stale: the text and its vectors stay
                await self.store.set_payload("summaries", tenant, sid, {"stale": True})
        return result

    async def iter_summaries(self, scope: Scope) -> AsyncIterator[Summary]:
        """Every session summary in scope (``scope.user``: those the user took part in)."""
        offset: str | None = None
        while True:
            hits, offset = await self.store.scroll("summaries", scope, RecordFilter(), _PAGE, offset)
            for hit in hits:
                yield self.codec.summary_from_payload(hit.payload)
            if offset is None:
                return

    # --- key rotation --------------------------------------------------------------------------

    async def reseal(self, layer: Layer, tenant: str, ids: Sequence[str]) -> int:
        """Rewrite these records' payloads sealed with the first key (``heyan keys rotate``); returns
        how many were rewritten. Payload-only writes: vectors are kept, nothing is re-embedded.

        Each record is read again under its lock (the one ``modify``, ``remember`` and
        ``save_summary`` take), so a change made meanwhile is never overwritten with an older copy;
        a record already under the first key, or gone, is left alone — a killed run resumes.
        """
        scope = Scope(tenant=tenant)
        lock = self._lock_key if layer == "facts" else self._summary_lock_key
        written = 0
        for record_id in ids:
            async with self.locks.hold([lock(tenant, record_id)]) as held:
                hits = await self.store.retrieve(layer, scope, [record_id])
                if not hits:
                    continue
                payload = self.codec.reseal(layer, hits[0].id, hits[0].payload)
                if payload is None:
                    continue
                await held.ensure()
                await self.store.set_payload(layer, scope, hits[0].id, payload)
                written += 1
        return written

    # --- reading -------------------------------------------------------------------------------

    async def recall(self, scope: Scope, queries: Sequence[str], k: int | None = None) -> Recall:
        """Summary first, then the top facts for the queries."""
        return await self.retriever.recall(scope, queries, k=k)
