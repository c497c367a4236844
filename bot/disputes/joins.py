"""When a member joins a dispute (their first message in an open dispute's thread), the moderators see
their promise-keeping record in the moderators' channel — never anyone else.

Once per member and dispute (``heyan:joined:<tenant>:<session>``); it names the member, the dispute
(not a private one) and ``bot.agreements.promises`` counts with the ids behind them. No usable channel, no notice.
"""

from __future__ import annotations

import logging
from datetime import datetime

from redis.asyncio import Redis

from bot.agreements.promises import Outcome, PromiseRecord, promise_record
from bot.config.tenants import TenantConfig
from bot.delivery.outbox import Outbox, Post, PostKind
from bot.models import Message
from bot.moderation.digests import channel_usable, note_posted
from bot.privacy.audit import AuditLog
from bot.sessions import SessionBook
from bot.text.lang import detect_lang
from bot.text.richtext import RichText
from memory.models import Kind, Lang, Scope, Visibility, utcnow
from memory.ports import RecordFilter
from memory.service import MemoryService

__all__ = ["DisputeJoins", "join_notice"]

log = logging.getLogger(__name__)

_KEEP_SECONDS = 90 * 24 * 3600
#: Commitment ids listed in a notice (the rest: "and N more").
_LISTED = 5


def join_notice(record: PromiseRecord, *, title: str, private: bool, lang: Lang) -> RichText:
    """The moderators' notice: who joined which dispute, and their record."""
    who = record.name or record.user
    late = [line for line in record.lines if line.outcome in (Outcome.OVERDUE, Outcome.LATE)]
    shown = ", ".join(f"{line.fact_id[:8]} ({line.outcome.value})" for line in late[:_LISTED])
    more = len(late) - _LISTED
    if lang == "zh":
        where = "一个私密争议" if private else f"争议“{title}”"
        text = f"{who} 加入了{where}。{record.text('zh')}。"
        if shown:
            text += f"逾期或迟交：{shown}" + (f"，另有 {more} 项" if more > 0 else "") + "。"
        if not record.total:
            text = f"{who} 加入了{where}。和言还没有记录到 {who} 的任何承诺。"
        return RichText.of(text)
    where = "a private dispute" if private else f"the dispute “{title}”"
    text = f"{who} joined {where}. {record.text('en')}."
    if shown:
        text += f" Overdue or late: {shown}" + (f" and {more} more" if more > 0 else "") + "."
    if not record.total:
        text = f"{who} joined {where}. Heyan holds no promise of {who} yet."
    return RichText.of(text)


class DisputeJoins:
    """Posts a member's promise record for the moderators when they first speak in an open dispute."""

    def __init__(self, *, redis: Redis, memory: MemoryService, sessions: SessionBook, outbox: Outbox, audit: AuditLog,
                 tenants: TenantConfig) -> None:
        self.redis = redis
        self.memory = memory
        self.sessions = sessions
        self.outbox = outbox
        self.audit = audit
        self.tenants = tenants

    async def observe(self, msg: Message, *, now: datetime | None = None) -> bool:
        """True when this message made ``msg``'s author join an open dispute and the notice was posted."""
        tenant, session, user = msg.scope.tenant, msg.session, msg.author_id
        info = await self.sessions.get(tenant, session)
        if info is None or not info.is_open:
            return False
        key = f"heyan:joined:{tenant}:{session}"
        added = await self.redis.sadd(key, user)  # type: ignore[misc]
        await self.redis.expire(key, _KEEP_SECONDS)
        if not added:
            return False
        settings = await self.tenants.get(tenant)
        channel = settings.digest_channel
        if not channel or not await channel_usable(self.redis, self.outbox, self.audit, tenant, channel):
            return False
        facts = await self.memory.list_facts(Scope(tenant=tenant, user=user),
                                             RecordFilter(kinds=frozenset({Kind.COMMITMENT.value})))
        record = promise_record(tenant, user, facts, now or utcnow(), name=msg.author_name)
        lang: Lang = "zh" if settings.language == "zh" else "en" if settings.language == "en" else detect_lang(msg.text)
        body = join_notice(record, title=info.title, private=info.visibility is Visibility.PRIVATE, lang=lang)
        post_id = f"joined:{tenant}:{session}:{user}:{int((info.opened_at or utcnow()).timestamp())}"
        if await self.outbox.append(Post(id=post_id, tenant=tenant, session=channel, body=body, kind=PostKind.NOTICE,
                                         lang=lang, ref={"member": user, "dispute": session})):
            await note_posted(self.redis, tenant, post_id, channel)
            return True
        return False
