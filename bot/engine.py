"""The engine: ``observe`` every message, ``respond`` when the bot is addressed.

observe: drop redelivered messages, append to the session window, and decide when to extract —
fact-bearing messages (promises, agreements, refusals, demands) at once, the rest in batches every N
turns or when the session goes quiet. Extraction always runs as a job, never on the reply path.

respond: rewrite the turn into queries → hybrid recall (summary first, then facts) → open commitments
of the people in the thread → classify and move the mediation stage → fit everything in the token
budget → reply, falling back to the offline provider if the LLM fails.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from bot.lang import session_lang
from bot.llm.base import Classification, ReplyRequest
from bot.llm.rendering import fact_line, reply_messages, utterance_line
from bot.models import Message, Reply, Stage
from bot.stages import next_stage
from bot.tokens import Item, Section, estimate_tokens, fit_to_budget
from bot.triggers import fact_bearing
from memory.models import Scope
from prompts import neutralise

if TYPE_CHECKING:
    from bot.runtime import Runtime

__all__ = ["Engine"]

log = logging.getLogger(__name__)

#: Tokens of ``HEYAN_CONTEXT_TOKENS`` kept for the reply itself (the persona asks for ~120 words).
#: The prompt's fixed part (persona, stage instructions, headings, the turn) is measured, not reserved.
REPLY_RESERVE_TOKENS = 250


class Engine:
    def __init__(self, rt: Runtime) -> None:
        self.rt = rt

    async def observe(self, msg: Message) -> bool:
        """Record a message; returns False when it was a redelivery and was dropped."""
        rt = self.rt
        if not await rt.window.first_sighting(msg):
            log.info("dropped duplicate message %s", msg.id)
            return False
        turn = await rt.window.append(msg)
        scope = Scope(tenant=msg.scope.tenant, session=msg.session)
        jobs = rt.settings.jobs
        if fact_bearing(msg):
            waiting = await rt.window.take_pending(scope)
            await rt.queue.extract(scope, [*waiting, msg.id])
        elif await rt.window.add_pending(scope, msg.id) >= jobs.batch_turns:
            await rt.queue.extract(scope, await rt.window.take_pending(scope))
        # One watcher per session: it re-arms itself while turns keep coming (jobs.tasks.extract_idle).
        if await rt.window.claim_idle_watch(scope, jobs.idle_seconds):
            await rt.queue.extract_when_idle(scope, turn, jobs.idle_seconds)
        if turn % jobs.summary_turns == 0:
            await rt.queue.summarize(scope, turn)
        return True

    async def flush(self, scope: Scope) -> None:
        """Extract whatever waits in this session now (end of a script, session closed)."""
        ids = await self.rt.window.take_pending(scope)
        if ids:
            await self.rt.queue.extract(scope, ids)
        await self.rt.queue.summarize(scope, await self.rt.window.turns(scope))

    async def handle(self, msg: Message) -> Reply | None:
        """Observe a message and, when it addresses the bot, reply to it."""
        if not await self.observe(msg):
            return None
        return await self.respond(msg) if msg.mention else None

    async def respond(self, msg: Message) -> Reply:
        rt = self.rt
        session = Scope(tenant=msg.scope.tenant, session=msg.session)
        window = await rt.window.recent(session)
        turns = [m.utterance() for m in window if m.id != msg.id]
        turn = msg.utterance()
        lang = session_lang([m.text for m in window] + [msg.text])
        participants = {m.author_id: m.author_name for m in (*window, msg)}

        queries: list[str] = await rt.provider_call("rewrite", turn, turns, lang)
        recall = await rt.memory.recall(Scope(tenant=session.tenant, session=session.session), queries)
        commitments = await rt.memory.open_commitments(Scope(tenant=session.tenant), list(participants))

        classification: Classification = await rt.provider_call("classify", turn, turns, lang)
        current = Stage(await rt.window.stage(session) or Stage.GATHERING)
        stage = next_stage(current, classification)
        if stage is not current:
            await rt.window.set_stage(session, stage.value)

        open_ids = {c.id for c in commitments}
        recalled = [s for s in recall.facts if s.fact.id not in open_ids]  # commitments are listed apart
        # The budget bounds the prompt the provider sends: the fixed part is the reply prompt rendered
        # with no memories and no window; each item costs its line as the provider renders it.
        tz = (await rt.tenant(session.tenant)).timezone
        frame = ReplyRequest(lang=lang, stage=stage, turn=turn, participants=participants, timezone=tz)
        fixed = sum(estimate_tokens(part) for part in reply_messages(frame))
        room = rt.settings.context_tokens - fixed
        if room < 0:
            log.warning("the reply prompt's fixed part (%d tokens) exceeds HEYAN_CONTEXT_TOKENS=%d",
                        fixed, rt.settings.context_tokens)
        budget = max(0, room - REPLY_RESERVE_TOKENS)

        def line(text: str) -> str:
            return neutralise(text)  # as data_block writes it

        fitted = fit_to_budget(
            [
                Section("summary", [Item(line(recall.summary.text), 1.0, recall.summary.id)]
                        if recall.summary else [], drop_rank=3),
                Section("commitments", [Item(line(fact_line(c, tz, participants)), -i, c.id)
                                        for i, c in enumerate(commitments)], drop_rank=2),
                Section("facts", [Item(line(fact_line(s.fact, tz, participants)), s.score, s.fact.id)
                                  for s in recalled], drop_rank=1),
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
        )
        text: str = await rt.provider_call("reply", request)
        used = [*([request.summary.id] if request.summary else []),
                *(f.id for f in request.facts), *(c.id for c in request.open_commitments)]
        return Reply(session=msg.session, text=text, lang=lang, stage=stage, memory_ids=tuple(used))
