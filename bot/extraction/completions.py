"""Promises that close themselves: "done", "sent it", "已经发了" by the owner marks the promise done, a
change of time moves it; unsure, the owner is asked. ``settle`` runs after each extraction job."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from bot.actors import Actor, ModerationError
from bot.acts.labels import ACTS, Act
from bot.acts.links import default_links, pair_rows, promise_text, says_not_done
from bot.acts.links import read as link_read
from bot.acts.reader import default_reader, thread_distributions
from bot.delivery.outbox import Outbox, Post, PostKind
from bot.extraction.candidates import ExtractionRequest, Utterance
from bot.moderation.members import MemberSelfService
from bot.offline.actions import promised_action
from bot.offline.acts import puts_a_plan
from bot.offline.done import DoneReport, done_reports
from bot.offline.proposals import overlap, shares_content
from bot.offline.reschedule import (
    Reschedule,
    asked_them,
    asks_leave_to_move,
    moved_value,
    moves_time,
    new_time,
    reschedules,
)
from bot.text.clock import aware, reply_zone, show_due
from bot.text.duetime import find_shift, resolve_due, shifted
from bot.text.richtext import Mention, RichText
from bot.text.zones import is_zone, zone_or_utc
from memory.errors import EmbedderError
from memory.models import Fact, Lang, Scope
from memory.normalize import normalize

__all__ = ["Settled", "match", "move", "settle"]

log = logging.getLogger(__name__)
_DONE = ACTS.index(Act.DONE)

#: Commitments a question to the owner lists (the rest: "and N more").
_LISTED = 4
# English past forms to the verb a promise is written with ("sent" → "send").
_EN_BASE = {
    "sent": "send", "paid": "pay", "fixed": "fix", "returned": "return", "delivered": "deliver", "submitted": "submit",
    "uploaded": "upload", "moved": "move", "cleaned": "clean", "booked": "book", "posted": "post",
    "transferred": "transfer", "handed": "hand", "completed": "complete", "sorted": "sort", "updated": "update",
    "emailed": "email", "called": "call", "wrote": "write", "written": "write", "gave": "give", "given": "give",
    "brought": "bring", "took": "take", "taken": "take", "put": "put", "shared": "share", "merged": "merge",
    "reviewed": "review", "repaid": "pay", "refunded": "refund", "replaced": "replace", "repaired": "repair",
    "filed": "file", "ordered": "order", "bought": "buy", "finished": "finish",
}


# Two characters that only say when ("今晚", "周五", "之前"): not what a report and a promise share.
_ZH_TIME_PAIR = re.compile(r"[今明昨后前上下这本每][天晚早周月年]|周[一二三四五六日天末]|星期|[早晚下上中][上午]|之前|以前|马上|已经")


@dataclass(frozen=True, slots=True)
class Settled:
    """What one report did: the commitment marked done, or the ones the owner was asked about."""

    report: DoneReport
    done: Fact | None = None
    asked: tuple[Fact, ...] = ()


def _action(fact: Fact) -> str:
    return f"{promised_action(fact.value)} {fact.attribute}".casefold()


def _names_it(report: DoneReport, fact: Fact) -> bool:
    return _names(report.what, fact)


def _names(what: str, fact: Fact) -> bool:
    """Do the words ``what`` (of a report, or of a change of time) name the promise ``fact``?"""
    action = _action(fact)
    if len(what) == 1 and re.match(r"[\u4e00-\u9fff]", what):
        return what in action  # "钱转给你了" → "把钱还你"
    # Chinese: two characters in a row, as said ("纪要整理好了" → "把会议纪要整理"; the content-word
    # filter would drop 要 and 会 and leave nothing to compare)
    pairs = {run[i : i + 2] for run in re.findall(r"[\u4e00-\u9fff]{2,}", what) for i in range(len(run) - 1)}
    # (the people of the promise are no thing done: "阿蘅，邮箱里：合同…" names no "…阿蘅四十首，四千")
    people = "".join(n for n in (fact.recipient_name, fact.subject_name) if n)
    if any(p in action for p in pairs if not _ZH_TIME_PAIR.fullmatch(p) and p not in people):  # "今晚" is no thing done
        return True
    latin = " ".join(re.findall(r"[A-Za-z0-9][\w'-]*", what))  # "PR合并了": its English words
    return shares_content(latin if pairs else what, action) if (latin or not pairs) else False


#: A promise whose object is a pronoun ("call them", "send it over", "ask him"): only its verb can name it.
_NAMELESS = re.compile(r"^\s*\w+(?:\s+(?:back|over|up|out))?\s+(?:them|it|him|her|this|that)\b", re.IGNORECASE)


def _same_verb(report: DoneReport, fact: Fact) -> bool:
    verb = _EN_BASE.get(report.verb, report.verb)
    return bool(verb) and re.search(rf"(?<![a-z]){re.escape(verb)}", _action(fact)) is not None


def _owned(report: DoneReport, fact: Fact) -> bool:
    """Is ``fact`` the promise of whoever the report says did it (the speaker, or the participant it names)?"""
    if not report.owner_name:
        return fact.subject == report.author_id
    named = report.owner_name.casefold()
    return any(n.casefold() == named for n in (fact.subject_name, *(s.author_name for s in fact.sources[:1])) if n)


def match(report: DoneReport, open_: Sequence[Fact], session: str | None = None) -> tuple[Fact | None, list[Fact]]:
    """(the commitment the report surely closes, or None; the ones to ask its owner about)."""
    theirs = [f for f in open_ if _owned(report, f) and (f.sources[0].ts if f.sources else f.valid_from) <= report.ts
              and not (f.sources and f.sources[0].message_id == report.message_id)]  # not the promise it tags
    here = [f for f in theirs if f.session == session]
    candidates = here or theirs
    if not candidates:
        return None, []
    if report.what:
        named = [f for f in candidates if _names_it(report, f)]
        if not named:  # "Called the printer at 10" closes "call them tomorrow at 10": words cannot name "them"
            named = [f for f in candidates if _same_verb(report, f) and _NAMELESS.search(_action(f))]
        if len(named) > 1:  # "All four PGNs … in the team folder. Board 2's has my notes": the one it names most
            ranked = sorted(named, key=lambda f: overlap(report.what, _action(f)), reverse=True)
            if overlap(report.what, _action(ranked[0])) >= 2 * max(1, overlap(report.what, _action(ranked[1]))):
                named = ranked[:1]
        sure, unsure = (named[0], []) if len(named) == 1 else (None, named or candidates)
    elif len(candidates) == 1:
        sure, unsure = candidates[0], []  # "done", and only one promise is open
    else:
        verbed = [f for f in candidates if _same_verb(report, f)]
        sure, unsure = (verbed[0], []) if len(verbed) == 1 else (None, verbed or candidates)
    # someone else's report ("Bob sent it") closes a promise it surely names; it never asks the owner
    return (sure, []) if report.owner_name else (sure, unsure)


def _question(report: DoneReport, asked: Sequence[Fact], zone: str, lang: Lang) -> RichText:
    owner = Mention(report.author_id, report.author_name or report.author_id)
    lines = []
    for i, fact in enumerate(asked[:_LISTED], 1):
        due = f" — {show_due(fact.due_at, zone, lang)}" if fact.due_at else ""
        lines.append(f"{i}. {promised_action(fact.value)}{due} ({fact.id[:8]})")
    if len(asked) > _LISTED:
        lines.append(f"还有{len(asked) - _LISTED}条" if lang == "zh" else f"and {len(asked) - _LISTED} more")
    listed = "\n".join(lines)
    if lang == "zh":
        return RichText.of(owner, f" 你说“{report.quote}”——完成的是哪一项？\n{listed}\n"
                                  "用 /commitments（Slack 上是 /heyan commitments）把完成的那项标记为已完成，我就不再提醒。")
    return RichText.of(owner, f" you said “{report.quote}” — which promise is done?\n{listed}\n"
                              "Mark the one you finished with /commitments (Slack: /heyan commitments) and I'll stop "
                              "following it up.")


def _their_question(report: DoneReport, fact: Fact, zone: str, lang: Lang) -> RichText:
    """Ask a promise's owner whether it is done, when someone else (not the one it was made to) said so."""
    owner = Mention(fact.subject, fact.subject_name or report.owner_name)
    due = f" — {show_due(fact.due_at, zone, lang)}" if fact.due_at else ""
    said = f"{report.author_name or report.author_id}"
    if lang == "zh":
        return RichText.of(owner, f" {said}说“{report.quote}”——“{promised_action(fact.value)}”{due}（{fact.id[:8]}）"
                                  "完成了吗？是的话用 /commitments（Slack 上是 /heyan commitments）标记为已完成。")
    return RichText.of(owner, f" {said} said “{report.quote}” — is “{promised_action(fact.value)}”{due} "
                              f"({fact.id[:8]}) done? If so, mark it with /commitments (Slack: /heyan commitments).")


