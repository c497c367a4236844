"""A conversation deleted on its platform (a Discord thread or channel, a Slack channel): what Heyan
took from it goes too, and a dispute open there is closed.

Its facts, summary and window are deleted, the session is marked closed ("deleted on the platform")
and purged, and its unsent posts withdrawn, so nothing is recited or followed up from a place nobody
can see any more. One audit entry records it, with the members it concerned.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace

from bot.conversation import Conversation
from bot.delivery.outbox import Outbox
from bot.privacy.audit import SYSTEM, AuditEntry, AuditLog
from bot.sessions import DisputeState, SessionBook
from memory.models import Scope, utcnow
from memory.ports import MemoryStore

__all__ = ["DeletedConversations", "ForgottenConversation", "conversation_deleted"]

log = logging.getLogger(__name__)

#: The close reason recorded on a dispute whose thread was deleted.
DELETED = "deleted on the platform"


@dataclass(frozen=True, slots=True)
class ForgottenConversation:
    """What went with a deleted conversation: store records, window messages, unsent posts, and
    whether a dispute was open there."""

    records: int
    messages: int
    posts: int
    was_open: bool


async def conversation_deleted(
    *, store: MemoryStore, conversation: Conversation, sessions: SessionBook, audit: AuditLog, outbox: Outbox,
    tenant: str, session: str,
) -> ForgottenConversation | None:
    """Forget ``session`` of ``tenant`` (deleted on its platform); None when Heyan never saw it."""
    info = await sessions.get(tenant, session)
    if info is None:
        return None
    scope = Scope(tenant=tenant, session=session)
    records = await store.delete("facts", scope) + await store.delete("summaries", scope)
    messages = await conversation.forget_session(scope)
    posts = await outbox.cancel(tenant, session)
    now = utcnow()
    closed = replace(info, extra={**info.extra, "purged_at": now.isoformat()})
    if info.state is not DisputeState.CLOSED:
        closed = replace(closed, state=DisputeState.CLOSED, closed_by=SYSTEM, closed_at=now, close_reason=DELETED)
    await sessions.put(closed)
    await audit.record(AuditEntry(
        tenant=tenant, actor_id=SYSTEM, actor_name="Heyan", action="session.deleted", target=session,
        reason=DELETED, after={"records": records, "messages": messages, "posts": posts, "was_open": info.is_open},
        users=info.members))
    log.info("session %s of %s deleted on the platform: %d records, %d messages and %d unsent posts gone%s", session,
             tenant, records, messages, posts, ", its dispute closed" if info.is_open else "")
    return ForgottenConversation(records=records, messages=messages, posts=posts, was_open=info.is_open)


class DeletedConversations:
    """``conversation_deleted`` over this process's stores (the platform port's ``deletions``)."""

    def __init__(self, *, store: MemoryStore, conversation: Conversation, sessions: SessionBook, audit: AuditLog,
                 outbox: Outbox) -> None:
        self.store = store
        self.conversation = conversation
        self.sessions = sessions
        self.audit = audit
        self.outbox = outbox

    def __repr__(self) -> str:
        return "DeletedConversations()"

    async def forget(self, tenant: str, session: str) -> ForgottenConversation | None:
        """Forget ``session`` of ``tenant`` (deleted on its platform); None when Heyan never saw it."""
        return await conversation_deleted(store=self.store, conversation=self.conversation, sessions=self.sessions,
                                          audit=self.audit, outbox=self.outbox, tenant=tenant, session=session)
