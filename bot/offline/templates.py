"""Template replies and summaries in the conversation's language: warm, neutral, short.

A reply acknowledges the speaker, cites what Heyan remembers with who said it and when ("11月3日，
张伟说会周五前交草稿" / "On 3 Nov, Zhang Wei said they would send the draft by Friday"), lists open
commitments with owner and due date (asking about overdue ones), restates each side's latest
demand, and ends with a next step that fits the mediation stage. Dates are shown in the tenant's zone.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, tzinfo

from bot.duetime import find_due_span
from bot.llm.base import ReplyRequest
from bot.models import Stage
from bot.zones import zone_label, zone_or_utc
from memory.models import Fact, FactStatus, Kind, Lang

__all__ = [
    "SECTIONS",
    "cite_fact",
    "commitment_line",
    "format_date",
    "format_due",
    "next_step",
    "parse_summary",
    "render_reply",
    "render_summary",
]

#: At most this many lines per block, so a reply stays a chat message and not a report.
MAX_CITED = 3
MAX_COMMITMENTS = 3
MAX_DEMANDS = 3

_WEEKDAY_ZH = "一二三四五六日"
_WEEKDAY_EN = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTH_EN = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_REFUSES = frozenset({"refuses", "拒绝"})

#: Summary section keys and their headings; the order is the order they are written in.
SECTIONS: dict[str, dict[str, str]] = {
    "issues": {"zh": "争议要点", "en": "Issues"},
    "agreed": {"zh": "已达成", "en": "Agreed"},
    "differences": {"zh": "分歧", "en": "Open differences"},
    "next": {"zh": "下一步", "en": "Next steps"},
}
_NONE = {"zh": "（暂无）", "en": "(none yet)"}

_NEXT_STEP: dict[Stage, dict[str, str]] = {
    Stage.GATHERING: {
        "zh": "能不能请双方各自说说，这件事里你们最在意的是什么？",
        "en": "Could each of you say what matters most to you in this?",
    },
    Stage.DE_ESCALATING: {
        "zh": "我们先放慢一点：有情绪很正常。一次一个人说，好吗？",
        "en": "Let's slow down a little — strong feelings are understandable. One person at a time?",
    },
    Stage.EXPLORING: {
        "zh": "有没有一个双方都能接受的办法？欢迎提出具体的方案。",
        "en": "What option could work for both of you? A concrete proposal would help.",
    },
    Stage.CONFIRMING: {
        "zh": "我确认一下：以上是双方都同意的内容吗？如果有出入请指出。",
        "en": "To confirm: is this what you both agree to? Please say if anything is off.",
    },
    Stage.CLOSED: {
        "zh": "谢谢两位的耐心。之后如果有变化，随时叫我。",
        "en": "Thank you both for your patience. Call me if anything changes.",
    },
}


def _zone(tz: str) -> tzinfo:
    return zone_or_utc(tz)


def format_date(when: datetime, tz: str, lang: Lang) -> str:
    """A day in the tenant's zone: "11月3日" / "3 Nov"."""
    local = when.astimezone(_zone(tz))
    return f"{local.month}月{local.day}日" if lang == "zh" else f"{local.day} {_MONTH_EN[local.month - 1]}"


def format_due(when: datetime, tz: str, lang: Lang) -> str:
    """A due time with weekday: "周五（12月5日）" / "Fri 5 Dec", plus the hour unless it is end of day."""
    local = when.astimezone(_zone(tz))
    clock = "" if (local.hour, local.minute) == (23, 59) else f" {local:%H:%M}"
    if lang == "zh":
        return f"周{_WEEKDAY_ZH[local.weekday()]}（{format_date(local, tz, lang)}）{clock.strip()}"
    return f"{_WEEKDAY_EN[local.weekday()]} {format_date(local, tz, lang)}{clock}"


def _speaker(fact: Fact, participants: Mapping[str, str]) -> str:
    """Who said it: the asserter's display name, else the source author's, else the id."""
    if fact.asserted_by in participants:
        return participants[fact.asserted_by]
    for source in fact.sources:
        if source.author_id == fact.asserted_by and source.author_name:
            return source.author_name
    return fact.subject_name if fact.subject == fact.asserted_by and fact.subject_name else fact.asserted_by


def _owner(fact: Fact, participants: Mapping[str, str]) -> str:
    return participants.get(fact.subject) or fact.subject_name or fact.subject


def _said_on(fact: Fact) -> datetime:
    return fact.sources[0].ts if fact.sources else fact.valid_from


def _zh_due_prefix(value: str) -> str:
    """ "在" before a value that opens with its deadline: "说会在周五前交草稿" reads naturally."""
    span = find_due_span(value)
    return "在" if span is not None and span[0] == 0 and not value.startswith(("在", "于")) else ""