async def _reports(turns: Sequence[Utterance], names: set[str], moderation: MemberSelfService,
                   request: ExtractionRequest) -> list[DoneReport]:
    """The batch's reports of a promise kept. A report may name its doer ("Bob sent it"); a name the
    recent messages do not hold is looked up among the owners of the session's open promises (one
    query, only when some message reads as such a report)."""
    out = []
    for turn in turns:
        found = done_reports([turn], names)
        if not found and any(r.owner_name for r in done_reports([turn], None)):
            owners = await moderation.memory.open_commitments(Scope(tenant=request.tenant), visible_in=request.session)
            names = names | {n for f in owners for n in (f.subject_name, *(s.author_name for s in f.sources[:1])) if n}
            found = done_reports([turn], names)
        out += found
    return out


async def _ask(outbox: Outbox, request: ExtractionRequest, report: DoneReport, body: RichText, lang: Lang,
               named: Sequence[Fact]) -> None:
    """Post the question a report raised (one per report message: its id is the post's), citing the
    promises it names (``fact_ids``: erasing a member whose words they hold withdraws it)."""
    await outbox.append(Post(id=f"confirm-done:{request.tenant}:{report.message_id}", tenant=request.tenant,
                             session=request.session, body=body, kind=PostKind.NOTICE, lang=lang,
                             ref={"message_id": report.message_id, "fact_ids": " ".join(f.id for f in named)}))


