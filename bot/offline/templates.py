"""How the offline mediator words what it remembers: dates, people, promises and cited facts.

Replies are language-pure: every word of a template is in the reply's language (the asker's); a
remembered value in the other language is quoted as said (“send Mike the logo files”) rather than
glued into the sentence; emotions are translated through the lexicon ("worried" → 担心); names are
kept as written and each person has one name (``bot.names``). Times are shown with their zone, in
the asker's zone when known, else the tenant's (``bot.clock``); a promise's "you" is told as its
recipient's name to anyone else (``bot.offline.perspective``).
The summary layout (four sections) lives here too: the offline summarizer writes it and replies
read it back.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime

from bot.clock import show_day, show_due
from bot.lang import detect_lang
from bot.names import NameBook
from bot.offline import lexicon as lx
from bot.offline.actions import promised_action
from bot.offline.perspective import retold
from memory.models import OPEN_COMMITMENT, Fact, FactStatus, Kind, Lang

__all__ = [
    "SECTIONS",
    "cite_fact",
    "content",
    "format_date",
    "format_due",
    "is_structured",
    "join_items",
    "parse_summary",
    "promise_item",
    "relation_phrase",
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
    """A day in the zone shown (``bot.clock.show_day``): "11月3日" / "3 Nov"."""
    return show_day(when, tz, lang)


def format_due(when: datetime, tz: str, lang: Lang) -> str:
    """A due time with weekday and zone (``bot.clock.show_due``): "Fri 5 Dec 15:00 (UTC)" /
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
        and words[0].lower() not in _NOT_A_VERB


def _en_action(action: str) -> str:
    for pattern, replacement in _EN_PERSPECTIVE:
        action = pattern.sub(replacement, action)
    return action


def promise_item(fact: Fact, now: datetime, tz: str, lang: Lang, *, with_day: bool = True,
                 reader: str | None = None, names: NameBook | None = None) -> str:
    """What was promised and by when, without who, as told to ``reader`` (``bot.offline.perspective``):
    "to send Wei the draft by Fri 6 Nov (UTC) (overdue)" / "在11月6日周五（UTC）前交草稿（已过期限）"; when
    its "you" is nobody known, what was said, quoted: "“I'll call you tomorrow”"."""
    action = promised_action(fact.value) or fact.attribute
    done = fact.status is FactStatus.DONE
    overdue = fact.status in OPEN_COMMITMENT and fact.due_at is not None and fact.due_at < now
    state = {"zh": "（已完成）" if done else "（已过期限，完成了吗？）" if overdue else "",
             "en": " (done)" if done else " (overdue — has it been done?)" if overdue else ""}[lang]
    day = format_date(said_on(fact), tz, lang) if with_day else ""
    told = retold(action, fact, reader, names or NameBook.of([fact]))
    if told is None:  # "you" meant someone nobody knows: the words as said
        said = fact.sources[0].quote if fact.sources else fact.value
        due = (f"（期限{format_due(fact.due_at, tz, lang)}）" if lang == "zh" else f" (due {format_due(fact.due_at, tz, lang)})") \
            if fact.due_at else ""
        quoted = f"“{said.strip()}”{due}{state}"
        return quoted + ((f"（{day}说的）" if lang == "zh" else f" (said {day})") if day else "")
    action = told
    if lang == "zh":
        shown = action.replace("我的", "自己的") if detect_lang(action, default="zh") == "zh" else content(action, lang)
        due = f"在{format_due(fact.due_at, tz, lang)}前" if fact.due_at else ""
        return f"{due}{shown}{state}" + (f"（{day}说的）" if day else "")
    en = detect_lang(action, default="en") == "en"
    shown = f"to {_en_action(action)}" if _verb_phrase(action) else content(_en_action(action) if en else action, "en")
    due = f" by {format_due(fact.due_at, tz, lang)}" if fact.due_at else ""
    return f"{shown}{due}{state}" + (f" (said {day})" if day else "")


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
    if fact.kind is Kind.COMMITMENT:
        item = promise_item(fact, now or said_on(fact), tz, lang, with_day=False, reader=reader, names=names)
        return f"{day}，{name}答应{item}" if lang == "zh" else f"On {day}, {name} promised {item}"
    if fact.kind is Kind.RELATION:
        return f"{day}，{name}说{relation_phrase(fact, names, lang)}" if lang == "zh" else \
            f"On {day}, {name} said {relation_phrase(fact, names, lang)}"
    proposer = _proposer(fact) if fact.kind is Kind.CONSENSUS else None
    if proposer is not None:
        who, words = names.name(proposer[0], proposer[1]), proposer[2]
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
