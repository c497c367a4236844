"""How the offline mediator words what it remembers: dates, people, promises and cited facts.

Replies are language-pure: templates in the asker's language, a value in the other language quoted as
said, emotions translated through the lexicon, one name per person (``bot.text.names``), times with their
zone (``bot.text.clock``), a promise's "you" retold (``bot.offline.perspective``). The four-section summary
layout lives here too: the offline summarizer writes it and replies read it back.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime

from bot.answering.model import Answer, AnswerItem, ItemKind, ItemStatus
from bot.offline import lexicon as lx
from bot.offline.answer_items import agreed_words, promise_item_of
from bot.text.catalog import say
from bot.text.clock import show_day, show_due
from bot.text.lang import detect_lang
from bot.text.names import NameBook
from bot.text.verbs import never_a_verb
from memory.models import Fact, FactStatus, Kind, Lang

__all__ = [
    "SECTIONS",
    "cite_fact",
    "content",
    "format_date",
    "format_due",
    "is_structured",
    "join_items",
    "parse_summary",
    "relation_phrase",
    "render_answer",
    "render_summary",
    "said_on",
]

_REFUSES = frozenset({"refuses", "拒绝"})
# Words that open a verb phrase poorly: "promised to From tonight on, …" reads better quoted.
_NOT_A_VERB_WORDS = (
    "no not never from starting every the a an my our your his her their it this that there going it's "
    "i i'll we"
)
_NOT_A_VERB = frozenset(_NOT_A_VERB_WORDS.split())
_EN_PERSPECTIVE = (
    (re.compile(r"\bmyself\b"), "themselves"),
    (re.compile(r"\bmy\b"), "their"),
    (re.compile(r"\bme\b"), "them"),
    (re.compile(r"\bI'm\b"), "they're"),
    (re.compile(r"\bI\b"), "they"),
)

#: Summary section keys and their headings; the order is the order they are written in.
SECTIONS: dict[str, dict[str, str]] = {
    "issues": {"zh": "争议要点", "en": "Issues"},
    "agreed": {"zh": "已达成", "en": "Agreed"},
    "differences": {"zh": "分歧", "en": "Open differences"},
    "next": {"zh": "下一步", "en": "Next steps"},
}
_NONE = {"zh": "（暂无）", "en": "(none yet)"}


def format_date(when: datetime, tz: str, lang: Lang) -> str:
    """A day in the zone shown (``bot.text.clock.show_day``): "11月3日" / "3 Nov"."""
    return show_day(when, tz, lang)


def format_due(when: datetime, tz: str, lang: Lang) -> str:
    """A due time with weekday and zone (``bot.text.clock.show_due``): "Fri 5 Dec 15:00 (UTC)" /
    "12月5日周五 15:00（UTC）"; the end of a day without the hour."""
    return show_due(when, tz, lang)


def said_on(fact: Fact) -> datetime:
    """When the fact was said: its source message's time."""
    return fact.sources[0].ts if fact.sources else fact.valid_from


def content(text: str, lang: Lang) -> str:
    """A remembered value inside a reply: as is in the reply's language, quoted when in the other."""
    text = text.strip()
    if detect_lang(text, default=lang) == lang:
        return text
    return f"“{text}”"


def join_items(items: Sequence[str], lang: Lang, *, more: int = 0) -> str:
    """ "a; b; and 3 more" / "a；b；还有3条"."""
    parts = list(items)
    if more > 0:
        parts.append(f"还有{more}条" if lang == "zh" else f"and {more} more")
    return ("；" if lang == "zh" else "; ").join(parts)


def _who(fact: Fact, names: NameBook) -> str:
    return names.name(fact.subject, fact.subject_name or fact.subject)


def _speaker(fact: Fact, names: NameBook) -> str:
    source = next((s for s in fact.sources if s.author_id == fact.asserted_by), None)
    return names.name(fact.asserted_by, source.author_name if source else fact.asserted_by)


def _feeling(value: str, lang: Lang) -> str:
    emotion = lx.emotion_named(value)
    return emotion.label(lang) if emotion is not None else content(value, lang)