async def settle(moderation: MemberSelfService, outbox: Outbox, request: ExtractionRequest,
                 *, flagged: frozenset[str] = frozenset()) -> list[Settled]:
    """Close the commitments the batch's "done" reports name; ask the owner when unsure. Messages in
    ``flagged`` (attempts to instruct the bot, ``bot.guard.poisoning``) and lines holding a pasted block close nothing.

    For every report of a promise kept (``bot.offline.done``) it looks at the open commitments of whoever did it — the speaker, or the
    participant the report names ("Bob sent it") — said before the report (never one the report's own
    message made: "水管我来修，搞定"), shown in that session (its own and public ones), the session's own
    first — and

    * when the report names one of them (its words: "I've sent the draft" → "send the draft by Friday";
      or, for a bare "done"/"sent it", the one open promise, or the only one with that verb), marks it
      done through the moderation service's ``commitment_done`` as its owner — the very path of
      ``/commitments done`` and ``heyan commitments done``, with its audit entry and whatever that path
      does to the follow-up;
    * when it is unsure (several match, or none does) and the learned done links (``bot.acts.links``) are
      not sure of one either, leaves them open and posts a question to the
      owner naming the candidates and how to mark one done (an outbox notice, one per report message) —
      only for the speaker's own report: someone else's report closes a promise it surely names only when
      its speaker is the one the promise was made to ("Ann: Bob sent it", Bob's promise to Ann); from
      anyone else it asks the owner to confirm (a member cannot close another's promise by saying so).

    A line no rule reads as a report, and the dialogue acts neither, closes the one open promise of its
    speaker the done links are sure it reports kept ("projector's back at the library …"); a line that moves
    a time closes nothing. A job run again changes nothing: a done commitment is not open any more, and the
    question's post id is the report's message id.
    """
    out: list[Settled] = []
    # a pasted block ("here's the metadata of the file: ```…```") is an artefact shown, no deed reported or moved
    flagged = flagged | {t.message_id for t in request.turns if "```" in t.text}
    names = {t.author_name for t in (*request.turns, *request.context) if t.author_name}
    read = await _thread_read(request)
    done_prob = {t.message_id: float(p[_DONE]) for t, p in zip([*request.context, *request.turns], read, strict=False)}
    said_text = {t.message_id: t.text for t in request.turns}
    acts = [ACTS[int(p.argmax())] for p in read]
    changes = reschedules([t for t in request.turns if t.message_id not in flagged], request.context)
    changes += _act_reschedules(request, acts, flagged | {c.message_id for c in changes})
    moving = {c.message_id for c in changes}
    for report in await _reports([t for t in request.turns if t.message_id not in flagged], names, moderation,
                                 request):
        open_ = await moderation.memory.open_commitments(
            Scope(tenant=request.tenant), [] if report.owner_name else [report.author_id], visible_in=request.session)
        sure, asked = match(report, open_, request.session)
        lang: Lang = "zh" if re.search(r"[\u4e00-\u9fff]", report.quote) else "en"
        if sure is not None and report.owner_name and sure.recipient != report.author_id:
            # "Bob sent it" from someone the promise was not made to: Bob is asked, not overruled
            await _ask(outbox, request, report, _their_question(report, sure, request.timezone, lang), lang, [sure])
            out.append(Settled(report, asked=(sure,)))
        elif sure is not None:
            # marked done on the owner's behalf, as /commitments done would; a report by someone else
            # ("Bob sent it") names its author in the reason
            said = f"{report.author_name or report.author_id} said done" if report.owner_name else "said done"
            if (done := await _close(moderation, request, sure, report, said)) is not None:
                out.append(Settled(report, done=done))
        elif asked and not report.owner_name and report.message_id not in moving and (linked := await _link(
                said_text.get(report.message_id, report.quote), done_prob.get(report.message_id), asked)) is not None:
            # several might be meant, and the learned done links are sure of one ("取暖器查了，1800W，铭牌照片发群里了")
            if (done := await _close(moderation, request, linked, report, "said done")) is not None:
                out.append(Settled(report, done=done))
        elif asked:
            # asked of the one who spoke: their own clock when the platform tells it, as a reply would be
            said_in = next((t.zone for t in request.turns if t.message_id == report.message_id), None)
            await _ask(outbox, request, report, _question(report, asked, reply_zone(said_in, request.timezone), lang),
                       lang, asked)
            out.append(Settled(report, asked=tuple(asked)))
    reported = {r.report.message_id for r in out} | flagged
    for report in _act_reports(request, acts, reported):
        open_ = await moderation.memory.open_commitments(Scope(tenant=request.tenant), [report.author_id],
                                                         visible_in=request.session)
        sure, _ = match(report, open_, request.session)
        # read by the classifier alone: closes only what it surely names, never asks
        if sure is not None and (done := await _close(moderation, request, sure, report, "said done")) is not None:
            out.append(Settled(report, done=done))
    # a line the rules or the classifier read as a report (closed, or its owner asked which), or as a change of
    # time ("got it ty. swamp notes: make that thursday morning"), is settled
    settled = {r.report.message_id for r in out} | flagged | moving
    for turn, sure in await _linked(moderation, request, done_prob, settled):
        quote = normalize(turn.text).strip()[:300]
        report = DoneReport(turn.message_id, turn.author_id, turn.author_name, turn.ts, quote, quote, "")
        if (done := await _close(moderation, request, sure, report, "said done")) is not None:
            out.append(Settled(report, done=done))
    for change in changes:
        await move(moderation, request, change)
    return out


