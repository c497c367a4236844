"""The moderation service: everything a moderator or a member does with Heyan, on every surface.

Disputes (open, status, summary, close), memory review (list, show, edit, delete, confirm, reject,
the review queue, a member's export, the audit trail), member self-service (what Heyan holds about
me, correct it, erase me), commitments (list, done, snooze), the community's settings, and what a
console needs beyond them (search, a member's records, the commitments board, the disputes with
their temperature). Console, Discord and Slack are thin callers: they turn their caller into an
``Actor``, call one method, and render what comes back.

Each method checks permission here: moderator actions need ``Capability.MODERATE``; a member sees
and changes only records that concern them (``Fact.users``). Each change writes an audit entry.
Refusals are ``ModerationError``s and change nothing. Rate limits apply per user and per tenant.
"""

from __future__ import annotations

from bot.moderation.agreements import AgreementCards, CardOutcome
from bot.moderation.common_ground import CommonGround, GroundView
from bot.moderation.community import CommunitySettings
from bot.moderation.digests import Digests
from bot.moderation.disputes import Disputes
from bot.moderation.members import MemberSelfService
from bot.moderation.overview import CommitmentBoard, MemberRecords, Overview, WeekTally
from bot.moderation.people import Member, People
from bot.moderation.records import PromiseRecords
from bot.moderation.review import MemoryReview
from bot.moderation.thread_heat import DisputeBoard, DisputeDetail, ThreadHeat
from bot.moderation.views import (
    ClosedDispute,
    DisputeStatus,
    ErasureRequest,
    Recovered,
    ReviewPage,
    fact_view,
)

__all__ = [
    "CardOutcome",
    "ClosedDispute",
    "CommitmentBoard",
    "DisputeDetail",
    "DisputeStatus",
    "ErasureRequest",
    "GroundView",
    "Member",
    "MemberRecords",
    "ModerationService",
    "Recovered",
    "ReviewPage",
    "ThreadHeat",
    "WeekTally",
    "fact_view",
]


class ModerationService(MemoryReview, MemberSelfService, Disputes, CommunitySettings, Overview, AgreementCards,
                        PromiseRecords, Digests, CommonGround, DisputeBoard, People):
    """Platform-neutral moderation and member self-service over one tenant's memory at a time."""
