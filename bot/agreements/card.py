"""The agreement card: what a dispute ended with, built from memory, every line citing its records.

``build_card`` is pure (no I/O): sections in its docstring. The card's ``id`` digests the ids and
versions of the records its decision and items rest on, so a confirmation is for exactly that content
and a changed record makes a new card. ``bot.moderation.agreements`` loads, posts and confirms it.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from bot.offline.actions import promised_action
from bot.offline.perspective import for_everyone
from bot.sessions import SessionInfo
from bot.text.clock import show_time
from bot.text.names import NameBook
from bot.text.richtext import Mention, RichText, Span
from memory.models import OPEN_COMMITMENT, Fact, FactStatus, Kind, Lang, Summary

__all__ = ["CONFIRM_ACTION", "FOLLOWED", "AgreementCard", "Item", "Line", "Option", "Position", "build_card", "card_id",
           "follows_after_close", "item_owner"]

#: ``Post.ref["action"]`` of a card post: platforms add the Confirm / Refuse buttons for it.
CONFIRM_ACTION = "confirm-card"
#: ``SessionInfo.extra`` key: the commitments a confirmed card keeps following up after the close.
FOLLOWED = "followed"

#: Consensus attributes (offline rules and LLM schema, both languages) that agree / refuse.
_AGREES = frozenset({"agrees to", "agrees", "同意"})
_REFUSES = frozenset({"refuses", "拒绝"})
#: Statuses a card reads: what is current (a flagged or rejected record is never on a card).
_CURRENT = frozenset({FactStatus.ACTIVE, FactStatus.DISPUTED, FactStatus.UNVERIFIED, FactStatus.OVERDUE,
                      FactStatus.DONE})
#: A promise said for a group names no one owner: asked, never guessed.
_COLLECTIVE = re.compile(r"^\s*(?:we\b|we'll|we will|let'?s\b|let us\b|someone\b|somebody\b|everyone\b|one of us\b"
                         r"|我们|咱们|大家|有人|谁)", re.IGNORECASE)
#: Demands shown in the context line.
_CONTEXT_DEMANDS = 2


@dataclass(frozen=True, slots=True)
class Line:
    """One statement of the card and the records (fact ids) and messages it came from."""

    text: str
    sources: tuple[str, ...] = ()
    messages: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {"text": self.text, "sources": list(self.sources), "messages": list(self.messages)}


@dataclass(frozen=True, slots=True)
class Position:
    """One participant's side: what they asked for and how they said they felt."""

    user: str
    name: str
    demands: tuple[Line, ...] = ()
    emotions: tuple[Line, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {"user": self.user, "name": self.name, "demands": [d.as_dict() for d in self.demands],
                "emotions": [e.as_dict() for e in self.emotions]}


@dataclass(frozen=True, slots=True)
class Option:
    """A proposal discussed: who agreed to it, who refused it."""

    text: str
    agreed_by: tuple[str, ...] = ()
    refused_by: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    messages: tuple[str, ...] = ()
    #: Who proposed it, when the record cites the proposal it answers (its other sources' authors).
    proposed_by: tuple[str, ...] = ()

    @property
    def decided(self) -> bool:
        return bool(self.agreed_by) and not self.refused_by

    def as_dict(self) -> dict[str, Any]:
        return {"text": self.text, "proposed_by": list(self.proposed_by), "agreed_by": list(self.agreed_by),
                "refused_by": list(self.refused_by), "sources": list(self.sources), "messages": list(self.messages)}


@dataclass(frozen=True, slots=True)
class Item:
    """Something to do: who (``owner``: a user id; None when nobody was named), what, by when."""

    action: str
    owner: str | None
    owner_name: str
    due_at: datetime | None
    status: FactStatus
    commitment: str
    messages: tuple[str, ...] = ()
    #: Why it has no owner, and the question the card asks (only when ``owner`` is None).
    question: str = ""

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"owner": self.owner, "owner_name": self.owner_name, "action": self.action,
                               "due_at": self.due_at.isoformat() if self.due_at else None,
                               "status": self.status.value, "sources": [self.commitment],
                               "messages": list(self.messages)}
        if self.question:
            out["question"] = self.question
        return out