async def _close(moderation: MemberSelfService, request: ExtractionRequest, fact: Fact, report: DoneReport,
                 said: str) -> Fact | None:
    """Mark ``fact`` done on its owner's behalf, as /commitments done would, at the time the report was
    said; None when it was deleted or changed meanwhile (nothing to close)."""
    owner = Actor(tenant=request.tenant, user_id=fact.subject, name=fact.subject_name or report.author_name,
                  lang="zh" if re.search(r"[\u4e00-\u9fff]", report.quote) else "en", unlimited=True)
    try:
        return await moderation.commitment_done(owner, fact.id, f"{said}: “{report.quote}”", session=request.session,
                                                at=report.ts)
    except ModerationError as exc:
        log.info("could not mark %s done after %s: %s", fact.id, report.message_id, exc)
        return None


async def _thread_read(request: ExtractionRequest) -> list[np.ndarray]:
    """Each line's act probabilities (``bot.acts``) in the batch's thread, context first; [] when unavailable."""
    reader = default_reader()
    if reader is None or not request.turns:
        return []
    try:
        return await asyncio.to_thread(thread_distributions, reader, [*request.context, *request.turns])
    except EmbedderError as exc:
        log.warning("dialogue acts unavailable for this batch (rules only): %s", exc)
        return []


