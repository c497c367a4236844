"""Versions of a session summary: rolling one forward (a new text), and rolling it back to a version
that cannot hold something taken back (a deleted message, an erased member's words).

Each version may carry words of every message an earlier one read, so taking back keeps the longest
run of versions known not to hold it, makes the last current, drops the rest and marks it ``stale``
for the next summary job. No LLM call.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from memory.models import Summary, SummaryVersion

__all__ = ["Rollback", "RollbackResult", "roll_back", "roll_forward", "since", "without_user"]

#: Does this version certainly not hold what is taken back?
Keep = Callable[[SummaryVersion], bool]


class Rollback(StrEnum):
    """What taking something back did to a summary."""

    #: Every version is clean: only marked stale (rewritten by the next summary job).
    STALE = "stale"
    #: Rolled back to an earlier version (later ones, history included, are gone).
    REWRITTEN = "rewritten"
    #: No version is clean: the summary is deleted.
    DELETED = "deleted"


@dataclass(frozen=True, slots=True)
class RollbackResult:
    action: Rollback
    #: The summary as it stands afterwards (None when deleted).
    summary: Summary | None
    #: How many versions were dropped.
    dropped: int


def roll_forward(old: Summary | None, new: Summary, now: datetime) -> Summary:
    """``new`` as the next version after ``old``: ``old``'s text goes into the history with the
    authors it carried, and the new version carries them too (``users`` accumulate)."""
    if old is None:
        return new.model_copy(update={"stale": False})
    previous = SummaryVersion(text=old.text, version=old.version, written_at=old.updated_at,
                              users=old.users if old.tracked else ())
    return new.model_copy(update={
        "version": old.version + 1,
        "history": (*old.history, previous),
        "users": tuple(dict.fromkeys((*old.users, *new.users))),
        "tracked": old.tracked and new.tracked,
        "created_at": old.created_at,
        "updated_at": now,
        "stale": False,
    })


def roll_back(summary: Summary, keep: Keep, now: datetime) -> RollbackResult:
    """``summary`` rolled back to the longest run of versions, oldest first, that ``keep`` accepts."""
    versions = summary.versions()
    kept = 0
    while kept < len(versions) and keep(versions[kept]):
        kept += 1
    if kept == len(versions):
        marked = summary if summary.stale else summary.model_copy(update={"stale": True})
        return RollbackResult(Rollback.STALE, marked, 0)
    if kept == 0:
        return RollbackResult(Rollback.DELETED, None, len(versions))
    last = versions[kept - 1]
    rolled = summary.model_copy(update={
        "text": last.text,
        "history": tuple(versions[:kept - 1]),
        "users": last.users,
        "tracked": all(v.users for v in versions[:kept]),
        "version": summary.version + 1,
        "updated_at": now,
        "stale": True,
    })
    return RollbackResult(Rollback.REWRITTEN, rolled, len(versions) - kept)


def without_user(user: str) -> Keep:
    """Versions known not to carry ``user``'s words (a version whose authors are unknown might)."""
    return lambda v: bool(v.users) and user not in v.users


def since(said_at: datetime) -> Keep:
    """Versions written before ``said_at`` (they cannot have read a message said then)."""
    return lambda v: v.written_at is not None and v.written_at < said_at