@dataclass(frozen=True, slots=True)
class AgreementCard:
    """The card of one session (sections: ``build_card``). ``participants``: user id → name, the
    people asked to confirm."""

    id: str
    tenant: str
    session: str
    lang: Lang
    zone: str
    title: str
    made_at: datetime
    context: tuple[Line, ...]
    positions: tuple[Position, ...]
    options: tuple[Option, ...]
    decision: tuple[Line, ...]
    items: tuple[Item, ...]
    needs_owner: tuple[Item, ...]
    revisit: tuple[Line, ...]
    participants: dict[str, str] = field(default_factory=dict)
    summary_id: str | None = None

    @property
    def agreed(self) -> bool:
        """Something was agreed or promised (else the card says nothing was agreed)."""
        return bool(self.decision) or bool(self.items)

    def sources(self) -> tuple[str, ...]:
        """Every record the card rests on, each once."""
        ids: list[str] = []
        for line in (*self.context, *self.decision, *self.revisit):
            ids += line.sources
        for pos in self.positions:
            ids += [s for line in (*pos.demands, *pos.emotions) for s in line.sources]
        ids += [s for opt in self.options for s in opt.sources]
        ids += [i.commitment for i in (*self.items, *self.needs_owner)]
        return tuple(dict.fromkeys(ids))

    def as_dict(self) -> dict[str, Any]:
        """The card as JSON: ``decision``, ``positions``, ``options``, ``items`` (``owner``, ``action``,
        ``due_at`` each) and ``revisit``, plus what they rest on."""
        return {
            "id": self.id, "tenant": self.tenant, "session": self.session, "lang": self.lang,
            "title": self.title, "made_at": self.made_at.isoformat(), "timezone": self.zone,
            "agreed": self.agreed,
            "context": [c.as_dict() for c in self.context],
            "positions": [p.as_dict() for p in self.positions],
            "options": [o.as_dict() for o in self.options],
            "decision": [d.as_dict() for d in self.decision],
            "items": [i.as_dict() for i in self.items],
            "needs_owner": [i.as_dict() for i in self.needs_owner],
            "revisit": [r.as_dict() for r in self.revisit],
            "participants": [{"user": u, "name": n} for u, n in self.participants.items()],
            "summary_id": self.summary_id,
            "sources": list(self.sources()),
        }

    def body(self, *, ask: bool = True) -> RichText:
        """The card as a post; ``ask``: end by asking each participant (mentioned) to confirm."""
        return _render(self, ask=ask)


def follows_after_close(info: SessionInfo | None, fact_id: str) -> bool:
    """Is ``fact_id`` still followed up although its dispute is closed (an item of its confirmed card)?"""
    return info is not None and fact_id in info.extra.get(FOLLOWED, "").split()


def _messages(facts: Iterable[Fact]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(s.message_id for f in facts for s in f.sources))


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[\s.,!?。，！？]+", " ", text.casefold()).split())


def item_owner(fact: Fact) -> str | None:
    """The one member a promise binds: its subject when that is a member and the promise was not said
    for a group; None otherwise (the card asks)."""
    quote = fact.sources[0].quote if fact.sources else fact.value
    if fact.subject not in fact.users or _COLLECTIVE.match(quote) or _COLLECTIVE.match(fact.value):
        return None
    return fact.subject


def card_id(decision: Sequence[Fact], items: Sequence[Fact]) -> str:
    """A digest of the records (id and version) a card's decision and items rest on."""
    parts = sorted(f"{f.id}:{f.version}:{f.status.value}" for f in (*decision, *items))
    return hashlib.blake2b("\x1f".join(parts).encode(), digest_size=6).hexdigest()


def _lang_of(facts: Sequence[Fact], fallback: Lang) -> Lang:
    zh = sum(1 for f in facts if f.lang == "zh")
    if not facts:
        return fallback
    return "zh" if zh * 2 >= len(facts) else "en"


