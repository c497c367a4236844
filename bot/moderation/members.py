"""Member self-service (what Heyan holds about me, correct it, erase me) and commitments (list,
done, snooze)."""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta

from bot.actors import Actor, InvalidRequest, NotFound, PermissionDenied
from bot.moderation.base import ERASE_CONFIRM_SECONDS, REVIEW_STATUSES, ModerationBase
from bot.moderation.corrections import (
    CLOSED_TO_MEMBERS,
    Role,
    about_others,
    correction_outcome,
    correction_role,
    is_uuid,
)
from bot.moderation.views import ErasureRequest
from bot.offline.actions import reread_due
from bot.privacy.erasure import ErasureReport
from memory.models import (
    OPEN_COMMITMENT,
    Confidence,
    Fact,
    FactStatus,
    HistoryEntry,
    Kind,
    Scope,
    Visibility,
    utcnow,
)
from memory.ports import RecordFilter

__all__ = ["SNOOZE_HORIZON", "MemberSelfService"]

#: The furthest a commitment's due time can be moved: a promise two years out is no longer being
#: followed up, and a date such as 9999-12-31 would overflow the follow-up's time arithmetic.
SNOOZE_HORIZON = timedelta(days=730)


class MemberSelfService(ModerationBase):
    """What members do about themselves, and commitments."""

    async def my_memories(self, actor: Actor) -> list[Fact]:
        """Every memory that concerns the actor, in every session (private ones included)."""
        await self._enter(actor)
        return await self.memory.list_facts(Scope(tenant=actor.tenant, user=actor.user_id))

    async def correct(self, actor: Actor, ref: str, value: str, reason: str = "", *, session: str | None = None,
                      said_at: datetime | None = None, speaker_zone: str | None = None) -> Fact:
        """A member corrects a memory that concerns them; a moderator's correction is an edit.

        What the correction does depends on who asks (``correction_outcome`` has the whole table):
        the member who said it gets a new version — which stays in the moderators' review queue when
        the record was flagged, unverified or disputed, and becomes ``unverified`` when it is about
        someone else; the member it is about (someone else's account of them) contests it: their
        version waits beside it for a moderator, and only a record that was recallable becomes
        ``disputed``. Only a moderator clears a flag (confirm, reject, or a moderator's correction).
        A record that is no longer current (superseded, cancelled, expired, rejected) is not
        corrected by members; a record that does not concern the member is refused.
        ``session``: where the member asks from (a record shown there can be named). ``said_at`` and
        ``speaker_zone``: when and where a change of time was said in the thread ("改到周三吧"): its new
        deadline is read from there."""
        await self._enter(actor)
        value = value.strip()
        if not value:
            raise InvalidRequest("the correction is empty; write what it should say", "更正内容为空；请写出正确的内容")
        found = await self._find_to_correct(actor, ref, session)
        role = correction_role(actor, found)
        if role is None:
            raise PermissionDenied(
                "this memory is about other members, not you: you can only correct what you said or what "
                "is said about you; ask a moderator if it is wrong",
                "这条记忆与你无关：你只能更正你自己说的话或关于你的记录；如果它有误，请联系管理员")
        if role is not Role.MODERATOR and found.status in CLOSED_TO_MEMBERS:
            raise InvalidRequest(
                f"this memory is {found.status.value} and no longer recalled, so there is nothing to correct; "
                "ask a moderator if it should be looked at again",
                f"这条记忆的状态是 {found.status.value}，已不再被引用，无需更正；如需重新审核请联系管理员")
        zone = (await self.tenants.get(actor.tenant)).timezone  # a new deadline in the words is read again

        def correction(cur: Fact) -> Fact:
            outcome = correction_outcome(role, cur)
            if role is Role.MODERATOR:
                return self._new_version(cur, actor, value=value, status=outcome, confidence=Confidence.HIGH,
                                         contested=(), **reread_due(cur, value, zone, said_at=said_at, speaker_zone=speaker_zone))
            if role is Role.ASSERTER:
                # their own word on their own statement is sure; on anything in review it is not
                sure = cur.status not in REVIEW_STATUSES and not about_others(cur)
                confidence = Confidence.HIGH if sure else cur.confidence
                return self._new_version(cur, actor, value=value, asserted_by=actor.user_id, status=outcome,
                                         confidence=confidence, **reread_due(cur, value, zone, said_at=said_at, speaker_zone=speaker_zone))
            claim = HistoryEntry(version=cur.version, value=value, asserted_by=actor.user_id,
                                 status=FactStatus.DISPUTED, valid_from=utcnow(), valid_to=utcnow())
            return cur.model_copy(update={"status": outcome, "contested": (*cur.contested, claim)})

        fact, saved = await self._change(actor, found, correction)
        await self._log(actor, "memory.contest" if role is Role.SUBJECT else "memory.correct", fact.id,
                        reason=reason, users=fact.users, kind=fact.kind,
                        before={"value": fact.value, "status": fact.status.value},
                        after={"value": value, "status": saved.status.value})
        return saved

    async def _find_to_correct(self, actor: Actor, ref: str, session: str | None) -> Fact:
        """The record a correction names. A member naming a public record of someone else (by its
        full id, or from a session where it is shown) is told it is not theirs; a private record
        that does not concern them stays not found (its existence is not theirs to learn)."""
        try:
            return await self._find(actor, ref, session=session)
        except NotFound:
            if actor.is_moderator:
                raise
            exact = await self.memory.get(Scope(tenant=actor.tenant), ref.strip().lower()) \
                if is_uuid(ref.strip()) else None
            if exact is None or exact.visibility is not Visibility.PUBLIC:
                raise
            return exact

    async def request_erasure(self, actor: Actor, user: str | None = None) -> ErasureRequest:
        """Step one of erasing a member: what would go in the actor's tenant — only there — and a token
        to confirm it with (in the same tenant, by the same actor)."""
        await self._enter(actor)
        user = user or actor.user_id
        if user != actor.user_id:
            self._require(actor, "erase another member's data", "删除其他成员的数据")
        scope = Scope(tenant=actor.tenant, user=user)
        facts = await self.memory.store.count("facts", scope)
        summaries = await self.memory.store.count("summaries", scope)
        token = secrets.token_urlsafe(8)
        await self.redis.set(self._erase_key(actor, user), token, ex=ERASE_CONFIRM_SECONDS)
        return ErasureRequest(user=user, facts=facts, summaries=summaries, token=token, tenant=actor.tenant)

    @staticmethod
    def _erase_key(actor: Actor, user: str) -> str:
        return f"heyan:erase-confirm:{actor.tenant}:{actor.user_id}:{user}"

    async def confirm_erasure(self, actor: Actor, token: str, user: str | None = None) -> int:
        """Step two: erase every memory and summary about or from the member; returns how many."""
        return (await self.erase_member(actor, token, user)).records

    async def erase_member(self, actor: Actor, token: str, user: str | None = None) -> ErasureReport:
        """Step two, with what went per store: erase the member in the actor's tenant — only there —
        with the token ``request_erasure`` gave this actor in this tenant (a token from another
        tenant, or another actor's, is refused)."""
        await self._enter(actor)
        user = user or actor.user_id
        key = self._erase_key(actor, user)
        stored = await self.redis.get(key)
        expected = stored.decode() if isinstance(stored, bytes) else stored
        if not expected or not secrets.compare_digest(expected, token):
            raise InvalidRequest("that erasure confirmation has expired or does not match; ask again",
                                 "删除确认已过期或不匹配；请重新发起")
        await self.redis.delete(key)
        report = await self.erasure.erase(actor.tenant, user, request_id=token)
        await self._log(actor, "member.erase", user, users=[user], after=report.counts())
        return report

    async def commitments(
        self, actor: Actor, *, session: str | None = None, include_closed: bool = False
    ) -> list[Fact]:
        """Moderators: every commitment (of ``session`` if given). Members: their own and, in a
        session, that session's and the tenant's public ones. Open ones only unless ``include_closed``."""
        await self._enter(actor)
        statuses = frozenset() if include_closed else frozenset(s.value for s in OPEN_COMMITMENT)
        base = RecordFilter(kinds=frozenset({Kind.COMMITMENT.value}), statuses=statuses)
        scope = Scope(tenant=actor.tenant)
        if actor.is_moderator:
            facts = await self.memory.list_facts(scope.narrow(session=session), base)
        else:
            mine = await self.memory.list_facts(scope.narrow(user=actor.user_id), base)
            here: list[Fact] = []
            if session:
                here = await self.memory.list_facts(scope, RecordFilter(
                    kinds=base.kinds, statuses=base.statuses, visible_in=session))
            facts = list({f.id: f for f in (*mine, *here)}.values())
        far = datetime.max.replace(tzinfo=utcnow().tzinfo)
        return sorted(facts, key=lambda f: (f.due_at or far, f.id))

    async def commitment_done(self, actor: Actor, ref: str, reason: str = "", *, session: str | None = None,
                              at: datetime | None = None) -> Fact:
        """Mark a commitment done (its owner or a moderator): no follow-up will be sent. ``session``:
        where the actor asks from (its commitments can be named from there). ``at``: when it was done
        (the time of the message that said so; default now) — kept as ``done_at`` for the promise record."""
        await self._enter(actor)
        fact = await self._find(actor, ref, kind=Kind.COMMITMENT, session=session)
        if not (actor.is_moderator or actor.user_id == fact.subject):
            raise PermissionDenied("only its owner or a moderator can mark a commitment done",
                                   "只有承诺人本人或管理员可以标记完成")
        if fact.status is FactStatus.DONE:
            return fact
        done_at = at or utcnow()
        before, saved = await self._change(
            actor, fact, lambda cur: cur.model_copy(update={"status": FactStatus.DONE, "done_at": done_at}))
        await self._log(actor, "commitment.done", fact.id, reason=reason, users=fact.users,
                        before={"status": before.status.value}, after={"status": FactStatus.DONE.value})
        return saved

    async def commitment_snooze(
        self, actor: Actor, ref: str, until: datetime, reason: str = "", *, session: str | None = None
    ) -> Fact:
        """Move a commitment's due time (its owner or a moderator); the follow-up moves with it."""
        await self._enter(actor)
        if until.tzinfo is None:
            raise InvalidRequest("the new due time needs a timezone", "新的截止时间需要带时区")
        if until <= utcnow():
            raise InvalidRequest("the new due time is in the past; pick a later one", "新的截止时间已经过去；请选一个更晚的时间")
        latest = utcnow() + SNOOZE_HORIZON
        if until > latest:
            raise InvalidRequest(
                f"the new due time is more than {SNOOZE_HORIZON.days // 365} years away; pick one before "
                f"{latest:%Y-%m-%d}", f"新的截止时间超过 {SNOOZE_HORIZON.days // 365} 年之后；请选 {latest:%Y-%m-%d} 之前的时间")
        fact = await self._find(actor, ref, kind=Kind.COMMITMENT, session=session)
        if not (actor.is_moderator or actor.user_id == fact.subject):
            raise PermissionDenied("only its owner or a moderator can snooze a commitment",
                                   "只有承诺人本人或管理员可以推迟承诺")
        if fact.status not in OPEN_COMMITMENT:
            raise InvalidRequest(f"this commitment is {fact.status.value}; only open ones can be snoozed",
                                 f"这个承诺的状态是 {fact.status.value}；只能推迟未完成的承诺")
        _, saved = await self._change(actor, fact, lambda cur: self._new_version(
            cur, actor, due_at=until, status=FactStatus.ACTIVE, reminders_sent=()))
        await self._log(actor, "commitment.snooze", fact.id, reason=reason, users=fact.users,
                        before={"due_at": fact.due_at.isoformat() if fact.due_at else None},
                        after={"due_at": until.isoformat()})
        return saved

