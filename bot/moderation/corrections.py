"""Who may correct a memory, and what a correction does to its status: the one table the
moderation service applies (``MemberSelfService.correct``).

A moderator's correction is an edit and makes a record in review active (only a moderator clears a
flag); the asserter's keeps review status and makes a record about others ``unverified``; the
subject's is kept beside it (``contested``) and makes it ``disputed``; anyone else is refused.
Members cannot correct a record that is no longer current.
"""

from __future__ import annotations

import uuid
from enum import StrEnum

from bot.actors import Actor
from bot.moderation.base import REVIEW_STATUSES
from memory.models import RECALLABLE, Fact, FactStatus, Kind

__all__ = ["CLOSED_TO_MEMBERS", "Role", "about_others", "correction_outcome", "correction_role", "is_uuid"]

#: Statuses a member's correction is refused on: the record is no longer current.
CLOSED_TO_MEMBERS = frozenset({FactStatus.SUPERSEDED, FactStatus.CANCELLED, FactStatus.EXPIRED,
                               FactStatus.REJECTED})

#: The attribute ``bot.extraction.candidates.to_facts`` gives a speaker's account of someone else.
_CLAIMS = "claims"


class Role(StrEnum):
    """How a caller stands to a record."""

    MODERATOR = "moderator"
    ASSERTER = "asserter"
    SUBJECT = "subject"


def about_others(fact: Fact) -> bool:
    """Is the record someone's statement about another person (a claim, or a subject who is not
    the speaker)?"""
    return fact.subject != fact.asserted_by or (fact.kind is Kind.EVENT and fact.attribute == _CLAIMS)


def correction_role(actor: Actor, fact: Fact) -> Role | None:
    """The actor's role for a correction of ``fact``; None when it does not concern them."""
    if actor.is_moderator:
        return Role.MODERATOR
    if actor.user_id == fact.asserted_by:
        return Role.ASSERTER
    if actor.user_id in fact.users or actor.user_id == fact.subject:
        return Role.SUBJECT
    return None


def correction_outcome(role: Role, fact: Fact) -> FactStatus:
    """The status ``fact`` has after a correction by ``role`` (members never reach closed records)."""
    if role is Role.MODERATOR:
        return FactStatus.ACTIVE if fact.status in REVIEW_STATUSES else fact.status
    if role is Role.ASSERTER:
        if fact.status in REVIEW_STATUSES:
            return fact.status
        return FactStatus.UNVERIFIED if about_others(fact) else fact.status
    return FactStatus.DISPUTED if fact.status in RECALLABLE else fact.status


def is_uuid(ref: str) -> bool:
    try:
        uuid.UUID(ref)
    except ValueError:
        return False
    return True