def build_card(
    facts: Iterable[Fact], *, tenant: str, session: str, now: datetime, zone: str, info: SessionInfo | None = None,
    summary: Summary | None = None, lang: Lang | None = None, names: dict[str, str] | None = None,
) -> AgreementCard:
    """The agreement card of ``session`` from its records.

    Sections: context (the dispute; its first demands); positions (each participant's demands and
    feelings); options (every proposal agreed or refused, by whom); decision (options agreed and
    refused by nobody, or "nothing was agreed"); items (every promise: owner, action, due; one
    without a single member owner, "we'll …", goes to ``needs_owner`` with the question to ask);
    revisit (what would reopen it). Every line cites its records (``Line.sources``).
    """
    mine = [f for f in facts if f.session == session and f.status in _CURRENT
            and (f.expires_at is None or f.expires_at > now)]
    mine.sort(key=lambda f: (f.sources[0].ts if f.sources else f.created_at, f.id))
    lang = lang or _lang_of(mine, "en")
    book = NameBook.of(mine, names=names)
    name = book.name

    own = [f for f in mine if f.asserted_by == f.subject and f.subject in f.users]
    demands = [f for f in own if f.kind is Kind.DEMAND]
    emotions = [f for f in own if f.kind is Kind.EMOTION]
    consensus = [f for f in own if f.kind is Kind.CONSENSUS and f.attribute.casefold() in _AGREES | _REFUSES]
    promises = [f for f in mine if f.kind is Kind.COMMITMENT and f.asserted_by == f.subject
                and f.status in OPEN_COMMITMENT | {FactStatus.DONE}]

    # options: one per proposal (the value agreed to / refused), in the order first discussed
    grouped: dict[str, list[Fact]] = {}
    for f in consensus:
        grouped.setdefault(_norm(f.value), []).append(f)
    options: list[Option] = []
    option_facts: dict[str, list[Fact]] = {}
    for group in grouped.values():
        agreed = tuple(dict.fromkeys(f.subject for f in group if f.attribute.casefold() in _AGREES))
        refused = tuple(dict.fromkeys(f.subject for f in group if f.attribute.casefold() in _REFUSES))
        proposers = tuple(dict.fromkeys(src.author_id for f in group for src in f.sources[1:]
                                        if src.author_id != f.subject))
        opt = Option(text=group[0].value, agreed_by=agreed, refused_by=refused,
                     sources=tuple(f.id for f in group), messages=_messages(group),
                     proposed_by=tuple(p for p in proposers if p not in agreed))
        options.append(opt)
        option_facts[opt.text] = group
    decided = [o for o in options if o.decided]
    decision_facts = [f for o in decided for f in option_facts[o.text]]

    items: list[Item] = []
    needs_owner: list[Item] = []
    for f in promises:
        owner = item_owner(f)
        action = for_everyone(promised_action(f.value), f, book)  # a card never says "send you …"
        said_by = name(f.asserted_by)
        if owner is None:
            question = (f"谁来负责“{action}”？{said_by}说的是“{f.sources[0].quote if f.sources else f.value}”，"
                        "没有指明由谁来做。" if lang == "zh" else
                        f"Who will {action}? {said_by} said “{f.sources[0].quote if f.sources else f.value}” "
                        "without naming one person.")
            needs_owner.append(Item(action=action, owner=None, owner_name="", due_at=f.due_at, status=f.status_at(now),
                                    commitment=f.id, messages=_messages([f]), question=question))
        else:
            items.append(Item(action=action, owner=owner, owner_name=name(owner), due_at=f.due_at,
                              status=f.status_at(now),
                              commitment=f.id, messages=_messages([f])))

    participants: dict[str, str] = {}
    # the members the dispute names, and everyone with a position, a say on an option or a promise; whoever
    # opened it (often a moderator) only when they took part
    named = tuple(m for m in (info.members if info else ()) if m != (info.opened_by if info else None))
    proposed = [u for f in consensus for u in f.users if u != f.subject]
    for user in (*named, *(f.subject for f in (*own, *promises) if f.subject in f.users), *proposed):
        if user and not user.startswith("operator:"):
            participants.setdefault(user, name(user))

    positions = tuple(
        Position(user=u, name=n,
                 demands=tuple(Line(f.value, (f.id,), _messages([f])) for f in demands if f.subject == u),
                 emotions=tuple(Line(f.value, (f.id,), _messages([f])) for f in emotions if f.subject == u))
        for u, n in participants.items()
        if any(f.subject == u for f in (*demands, *emotions))
    )
    title = (info.title if info and info.title else "") or session
    context = _context(lang, title, info, participants, demands, summary, zone, name)
    decision = tuple(_decision_line(o, lang, name) for o in decided)
    revisit = _revisit(lang, items, options, decision_facts, zone, name)
    return AgreementCard(
        id=card_id(decision_facts, promises), tenant=tenant, session=session, lang=lang, zone=zone, title=title,
        made_at=now, context=context, positions=positions, options=tuple(options), decision=decision,
        items=tuple(items), needs_owner=tuple(needs_owner), revisit=revisit, participants=participants,
        summary_id=summary.id if summary else None,
    )


