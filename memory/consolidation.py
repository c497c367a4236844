"""Consolidation: a new fact updates the record for its slot instead of piling up duplicates.

One record per slot (tenant, session, subject, kind, attribute), with a deterministic id: none yet,
insert; same value or source, nothing (replays are no-ops); a new value from the record's owner, a new
version with the old kept in ``history``; a different value from someone else, never written over: the
record becomes ``disputed`` with the value in ``contested`` for a moderator.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from memory.models import Fact, FactStatus, HistoryEntry

__all__ = ["Action", "Outcome", "consolidate"]

#: A record in one of these states is closed: a new value for its slot opens a new version.
_CLOSED = frozenset({FactStatus.SUPERSEDED, FactStatus.EXPIRED, FactStatus.CANCELLED, FactStatus.DONE})


class Action(StrEnum):
    INSERT = "insert"
    UPDATE = "update"
    DISPUTE = "dispute"
    NOOP = "noop"


@dataclass(frozen=True, slots=True)
class Outcome:
    action: Action
    fact: Fact  # the record as it should be stored (unchanged for NOOP)


def _same(a: str, b: str) -> bool:
    return " ".join(a.casefold().split()) == " ".join(b.casefold().split())


def _seen_messages(fact: Fact) -> set[str]:
    seen = {s.message_id for s in fact.sources}
    for entry in (*fact.history, *fact.contested):
        seen.update(s.message_id for s in entry.sources)
    return seen


def _owns(existing: Fact, new: Fact) -> bool:
    """May ``new``'s speaker change this record? The subject may; so may whoever asserted it."""
    return new.asserted_by in (existing.subject, existing.asserted_by)


def consolidate(existing: Fact | None, new: Fact, now: datetime) -> Outcome:
    """Decide how ``new`` changes the record ``existing`` holding the same slot (or None)."""
    new = new.with_id()
    if existing is None:
        return Outcome(Action.INSERT, new)
    new_sources = {s.message_id for s in new.sources}
    if new_sources and new_sources <= _seen_messages(existing):
        return Outcome(Action.NOOP, existing)
    if _same(existing.value, new.value) and existing.status not in _CLOSED:
        return Outcome(Action.NOOP, existing)

    entry = HistoryEntry(
        version=existing.version,
        value=existing.value,
        asserted_by=existing.asserted_by,
        status=existing.status,
        valid_from=existing.valid_from,
        valid_to=new.valid_from,
        sources=existing.sources,
    )
    if existing.status in _CLOSED or _owns(existing, new):
        updated = existing.model_copy(
            update={
                "value": new.value,
                "asserted_by": new.asserted_by,
                "sources": new.sources,
                "confidence": new.confidence,
                "status": new.status if new.status is not FactStatus.DISPUTED else FactStatus.ACTIVE,
                "valid_from": new.valid_from,
                "valid_to": None,
                "updated_at": now,
                "version": existing.version + 1,
                "history": (*existing.history, entry),
                "due_at": new.due_at,
                "expires_at": new.expires_at,
                "truncated": new.truncated,
                "users": tuple(dict.fromkeys((*existing.users, *new.users))),
                "reminders_sent": () if new.due_at != existing.due_at else existing.reminders_sent,
                # a relation's object and the facts beside it come with its new words (memory.recall.relations)
                "target": new.target or existing.target,
                "links": new.links,
            }
        )
        return Outcome(Action.UPDATE, updated)

    claim = HistoryEntry(
        version=existing.version,
        value=new.value,
        asserted_by=new.asserted_by,
        status=FactStatus.DISPUTED,
        valid_from=new.valid_from,
        valid_to=new.valid_from,
        sources=new.sources,
    )
    disputed = existing.model_copy(
        update={
            "status": FactStatus.DISPUTED,
            "updated_at": now,
            "contested": (*existing.contested, claim),
            "users": tuple(dict.fromkeys((*existing.users, *new.users))),
        }
    )
    return Outcome(Action.DISPUTE, disputed)
