"""What a moderator console needs beyond the chat surfaces: searching a tenant's memory, one member's
records, and the commitments board with kept / overdue counts per week (``people`` has the tenants
and members by name).

Same rules as every other method of the service: they need ``Capability.MODERATE``; refusals are
``ModerationError``s and change nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta

from bot.actors import Actor, InvalidRequest, NotFound
from bot.moderation.base import ModerationBase
from bot.moderation.views import commitment_status
from bot.privacy.audit import AuditEntry
from bot.text.names import NameBook
from memory.models import OPEN_COMMITMENT, Fact, FactStatus, Kind, Scope
from memory.ports import RecordFilter

__all__ = ["MAX_QUERY_CHARS", "CommitmentBoard", "MemberRecords", "Overview", "WeekTally"]

#: A search query longer than this is refused: recall reads queries of a sentence or two, and an
#: unbounded one would cost an embedding of the whole text for nothing.
MAX_QUERY_CHARS = 500
#: Most hits one search returns.
MAX_SEARCH_HITS = 200


@dataclass(frozen=True, slots=True)
class WeekTally:
    """Commitments due in the week starting ``start`` (a Monday, UTC): kept (done) and overdue."""

    start: date
    kept: int
    overdue: int


@dataclass(frozen=True, slots=True)
class CommitmentBoard:
    """A tenant's commitments by where they stand, and kept / overdue per week of their due date
    (an undated one counts in the week it was made), oldest week first."""

    open: tuple[Fact, ...]
    overdue: tuple[Fact, ...]
    done: tuple[Fact, ...]
    weeks: tuple[WeekTally, ...]


@dataclass(frozen=True, slots=True)
class MemberRecords:
    """What Heyan holds about or from one member of a tenant, and the audit entries concerning them."""

    user: str
    name: str
    facts: tuple[Fact, ...]
    summaries: int
    audit: tuple[AuditEntry, ...]


def _monday(day: date) -> date:
    return day - timedelta(days=day.weekday())


class Overview(ModerationBase):
    """Tenants, search, a member's records, the commitments board and the tenant's settings."""

    async def memory_search(
        self, actor: Actor, query: str, *, kind: Kind | None = None, status: FactStatus | None = None,
        user: str | None = None, session: str | None = None, limit: int = 50,
    ) -> list[Fact]:
        """Memories matching ``query`` (hybrid dense + BM25, as recall searches), best first, of
        every status (a moderator looks for rejected and flagged records too)."""
        await self._enter(actor)
        self._require(actor, "search memories", "搜索记忆")
        query = " ".join(query.split())
        if len(query) > MAX_QUERY_CHARS:
            raise InvalidRequest(
                f"the search is {len(query)} characters long; shorten it to at most {MAX_QUERY_CHARS}",
                f"搜索内容有 {len(query)} 个字符；请缩短到 {MAX_QUERY_CHARS} 个字符以内")
        if not query:
            raise InvalidRequest("the search is empty; type a few words", "搜索内容为空；请输入几个词")
        flt = RecordFilter(kinds=frozenset({kind.value}) if kind else frozenset(),
                           statuses=frozenset({status.value}) if status else frozenset())
        hits = await self.memory.retriever.search(Scope(tenant=actor.tenant, session=session, user=user), [query],
                                                  flt, k=max(1, min(limit, MAX_SEARCH_HITS)), include_inactive=True)
        return [h.fact for h in hits]

    async def member_records(self, actor: Actor, user: str, *, audit_limit: int = 100) -> MemberRecords:
        """Everything held about or from ``user`` here, with the audit entries concerning them.
        NotFound when the tenant holds nothing of theirs (an id from another tenant, a typo)."""
        await self._enter(actor)
        self._require(actor, "see a member's records", "查看成员的记录")
        scope = Scope(tenant=actor.tenant, user=user)
        facts = await self.memory.list_facts(scope)
        summaries = await self.memory.store.count("summaries", scope)
        entries = await self.audit.entries(actor.tenant, user=user, limit=audit_limit)
        if not (facts or summaries or entries):
            raise NotFound(f"nobody with the id {user} has records in this community",
                           f"这个社区里没有 id 为 {user} 的成员的记录")
        name = NameBook.of(facts).name(user)
        return MemberRecords(user=user, name=name, facts=tuple(facts), summaries=summaries, audit=tuple(entries))

    async def commitment_board(self, actor: Actor, *, weeks: int = 8) -> CommitmentBoard:
        """Every commitment of the tenant: open, overdue, done, and the last ``weeks`` weeks' tallies."""
        await self._enter(actor)
        self._require(actor, "see every commitment", "查看所有承诺")
        facts = await self.memory.list_facts(Scope(tenant=actor.tenant),
                                             RecordFilter(kinds=frozenset({Kind.COMMITMENT.value})))
        now = self.memory.clock()
        due = [f for f in facts if f.status in OPEN_COMMITMENT]
        overdue = [f for f in due if commitment_status(f, now) == "overdue"]  # read from the clock
        ids = {f.id for f in overdue}
        done = [f for f in facts if f.status is FactStatus.DONE]
        this_week = _monday(now.date())
        starts = [this_week - timedelta(weeks=i) for i in range(max(1, weeks) - 1, -1, -1)]
        kept = dict.fromkeys(starts, 0)
        late = dict.fromkeys(starts, 0)
        for f in (*done, *overdue):
            week = _monday((f.due_at or f.created_at).date())
            tally = kept if f.status is FactStatus.DONE else late
            if week in tally:
                tally[week] += 1
        far = datetime.max.replace(tzinfo=now.tzinfo)

        def order(f: Fact) -> tuple[datetime, str]:
            return (f.due_at or far, f.id)

        return CommitmentBoard(
            open=tuple(sorted((f for f in due if f.id not in ids), key=order)),
            overdue=tuple(sorted(overdue, key=order)),
            done=tuple(sorted(done, key=order, reverse=True)),
            weeks=tuple(WeekTally(s, kept[s], late[s]) for s in starts),
        )