def _join(names: Sequence[str], lang: Lang) -> str:
    if lang == "zh":
        return "、".join(names)
    if len(names) <= 2:
        return " and ".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def _context(lang: Lang, title: str, info: SessionInfo | None, participants: dict[str, str], demands: list[Fact],
             summary: Summary | None, zone: str, name: Any) -> tuple[Line, ...]:
    people = _join(list(participants.values()), lang) or ("（无人）" if lang == "zh" else "(nobody)")
    opened = info.opened_at if info and info.opened_at else None
    if lang == "zh":
        first = f"“{title}”：{people}之间的争议" + (f"，{show_time(opened, zone, 'zh')}开启。" if opened else "。")
    else:
        first = f"“{title}”: a dispute between {people}" + (f", opened {show_time(opened, zone, 'en')}." if opened
                                                            else ".")
    shown = demands[:_CONTEXT_DEMANDS]
    summary_ids = (summary.id,) if summary else ()
    if shown:
        said = [f"{name(f.subject)}要求{f.value}" if lang == "zh" else f"{name(f.subject)} wants {f.value}"
                for f in shown]
        more = len(demands) - len(shown)
        if lang == "zh":
            second = "争议要点：" + "；".join(said) + (f"；另有 {more} 项诉求。" if more else "。")
        else:
            second = "At issue: " + "; ".join(said) + (f"; and {more} more." if more else ".")
        return (Line(first, summary_ids), Line(second, tuple(f.id for f in shown), _messages(shown)))
    second = "没有记录到明确的诉求。" if lang == "zh" else "No demand was recorded."
    return (Line(first, summary_ids), Line(second, summary_ids))


def _decision_line(opt: Option, lang: Lang, name: Any) -> Line:
    who = _join([name(u) for u in opt.agreed_by], lang)
    by = _join([name(u) for u in opt.proposed_by], lang)
    if lang == "zh":
        text = f"{who}同意了{by}的提议：{opt.text}" if by else f"{who}同意：{opt.text}"
    else:
        text = f"{who} agreed to {by}'s proposal: {opt.text}" if by else f"{who} agreed: {opt.text}"
    return Line(text, opt.sources, opt.messages)


def _revisit(lang: Lang, items: list[Item], options: list[Option], decision_facts: list[Fact], zone: str,
             name: Any) -> tuple[Line, ...]:
    out: list[Line] = []
    for item in items:
        if item.status is FactStatus.DONE:
            continue
        who = item.owner_name
        if lang == "zh":
            when = f"在{show_time(item.due_at, zone, 'zh')}前" if item.due_at else ""
            text = f"{who}{when}没有做到“{item.action}”"
        else:
            when = f" by {show_time(item.due_at, zone, 'en')}" if item.due_at else ""
            text = f"{who} does not {item.action}{when}" if item.due_at else f"{who} does not {item.action}"
        out.append(Line(text, (item.commitment,), item.messages))
    for opt in options:
        if opt.refused_by and opt.agreed_by:
            who = _join([name(u) for u in opt.refused_by], lang)
            text = f"{who}仍不接受“{opt.text}”" if lang == "zh" else f"{who} still does not accept “{opt.text}”"
            out.append(Line(text, opt.sources, opt.messages))
    basis = tuple(dict.fromkeys(f.id for f in decision_facts)) or tuple(i.commitment for i in items)
    if basis:
        text = "任何一方提出新的诉求或不满" if lang == "zh" else "either side raises a new demand or complaint"
        out.append(Line(text, basis))
    return tuple(out)


