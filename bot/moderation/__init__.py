"""The moderation service: everything a moderator or a member does with Heyan, on every surface.

Disputes, memory review, member self-service, commitments, community settings and the console's
views. Console, Discord, Slack and web are thin callers: an ``Actor``, one method, render the result.
Each method checks permission here (``Capability.MODERATE``; a member only their records), audits each
change, rate-limits per user and tenant, and refuses with a ``ModerationError`` that changes nothing.
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