def cite_fact(fact: Fact, participants: Mapping[str, str], tz: str, lang: Lang) -> str:
    """One remembered fact as a sentence naming its speaker and the day it was said."""
    day, name, value = format_date(_said_on(fact), tz, lang), _speaker(fact, participants), fact.value
    claim = fact.kind is Kind.EVENT or fact.status is FactStatus.UNVERIFIED
    if lang == "zh":
        body = {
            Kind.COMMITMENT: f"说会{_zh_due_prefix(value)}{value}",
            Kind.DEMAND: f"提出：{value}",
            Kind.EMOTION: f"说感到{value}",
            Kind.CONSENSUS: f"表示不接受：{value}" if fact.attribute in _REFUSES else f"表示同意：{value}",
        }.get(fact.kind, f"提到：{value}")
        return f"{day}，{name}{body}" + (f"（这是{name}的说法，尚未核实）" if claim else "")
    body = {
        Kind.COMMITMENT: f"said they would {value}",
        Kind.DEMAND: f"asked for {value}",
        Kind.EMOTION: f"said they felt {value}",
        Kind.CONSENSUS: f"did not accept {value}" if fact.attribute in _REFUSES else f"agreed to {value}",
    }.get(fact.kind, f"said: “{value}”")
    return f"On {day}, {name} {body}" + (f" ({name}'s account, not verified)" if claim else "")


def commitment_line(fact: Fact, now: datetime, participants: Mapping[str, str], tz: str, lang: Lang) -> str:
    """An open commitment with owner and due date; an overdue one is asked about."""
    owner, action = _owner(fact, participants), fact.attribute
    done = fact.status is FactStatus.DONE
    if fact.due_at is None:
        if lang == "zh":
            return f"{owner}：{action} — " + ("已完成" if done else "尚未完成（未定期限）")
        return f"{owner}: {action} — " + ("done" if done else "still open (no due date)")
    due = format_due(fact.due_at, tz, lang)
    overdue = not done and fact.due_at < now
    if lang == "zh":
        if overdue:
            return f"{owner}：原定{due}前{action} — 已过期限，完成了吗？"
        return f"{owner}：{due}前{action} — " + ("已完成" if done else "尚未完成")
    if overdue:
        return f"{owner}: {action}, due {due} — overdue; has it been done?"
    return f"{owner}: {action} by {due} — " + ("done" if done else "still open")


def _latest_demands(facts: Iterable[Fact]) -> list[Fact]:
    latest: dict[str, Fact] = {}
    for fact in facts:
        if fact.kind is Kind.DEMAND and fact.status is not FactStatus.SUPERSEDED:
            held = latest.get(fact.subject)
            if held is None or _said_on(fact) >= _said_on(held):
                latest[fact.subject] = fact
    return list(latest.values())[:MAX_DEMANDS]


def next_step(stage: Stage, lang: Lang) -> str:
    """The closing suggestion for a stage."""
    return _NEXT_STEP[stage][lang]


def _block(title: str, lines: Sequence[str]) -> str:
    return title + "\n" + "\n".join(f"- {line}" for line in lines)


def render_reply(request: ReplyRequest) -> str:
    """The whole offline reply for ``request``: acknowledgement, memory, commitments, demands, next step."""
    lang, tz, people = request.lang, request.timezone, dict(request.participants)
    name = people.get(request.turn.author_id) or request.turn.author_name
    zh = lang == "zh"
    parts = [f"谢谢你说出来，{name}。" if zh else f"Thanks for saying that, {name}."]
    if request.stage is Stage.DE_ESCALATING:
        parts[0] = (
            f"{name}，我听到了，这件事让你很不好受。" if zh else f"I hear you, {name} — this has been hard."
        )
    if request.summary is not None:
        # The summary's issues and agreements, not its first line (a section title).
        sections = parse_summary(request.summary.text)
        items = [*sections["issues"][:2], *sections["agreed"][:2]]
        gist = ("；" if zh else "; ").join(items) if items else ""
        if not gist and not is_structured(request.summary.text):
            gist = request.summary.text.strip()  # a free-text summary (the LLM's): cite its start
        if gist:  # a summary with nothing in it yet says nothing
            parts.append(("上次谈到：" if zh else "Last time: ") + gist[:160])
    open_ids = {f.id for f in request.open_commitments if f.id}
    cited = [
        cite_fact(f, people, tz, lang)
        for f in request.facts
        if f.kind is not Kind.DEMAND and not (f.kind is Kind.COMMITMENT and f.id and f.id in open_ids)
    ][:MAX_CITED]
    if cited:
        parts.append(_block("我记得：" if zh else "What I remember:", cited))
    if request.open_commitments:
        lines = [
            commitment_line(f, request.turn.ts, people, tz, lang)
            for f in request.open_commitments[:MAX_COMMITMENTS]
        ]
        dated = any(f.due_at for f in request.open_commitments[:MAX_COMMITMENTS])
        zone = f"（时间按{zone_label(tz)}）" if zh else f" (times in {zone_label(tz)})"
        title = ("未完成的承诺" if zh else "Open commitments") + (zone if dated else "")
        parts.append(_block(title + ("：" if zh else ":"), lines))
    demands = _latest_demands(request.facts)
    if demands:
        lines = [
            (f"{_owner(f, people)}希望：{f.value}（{format_date(_said_on(f), tz, lang)}）")
            if zh
            else f"{_owner(f, people)} wants {f.value} (said {format_date(_said_on(f), tz, lang)})"
            for f in demands
        ]
        parts.append(_block("目前各方的诉求：" if zh else "Where each of you stands:", lines))
    parts.append(next_step(request.stage, lang))
    return "\n".join(parts)


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
