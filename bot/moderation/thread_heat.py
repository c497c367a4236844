"""Disputes and their temperature, for moderators: the tenant's disputes (open first, then recently
closed, with threads that crossed the alert threshold), each with its timeline (``bot.disputes.heat``), and
one thread in detail (names, open commitments, stage, card state) for the web console's Disputes.

Moderators only: a timeline says who ran hot when. It holds ids and numbers; names come from
``bot.text.names``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from bot.actors import Actor, NotFound
from bot.agreements.card_votes import CardBook, CardVotes
from bot.disputes.escalation import THRESHOLD, cool
from bot.disputes.heat import HeatBook, HeatPoint
from bot.moderation.base import ModerationBase
from bot.sessions import DisputeState, SessionInfo
from bot.text.names import NameBook
from memory.models import Fact, Scope

__all__ = ["CLOSED_DAYS", "MOST_DISPUTES", "DisputeBoard", "DisputeDetail", "ThreadHeat"]

#: A closed dispute stays on the board this many days after it closed.
CLOSED_DAYS = 30.0
#: Most threads the board lists (open ones come first, so they are never the ones left out).
MOST_DISPUTES = 200


@dataclass(frozen=True, slots=True)
class ThreadHeat:
    """A thread (a dispute, or one that ran hot without being opened as one) and its temperature.
    ``now``: the last point's temperature cooled to the service clock's now (what a next message
    would add to); ``names``: user id → latest display name, for its members and the points' authors;
    ``recorded``: the user ids the community holds records of (a member page exists for them)."""

    info: SessionInfo
    points: tuple[HeatPoint, ...]
    now: float
    threshold: float = THRESHOLD
    names: Mapping[str, str] = field(default_factory=dict)
    recorded: frozenset[str] = frozenset()

    @property
    def session(self) -> str:
        return self.info.session

    @property
    def peak(self) -> float:
        return max((p.temperature for p in self.points), default=0.0)

    @property
    def last_at(self) -> datetime | None:
        return self.points[-1].at if self.points else None

    @property
    def crossings(self) -> int:
        """Points at or above the alert threshold."""
        return sum(1 for p in self.points if p.temperature >= self.threshold)

    def name(self, user: str) -> str:
        return self.names.get(user) or user


@dataclass(frozen=True, slots=True)
class DisputeDetail:
    """One thread for the moderators: its temperature, stage, open commitments and card (None: none proposed)."""

    heat: ThreadHeat
    stage: str
    open_commitments: tuple[Fact, ...]
    card: CardVotes | None


def _cooled(points: list[HeatPoint], now: datetime) -> float:
    """The last point's temperature, cooled from its time to ``now``."""
    return cool(points[-1].temperature, (now - points[-1].at).total_seconds()) if points else 0.0


@dataclass(frozen=True, slots=True)
class _People:
    names: dict[str, str]
    recorded: frozenset[str]


def _heat(info: SessionInfo, points: list[HeatPoint], now: datetime, people: _People) -> ThreadHeat:
    return ThreadHeat(info=info, points=tuple(points), now=_cooled(points, now), names=people.names,
                      recorded=people.recorded)


class DisputeBoard(ModerationBase):
    """The community's disputes with their temperature, and one thread's in full."""

    async def _people(self, tenant: str, sessions: Iterable[str]) -> _People:
        """Everyone's latest name in the community (its records), and the authors of these threads'
        recent messages (someone who said nothing memorable yet)."""
        utterances = []
        for session in sessions:
            utterances += [m.utterance() for m in await self.window.recent(Scope(tenant=tenant, session=session))]
        facts = await self.memory.list_facts(Scope(tenant=tenant))
        return _People(NameBook.of(facts, utterances).names(), frozenset(u for f in facts for u in f.users))

    async def dispute_board(self, actor: Actor, *, closed_days: float = CLOSED_DAYS,
                            limit: int = MOST_DISPUTES) -> list[ThreadHeat]:
        """Open disputes (hottest now first), threads that crossed the alert threshold without being
        opened as a dispute (latest first), then disputes closed in the last ``closed_days`` days
        (latest first); at most ``limit``."""
        await self._enter(actor)
        self._require(actor, "see the community's disputes", "查看社区的争议")
        now = self.memory.clock()
        sessions = [s for s in await self.sessions.tenant_sessions(actor.tenant) if s.tenant == actor.tenant]
        timelines = await HeatBook(self.redis).timelines(actor.tenant, [s.session for s in sessions])
        since = now - timedelta(days=closed_days)
        far = datetime.min.replace(tzinfo=now.tzinfo)

        def latest(info: SessionInfo) -> datetime:
            points = timelines.get(info.session)
            return points[-1].at if points else info.opened_at or far

        opened = sorted((i for i in sessions if i.state is DisputeState.OPEN),
                        key=lambda i: (_cooled(timelines.get(i.session, []), now), latest(i)), reverse=True)
        hot = sorted((i for i in sessions if i.state is DisputeState.NONE
                      and any(p.temperature >= THRESHOLD for p in timelines.get(i.session, []))),
                     key=latest, reverse=True)
        closed = sorted((i for i in sessions if i.state is DisputeState.CLOSED and i.closed_at is not None
                         and i.closed_at >= since), key=lambda i: i.closed_at or far, reverse=True)
        chosen = [*opened, *hot, *closed][:max(0, limit)]
        people = await self._people(actor.tenant, [i.session for i in chosen])
        return [_heat(i, timelines.get(i.session, []), now, people) for i in chosen]

    async def dispute_heat(self, actor: Actor, session: str) -> DisputeDetail:
        """One thread's temperature timeline with names, its stage, open commitments and card state.
        NotFound when Heyan knows nothing of the thread."""
        await self._enter(actor)
        self._require(actor, "see a thread's temperature", "查看线程的温度")
        scope = Scope(tenant=actor.tenant, session=session)
        info = await self.sessions.get(actor.tenant, session)
        points = await HeatBook(self.redis).timeline(scope)
        if info is None and not points:
            raise NotFound(f"Heyan knows no thread {session} in this community; check the thread id",
                           f"和言在这个社区里不知道话题 {session}；请检查话题 id")
        info = info or SessionInfo(tenant=actor.tenant, session=session)
        heat = _heat(info, points, self.memory.clock(), await self._people(actor.tenant, [session]))
        card = await CardBook(self.redis, cipher=self.sessions.cipher).get(actor.tenant, session)
        return DisputeDetail(heat=heat, stage=await self.stages.get(scope) or "gathering",
                             open_commitments=tuple(await self.memory.open_commitments(scope)), card=card)
