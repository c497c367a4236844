"""Disputes: opening one in a thread (its opening message goes through the outbox), its status and
summary, and closing it (the summary written, pending follow-ups cancelled)."""

from __future__ import annotations

from collections.abc import Sequence

from bot.actors import Actor, InvalidRequest, NotFound, PermissionDenied
from bot.delivery.outbox import Post, PostKind
from bot.moderation.base import ModerationBase
from bot.moderation.views import ClosedDispute, DisputeStatus
from bot.sessions import SessionInfo
from bot.summaries import summarize_session
from bot.text.richtext import Mention, RichText
from memory.models import (
    Scope,
    Summary,
    Visibility,
    utcnow,
)

__all__ = ["Disputes"]


class Disputes(ModerationBase):
    """Disputes: open, status, summary, close."""

    async def dispute_open(
        self, actor: Actor, session: str, *, title: str, members: Sequence[Mention] = (),
        visibility: Visibility = Visibility.PUBLIC, announce: bool = True, channel: str | None = None,
    ) -> SessionInfo:
        """Open a dispute in ``session`` (a thread the platform created); the opening message is
        posted through the outbox, mentioning the members. ``channel`` is where it opens (a thread's
        parent channel), checked against the community's ``dispute_channels``; a community that set
        ``dispute_openers`` to moderators refuses everyone else."""
        await self._enter(actor)
        await self._check_dispute_place(actor, channel)
        title = " ".join(title.split())
        if not title:
            raise InvalidRequest("a dispute needs a title", "争议需要一个标题")
        current = await self.sessions.get(actor.tenant, session)
        if current is not None and current.is_open:
            raise InvalidRequest(f"a dispute is already open here: {current.title}", f"这里已有进行中的争议：{current.title}")
        info = await self.sessions.open(actor.tenant, session, title=title, opened_by=actor.user_id,
                                        members=[m.user_id for m in members], visibility=visibility)
        await self._log(actor, "dispute.open", session, users=info.members,
                        after={"title": title, "visibility": visibility.value, "members": list(info.members)})
        if announce:
            await self.outbox.append(self._opening(actor, info, members))
        return info

    @staticmethod
    def _opening(actor: Actor, info: SessionInfo, members: Sequence[Mention]) -> Post:
        """The opening message: the title, the members by mention, and what Heyan will do."""
        names: list[str | Mention] = []
        for i, m in enumerate(members):
            names += [("、" if actor.lang == "zh" else ", ")] if i else []
            names.append(m)
        if actor.lang == "zh":
            text = RichText.of(f"这里开启了一个争议：{info.title}。", *names, *(["，"] if names else []),
                               "请各自说说发生了什么、希望怎样解决。我会记下每个人的说法、诉求和承诺，到时跟进；"
                               "随时 @我 问我记得什么。")
        else:
            text = RichText.of(f"A dispute was opened here: {info.title}. ", *names, *([": "] if names else []),
                               "please each say what happened and what would resolve it for you. I will keep "
                               "track of what each of you says, wants and promises, and follow up; mention me "
                               "any time to ask what I remember.")
        stamp = int((info.opened_at or utcnow()).timestamp())
        return Post(id=f"dispute-open:{info.tenant}:{info.session}:{stamp}", tenant=info.tenant,
                    session=info.session, body=text, kind=PostKind.DISPUTE_OPENED, lang=actor.lang)

    async def dispute_status(self, actor: Actor, session: str) -> DisputeStatus:
        await self._enter(actor)
        scope = Scope(tenant=actor.tenant, session=session)
        info = await self.sessions.get(actor.tenant, session)
        commitments = await self.memory.open_commitments(Scope(tenant=actor.tenant), visible_in=session)
        return DisputeStatus(
            tenant=actor.tenant, session=session, info=info, stage=await self.stages.get(scope) or "gathering",
            turns=await self.window.turns(scope), open_commitments=tuple(commitments),
            summary=await self.memory.summary(scope),
        )

    async def dispute_summary(self, actor: Actor, session: str, *, refresh: bool = True) -> Summary | None:
        """The session's summary, brought up to date from its recent messages first."""
        await self._enter(actor)
        scope = Scope(tenant=actor.tenant, session=session)
        if refresh:
            fresh = await summarize_session(self.window, self.memory, self.provider, scope)
            if fresh is not None:
                return fresh
        return await self.memory.summary(scope)

    async def dispute_close(self, actor: Actor, session: str, reason: str = "") -> ClosedDispute:
        """Close the dispute (its opener or a moderator): the summary is written and pending
        follow-ups of the session are cancelled."""
        await self._enter(actor)
        info = await self.sessions.get(actor.tenant, session)
        if info is None or not info.is_open:
            raise NotFound("no open dispute in this thread", "这个话题里没有进行中的争议")
        if not (actor.is_moderator or actor.user_id == info.opened_by):
            raise PermissionDenied("only whoever opened this dispute or a moderator can close it",
                                   "只有发起人或管理员可以结束这个争议")
        summary = await summarize_session(self.window, self.memory, self.provider,
                                          Scope(tenant=actor.tenant, session=session))
        closed = await self.sessions.close(info, closed_by=actor.user_id, reason=reason)
        cancelled = await self.outbox.cancel(actor.tenant, session, frozenset({PostKind.REMINDER}))
        await self._log(actor, "dispute.close", session, reason=reason, users=info.members,
                        after={"summary": summary.id if summary else None, "cancelled_followups": cancelled})
        return ClosedDispute(closed, summary, cancelled)

    async def check_dispute_place(self, actor: Actor, channel: str | None) -> None:
        """``dispute_open``'s policy check on its own, for a platform that must create the place
        (a thread) before it can open the dispute there: refused before anything is made."""
        await self._check_dispute_place(actor, channel)

    async def _check_dispute_place(self, actor: Actor, channel: str | None) -> None:
        """Refuse to open a dispute where the community does not allow it: ``dispute_openers`` =
        moderators and the actor is not one, or ``dispute_channels`` set and ``channel`` (where the
        dispute would open; a thread's parent channel) is not among them. Moderators may open
        anywhere."""
        settings = await self.tenants.get(actor.tenant)
        if actor.is_moderator:
            return
        if settings.dispute_openers == "moderators":
            hint = f" ({actor.moderator_hint})" if actor.moderator_hint else ""
            raise PermissionDenied(f"in this community only moderators open disputes{hint}; ask one of them",
                                   f"本社区只有管理员可以发起争议{hint}；请联系管理员")
        if settings.dispute_channels and (channel is None or channel not in settings.dispute_channels):
            raise PermissionDenied(
                "disputes can't be opened in this channel here; use one of the channels the moderators set "
                "for disputes", "本社区不能在这个频道发起争议；请到管理员指定的争议频道发起")
