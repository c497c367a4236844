"""The stored records that may answer a question, with the lines they came from.

Not a turn's recall: a question about promises or agreements takes every record of its kinds that may
be shown in the session (its own, and the public ones of the people named), ranked by hybrid search
(``Found.topical``); ``bot.offline.answers`` decides which answer, by owner, recipient and topic.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from bot.answering.model import answered_line
from bot.answering.question import Ask, Question
from bot.conversation.log import MessageLog
from memory.models import RECALLABLE, Fact, Kind, Scope
from memory.ports import RecordFilter
from memory.service import MemoryService

__all__ = ["MAX_RECORDS", "Found", "RecordFinder", "kinds_for", "together"]

#: Records read per question at most (the latest kept): an answer names five and counts the rest.
MAX_RECORDS = 400
#: Records the hybrid search ranks on the question's words.
TOPICAL_K = 12

_PROMISES = frozenset({Kind.COMMITMENT, Kind.CONSENSUS})
_KINDS: dict[Ask, frozenset[Kind]] = {
    Ask.PROMISES: _PROMISES, Ask.OPEN: _PROMISES, Ask.OVERDUE: _PROMISES, Ask.AGREED: _PROMISES,
    Ask.WANTS: frozenset({Kind.DEMAND}), Ask.FEELINGS: frozenset({Kind.EMOTION}),
    Ask.RECORDS: frozenset({Kind.COMMITMENT, Kind.CONSENSUS, Kind.EVENT, Kind.DEMAND}),
}


def kinds_for(ask: Ask) -> frozenset[Kind]:
    """The kinds of record a question of this intent is answered from (empty: every kind)."""
    return _KINDS.get(ask, frozenset())


@dataclass(frozen=True, slots=True)
class Found:
    """The records that may answer a question, and the whole lines of their sources."""

    facts: list[Fact]
    #: Source message id → the line as said (from the conversation log, while it holds it).
    lines: dict[str, str] = field(default_factory=dict)
    #: Ids of the records the hybrid search ranked on the question's words, best first.
    topical: list[str] = field(default_factory=list)


def together(ranked: Sequence[str], facts: Sequence[Fact]) -> list[str]:
    """``ranked`` with every yes and no to the same line right after the first of them ranked: an
    agreement is told with all its parties, and a prompt budget keeps or drops them as one."""
    answers: dict[str, list[str]] = {}
    line_of: dict[str, str] = {}
    for fact in facts:
        if fact.kind is Kind.CONSENSUS and (line := answered_line(fact)):
            answers.setdefault(line, []).append(fact.id)
            line_of[fact.id] = line
    out: list[str] = []
    for fid in ranked:
        for same in answers.get(line_of[fid], [fid]) if fid in line_of else [fid]:
            if same not in out:
                out.append(same)
    return out


class RecordFinder:
    """Looks up the records a question asks about, for the engine."""

    def __init__(self, memory: MemoryService, log: MessageLog) -> None:
        self.memory = memory
        self.log = log

    async def session_records(self, session: Scope) -> list[Fact]:
        """Every recallable record of the session (whose names the question may use)."""
        flt = RecordFilter(statuses=frozenset(s.value for s in RECALLABLE), alive_at=self.memory.clock())
        return await self.memory.list_facts(session, flt)

    async def find(self, question: Question, session: Scope, held: Sequence[Fact] = ()) -> Found:
        """The records of the question's kinds in ``session`` (``held``: the session's records, read
        already), and the public ones of the people it names or asks about as promised to."""
        assert session.session is not None
        if question.parts:  # a compound question: what each of its questions finds, in turn
            found = [await self.find(part, session, held) for part in question.parts]
            return Found(list({f.id: f for one in found for f in one.facts}.values()),
                         {k: v for one in found for k, v in one.lines.items()},
                         list(dict.fromkeys(fid for one in found for fid in one.topical)))
        kinds = kinds_for(question.ask)
        mine = [f for f in held if not kinds or f.kind in kinds]
        people = frozenset((*question.people, *((question.recipient,) if question.recipient else ())))
        statuses = frozenset(s.value for s in RECALLABLE)
        wide: list[Fact] = []
        if people:
            flt = RecordFilter(kinds=frozenset(k.value for k in kinds), statuses=statuses, subjects=people,
                               visible_in=session.session, alive_at=self.memory.clock())
            wide = await self.memory.list_facts(Scope(tenant=session.tenant), flt)
        seen: set[str] = set()
        facts: list[Fact] = []
        for fact in (*mine, *wide):
            if fact.id not in seen:
                seen.add(fact.id)
                facts.append(fact)
        facts = facts[-MAX_RECORDS:]
        topical: list[str] = []
        if question.text.strip() and len(facts) > 1:
            ranked = await self.memory.retriever.search(
                Scope(tenant=session.tenant), [question.text],
                RecordFilter(ids=frozenset(f.id for f in facts), visible_in=session.session), k=TOPICAL_K)
            topical = together([s.fact.id for s in ranked], facts)
        return Found(facts, await self.lines(session, facts), topical)

    async def lines(self, session: Scope, facts: Sequence[Fact]) -> dict[str, str]:
        """The whole lines the records' sources were said in, while the log holds them."""
        ids = list(dict.fromkeys(s.message_id for f in facts for s in f.sources))
        out: dict[str, str] = {}
        for scope in {Scope(tenant=session.tenant, session=f.session) for f in facts if f.session}:
            for msg in await self.log.get_many(scope, ids):
                out.setdefault(msg.id, msg.text)
        return out