async def _linked(moderation: MemberSelfService, request: ExtractionRequest, done_prob: dict[str, float],
                  skip: set[str] | frozenset[str]) -> list[tuple[Utterance, Fact]]:
    """The promises the batch's other lines surely report kept, by the learned done links: each line of a
    member with promises open before it, read against each of them; at most one promise a line, each once."""
    turns = [t for t in request.turns if t.message_id not in skip and not t.addressed and t.message_id in done_prob]
    if not turns or default_links() is None:
        return []
    open_ = await moderation.memory.open_commitments(Scope(tenant=request.tenant), sorted({t.author_id for t in turns}),
                                                     visible_in=request.session)
    out: list[tuple[Utterance, Fact]] = []
    for turn in turns:
        theirs = [f for f in open_ if f.subject == turn.author_id and _said(f) <= turn.ts
                  and not (f.sources and f.sources[0].message_id == turn.message_id)
                  and f.id not in {g.id for _, g in out}]
        if (fact := await _link(turn.text, done_prob[turn.message_id],
                                [f for f in theirs if f.session == request.session] or theirs)) is not None:
            out.append((turn, fact))
    return out


async def _link(text: str, p_done: float | None, theirs: Sequence[Fact]) -> Fact | None:
    """The one promise of ``theirs`` the line ``text`` surely reports kept, by the learned done links
    (``bot.acts.links``: "clip's up in #evidence …" closes "pull the vod segment"); None when none or
    several might be, or the model or the acts are unavailable (``p_done`` None)."""
    model, reader = default_links(), default_reader()
    if model is None or reader is None or p_done is None or not theirs:
        return None
    texts = [promise_text(promised_action(f.value), f.sources[0].quote if f.sources else "") for f in theirs]
    try:
        vectors = await asyncio.to_thread(reader.embed, [link_read(text), *texts])
    except EmbedderError as exc:
        log.warning("done links unavailable for this line: %s", exc)
        return None
    k = model.closes(pair_rows(text, vectors[0], texts, vectors[1:], p_done))
    return None if k is None else theirs[k]


def _own_turns(request: ExtractionRequest, acts: Sequence[Act], wanted: Act, skip: set[str] | frozenset[str]) -> list[Utterance]:
    if not acts:
        return []
    return [t for t, a in zip(request.turns, acts[len(request.context):], strict=True)
            if a is wanted and t.message_id not in skip]


