"""The engine: ``observe`` every message, ``respond`` when the bot is addressed.

``hear`` is a platform's one entry: answered when addressed, observed only inside an open dispute,
else left alone. ``observe`` appends to the window and schedules extraction as a job (fact-bearing
lines at once, the rest in batches), never on the reply path. ``respond`` answers record questions
from records (``bot.answering.records``), else recalls, moves the stage and replies within the
token budget (offline fallback). The flow: docs/ARCHITECTURE.md, "How data flows".
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from bot.answering.question import Ask
from bot.answering.records import RecordFinder, kinds_for
from bot.config.tenants import TenantConfig
from bot.context import merge_history, unstored_facts
from bot.conversation import Conversation, text_digest
from bot.extraction.triggers import urgent
from bot.guard.instructions import own_request
from bot.guard.poisoning import attempt
from bot.limits import RateLimits, SlowDown
from bot.llm.base import Classification, MediatorProvider, ReplyRequest
from bot.llm.rendering import fact_line, reply_messages, utterance_line
from bot.models import Message, Reply, Stage
from bot.offline.questions import read_question
from bot.ports import HistoryReader, Scheduler
from bot.privacy.audit import SYSTEM, AuditEntry, AuditLog
from bot.privacy.redaction import redact
from bot.sessions import SessionBook
from bot.stages import next_stage
from bot.text.clock import aware, reply_zone
from bot.text.lang import detect_lang, session_lang, turn_lang
from bot.text.names import NameBook
from bot.text.richtext import RichText
from bot.tokens import Item, Section, estimate_tokens, fit_to_budget
from bot.usage import UsageBook
from memory.models import OPEN_COMMITMENT, Kind, Lang, Scope, SummaryVersion, utcnow
from memory.recall.importance import NEUTRAL
from memory.recall.retrieval import Recall, ScoredFact
from memory.service import MemoryService, RetractResult
from memory.summary_versions import since
from prompts import neutralise

__all__ = ["BUDGET_IMPORTANCE", "LATE_ANSWER_WITHIN", "Engine", "EngineConfig", "ObservedHook", "StageHook",
           "fact_priority"]

#: Told of every observed message (after it is stored).
ObservedHook = Callable[[Message], Awaitable[None]]
#: Told when a reply moved a session to a new stage (the session, the new stage, the turn).
StageHook = Callable[[Scope, Stage, Message], Awaitable[None]]

log = logging.getLogger(__name__)

#: A mention read back after a downtime (a platform's catch-up) is answered only this soon after it
#: was said; an older one is taken in as context — an answer hours late, out of the flow, helps nobody.
LATE_ANSWER_WITHIN = timedelta(minutes=10)


def _every_version(_: SummaryVersion) -> bool:
    return True


#: Tokens of ``HEYAN_CONTEXT_TOKENS`` kept for the reply itself (the persona asks for ~120 words).
#: The prompt's fixed part (persona, stage instructions, headings, the turn) is measured, not reserved.
REPLY_RESERVE_TOKENS = 250

#: How much a recalled fact's weight (``memory.recall.importance``) counts beside its retrieval score when
#: the token budget drops facts (lowest first). 0: the score alone, which already carries the weight
#: (``memory.recall.retrieval.DEFAULT_IMPORTANCE_WEIGHT``); adding it again kept the answer less often in a
#: tight budget (``heyan bench importance``: 0.551 → 0.526 at 0.2 on the dev community; BENCHMARKS.md).
BUDGET_IMPORTANCE = 0.0


def _watch_from(msg: Message, idle: timedelta) -> datetime:
    """When a line's quiet time starts: when it was said (a replay's script time, so a replay fires
    its watches by the script, never by how fast it ran), or now for a line read late (a catch-up
    reading history)."""
    said, now = aware(msg.ts), utcnow()
    return said if now - said < idle else now


def fact_priority(found: ScoredFact) -> float:
    """Which recalled facts the prompt budget keeps longest: score, plus weight × ``BUDGET_IMPORTANCE``."""
    return found.score + BUDGET_IMPORTANCE * found.weight


#: The answer to a turn that tries to instruct the bot or write its memory (``bot.guard.poisoning``).
_DECLINE: dict[Lang, str] = {
    "en": "I don't take instructions to change what I remember or how I work; moderators review such "
          "requests. Ask me what was said or agreed here and I'll tell you.",
    "zh": "我不接受修改记忆或改变我工作方式的指令；这类请求由管理员审核。想知道这里说过或约定过什么，可以问我。",
}


#: The answer to a member asking Heyan to change their own records (``bot.guard.instructions.own_request``).
_SELF_SERVICE: dict[Lang, str] = {
    "en": "You can change your own records yourself: /commitments to mark a promise done or snooze it, "
          "/mymemory to see, correct or erase what I hold about you (on Slack: /heyan commitments, "
          "/heyan mymemory). Deleting your message also makes me forget what came only from it.",
    "zh": "你自己的记录可以自己改：用 /commitments 把承诺标记为已完成或推迟，用 /mymemory 查看、更正或删除我保存的关于你的内容"
          "（Slack 上是 /heyan commitments、/heyan mymemory）。删除你的消息，我也会忘掉只来自那条消息的内容。",
}


@dataclass(frozen=True, slots=True)
class EngineConfig:
    """The settings the engine reads (from ``Settings`` and ``JobSettings``)."""

    context_tokens: int = 3000
    batch_turns: int = 5
    idle_seconds: int = 120
    summary_turns: int = 20
    #: Seconds a mention being answered is held: a process that dies mid-answer leaves the mention to be
    #: answered on its redelivery after this long.
    answer_claim_seconds: int = 120
    #: Replace emails, phone, identity and card numbers and IP addresses before anything is stored.
    redact_pii: bool = True


class Engine:
    """Observes messages and replies, with the few collaborators it needs."""

    def __init__(
        self,
        *,
        conversation: Conversation,
        memory: MemoryService,
        scheduler: Scheduler,
        provider: MediatorProvider,
        tenants: TenantConfig,
        sessions: SessionBook,
        config: EngineConfig,
        limits: RateLimits | None = None,
        audit: AuditLog | None = None,
        usage: UsageBook | None = None,
        on_observed: ObservedHook | None = None,
        on_stage: StageHook | None = None,
    ) -> None:
        self.conversation = conversation
        self.log = conversation.log
        self.memory = memory
        self.scheduler = scheduler
        self.provider = provider
        self.tenants = tenants
        self.sessions = sessions
        self.config = config
        self.limits = limits
        self.audit = audit
        #: Counts the memories each reply uses (``bot.usage``): the use part of their weight.
        self.usage = usage or UsageBook(conversation.redis)
        #: Finds the records a question to Heyan asks about (``bot.answering.records``).
        self.finder = RecordFinder(memory, conversation.log)
        #: Called with every message observed (early escalation alerts, dispute joins); its failure is
        #: logged and never loses the message.
        self.on_observed = on_observed
        #: Called when a reply moves a session's stage (the agreement card is proposed at "confirming").
        self.on_stage = on_stage

    async def observe(self, msg: Message) -> bool:
        """Record a message; returns False when it was a redelivery and was dropped.

        The message is stored, added to the batch waiting for extraction and marked seen in one
        step; a batch is queued for extraction before it is taken off the waiting list, so a crash at
        any point leaves work waiting (found again by the next message, the idle watch or the
        reconcile sweep), never lost.
        """
        msg = self._redacted(msg)
        turn = await self.conversation.intake.record(msg)
        if turn == 0:
            log.info("dropped duplicate message %s", msg.id)
            return False
        await self.sessions.seen(msg.scope.tenant, msg.session, msg.visibility)
        scope = Scope(tenant=msg.scope.tenant, session=msg.session)
        cfg = self.config
        waiting = await self.conversation.batches.pending(scope)
        if urgent(msg) or len(waiting) >= cfg.batch_turns:
            await self.extract_now(scope, waiting)
        # One watcher per session: it re-arms itself while turns keep coming (jobs.tasks.extract_idle).
        idle = timedelta(seconds=cfg.idle_seconds)
        if await self.conversation.idle.claim(scope, cfg.idle_seconds):
            await self.scheduler.extract_when_idle(scope, turn, _watch_from(msg, idle) + idle)
        if turn % cfg.summary_turns == 0:
            await self.scheduler.summarize(scope, turn)
        if self.on_observed is not None:
            try:
                await self.on_observed(msg)
            except Exception as exc:  # a watcher must never cost the message: it is stored already
                log.error("watching message %s failed (%s)", msg.id, type(exc).__name__, exc_info=exc)
        return True

    def _redacted(self, msg: Message) -> Message:
        """The message with its personal identifiers replaced (``bot.privacy.redaction``): what is stored,
        extracted, summarised and sent to an LLM never holds them."""
        if not self.config.redact_pii:
            return msg
        redaction = redact(msg.text)
        if redaction.changed:
            log.info("redacted %s in message %s", ", ".join(f"{n} {k}" for k, n in redaction.found.items()), msg.id)
            return replace(msg, text=redaction.text)
        return msg

    async def extract_now(self, scope: Scope, ids: list[str] | None = None) -> None:
        """Queue the waiting batch (or ``ids`` of it) for extraction, then take it off the list."""
        ids = await self.conversation.batches.pending(scope) if ids is None else ids
        if ids:
            await self.scheduler.extract(scope, ids)
            await self.conversation.batches.drop_pending(scope, ids)

    async def flush(self, scope: Scope) -> None:
        """Extract whatever waits in this session now (end of a script, session closed)."""
        await self.extract_now(scope)
        await self.scheduler.summarize(scope, await self.log.turns(scope))

    async def revise(self, msg: Message) -> None:
        """A message was edited on the platform: take back what its old text said, keep the new
        text in the window, and extract it again (as a job)."""
        msg = self._redacted(msg)
        scope = Scope(tenant=msg.scope.tenant, session=msg.session)
        held = await self.log.get_many(scope, [msg.id])
        if held and held[0].text == msg.text:
            return  # the same text (an unfurl, a pin): re-reading it would change nothing
        result = await self.memory.retract_message(scope, msg.id)
        await self._audit_retraction(scope, msg.id, result, "edited on the platform")
        await self._summary_taken_back(scope, held[0].ts if held else result.said_at)
        if not await self.log.replace(msg):
            log.info("edited message %s is no longer in the window; its new text is not read", msg.id)
            return
        await self.conversation.batches.unmark_extracted(scope, [msg.id])
        revision = text_digest(msg.text)
        await self.scheduler.extract(scope, [msg.id], revision=revision)

    async def retract(self, scope: Scope, message_id: str) -> int:
        """A message was deleted on the platform: remove what came only from it (the rest forgets
        it as a source; the records are found by the message id, not by reading the session), drop
        it from the window and roll the session summary back to before it — no LLM call: the summary
        is rewritten lazily, by the next summary job or when it is next recalled. Returns how many
        records changed."""
        held = await self.log.get_many(scope, [message_id])
        result = await self.memory.retract_message(scope, message_id)
        await self._audit_retraction(scope, message_id, result, "deleted on the platform")
        await self.conversation.remove(scope, message_id)
        await self._summary_taken_back(scope, held[0].ts if held else result.said_at)
        return len(result.deleted) + len(result.updated)

    async def _summary_taken_back(self, scope: Scope, said_at: datetime | None) -> None:
        """The session summary may hold a message being taken back: roll it back to a version written
        before the message was said (``memory.summary_versions``), marked stale. A message Heyan holds
        no trace of (never seen, or older than the window) only marks it stale."""
        await self.memory.roll_back_summary(scope, since(said_at) if said_at is not None else _every_version)

    async def unanswered(self, *, older_than: float | None = None) -> list[Message]:
        """Mentions a process began answering and never finished (it died): answer them again with
        ``handle`` (a platform adapter runs this at start and now and then). ``older_than``: seconds
        since the answer began (default: the claim's lifetime; 0 right after a takeover)."""
        wait = self.config.answer_claim_seconds if older_than is None else older_than
        return await self.conversation.answers.orphaned(wait)

    async def answered(self, msg: Message) -> None:
        """Record that the reply to ``msg`` was posted (``handle(msg, confirm=True)`` leaves this to
        the caller, so a crash between answering and posting leaves the mention to be answered on
        its redelivery)."""
        await self.conversation.answers.mark_answered(msg)

    async def _audit_retraction(self, scope: Scope, message_id: str, result: RetractResult, why: str) -> None:
        if self.audit is None or not (result.deleted or result.updated):
            return
        users = tuple(dict.fromkeys(u for f in result.updated for u in f.users))
        await self.audit.record(AuditEntry(
            tenant=scope.tenant, actor_id=SYSTEM, actor_name="Heyan", action="memory.retract", target=message_id,
            reason=why, users=users, after={"deleted": list(result.deleted), "updated": [f.id for f in result.updated]}))

    async def in_dispute(self, tenant: str, session: str, within: Sequence[str] = ()) -> bool:
        """Is a dispute open in ``session`` or in a conversation that holds it (``within``)?"""
        for place in (session, *within):
            if await self.sessions.is_open(tenant, place):
                return True
        return False

    async def known(self, tenant: str, sessions: Iterable[str]) -> list[str]:
        """Those of ``sessions`` Heyan saw (a session record exists): an edit or a deletion on the
        platform can concern only these — a conversation Heyan never saw holds nothing of it."""
        return [s for s in dict.fromkeys(sessions) if await self.sessions.get(tenant, s) is not None]

    @staticmethod
    def answers_late(said_at: datetime, now: datetime) -> bool:
        """Is a mention said at ``said_at`` and read back only ``now`` (after a downtime) still
        answered? Else the platform hears it as not addressing Heyan (``LATE_ANSWER_WITHIN``)."""
        return now - said_at <= LATE_ANSWER_WITHIN

    async def hear(
        self, msg: Message, *, within: Sequence[str] = (), history: HistoryReader | None = None,
        confirm: bool = False,
    ) -> Reply | None:
        """A platform's message, whatever it is: a message addressing the bot is answered (``handle``,
        with the conversation's ``history`` as context); any other one is remembered only inside an
        open dispute — its own session, or one of ``within`` (the conversations holding it, such as
        a Slack thread's channel) — and otherwise ignored. Returns the reply, if any."""
        if msg.mention:
            return await self.handle(msg, confirm=confirm, history=history)
        if await self.in_dispute(msg.scope.tenant, msg.session, within):
            await self.observe(msg)
        return None

    async def handle(
        self, msg: Message, *, confirm: bool = False, history: HistoryReader | None = None
    ) -> Reply | None:
        """Observe a message and, when it addresses the bot, reply to it — within the rate limits:
        over them, the member hears "slow down" once per window and nothing else. A redelivered
        mention is answered if it was not answered before (the process died in between). With
        ``confirm``, the caller calls ``answered(msg)`` once the reply is posted. ``history`` reads
        the conversation from the platform, as context for the reply (``bot.context``).

        The answer claim is renewed while the reply is written (however slow the LLM) and until it
        is recorded; a reply whose claim was lost meanwhile (taken over after a crash was presumed)
        is dropped: None, nothing to post."""
        await self.observe(msg)
        if not msg.mention:
            return None
        answers = self.conversation.answers
        seconds = self.config.answer_claim_seconds
        token = await answers.claim(msg, seconds=seconds)
        if token is None:
            return None  # answered (or being answered) already: once is enough
        try:
            reply: Reply | None
            if self.limits is not None:
                try:
                    await self.limits.hit("reply", msg.scope.tenant, msg.author_id)
                except SlowDown as exc:
                    reply = await self._slow_down(msg, exc)
                    await answers.mark_answered(msg)
                    return reply
            reply = await self.respond(msg, history=history)
        except BaseException:
            await asyncio.shield(answers.release(msg, token))  # answered later, by a redelivery or the sweep
            raise
        if not await answers.held(msg, token):
            log.warning("the claim on mention %s was lost while answering it; the reply is dropped", msg.id)
            return None
        if not confirm:
            await answers.mark_answered(msg)
        return reply

    async def _slow_down(self, msg: Message, exc: SlowDown) -> Reply | None:
        key = f"heyan:slowdown:{msg.scope.tenant}:{msg.author_id if exc.scope == 'user' else '*'}"
        if not await self.conversation.redis.set(key, b"1", nx=True, ex=int(exc.retry_after) + 1):
            return None  # already told them in this window
        lang = detect_lang(msg.text)
        seconds = int(exc.retry_after + 0.5)
        if lang == "zh":
            who = "你发得" if exc.scope == "user" else "大家发得"
            text = f"{who}有点快，我跟不上了。请 {seconds} 秒后再叫我。"
        else:
            who = "You're" if exc.scope == "user" else "Everyone's"
            text = f"{who} asking faster than I can answer well. Please try me again in {seconds} seconds."
        stage = Stage(await self.conversation.stages.get(Scope(tenant=msg.scope.tenant, session=msg.session)) or Stage.GATHERING)
        return Reply(session=msg.session, body=RichText.of(text), lang=lang, stage=stage)

    async def respond(self, msg: Message, *, history: HistoryReader | None = None) -> Reply:
        msg = self._redacted(msg)  # the turn reaches the prompt (and an LLM) without identifiers
        session = Scope(tenant=msg.scope.tenant, session=msg.session)
        stored = await self.log.recent(session)
        window, read = await merge_history(stored, msg, history, clean=self._redacted)
        names = {m.author_name for m in (*window, msg)}
        # a message flagged as an attempt to instruct the bot or speak as someone else is no context
        # for a reply or its recall queries (bot.guard.poisoning): the model never reads it as the thread
        heard = [(m.author_name, m.text) for m in window]
        flagged = {m.id for k, m in enumerate(window)
                   if attempt(m.text, speaker=m.author_name, names=names, addressed=m.mention, heard=heard[:k]) is not None}
        turns = [m.utterance() for m in window if m.id not in flagged]
        turn = msg.utterance()
        # the asker's language, not the thread's (a turn too short to tell falls back to the thread's)
        lang = turn_lang(msg.text, default=session_lang([m.text for m in window] + [msg.text]))
        if attempt(msg.text, speaker=msg.author_name, names=names, addressed=msg.mention, heard=heard) is not None:
            # the turn itself tries to instruct the bot: not passed on as a turn to obey, not recalled on;
            # a member asking to change their own records ("mark my promise as done") is shown the commands
            stage = Stage(await self.conversation.stages.get(session) or Stage.GATHERING)
            answer = _SELF_SERVICE if own_request(msg.text) else _DECLINE
            return Reply(session=msg.session, body=RichText.of(answer[lang]), lang=lang, stage=stage)
        participants = {m.author_id: m.author_name for m in (*window, msg)}

        # a question about the record is answered from the records that match it (bot.answering)
        held = await self.finder.session_records(session)
        book = NameBook.of(held, [m.utterance() for m in (*window, msg)], participants)
        question = read_question(msg.text, msg.author_id, book, compound=True)
        lines: dict[str, str] = {}
        topical: list[str] = []
        from_records = question is not None and bool(kinds_for(question.ask))
        if question is not None and from_records:
            answering = await self.finder.find(question, session, held)
            lines, topical = answering.lines, answering.topical
            summary = await self.memory.summary(session)
            if summary is not None and summary.stale:  # as recall would: have it written again
                await self.scheduler.summarize(session, await self.log.turns(session),
                                               revision=f"stale-v{summary.version}")
            recall = Recall(summary, [])
            rank = {fid: i for i, fid in enumerate(topical)}
            commitments = [f for f in answering.facts if f.kind is Kind.COMMITMENT and f.status in OPEN_COMMITMENT]
            recall.facts.extend(ScoredFact(fact=f, score=1.0 - rank.get(f.id, len(rank)) / (len(rank) + 1),
                                           dense=None, sparse_rank=None, weight=NEUTRAL)
                                for f in answering.facts if f not in commitments)
        else:
            queries = await self.provider.rewrite(turn, turns, lang)
            recall = await self.memory.recall(session, queries)
            if recall.summary is not None and recall.summary.stale:
                # rolled back after a deletion or an erasure (safe to use as it is): have it written again
                await self.scheduler.summarize(session, await self.log.turns(session),
                                               revision=f"stale-v{recall.summary.version}")
            commitments = await self.memory.open_commitments(
                Scope(tenant=session.tenant), list(participants), visible_in=msg.session
            )

        # what the thread said that memory may not hold yet: lines read from the platform, and stored
        # lines no extraction has finished (a promise one line before the question)
        settings = await self.tenants.get(session.tenant)
        fresh = {m.id for m in read}
        fresh.update(await self.conversation.batches.not_extracted(session, [m.id for m in stored if m.id != msg.id]))
        clean = [m for m in window if m.id not in flagged]
        unstored = unstored_facts(clean, frozenset(fresh), scope=session, lang=lang, timezone=settings.timezone,
                                  ttl=settings.ttl())
        found = list(recall.facts)
        known = {c.id for c in commitments} | {s.fact.id for s in found}
        floor = min((s.score for s in found), default=0.0)
        transient: set[str] = set()
        for fact in unstored:
            if fact.id in known:
                continue
            known.add(fact.id)
            transient.add(fact.id)
            if fact.kind is Kind.COMMITMENT and fact.status in OPEN_COMMITMENT:
                commitments.append(fact)
            else:
                found.append(ScoredFact(fact=fact, score=floor, dense=None, sparse_rank=None, weight=NEUTRAL))
        for rel in recall.relations:  # the relations behind what was recalled (memory.recall.hops), last in the budget
            if rel.id not in known:
                known.add(rel.id)
                found.append(ScoredFact(fact=rel, score=floor / 2, dense=None, sparse_rank=None, weight=NEUTRAL))

        classification: Classification = await self.provider.classify(turn, turns, lang)
        current = Stage(await self.conversation.stages.get(session) or Stage.GATHERING)
        stage = next_stage(current, classification)
        if stage is not current:
            await self.conversation.stages.set(session, stage.value)
            if self.on_stage is not None:
                await self.on_stage(session, stage, msg)

        open_ids = {c.id for c in commitments}
        recalled = [s for s in found if s.fact.id not in open_ids]  # commitments are listed apart
        # The budget bounds the prompt the provider sends: the fixed part is the reply prompt rendered
        # with no memories and no window; each item costs its line as the provider renders it.
        # times are shown in the asker's zone when the platform tells it, else the tenant's (bot.text.clock)
        tz = reply_zone(msg.speaker_zone, settings.timezone)
        frame = ReplyRequest(lang=lang, stage=stage, turn=turn, participants=participants, timezone=tz)
        fixed = sum(estimate_tokens(part) for part in reply_messages(frame))
        room = self.config.context_tokens - fixed
        if room < 0:
            log.warning("the reply prompt's fixed part (%d tokens) exceeds HEYAN_CONTEXT_TOKENS=%d",
                        fixed, self.config.context_tokens)
        budget = max(0, room - REPLY_RESERVE_TOKENS)

        def line(text: str) -> str:
            return neutralise(text)  # as data_block writes it

        # the prompt keeps open promises before other records, but for a question about agreements
        # ("what rule did we settle on?" needs the agreements more than nine open promises)
        agreed = question is not None and question.ask is Ask.AGREED

        fitted = fit_to_budget(
            [
                Section("summary", [Item(line(recall.summary.text), 1.0, recall.summary.id)]
                        if recall.summary else [], drop_rank=3),
                Section("commitments", [Item(line(fact_line(c, tz, participants)), -i, c.id)
                                        for i, c in enumerate(commitments)], drop_rank=1 if agreed else 2),
                Section("facts", [Item(line(fact_line(s.fact, tz, participants)), fact_priority(s), s.fact.id)
                                  for s in recalled], drop_rank=2 if agreed else 1),
                Section("window", [Item(line(utterance_line(u, tz)), i, u.message_id)
                                   for i, u in enumerate(turns)], drop_rank=0),
            ],
            budget,
        )
        kept = {name: {i.payload for i in fitted.section(name).items} for name in
                ("summary", "commitments", "facts", "window")}
        request = ReplyRequest(
            lang=lang,
            stage=stage,
            turn=turn,
            window=[u for u in turns if u.message_id in kept["window"]],
            summary=recall.summary if recall.summary and recall.summary.id in kept["summary"] else None,
            facts=[s.fact for s in recalled if s.fact.id in kept["facts"]],
            open_commitments=[c for c in commitments if c.id in kept["commitments"]],
            participants=participants,
            timezone=tz,
            open_commitments_total=len(commitments),
            question=question,
            lines=lines,
            topical=tuple(topical),
            records=(*commitments, *(s.fact for s in recalled)) if from_records else (),
        )
        text = await self.provider.reply(request)
        # the memories used: stored records only (a line's facts not extracted yet have no record)
        used = [i for i in (*(f.id for f in request.facts), *(c.id for c in request.open_commitments))
                if i not in transient]
        await self.usage.record(session.tenant, used, msg.ts)
        # The reply text is untrusted (LLM output, names, quotes): plain text, never a ping.
        return Reply(session=msg.session, body=RichText.of(text), lang=lang, stage=stage, memory_ids=tuple(used),
                     summary_id=request.summary.id if request.summary else None)