def _verb_phrase(text: str) -> bool:
    """Does English ``text`` read as an action ("split the bill") rather than a clause ("Vex keeps it")?"""
    words = text.split()
    return bool(words) and detect_lang(text, default="en") == "en" and words[0][:1].islower() \
        and words[0].lower() not in _NOT_A_VERB and not never_a_verb(words[0].strip(",.;:!?"))


#: A clause's subject before its verb: "everyone gets their 20 back", "it goes in the post".
_SUBJECT = re.compile(r"^(?:everyone|everybody|each(?:\s+of\s+\w+)?|all\s+of\s+\w+|both|someone|somebody|nobody|no\s+one"
                      r"|we|they|he|she|it|you|i|that|this)\s+[a-z]", re.IGNORECASE)


def _promised(action: str) -> str:
    """What follows "promised": "to <verb phrase>", "that <clause>", or the words as they are ("€900 by Monday")."""
    if _verb_phrase(action):
        return f"to {_en_action(action)}"
    if _SUBJECT.match(action):
        return f"that {_en_action(action)}"
    return content(_en_action(action) if detect_lang(action, default="en") == "en" else action, "en")


def _en_action(action: str) -> str:
    for pattern, replacement in _EN_PERSPECTIVE:
        action = pattern.sub(replacement, action)
    return action


def _proposer(fact: Fact) -> tuple[str, str, str] | None:
    """(user id, name, words) of who proposed what an agreement or refusal answers, if cited."""
    source = next((s for s in fact.sources if s.author_id != fact.asserted_by), None)
    return (source.author_id, source.author_name, source.quote) if source is not None else None


def relation_phrase(fact: Fact, names: NameBook, lang: Lang) -> str:
    """A relation as said: "Bob manages the Discord bot", "产品B属于部门C" (members by their latest name)."""
    subject = names.name(fact.subject, fact.subject_name) if fact.subject in fact.users else fact.subject_name
    obj = names.name(fact.target, fact.value) if fact.target in fact.users else fact.value
    # joined as the relation was said (a Chinese relation has no spaces), whatever the answer's language
    return f"{subject}{fact.attribute}{obj}" if fact.lang == "zh" else f"{subject} {fact.attribute} {obj}"


def cite_fact(fact: Fact, names: NameBook, tz: str, lang: Lang, now: datetime | None = None,
              reader: str | None = None) -> str:
    """One remembered fact as a sentence naming its speaker and the day it was said; an agreement
    names who proposed it and who agreed, a promise is told as to ``reader``."""
    day, name = format_date(said_on(fact), tz, lang), _speaker(fact, names)
    claim = fact.kind is Kind.EVENT or fact.status is FactStatus.UNVERIFIED
    value = fact.value
    if fact.kind is Kind.COMMITMENT:  # told as every answer tells a promise: condition, due time, status
        item = _promise_phrase(promise_item_of(fact, now or said_on(fact), reader, names, {}), tz, lang)
        return f"{day}，{name}答应{item}" if lang == "zh" else f"On {day}, {name} promised {item}"
    if fact.kind is Kind.RELATION:
        return f"{day}，{name}说{relation_phrase(fact, names, lang)}" if lang == "zh" else \
            f"On {day}, {name} said {relation_phrase(fact, names, lang)}"
    proposer = _proposer(fact) if fact.kind is Kind.CONSENSUS else None
    if proposer is not None:
        who, words = names.name(proposer[0], proposer[1]), agreed_words(value, proposer[2])
        refused = fact.attribute in _REFUSES
        if lang == "zh":
            return f"{day}，{who}提议“{words}”，{name}" + ("表示不接受" if refused else "表示同意")
        return f"On {day}, {who} proposed “{words}” and {name} " + ("did not accept" if refused else "agreed")
    if lang == "zh":
        body = {
            Kind.DEMAND: f"提出希望：{content(value, lang)}",
            Kind.EMOTION: f"说感到{_feeling(value, lang)}",
            Kind.CONSENSUS: (f"表示不接受：{content(value, lang)}" if fact.attribute in _REFUSES
                             else f"表示同意：{content(value, lang)}"),
        }.get(fact.kind, f"说：“{value}”")
        return f"{day}，{name}{body}" + (f"（这是{name}的说法，尚未核实）" if claim else "")
    agreed = f"agreed to {content(value, lang)}" if _verb_phrase(value) else f"agreed that {content(value, lang)}"
    body = {
        Kind.DEMAND: f"asked for {content(value, lang)}",
        Kind.EMOTION: f"said they felt {_feeling(value, lang)}",
        Kind.CONSENSUS: f"did not accept {content(value, lang)}" if fact.attribute in _REFUSES else agreed,
    }.get(fact.kind, f"said: “{value}”")
    return f"On {day}, {name} {body}" + (f" ({name}'s account, not verified)" if claim else "")