def _act_reports(request: ExtractionRequest, acts: Sequence[Act], skip: set[str]) -> list[DoneReport]:
    """Reports of a promise kept the rules did not read, read as such by the dialogue acts ("quote's in:
    €89 …", "changelog 搞定了"): the speaker's own, naming what they did in their words, saying nothing
    is not done."""
    return [DoneReport(t.message_id, t.author_id, t.author_name, t.ts, normalize(t.text).strip()[:300],
                       normalize(t.text).strip()[:300], "") for t in _own_turns(request, acts, Act.DONE, skip)
            if not says_not_done(t.text)]


def _act_reschedules(request: ExtractionRequest, acts: Sequence[Act], skip: frozenset[str]) -> list[Reschedule]:
    """The changes of time the rules did not read, read as such by the dialogue acts (``bot.acts``):
    "ok ok, Thursday EOD then", "改一下，分摊表格周四再给" — each moves its speaker's latest open promise; a plan
    put to everyone ("so we agree: the launch moves to next Wednesday") moves none."""
    thread = [*request.context, *request.turns]
    at = {t.message_id: i for i, t in enumerate(thread)}
    # "行，周五晚上" to the counter-offer of someone the speaker just asked moves nothing of the speaker's
    return [Reschedule(t.message_id, t.author_id, t.ts, when, "", normalize(t.text).strip()[:300], t.zone)
            for t in [*_own_turns(request, acts, Act.RESCHEDULE, skip),
                      # "报名表改成今晚8点前发吧", read as an offer or a yes: a move in the speaker's own words
                      *(t for a in (Act.OFFER, Act.ACCEPT) for t in _own_turns(request, acts, a, skip) if moves_time(t.text))]
            if (when := new_time(t.text)) and not puts_a_plan(t.text) and not _CLOCK_TALK.search(t.text)
            and not asks_leave_to_move(t.text) and not _ASKS_BACK.search(t.text)
            and not (at[t.message_id] and asked_them(thread, at[t.message_id]))]


#: A line that ends asking ("…最好赶在7号之前补完，来得及吗？"): it asks for a time, it moves nothing itself.
_ASKS_BACK = re.compile(r"[?？]\s*\W*$")
#: Talk of the clocks changing ("clocks sprang forward overnight", "手机自己往回调了一小时"): the time a member lives
#: by moved, not a promise's.
_CLOCK_TALK = re.compile(r"\b(?:clocks?|daylight|dst|summer\s*time|winter\s*time|sprang\s+forward|fell\s+back)\b"
                         r"|夏令时|冬令时|往回调|往前调|(?:调|拨)(?:了|快|慢|回)?一(?:个)?小时", re.IGNORECASE)


def _said(fact: Fact) -> datetime:
    return fact.sources[0].ts if fact.sources else fact.valid_from


#: A new time that says how late in the day on purpose: "EOD", "end of day", "tonight", "下班前", "晚上".
_DAY_END = re.compile(r"\b(?:eod|end\s+of\s+(?:the\s+)?day|tonight|midnight)\b|下班|晚上|今晚|夜里|之内", re.IGNORECASE)


def _new_time(change: Reschedule, fact: Fact, request: ExtractionRequest) -> tuple[str, str | None] | None:
    """The words of the promise's new time and the zone they are read in: a span added to its due time ("push
    it back a week", "提前一天"), written as a date on the owner's clock (the mover's zone when the owner moved it,
    else the due time's own offset: None); else the move's own words (``_keeps_hour``) in the mover's zone. None
    when a span moves a promise with no due time."""
    shift = find_shift(change.when)
    if shift is None or (shift.start, shift.end) != (0, len(change.when)):
        return _keeps_hour(change, fact, request), change.zone if change.zone and is_zone(change.zone) else None
    if fact.due_at is None:
        return None
    own = change.author_id == fact.subject and change.zone is not None and is_zone(change.zone)
    clock = zone_or_utc(change.zone) if own else fact.due_at.tzinfo or zone_or_utc(request.timezone)
    due = shifted(fact.due_at, shift.by, clock).astimezone(clock)
    zh = bool(re.search(r"[\u4e00-\u9fff]", fact.value))
    # the year only where the date alone would read as next year's (a date before the move was said)
    year = due.date() < aware(change.ts).astimezone(clock).date()
    day = (f"{due.year}年" if year else "") + f"{due.month}月{due.day}日" if zh else \
        f"{due.day} {due:%b}" + (f" {due.year}" if year else "")
    return (day if (due.hour, due.minute) == (23, 59) else f"{day}{'' if zh else ','} {due:%H:%M}"), change.zone if own else None


