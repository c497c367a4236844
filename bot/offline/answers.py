"""Answers to questions about the record: who promised what and by when, what was agreed, what each
side wants, what is still open or overdue, what someone said about something, how people feel.

``answer`` answers what ``read_question`` read from the recalled facts, the listed open commitments and
relations (``bot.offline.relation_answers``): one or two sentences naming who and when, each item once,
up to ``MAX_ITEMS`` and "and N more", or "I have no record of that". An overview only when asked for.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from bot.answering.model import Answer, AnswerItem, answered_line
from bot.llm.base import ReplyRequest
from bot.offline.answer_items import (
    agreement_items,
    is_reply,
    promise_item_of,
    proposer_of,
    reply_item,
    to_recipient,
)
from bot.offline.lexicon import MONEY
from bot.offline.questions import CJK_RUN, EN_WORD, GLOSSARY, PROMISE_WORD, Ask, Question, stem
from bot.offline.relation_answers import ask_about, ask_similar
from bot.offline.templates import cite_fact, content, format_date, join_items, render_answer, said_on
from bot.text.catalog import say
from bot.text.names import NameBook
from memory.models import OPEN_COMMITMENT, Fact, FactStatus, Kind, Lang

__all__ = ["MAX_ITEMS", "NO_RECORD", "NO_RECORD_LEADS", "answer", "records_answer"]

#: Items named in one answer; the rest are counted ("and 3 more").
MAX_ITEMS = 5
NO_RECORD: dict[Lang, str] = {"en": "I have no record of that.", "zh": "我没有这方面的记录。"}
#: How every answer that finds no matching record begins ("I have no record of a promise Tom made to you.").
NO_RECORD_LEADS = ("I have no record of", "我没有")
#: Share of a question's topic words a fact must contain to be about it.
_EN_TOPIC_SHARE = 0.6
_ZH_TOPIC_SHARE = 0.5


# --- answering -----------------------------------------------------------------------------------------


#: The question words that ask about a sum of money (a record that names one, ``lexicon.MONEY``, holds it).
_MONEY_EN = frozenset({"payment", "pay", "paid", "money", "transfer", "share", "fee", "cash", "sum", "amount", "owe", "owed"})
_MONEY_ZH = frozenset({"份钱", "到账", "打款", "转账", "钱到"})


def _said(fact: Fact) -> str:
    """What was said: the value, its condition and the quotes (not the attribute, an extractor's label)."""
    return " ".join((fact.value, fact.condition, *(s.quote for s in fact.sources))).casefold()


def _text_of(fact: Fact) -> str:
    return f"{_said(fact)} {fact.attribute.casefold()}"


def _topic_shares(fact: Fact, q: Question, lines: Mapping[str, str] | None = None) -> tuple[float, float, bool]:
    """How much of the question's topic the fact (its words, or the lines it came from) holds: the share
    of its English topic words (or their ``GLOSSARY`` translation), the share of its Chinese character
    pairs, and whether an English word the glossary gives for its Chinese topic is there."""
    text = _text_of(fact)
    if lines:
        text += " " + " ".join(lines.get(s.message_id, "") for s in fact.sources).casefold()
    stems = {stem(w) for w in EN_WORD.findall(text)}
    sum_ = MONEY.search(text) is not None  # "payment", "到账" ask about a sum: a record that names one holds it
    held = sum(1 for t in q.topic if t in stems or any(z in text for z in GLOSSARY.get(t, ())) or (sum_ and t in _MONEY_EN))
    en = held / len(q.topic) if q.topic else 0.0
    zh = sum(1 for b in q.zh_topic if b in text or (sum_ and b in _MONEY_ZH)) / len(q.zh_topic) if q.zh_topic else 0.0
    zh_run = "".join(q.zh_topic)
    bridged = bool(q.zh_topic) and any(e in stems for e, zs in GLOSSARY.items() if any(z in zh_run for z in zs))
    return en, zh, bridged


def _topic_hits(fact: Fact, q: Question, lines: Mapping[str, str] | None = None) -> float:
    """The larger share of the question's topic the fact holds (1 when the question has no topic)."""
    if not q.topic and not q.zh_topic:
        return 1.0
    en, zh, _ = _topic_shares(fact, q, lines)
    return max(en, zh)


def _closest(facts: Sequence[Fact], q: Question, ctx: _Ctx) -> tuple[list[Fact], bool]:
    """The facts on the question's topic (``_on_topic``); else those holding the most of it; else all of
    them, the hybrid search's best first, and False (none is about the topic)."""
    lines = ctx.request.lines
    on_topic = [f for f in facts if _on_topic(f, q, lines)]
    if on_topic:
        return on_topic, True
    hits = {f.id: _topic_hits(f, q, lines) for f in facts}
    best = max(hits.values(), default=0.0)
    # "who promised to repaint the fence?" is not "trim the hedge on the fence": one shared word ranks
    # only someone's records, or what was agreed or is open
    words = len(q.topic) + len(q.zh_topic)
    if best > 0 and words >= 2 and (q.people or q.recipient or q.ask is not Ask.PROMISES or best * words >= 2):
        return _ranked([f for f in facts if hits[f.id] == best], ctx), True
    return _ranked(facts, ctx), False


def _ranked(facts: Sequence[Fact], ctx: _Ctx) -> list[Fact]:
    """``facts`` in the order the hybrid search ranked them on the question's words (the rest after)."""
    rank = {fid: i for i, fid in enumerate(ctx.request.topical)}
    return sorted(facts, key=lambda f: rank.get(f.id, len(rank)))


def _on_topic(fact: Fact, q: Question, lines: Mapping[str, str] | None = None) -> bool:
    """Does the fact concern the question's topic: most English topic words ("repaint the fence" is not
    "trim … the fence"), half the Chinese character pairs (no word breaks), or their glossary word?"""
    if not q.topic and not q.zh_topic:
        return True
    en, zh, bridged = _topic_shares(fact, q, lines)
    return (bool(q.topic) and en >= _EN_TOPIC_SHARE) or (bool(q.zh_topic) and zh >= _ZH_TOPIC_SHARE) or bridged


def _other_language(fact: Fact, q: Question) -> bool:
    """A fact said in the language the question's topic words are not in: they cannot be compared."""
    text = _said(fact)
    if q.topic and not q.zh_topic:
        return not re.search(r"[a-z]{3}", text)
    if q.zh_topic and not q.topic:
        return not CJK_RUN.search(text)
    return False


def _pool(request: ReplyRequest) -> list[Fact]:
    """Recalled facts and open commitments, each statement once."""
    seen_ids: set[str] = set()
    seen: set[tuple[str, str, str]] = set()
    out: list[Fact] = []
    for fact in request.records or (*request.open_commitments, *request.facts):
        key = (fact.subject, fact.kind.value, " ".join(fact.value.casefold().split()))
        if (fact.id and fact.id in seen_ids) or key in seen:
            continue
        seen_ids.add(fact.id)
        seen.add(key)
        out.append(fact)
    return out


@dataclass(frozen=True, slots=True)
class _Ctx:
    request: ReplyRequest
    names: NameBook
    lang: Lang
    now: datetime

    @property
    def tz(self) -> str:
        return self.request.timezone

    @property
    def reader(self) -> str:
        """Who asks: the one a promise's "you" stays "you" for, when it was made to them."""
        return self.request.turn.author_id


def answer(q: Question, request: ReplyRequest, names: NameBook, lang: Lang) -> str:
    """The answer to ``q`` from what ``request`` holds, in ``lang``."""
    ctx = _Ctx(request, names, lang, request.turn.ts)
    if q.unclear:  # a name that fits two members: asked about, never guessed
        return _to_answer(q, ctx, [])
    said = _ANSWERS[q.ask](q, ctx, _pool(request))
    if said.startswith(NO_RECORD_LEADS) and q.ask in _OTHER_KINDS and (q.topic or q.zh_topic):
        # nothing of that kind on the topic: the records of other kinds its words find, before "no record"
        # a promise named by its deed ("who promised to repaint the fence?") must hold two of its words
        strict = q.ask is Ask.PROMISES and PROMISE_WORD.search(q.text) is not None
        return records_answer(q, request, names, lang, loose=_OTHER_KINDS[q.ask] if strict else None) or said
    return said


def _by(q: Question, facts: Sequence[Fact], *, asserted: bool = False) -> list[Fact]:
    """Facts of the people the question names (their own, or what they said), on its topic.

    When nothing matches the topic and the question names people, their facts said in the other
    language count ("what did 张伟 say about the invoice?" may concern words the glossary lacks)."""
    if q.people:
        facts = [f for f in facts if (f.asserted_by if asserted else f.subject) in q.people]
    on_topic = [f for f in facts if _on_topic(f, q)]
    if on_topic or not q.people:
        return on_topic
    return [f for f in facts if _other_language(f, q)]


def _promise_order(now: datetime) -> Callable[[Fact], tuple[int, float]]:
    def key(f: Fact) -> tuple[int, float]:
        rank = 2 if f.status is FactStatus.DONE else 1 if f.status not in OPEN_COMMITMENT else 0
        return rank, f.due_at.timestamp() if f.due_at else float("inf")

    return key


def _to_answer(q: Question, ctx: _Ctx, items: Sequence[AnswerItem], *, hidden: int = 0,
               missed_topic: str = "") -> str:
    """The items (the first ``MAX_ITEMS``, the rest counted) worded in the asker's language."""
    owners = tuple(ctx.names.name(p) for p in q.people)
    unclear = tuple((said, tuple(ctx.names.name(u) for u in users)) for said, users in q.unclear)
    shown = tuple(items[:MAX_ITEMS])
    more = max(0, len(items) - MAX_ITEMS + hidden)
    reply = Answer(ask=q.ask, lang=ctx.lang, zone=ctx.tz, now=ctx.now, items=shown, more=more, owners=owners,
                   to_asker=q.recipient == ctx.reader, missed_topic=missed_topic if shown else "", unclear=unclear)
    return render_answer(reply, ctx.reader)


def _topic_words(q: Question) -> str:
    return " ".join((*q.topic, *q.zh_topic[:1])) if q.topic else "".join(q.zh_topic[:1])


#: A thing named by a pronoun: what it is was said in another line.
_POINTS_BACK = re.compile(r"\b(?:it|them|that|this|these|those)\b|它|这个|那个", re.IGNORECASE)


def _promise_items(q: Question, ctx: _Ctx, pool: Sequence[Fact], *, statuses: frozenset[FactStatus] | None = None,
                   ) -> tuple[list[AnswerItem], str]:
    """Promises (and, when the question names whose or to whom, the replies to requests) that answer
    ``q``, soonest due first; and the topic words no record matched, when the items are the others."""
    promised = [f for f in pool if f.kind is Kind.COMMITMENT]
    if statuses is not None:
        promised = [f for f in promised if f.status_at(ctx.now) in statuses]
    replies = [f for f in pool if is_reply(f)] if (q.people or q.recipient) and statuses is None else []
    if q.people:
        promised = [f for f in promised if f.subject in q.people]
        replies = [f for f in replies if f.subject in q.people]
    if q.recipient is not None:
        promised = [f for f in promised if to_recipient(f, q.recipient, ctx.names)]
        replies = [f for f in replies if to_recipient(f, q.recipient, ctx.names)]
    missed = ""
    ordered = False
    if q.topic or q.zh_topic:
        close, found = _closest([*promised, *replies], q, ctx)
        if found:
            ids = {f.id for f in close}
            promised = [f for f in promised if f.id in ids]
            replies = [f for f in replies if f.id in ids]
        elif not (q.people or q.recipient or q.ask in (Ask.OPEN, Ask.OVERDUE)):
            promised, replies = [], []  # "who promised to fix the shower?": no record
        elif promised or replies:  # theirs, or what is open: all of them, the closest first, saying so
            missed, ordered = _topic_words(q), True
            if q.people and all(_POINTS_BACK.search(f.value) for f in [*promised, *replies]):
                missed = ""  # "when is Dana restoring my post?" — Dana's "restore it" may well be it
            rank = {f.id: i for i, f in enumerate(close)}
            promised = sorted(promised, key=lambda f: rank[f.id])
    if not ordered:
        promised = sorted(promised, key=_promise_order(ctx.now))
    lines = ctx.request.lines
    items = [promise_item_of(f, ctx.now, ctx.reader, ctx.names, lines) for f in promised]
    items += [reply_item(f, ctx.names, lines) for f in sorted(replies, key=said_on)]
    return items, missed


def _ask_promises(q: Question, ctx: _Ctx, pool: Sequence[Fact]) -> str:
    items, missed = _promise_items(q, ctx, pool)
    hidden = _hidden(ctx) if not q.narrowed else 0
    return _to_answer(q, ctx, items, hidden=hidden, missed_topic=missed)


def _hidden(ctx: _Ctx) -> int:
    """Open commitments the engine counted but left out of the request (the token budget)."""
    if ctx.request.records:
        return 0  # every record the question matched is there
    total = ctx.request.open_commitments_total
    return max(0, (total or 0) - len(ctx.request.open_commitments))


def _ask_open(q: Question, ctx: _Ctx, pool: Sequence[Fact], *, overdue_only: bool = False) -> str:
    wanted = frozenset({FactStatus.OVERDUE}) if overdue_only else frozenset({FactStatus.ACTIVE, FactStatus.OVERDUE})
    items, missed = _promise_items(q, ctx, [f for f in pool if f.status in OPEN_COMMITMENT or is_reply(f)],
                                   statuses=wanted)
    if not items and not q.unclear:
        if overdue_only:
            return "没有逾期未完成的承诺。" if ctx.lang == "zh" else "Nothing is overdue."
        return NO_RECORD[ctx.lang]
    hidden = 0 if overdue_only or q.narrowed else _hidden(ctx)
    return _to_answer(q, ctx, items, hidden=hidden, missed_topic=missed)


def _cited(q: Question, ctx: _Ctx, facts: Sequence[Fact]) -> str:
    if not facts:
        return NO_RECORD[ctx.lang]
    lines = [cite_fact(f, ctx.names, ctx.tz, ctx.lang, ctx.now, reader=ctx.reader) for f in facts[:MAX_ITEMS]]
    lines = lines[:1] + [re.sub(r"^On ", "on ", line) for line in lines[1:]]  # one sentence: "…; on 4 Nov, …"
    end = "。" if ctx.lang == "zh" else "."
    return join_items(lines, ctx.lang, more=len(facts) - MAX_ITEMS) + end


def _latest_first(facts: Sequence[Fact]) -> list[Fact]:
    return sorted(facts, key=said_on, reverse=True)


def _parties(facts: Sequence[Fact]) -> list[Fact]:
    """Agreements with every party as a subject: one that Bob proposed and Ann agreed to answers
    "what did Bob agree to?" as well as "what did Ann agree to?"."""
    return [f.model_copy(update={"subject": party}) for f in facts
            for party in dict.fromkeys((f.subject, *(s.author_id for s in f.sources)))]


#: A question asking who ("谁同意了…？", "who agreed to …?").
_ASKS_WHO = re.compile(r"谁|\bwho\b", re.IGNORECASE)


def _ask_agreed(q: Question, ctx: _Ctx, pool: Sequence[Fact]) -> str:
    """Agreements, one per proposal with every party; those of the people named, on the topic."""
    consensus = [f for f in pool if f.kind is Kind.CONSENSUS and f.attribute not in ("refuses", "拒绝")]
    if q.people:
        # "谁同意了新群规？阿杰同意了吗？" when 阿杰 is no party: the agreements and who is, which shows he is not
        consensus = [f for f in consensus if {f.subject, *(p[0] for p in [proposer_of(f)] if p)} & set(q.people)] \
            or (consensus if _ASKS_WHO.search(q.text) else [])
    missed = ""
    rank: dict[str, int] = {}
    if q.topic or q.zh_topic:
        close, found = _closest(consensus, q, ctx)
        if found:
            # with every yes to the lines they answer: "who agreed to the ABC rules?" names the party who
            # said "三条我都同意" too
            lines = {answered_line(f) for f in close} - {""}
            consensus = [f for f in consensus if f in close or answered_line(f) in lines]
        elif consensus:
            missed = _topic_words(q)
            rank = {f.id: i for i, f in enumerate(close)}
    if consensus:
        noes = [f for f in pool if f.kind is Kind.CONSENSUS and f.attribute in ("refuses", "拒绝")]
        items = agreement_items(sorted(consensus, key=said_on), ctx.names, ctx.request.lines, noes)
        items = sorted(items, key=lambda i: i.said_at, reverse=True)
        if rank:  # none is about the topic: the hybrid search's closest first
            items = sorted(items, key=lambda i: min((rank.get(fid, len(rank)) for fid in i.fact_ids), default=len(rank)))
        agreed = _to_answer(q, ctx, items, missed_topic=missed)
        if not PROMISE_WORD.search(q.text):
            return agreed
        # "what did we agree and who promised what?": both halves answered
        promised, _ = _promise_items(replace(q, recipient=None), ctx, [f for f in pool if f.kind is Kind.COMMITMENT])
        if not promised:
            return agreed
        lead = "目前的承诺：" if ctx.lang == "zh" else "What has been promised: "
        return f"{agreed}{'' if ctx.lang == 'zh' else ' '}{lead}{_to_answer(q, ctx, promised)}"
    if q.unclear:
        return _to_answer(q, ctx, [])
    none = "我还没有记录到双方达成的共识。" if ctx.lang == "zh" else "I have no record of an agreement yet."
    promised, _ = _promise_items(replace(q, recipient=None), ctx, [f for f in pool if f.kind is Kind.COMMITMENT])
    if not promised:
        return none
    lead = "目前的承诺：" if ctx.lang == "zh" else "What has been promised: "
    return f"{none}{'' if ctx.lang == 'zh' else ' '}{lead}{_to_answer(q, ctx, promised)}"


def _ask_wants(q: Question, ctx: _Ctx, pool: Sequence[Fact]) -> str:
    wants = _by(q, _latest_first([f for f in pool if f.kind is Kind.DEMAND]))
    if not wants:
        return NO_RECORD[ctx.lang]
    items = []
    for f in wants[:MAX_ITEMS]:
        who, day = ctx.names.name(f.subject, f.subject_name), format_date(said_on(f), ctx.tz, ctx.lang)
        value = content(f.value, ctx.lang)
        items.append(f"{who}希望{value}（{day}）" if ctx.lang == "zh" else f"{who} wants {value} (said {day})")
    end = "。" if ctx.lang == "zh" else "."
    return join_items(items, ctx.lang, more=len(wants) - MAX_ITEMS) + end


def _ask_said(q: Question, ctx: _Ctx, pool: Sequence[Fact]) -> str:
    found = _by(q, _latest_first(pool), asserted=True)
    if found or not q.people or not (q.topic or q.zh_topic):
        return _cited(q, ctx, found)
    # "陈姐说退款那事是怎么说的？" when no record of hers says "退款": what she said, the closest first, saying so
    theirs = [f for f in pool if f.asserted_by in q.people]
    if not theirs:
        return NO_RECORD[ctx.lang]
    closest = sorted(theirs, key=lambda f: (-_topic_hits(f, q, ctx.request.lines), -said_on(f).timestamp()))
    return say(ctx.lang, "answer:missed_topic", topic=_topic_words(q)) + _cited(q, ctx, closest)


def _ask_feelings(q: Question, ctx: _Ctx, pool: Sequence[Fact]) -> str:
    return _cited(q, ctx, _by(q, _latest_first([f for f in pool if f.kind is Kind.EMOTION])))


def _ask_overview(q: Question, ctx: _Ctx, pool: Sequence[Fact]) -> str:
    """The whole picture, when one is asked for: agreements and other facts, promises, wishes."""
    zh = ctx.lang == "zh"
    parts = ["目前的情况：" if zh else "Here is where things stand:"]
    others = _latest_first([f for f in pool if f.kind not in (Kind.COMMITMENT, Kind.DEMAND)])
    if others:
        parts.append(_cited(q, ctx, others))
    promised = sorted([f for f in pool if f.kind is Kind.COMMITMENT], key=_promise_order(ctx.now))
    if promised:
        items = [promise_item_of(f, ctx.now, ctx.reader, ctx.names, ctx.request.lines) for f in promised]
        parts.append(_to_answer(q, ctx, items, hidden=_hidden(ctx)))
    if any(f.kind is Kind.DEMAND for f in pool):
        parts.append(_ask_wants(Question(Ask.WANTS), ctx, pool))
    summary = ctx.request.summary
    if len(parts) == 1 and summary is not None and summary.text.strip():
        parts.append(("上次的小结：" if zh else "Last summary: ") + content(" ".join(summary.text.split())[:200], ctx.lang))
    if len(parts) == 1:
        return NO_RECORD[ctx.lang]
    return ("\n" if len(parts) > 2 else " ").join(parts)


#: Records a question in words no intent knows is answered with at most.
_RECORDS_SHOWN = 3


#: The kinds a question of each intent falls back to when none of its own kind holds its topic (a promise
#: asked for by its deed must then hold two of its topic words: "who promised to repaint the fence?" is not
#: "trim the hedge on the fence"; "who's fixing the leg sheet?" may be anyone's record of it).
_OTHER_KINDS = {Ask.PROMISES: (Kind.CONSENSUS, Kind.EVENT, Kind.DEMAND), Ask.OPEN: (Kind.CONSENSUS, Kind.EVENT, Kind.DEMAND),
                Ask.AGREED: (Kind.COMMITMENT, Kind.EVENT, Kind.DEMAND)}


def records_answer(q: Question, request: ReplyRequest, names: NameBook, lang: Lang,
                   loose: tuple[Kind, ...] | None = None) -> str | None:
    """The answer to a question no intent knows (``Ask.RECORDS``) from the records its words find —
    promises, agreements, events, wishes, of the people it names — the most on topic and the hybrid
    search's best first; None when no record holds any of its words (small talk, or no record)."""
    ctx = _Ctx(request, names, lang, request.turn.ts)
    pool = [f for f in _pool(request) if f.kind in (Kind.COMMITMENT, Kind.CONSENSUS, Kind.EVENT, Kind.DEMAND)]
    if q.people:
        pool = [f for f in pool if f.subject in q.people or ((p := proposer_of(f)) is not None and p[0] in q.people)]
    if q.recipient is not None:
        pool = [f for f in pool if f.kind is not Kind.COMMITMENT or to_recipient(f, q.recipient, names)]
    hits = {f.id: _topic_hits(f, q, request.lines) for f in pool}
    if loose is not None:  # of the kind already asked about: two topic words, not one
        words = len(q.topic) + len(q.zh_topic)
        kind = {f.id: f.kind for f in pool}
        hits = {fid: h for fid, h in hits.items() if h * words >= 2 or kind[fid] in loose}
    if not q.topic and not q.zh_topic:
        hits = {fid: 1.0 for fid in hits} if q.people or q.recipient else {}
    pool = [f for f in _ranked(pool, ctx) if hits.get(f.id, 0.0) > 0]
    if not pool:
        return None
    best = max(hits[f.id] for f in pool)
    chosen = [f for f in pool if hits[f.id] >= best - 1e-9][:_RECORDS_SHOWN]
    promises = [f for f in chosen if f.kind is Kind.COMMITMENT]
    agreed = [f for f in chosen if f.kind is Kind.CONSENSUS]
    items = [promise_item_of(f, ctx.now, ctx.reader, names, request.lines) for f in promises]
    items += agreement_items(sorted(agreed, key=said_on), names, request.lines)
    parts = [_to_answer(q, ctx, items)] if items else []
    others = [f for f in chosen if f.kind not in (Kind.COMMITMENT, Kind.CONSENSUS)]
    if others:
        parts.append(_cited(q, ctx, others))
    return " ".join(parts)


def _ask_records(q: Question, ctx: _Ctx, pool: Sequence[Fact]) -> str:
    return records_answer(q, ctx.request, ctx.names, ctx.lang) or NO_RECORD[ctx.lang]


_ANSWERS: dict[Ask, Callable[[Question, _Ctx, Sequence[Fact]], str]] = {
    Ask.SAID: _ask_said,
    Ask.SIMILAR: ask_similar,
    Ask.ABOUT: ask_about,
    Ask.OVERDUE: lambda q, c, p: _ask_open(q, c, p, overdue_only=True),
    Ask.OPEN: _ask_open,
    Ask.PROMISES: _ask_promises,
    Ask.AGREED: _ask_agreed,
    Ask.WANTS: _ask_wants,
    Ask.FEELINGS: _ask_feelings,
    Ask.OVERVIEW: _ask_overview,
    Ask.RECORDS: _ask_records,
}
