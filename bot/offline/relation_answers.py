"""Answers from relations: "who else had a similar problem (with X)?" and "what do we know about X?".

From what recall brought (``memory.recall.hops``): SIMILAR names the other members who complained about what
the question (or else the asker's complaints) names; ABOUT gives the relations naming X, those one hop
on, and the facts whose words name X, each cited with its speaker and day.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from bot.offline.questions import Question
from bot.offline.templates import cite_fact, format_date, join_items, relation_phrase, said_on
from bot.text.names import NameBook
from memory.models import Fact, Kind, Lang
from memory.recall.relations import COMPLAINED, entity_name

__all__ = ["MAX_ITEMS", "ask_about", "ask_similar"]

#: Items named in one answer; the rest are counted ("and 3 more").
MAX_ITEMS = 5
_NONE_SIMILAR: dict[Lang, str] = {"en": "I have no record of anyone else with that problem.",
                                  "zh": "我没有其他人遇到这个问题的记录。"}
_NONE_ABOUT: dict[Lang, str] = {"en": "I have no record of that.", "zh": "我没有这方面的记录。"}


class _Reader(Protocol):
    """What an answer needs of its context (``answers._Ctx``): names, language, zone, asker."""

    @property
    def names(self) -> NameBook: ...
    @property
    def lang(self) -> Lang: ...
    @property
    def tz(self) -> str: ...
    @property
    def reader(self) -> str: ...


def _ends(fact: Fact) -> tuple[str, str]:
    """A relation's subject and object as relations match them: member ids, else names."""
    return fact.subject, fact.target


def _said(fact: Fact) -> str:
    return entity_name(" ".join((fact.value, fact.subject_name, *(s.quote for s in fact.sources))))


def _quote(fact: Fact) -> str:
    return fact.sources[0].quote if fact.sources else fact.value


def ask_similar(q: Question, ctx: _Reader, pool: Sequence[Fact]) -> str:
    """Who else complained about what the question names, or what the asker complained about."""
    relations = [f for f in pool if f.kind is Kind.RELATION and f.attribute in COMPLAINED]
    things = {entity_name(q.entity)} - {""}
    if not things:
        things = {f.target for f in relations if f.subject == ctx.reader}
    theirs = [f for f in relations if f.subject != ctx.reader and (f.target in things or any(
        t and (t in f.target or f.target in t) for t in things))]
    if not theirs and things:  # no relation says it: their own words about the thing
        theirs = [f for f in pool if f.kind is not Kind.RELATION and f.asserted_by != ctx.reader
                  and any(t in _said(f) for t in things)]
    theirs = sorted(theirs, key=said_on, reverse=True)
    if not theirs:
        return _NONE_SIMILAR[ctx.lang]
    names = ctx.names
    people = list(dict.fromkeys(names.name(f.subject if f.kind is Kind.RELATION else f.asserted_by, f.subject_name)
                                for f in theirs))
    thing = q.entity.strip() or next((f.value for f in theirs if f.kind is Kind.RELATION), "")
    lines = [_said_line(f, ctx) for f in theirs[:MAX_ITEMS]]
    more = len(theirs) - MAX_ITEMS
    if ctx.lang == "zh":
        lead = f"{'、'.join(people)}也遇到过{thing}的问题：" if thing else f"{'、'.join(people)}也遇到过类似的问题："
        return lead + join_items(lines, "zh", more=more) + "。"
    who = join_items(people, "en")
    lead = f"{who} also had a problem with {thing}: " if thing else f"{who} also had a similar problem: "
    return lead + join_items(lines, "en", more=more) + "."


def ask_about(q: Question, ctx: _Reader, pool: Sequence[Fact]) -> str:
    """What the record holds about the thing or member the question names, one hop through relations."""
    keys = {entity_name(q.entity)} - {""}
    keys |= set(q.people)
    if not keys:
        return _NONE_ABOUT[ctx.lang]
    relations = [f for f in pool if f.kind is Kind.RELATION]
    direct = [f for f in relations if keys & set(_ends(f))]
    near = {end for f in direct for end in _ends(f) if end not in keys and end not in f.users}
    hop = [f for f in relations if f not in direct and near & set(_ends(f))]
    named = [f for f in pool if f.kind is not Kind.RELATION and (
        any(k in _said(f) for k in keys if k not in q.people) or f.subject in q.people)]
    cited = {s.message_id for f in (*direct, *hop) for s in f.sources}
    named = [f for f in named if not {s.message_id for s in f.sources} <= cited]
    items = [*sorted(direct, key=said_on), *sorted(hop, key=said_on), *sorted(named, key=said_on, reverse=True)]
    if not items:
        return _NONE_ABOUT[ctx.lang]
    lines = [_said_line(f, ctx) for f in items[:MAX_ITEMS]]
    thing = q.entity.strip() or ", ".join(ctx.names.name(p) for p in q.people)
    body = join_items(lines, ctx.lang, more=len(items) - MAX_ITEMS)
    if ctx.lang == "zh":
        return f"关于{thing}：{body}。"
    return f"About {thing}: {body[:1].upper()}{body[1:]}."


def _said_line(fact: Fact, ctx: _Reader) -> str:
    """One item: a relation as its speaker said it, with its words; another fact as ``cite_fact``."""
    names = ctx.names
    if fact.kind is not Kind.RELATION:
        return cite_fact(fact, names, ctx.tz, ctx.lang, reader=ctx.reader)
    day = format_date(said_on(fact), ctx.tz, ctx.lang)
    speaker = names.name(fact.asserted_by, fact.sources[0].author_name if fact.sources else "")
    phrase, quote = relation_phrase(fact, names, ctx.lang), _quote(fact)
    # the relation after the words only when they do not already say it as plainly
    same = entity_name(phrase).replace(" ", "") in entity_name(quote).replace(" ", "")
    if ctx.lang == "zh":
        return f"{day}，{speaker}说：“{quote}”" + ("" if same else f"（{phrase}）")
    return f"on {day}, {speaker} said “{quote}”" + ("" if same else f" ({phrase})")