# --- answers from records (bot.answering.model) ----------------------------------------------------------

def _t(key: str, lang: Lang, **fields: str) -> str:
    """The wording of an answer's part ``key`` (``answer:`` keys of ``bot.text.catalog``)."""
    return say(lang, f"answer:{key}", **fields)


def _state(item: AnswerItem, lang: Lang) -> str:
    if item.status is ItemStatus.DONE:
        return "（已完成）" if lang == "zh" else " (done)"
    if item.status is ItemStatus.OVERDUE:
        return "（已逾期，完成了吗？）" if lang == "zh" else " (overdue — has it been done?)"
    if item.status is ItemStatus.CANCELLED:
        return "（已取消）" if lang == "zh" else " (cancelled)"
    return ""


#: A condition that says its own conjunction ("If the printer confirms…", "as long as…", "只要…") keeps it.
_CONJUNCTION = re.compile(r"^(?:(?:if|as\s+long\s+as|provided(?:\s+that)?|unless|once|as\s+soon\s+as)\b|如果|要是|只要|假如|除非|一旦)",
                          re.IGNORECASE)


def _condition(condition: str, lang: Lang) -> str:
    if not condition:
        return ""
    if _CONJUNCTION.match(condition):
        return f"（{condition}）" if lang == "zh" else f" {condition[0].lower()}{condition[1:]}"
    return _t("condition", lang, condition=condition)


def _promise_phrase(item: AnswerItem, zone: str, lang: Lang) -> str:
    """ "to send Bea the draft by Fri 6 Nov (UTC) if …" / "在11月6日周五（UTC）前交草稿（前提是…）"."""
    cond = _condition(item.condition, lang)
    quote = _t("quote", lang, quote=item.quote) if item.quote else ""
    if item.verbatim:
        due = (f"（期限{format_due(item.due_at, zone, lang)}）" if lang == "zh"
               else f" (due {format_due(item.due_at, zone, lang)})") if item.due_at else ""
        return f"“{item.action}”{due}{cond}{_state(item, lang)}"
    action = item.action
    if lang == "zh":
        shown = action.replace("我的", "自己的") if detect_lang(action, default="zh") == "zh" else content(action, lang)
        due = f"在{format_due(item.due_at, zone, lang)}前" if item.due_at else ""
        return f"{due}{shown}{cond}{_state(item, lang)}{quote}"
    shown = _promised(action)
    due = f" by {format_due(item.due_at, zone, lang)}" if item.due_at else ""
    return f"{shown}{due}{cond}{_state(item, lang)}{quote}"


