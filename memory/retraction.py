"""Taking back one source message (deleted or edited on the platform) from a fact: a pure function of
one record, applied by ``MemoryService`` under the record's lock; and what taking back and forgetting
report."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memory.models import Fact, FactStatus, Source

__all__ = ["Forgotten", "RetractResult", "without_message"]


@dataclass(frozen=True, slots=True)
class RetractResult:
    """What taking back one message did: records deleted (by id) and records updated; ``said_at``:
    when the message was said, as the records citing it knew (None when none did)."""

    deleted: tuple[str, ...]
    updated: tuple[Fact, ...]
    said_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class Forgotten:
    """What erasing a member removed from the store: facts deleted, summaries rolled back to a version
    without their words (``summaries_rewritten``) or deleted when no such version exists."""

    facts: int
    summaries_rewritten: int
    summaries_deleted: int


def without_message(fact: Fact, message_id: str, now: datetime) -> Fact | None:
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

