"""Agreement cards through the moderation service: close a dispute with one, propose one when the stage
reaches "confirming agreement", and each participant's confirm or refusal.

A card is posted through the outbox and the dispute stays open until every participant confirms;
the last confirmation stores it as a ``consensus`` record and keeps its items' follow-ups. A card
whose records changed since it was posted is refused and re-posted; a refusal sends the stage back
to exploring options. Everything is audited (``card.*``, ``dispute.close``).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Literal

from bot.actors import Actor, InvalidRequest, NotFound, PermissionDenied
from bot.agreements.card import CONFIRM_ACTION, FOLLOWED, AgreementCard, build_card
from bot.agreements.card_votes import CardBook, CardState, CardVotes
from bot.delivery.outbox import Post, PostKind
from bot.delivery.reminders import reminder_post_id, schedule
from bot.models import Stage
from bot.moderation.base import ModerationBase
from bot.moderation.views import ClosedDispute
from bot.privacy.audit import SYSTEM
from bot.sessions import DisputeState, SessionInfo
from bot.summaries import summarize_session
from bot.text.richtext import Mention, RichText
from memory.models import OPEN_COMMITMENT, Confidence, Fact, Kind, Lang, Scope, Source, Visibility, utcnow
from memory.ports import RecordFilter

__all__ = ["CONFIRM_ACTION", "AgreementCards", "CardOutcome"]


@dataclass(frozen=True, slots=True)
class CardOutcome:
    """What a card request did: the card, where its confirmations stand, the dispute if it closed,
    and ``changed`` when memory moved on and a new card was posted instead."""

    card: AgreementCard
    votes: CardVotes | None = None
    closed: ClosedDispute | None = None
    changed: bool = False
    stored: Fact | None = None

    @property
    def state(self) -> str:
        if self.closed is not None:
            return "closed"
        return self.votes.state.value if self.votes is not None else "none"


class AgreementCards(ModerationBase):
    """The agreement card: build, close with it, confirm, refuse, propose."""

    @property
    def cards(self) -> CardBook:
        book: CardBook | None = getattr(self, "_cards", None)
        if book is None:
            book = CardBook(self.redis, cipher=self.sessions.cipher)
            self._cards = book
        return book

    async def build_agreement_card(self, tenant: str, session: str, *, now: datetime | None = None,
                                   lang: Lang | None = None) -> AgreementCard:
        """The card as memory says now (no permission check: callers check)."""
        now = now or utcnow()
        scope = Scope(tenant=tenant, session=session)
        facts = await self.memory.list_facts(scope, RecordFilter(alive_at=now))
        settings = await self.tenants.get(tenant)
        info = await self.sessions.get(tenant, session)
        summary = await self.memory.summary(scope)
        return build_card(facts, tenant=tenant, session=session, now=now, zone=settings.timezone, info=info,
                          summary=summary, lang=lang)

    async def agreement_card(self, actor: Actor, session: str, *, now: datetime | None = None) -> CardOutcome:
        """The session's card and its confirmations (moderators, the dispute's members and the card's
        participants)."""
        await self._enter(actor)
        card = await self.build_agreement_card(actor.tenant, session, now=now)
        info = await self.sessions.get(actor.tenant, session)
        members = set(info.members) if info else set()
        if not (actor.is_moderator or actor.user_id in card.participants or actor.user_id in members):
            raise PermissionDenied("only moderators and the people in this dispute can see its agreement card",
                                   "只有管理员和争议当事人可以查看协议卡")
        return CardOutcome(card, await self.cards.get(actor.tenant, session))

    async def dispute_close_card(self, actor: Actor, session: str, reason: str = "", *,
                                 now: datetime | None = None, force: bool = False) -> CardOutcome:
        """Close a dispute with its agreement card (its opener or a moderator). Nothing agreed and nothing
        promised: the card says so and the dispute closes; a card everyone already confirmed closes it at
        once; otherwise the card is posted and the dispute waits for every participant's confirmation.
        A moderator may close a thread that was never opened as a dispute: it is recorded as one, opened
        and closed by them.
        ``force`` (moderators only): close now without confirmations — the card is posted as what memory
        held, nothing is recorded as agreed and no follow-up is kept."""
        await self._enter(actor)
        info = await self.sessions.get(actor.tenant, session)
        if info is not None and info.state is DisputeState.CLOSED:
            raise InvalidRequest("this dispute is already closed; its agreement card is still there to see",
                                 "这个争议已经结束；仍可查看它的协议卡")
        if info is None or info.state is DisputeState.NONE:
            if not actor.is_moderator:
                raise NotFound("no open dispute in this thread", "这个话题里没有进行中的争议")
            if not await self.memory.list_facts(Scope(tenant=actor.tenant, session=session)) \
                    and not await self.window.turns(Scope(tenant=actor.tenant, session=session)):
                raise NotFound(f"Heyan holds nothing from {session}: check the thread id",
                               f"和言没有关于 {session} 的任何记录：请检查话题 id")
            info = await self._implicit_dispute(actor, session, info, now)
        if not (actor.is_moderator or actor.user_id == info.opened_by):
            raise PermissionDenied("only whoever opened this dispute or a moderator can close it",
                                   "只有发起人或管理员可以结束这个争议")
        if force:
            self._require(actor, "close a dispute without the parties' confirmation", "不经当事人确认就结束争议")
        card = await self.build_agreement_card(actor.tenant, session, now=now)
        votes = await self.cards.get(actor.tenant, session)
        if force:
            closed = await self._close(actor, info, reason, card, keep=frozenset())
            await self._post_card(card, origin="forced", ask=False)
            return CardOutcome(card, votes, closed)
        if not card.agreed or (votes is not None and votes.card_id == card.id and votes.state is CardState.CONFIRMED):
            closed = await self._close(actor, info, reason, card, keep=_open_items(card))
            await self._post_card(card, origin="closed", ask=False)
            return CardOutcome(card, votes, closed)
        votes = await self._propose(actor, card, origin="close", reason=reason)
        return CardOutcome(card, votes)

    async def _implicit_dispute(self, actor: Actor, session: str, info: SessionInfo | None,
                                now: datetime | None) -> SessionInfo:
        card = await self.build_agreement_card(actor.tenant, session, now=now)
        visibility = info.visibility if info else Visibility.PUBLIC
        opened = await self.sessions.open(actor.tenant, session, title=session, opened_by=actor.user_id,
                                          members=list(card.participants), visibility=visibility)
        # it began with its first message Heyan holds, not now
        scope = Scope(tenant=actor.tenant, session=session)
        said = [m.ts for m in await self.window.recent(scope)]
        said += [s.ts for f in await self.memory.list_facts(scope) for s in f.sources]
        if said:
            opened = await self.sessions.put(replace(opened, opened_at=min(said)))
        await self._log(actor, "dispute.open", session, users=opened.members,
                        after={"title": session, "implicit": True, "members": list(opened.members)})
        return opened

    async def propose_card(self, tenant: str, session: str, *, now: datetime | None = None) -> CardOutcome | None:
        """The stage reached "confirming agreement": post the card for confirmation, once per card.
        None when nothing was agreed yet or this card is already proposed or decided."""
        card = await self.build_agreement_card(tenant, session, now=now)
        if not card.decision:
            return None
        votes = await self.cards.get(tenant, session)
        if votes is not None and votes.card_id == card.id:
            return None
        system = Actor(tenant=tenant, user_id=SYSTEM, name="Heyan", lang=card.lang, unlimited=True)
        return CardOutcome(card, await self._propose(system, card, origin="stage"))

    async def _propose(self, actor: Actor, card: AgreementCard, *, origin: Literal["close", "stage"],
                       reason: str = "") -> CardVotes:
        votes = await self.cards.propose(card.tenant, card.session, card.id, origin=origin,
                                         participants=tuple(card.participants), proposed_by=actor.user_id,
                                         reason=reason)
        await self._post_card(card, origin=f"{origin}-{int(votes.proposed_at.timestamp())}", ask=True)
        await self._log(actor, "card.propose", card.session, reason=reason, users=list(card.participants),
                        after={"card": card.id, "origin": origin, "sources": list(card.sources())})
        return votes

    async def _post_card(self, card: AgreementCard, *, origin: str, ask: bool) -> None:
        ref = {"card": card.id, "session": card.session}
        if ask:
            ref["action"] = CONFIRM_ACTION
        await self.outbox.append(Post(id=f"card:{card.tenant}:{card.session}:{card.id}:{origin}", tenant=card.tenant,
                                      session=card.session, body=card.body(ask=ask), kind=PostKind.NOTICE,
                                      lang=card.lang, ref=ref))

    async def _current_votes(self, actor: Actor, session: str, card_ref: str | None) -> CardVotes:
        votes = await self.cards.get(actor.tenant, session)
        if votes is None or votes.finalized:
            raise NotFound("there is no agreement card waiting for confirmation here",
                           "这里没有等待确认的协议卡")
        if card_ref and not votes.card_id.startswith(card_ref.strip().lower()):
            raise InvalidRequest("that card was replaced by a newer one; look at the latest card posted here",
                                 "这张协议卡已被新的取代；请查看这里最新发布的协议卡")
        if votes.state is CardState.REFUSED:
            raise InvalidRequest("this card was refused, so the dispute stays open; a new card will be proposed when "
                                 "the parties agree again", "这张协议卡已被拒绝，争议继续；各方重新达成一致后会再提出新的协议卡")
        if actor.user_id not in votes.participants:
            raise PermissionDenied("only the people the card names confirm it, each for themself",
                                   "只有协议卡上列出的当事人可以确认，而且只能为自己确认")
        return votes

    async def card_confirm(self, actor: Actor, session: str, card_ref: str | None = None, *,
                           now: datetime | None = None) -> CardOutcome:
        """A participant confirms the card waiting in ``session`` (``card_ref``: the id the button
        carried, to refuse a stale one)."""
        await self._enter(actor)
        votes = await self._current_votes(actor, session, card_ref)
        card = await self.build_agreement_card(actor.tenant, session, now=now)
        if card.id != votes.card_id:
            # memory moved on since the card was posted: what they would confirm is not what it says
            fresh = await self._propose(actor, card, origin=votes.origin, reason=votes.reason) if card.agreed \
                else None
            return CardOutcome(card, fresh, changed=True)
        if await self.cards.vote(actor.tenant, session, card.id, actor.user_id, "confirmed") is not True:
            raise InvalidRequest("this card was already decided", "这张协议卡已经有结果了")
        await self._log(actor, "card.confirm", session, users=[actor.user_id], after={"card": card.id})
        now_votes = await self.cards.get(actor.tenant, session)
        if now_votes is None or now_votes.state is not CardState.CONFIRMED \
                or not await self.cards.finalize(actor.tenant, session, card.id):
            return CardOutcome(card, now_votes)
        return await self._agreed(actor, card, now_votes)

    async def _agreed(self, actor: Actor, card: AgreementCard, votes: CardVotes) -> CardOutcome:
        """Everyone confirmed: remember the card, keep its items followed up, close if asked to."""
        info = await self.sessions.get(card.tenant, card.session)
        stored = await self._remember_card(card, info)
        keep = _open_items(card)
        for fact in await self.memory.get_many(Scope(tenant=card.tenant), sorted(keep)):
            # the close withdrew every follow-up of the session; the card's items are followed up again
            await schedule(self.scheduler, fact, lead_seconds=self.jobs.reminder_lead_seconds,
                           no_due_followup_seconds=self.jobs.no_due_followup_seconds)
        system = Actor(tenant=card.tenant, user_id=SYSTEM, name="Heyan", lang=card.lang, unlimited=True)
        await self._log(system, "card.agreed", card.session, users=list(card.participants),
                        after={"card": card.id, "record": stored.id if stored else None, "items": sorted(keep)})
        zh = card.lang == "zh"
        closing = votes.origin == "close" and info is not None and info.is_open
        text = ("所有当事人都确认了协议卡，已记录为共识" + ("，争议到此结束" if closing else "")
                + ("；我会按时跟进每一项。" if keep else "。") if zh else
                "Everyone confirmed the agreement card; it is recorded as agreed"
                + (" and the dispute is closed" if closing else "")
                + ("; I will follow up on each item when it is due." if keep else "."))
        await self.outbox.append(Post(id=f"card-agreed:{card.tenant}:{card.session}:{card.id}", tenant=card.tenant,
                                      session=card.session, body=RichText.of(text),
                                      kind=PostKind.DISPUTE_CLOSED if closing else PostKind.NOTICE,
                                      lang=card.lang, ref={"card": card.id}))
        closed = None
        if closing and info is not None:
            closer = Actor(tenant=card.tenant, user_id=votes.proposed_by, name="", lang=card.lang, unlimited=True,
                           capabilities=actor.capabilities if actor.user_id == votes.proposed_by else frozenset())
            closed = await self._close(closer, info, votes.reason, card, keep=keep)
        return CardOutcome(card, await self.cards.get(card.tenant, card.session), closed, stored=stored)

    async def _remember_card(self, card: AgreementCard, info: SessionInfo | None) -> Fact | None:
        """The card as a consensus record: every party in ``users``, its decision and items as the
        value, the records' own sources as its sources."""
        cited = await self.memory.get_many(Scope(tenant=card.tenant), list(card.sources()))
        sources: list[Source] = []
        for fact in cited:
            if fact.kind in (Kind.CONSENSUS, Kind.COMMITMENT) and fact.sources:
                sources.append(fact.sources[0])
        lines = [d.text for d in card.decision]
        for item in card.items:
            lines.append(f"{item.owner_name}: {item.action}" if card.lang == "en" else f"{item.owner_name}：{item.action}")
        if not lines:
            return None
        label = "协议卡" if card.lang == "zh" else "agreement card"
        record = Fact(
            tenant=card.tenant, session=card.session, kind=Kind.CONSENSUS, subject=f"card:{card.session}",
            subject_name=label, attribute=label, value=("；" if card.lang == "zh" else "; ").join(lines),
            sources=tuple(sources), asserted_by=SYSTEM, confidence=Confidence.HIGH, lang=card.lang,
            users=tuple(card.participants), slot=f"card:{card.id}",
            visibility=info.visibility if info is not None else Visibility.PUBLIC,
        )
        result = await self.memory.remember([record])
        return result.outcomes[0].fact if result.outcomes else None

    async def card_refuse(self, actor: Actor, session: str, reason: str = "", card_ref: str | None = None) -> CardOutcome:
        """A participant refuses the card: recorded and posted; the dispute stays open."""
        await self._enter(actor)
        votes = await self._current_votes(actor, session, card_ref)
        reason = " ".join(reason.split())
        if await self.cards.vote(actor.tenant, session, votes.card_id, actor.user_id, "refused") is not True:
            raise InvalidRequest("this card was already decided", "这张协议卡已经有结果了")
        await self._log(actor, "card.refuse", session, reason=reason, users=[actor.user_id],
                        after={"card": votes.card_id})
        await self.stages.set(Scope(tenant=actor.tenant, session=session), Stage.EXPLORING.value)
        card = await self.build_agreement_card(actor.tenant, session)
        zh = card.lang == "zh"
        said = (f"理由：“{reason}”。" if zh else f" Their reason: “{reason}”.") if reason else ""
        body = RichText.of(Mention(actor.user_id, card.participants.get(actor.user_id) or actor.display),
                           (f" 没有确认协议卡。{said}争议继续进行，大家可以接着讨论。" if zh else
                            f" did not confirm the agreement card.{said} The dispute stays open; let's keep talking."))
        digest = hashlib.blake2b(f"{actor.user_id}:{votes.proposed_at.isoformat()}".encode(), digest_size=6).hexdigest()
        await self.outbox.append(Post(id=f"card-refused:{actor.tenant}:{session}:{votes.card_id}:{digest}",
                                      tenant=actor.tenant, session=session, body=body, kind=PostKind.NOTICE,
                                      lang=card.lang, ref={"card": votes.card_id}))
        return CardOutcome(card, await self.cards.get(actor.tenant, session))

    async def _close(self, actor: Actor, info: SessionInfo, reason: str, card: AgreementCard,
                     *, keep: frozenset[str]) -> ClosedDispute:
        """Close the dispute: the summary written, follow-ups cancelled except the confirmed card's items
        (kept in ``SessionInfo.extra["followed"]``, which the reminder job and reconciliation honour)."""
        scope = Scope(tenant=info.tenant, session=info.session)
        summary = await summarize_session(self.window, self.memory, self.provider, scope)
        if keep:
            info = replace(info, extra={**info.extra, FOLLOWED: " ".join(sorted(keep))})
        closed = await self.sessions.close(info, closed_by=actor.user_id, reason=reason)
        others = [f for f in await self.memory.list_facts(scope, RecordFilter(kinds=frozenset({Kind.COMMITMENT.value})))
                  if f.id not in keep]
        # every version's follow-up of the others (an older version's post may still wait)
        ids = frozenset(reminder_post_id(f.model_copy(update={"version": v})) for f in others
                        for v in range(1, f.version + 1))
        cancelled = await self.outbox.cancel(info.tenant, info.session, frozenset({PostKind.REMINDER}),
                                             ids=ids) if ids else 0
        await self._log(actor, "dispute.close", info.session, reason=reason, users=info.members,
                        after={"summary": summary.id if summary else None, "cancelled_followups": cancelled,
                               "card": card.id, "followed": sorted(keep)})
        return ClosedDispute(closed, summary, cancelled)


def _open_items(card: AgreementCard) -> frozenset[str]:
    """The commitments a card keeps following up: its items not done yet."""
    return frozenset(i.commitment for i in card.items if i.status in OPEN_COMMITMENT)