def _names(names: Sequence[str], lang: Lang) -> str:
    if lang == "zh":
        return "、".join(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _sentence(items: Sequence[AnswerItem], answer: Answer, asker: str) -> str:
    """One owner's items said on one day, or one reply or agreement, as a sentence."""
    lang, zone = answer.lang, answer.zone
    first = items[0]
    day = format_date(first.said_at, zone, lang)
    if first.kind is ItemKind.PROMISE:
        phrases = [_promise_phrase(i, zone, lang) for i in items]
        joined = ("，并且" if lang == "zh" else " and ").join(phrases)
        return _t("promised", lang, day=day, owner=first.owner_name, items=joined)
    if first.kind in (ItemKind.ACCEPTED, ItemKind.DECLINED):
        whose = _t("your", lang) if first.recipient == asker else _t("whose", lang, name=first.proposer_name)
        said = _t("replied", lang, quote=first.quote) if first.quote else ""
        key = "accepted" if first.kind is ItemKind.ACCEPTED else "declined"
        return _t(key, lang, day=day, owner=first.owner_name, whose=whose, proposal=first.proposal, said=said)
    parties = _names(first.parties, lang)
    if first.proposer_name:
        # the proposer's own "so be it" makes them a party, already named as the one who proposed
        others = [p for p in first.parties if p != first.proposer_name]
        noes = "".join(_t("refused", lang, name=who, quote=said) for who, said in first.refusals)
        return _t("proposed", lang, day=day, proposer=first.proposer_name, proposal=first.proposal,
                  parties=_names(others, lang) if others else parties) + noes
    what = content(first.action, lang) if lang == "zh" else (
        f"to {content(first.action, lang)}" if _verb_phrase(first.action) else f"that {content(first.action, lang)}")
    return _t("agreed", lang, day=day, parties=parties, what=what)


def render_answer(answer: Answer, asker: str) -> str:
    """The answer in its language: a question back for an unclear name, else its items, one sentence
    per owner and day ("…; on 4 Nov, …; and 3 more."), or that no record matches."""
    lang = answer.lang
    if answer.unclear and not answer.items:
        said, names = answer.unclear[0]
        return _t("unclear", lang, said=said, names=_t("or", lang).join(names))
    if not answer.items:
        if answer.owners:
            key = "none_to_you" if answer.to_asker else "none_of"
            return _t(key, lang, owner=_names(answer.owners, lang))
        return "我没有这方面的记录。" if lang == "zh" else "I have no record of that."
    grouped: dict[tuple[str, ...], list[AnswerItem]] = {}
    for n, item in enumerate(answer.items):  # one owner's promises of one day in one sentence
        group: tuple[str, ...] = ("promise", item.owner, format_date(item.said_at, answer.zone, lang)) \
            if item.kind is ItemKind.PROMISE else (str(n),)
        grouped.setdefault(group, []).append(item)
    groups = list(grouped.values())
    quoted: set[str] = set()
    for members in groups:  # a line quoted once per answer (two promises said in one line)
        for i, item in enumerate(members):
            if item.quote and item.quote in quoted:
                members[i] = replace(item, quote="")
            quoted.add(item.quote)
    sentences = [_sentence(g, answer, asker) for g in groups]
    if lang == "en":
        sentences = sentences[:1] + [re.sub(r"^On ", "on ", x) for x in sentences[1:]]
    lead = _t("missed_topic", lang, topic=answer.missed_topic) if answer.missed_topic else ""
    return lead + join_items(sentences, lang, more=answer.more) + ("。" if lang == "zh" else ".")


def render_summary(sections: Mapping[str, Sequence[str]], lang: Lang) -> str:
    """A summary in the fixed four-section layout ``parse_summary`` reads back."""
    blocks = []
    for key, titles in SECTIONS.items():
        items = list(sections.get(key, ()))
        colon = "：" if lang == "zh" else ":"
        blocks.append(titles[lang] + colon + "\n" + "\n".join(f"- {i}" for i in (items or [_NONE[lang]])))
    return "\n".join(blocks)


def is_structured(text: str) -> bool:
    """True when ``text`` is in the four-section layout of ``render_summary`` (even with empty sections)."""
    lines = {line.strip().rstrip(":：") for line in text.splitlines()}
    return any(title in lines for titles in SECTIONS.values() for title in titles.values())


def parse_summary(text: str) -> dict[str, list[str]]:
    """The sections of a summary written by ``render_summary`` (either language); other text is ignored."""
    by_title = {t: key for key, titles in SECTIONS.items() for t in titles.values()}
    sections: dict[str, list[str]] = {key: [] for key in SECTIONS}
    current: str | None = None
    for raw in text.splitlines():
        line = raw.strip()
        title = line.rstrip(":：")
        if title in by_title and line != title:
            current = by_title[title]
        elif current and line.startswith("- ") and line[2:] not in _NONE.values():
            sections[current].append(line[2:].strip())
    return sections