def _keeps_hour(change: Reschedule, fact: Fact, request: ExtractionRequest) -> str:
    """The new time, with the promise's own hour when the move names only a day: "can it be Wednesday
    instead, same time?" of "Monday 18:00" is Wednesday 18:00, not the end of Wednesday."""
    due = fact.due_at
    if due is None or (due.hour, due.minute) == (23, 59) or _DAY_END.search(change.when):
        return change.when
    clock = zone_or_utc(change.zone or request.timezone)
    then = resolve_due(change.when, aware(change.ts), clock)
    if then is None or (then.astimezone(clock).hour, then.astimezone(clock).minute) != (23, 59):
        return change.when
    return f"{change.when} {due.astimezone(clock):%H:%M}"  # the hour on the clock it was said on, across a DST change


async def move(moderation: MemberSelfService, request: ExtractionRequest, change: Reschedule) -> Fact | None:
    """ "actually make that Friday noon for the copy": the owner's open promise it names (or their
    latest, when it names none it holds) gets the new time, as the owner's own correction would.
    Nothing changes when no promise, or more than one, fits."""
    people = [change.author_id, *([change.consent_of] if change.either else [])]
    open_ = await moderation.memory.open_commitments(Scope(tenant=request.tenant), people, visible_in=request.session)

    def of(owner: str, to: str) -> list[Fact]:
        mine = sorted((f for f in open_ if f.subject == owner and _said(f) <= change.ts
                       and not (f.sources and f.sources[0].message_id == change.message_id)), key=_said)
        mine = [f for f in mine if f.session == request.session] or mine
        # made to that member, else to nobody recorded ("I'll send the $24 Friday 6pm" said to the room)
        return ([f for f in mine if f.recipient == to] or [f for f in mine if not f.recipient]) if to else mine

    # asked by the owner, agreed by the one it was promised to: that promise only (either way round when the
    # words do not say who owes it)
    theirs = of(change.author_id, change.consent_of)
    if change.either and not theirs:
        theirs = of(change.consent_of, change.author_id)
    if change.follows:  # a promise said over two messages: the one made in the message this time completes
        theirs = [f for f in theirs if any(src.message_id == change.follows for src in f.sources)]
    if change.old:  # "isn't happening tonight, tomorrow noon": only a promise due when turned down moves
        clock = zone_or_utc(change.zone or request.timezone)
        then = resolve_due(change.old, aware(change.ts), clock)
        theirs = [f for f in theirs if then is not None and f.due_at is not None
                  and f.due_at.astimezone(clock).date() == then.astimezone(clock).date()]
    # what it names; else the latest with a time and no condition (a time moves a dated promise), else the
    # latest ("Zoom 续费我得推到2月3号": its words are the speaker's, not the promise's)
    named = ([f for f in theirs if _names(change.what, f)] if change.what else []) \
        or [f for f in theirs if f.due_at is not None and not f.condition][-1:] or theirs[-1:]
    if len(named) != 1:
        return None
    fact = named[0]
    if (new := _new_time(change, fact, request)) is None:
        return None
    when, zone = new
    owner = Actor(tenant=request.tenant, user_id=fact.subject, name=fact.subject_name, unlimited=True,
                  lang="zh" if re.search(r"[\u4e00-\u9fff]", change.quote) else "en")
    try:
        return await moderation.correct(owner, fact.id, moved_value(fact.value, when),
                                        f"moved: “{change.quote}”", session=request.session, said_at=change.ts,
                                        speaker_zone=zone)
    except ModerationError as exc:  # deleted or changed meanwhile
        log.info("could not move %s after %s: %s", fact.id, change.message_id, exc)
        return None