def _render(card: AgreementCard, *, ask: bool) -> RichText:
    zh = card.lang == "zh"
    short = _short
    parts: list[Span] = []
    add = parts.append
    add(f"协议卡 · {card.title}\n" if zh else f"Agreement card · {card.title}\n")
    add(("背景：" if zh else "Context: ") + " ".join(line.text for line in card.context) + "\n")
    if card.positions:
        add("各方立场：\n" if zh else "Positions:\n")
        for pos in card.positions:
            bits = []
            if pos.demands:
                bits.append(("诉求：" if zh else "wants: ") + "；".join(d.text for d in pos.demands)
                            + f" {short(s for d in pos.demands for s in d.sources)}")
            if pos.emotions:
                bits.append(("感受：" if zh else "feels: ") + "、".join(e.text for e in pos.emotions)
                            + f" {short(s for e in pos.emotions for s in e.sources)}")
            add(f"• {pos.name} — " + ("；" if zh else "; ").join(bits) + "\n")
    if card.options:
        add("讨论过的方案：\n" if zh else "Options discussed:\n")
        for opt in card.options:
            bits = []
            if opt.agreed_by:
                bits.append(("同意：" if zh else "agreed by ") + _join([card.participants.get(u, u)
                                                                       for u in opt.agreed_by], card.lang))
            if opt.refused_by:
                bits.append(("拒绝：" if zh else "refused by ") + _join([card.participants.get(u, u)
                                                                        for u in opt.refused_by], card.lang))
            add(f"• {opt.text} — {('；' if zh else '; ').join(bits)} {short(opt.sources)}\n")
    if card.decision:
        add("决定：\n" if zh else "Decision:\n")
        for line in card.decision:
            add(f"• {line.text} {short(line.sources)}\n")
    elif card.items:
        add("决定：没有记录到明确的共识；以下是各方做出的承诺。\n" if zh else
            "Decision: no explicit agreement was recorded; these are the promises made.\n")
    else:
        add("决定：这次争议没有达成任何约定，也没有人做出承诺。\n" if zh else
            "Decision: nothing was agreed in this dispute, and nobody promised anything.\n")
    if card.items:
        add("待办事项：\n" if zh else "Items:\n")
        for n, item in enumerate(card.items, 1):
            due = (f"，{show_time(item.due_at, card.zone, 'zh')}前" if zh else
                   f" — due {show_time(item.due_at, card.zone, 'en')}") if item.due_at else (
                "，未定期限" if zh else " — no due time")
            done = ("（已完成）" if zh else " (done)") if item.status is FactStatus.DONE else ""
            add(f"{n}. {item.owner_name}：{item.action}{due}{done} {short([item.commitment])}\n" if zh else
                f"{n}. {item.owner_name}: {item.action}{due}{done} {short([item.commitment])}\n")
    if card.needs_owner:
        add("还需要确定负责人：\n" if zh else "Needs an owner:\n")
        for item in card.needs_owner:
            add(f"• {item.question} {short([item.commitment])}\n")
    if card.revisit:
        add("以下情况会重新打开这次争议：\n" if zh else "What would reopen it:\n")
        for line in card.revisit:
            add(f"• {line.text} {short(line.sources)}\n")
    if ask and card.participants and card.agreed:
        for i, (user, who) in enumerate(card.participants.items()):
            if i:
                add("、" if zh else ", ")
            add(Mention(user, who))
        add("：请用下面的按钮确认这张协议卡（不同意也请说明原因）。" if zh else
            ": please confirm this card with the button below (or refuse it, saying why).")
    return RichText.of(*parts)


def _short(ids: Iterable[str]) -> str:
    shown = list(dict.fromkeys(i[:8] for i in ids))
    return f"[{', '.join(shown)}]" if shown else ""
