"""How messages, facts and the reply prompt are written for an LLM — shared by the provider that
sends them and the engine that budgets them.

The engine budgets ``HEYAN_CONTEXT_TOKENS`` by estimating the very text sent: the fixed part from
``reply_messages`` of an empty request, each line from ``utterance_line``/``fact_line``. Change the
rendering here and both follow. No ``openai`` import.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

import prompts
from bot.extraction.candidates import Utterance
from bot.llm.base import ReplyRequest
from bot.text.zones import speaker_zone, zone_or_utc
from memory.models import Fact
from memory.normalize import normalize

__all__ = ["fact_line", "reply_messages", "reply_people", "utterance_line"]


def utterance_line(u: Utterance, tz: str) -> str:
    """One message as a data line: id, the speaker's local time (their own zone when known, else
    ``tz``), author and the JSON-quoted text — name and text normalized (``memory.normalize``): the
    model reads "pro\u200bmise" as "promise", and no escape sequence or bidi override reaches it."""
    return prompts.format_utterance(
        u.message_id, u.author_id, normalize(u.author_name), normalize(u.text), u.ts,
        zone_or_utc(speaker_zone(u.zone, tz)),
    )


def fact_line(fact: Fact, tz: str, people: Mapping[str, str]) -> str:
    """A remembered fact with who said it and when, for attribution in replies."""
    # a participant is named by their current name (bot.text.names), not the one an old message was sent under
    if fact.sources:
        source = fact.sources[0]
        speaker, when = people.get(source.author_id) or normalize(source.author_name) or source.author_id, source.ts
    else:
        speaker, when = people.get(fact.asserted_by, fact.asserted_by), fact.valid_from
    subject = people.get(fact.subject) or fact.subject_name or fact.subject
    parts = [
        f"[fact {fact.id or '-'}] {prompts.format_time(when, zone_or_utc(tz))[:10]}",
        f"said by {json.dumps(speaker, ensure_ascii=False)}:",
        f"{fact.kind.value} about {json.dumps(subject, ensure_ascii=False)}:",
        f"{json.dumps(fact.attribute, ensure_ascii=False)} = {json.dumps(fact.value, ensure_ascii=False)}",
        f"(status {fact.status.value}, confidence {fact.confidence.value}",
    ]
    if fact.due_at:
        parts.append(f", due {prompts.format_time(fact.due_at, zone_or_utc(tz))}")
    condition = getattr(fact, "condition", None)  # records may carry the "if …" a promise was made on
    if isinstance(condition, str) and condition.strip():
        parts.append(f", on condition {json.dumps(condition.strip(), ensure_ascii=False)}")
    if fact.recipient or fact.recipient_name:
        # whom "you" in the value means: the model must not tell it to someone else as "you"
        recipient = people.get(fact.recipient) or fact.recipient_name or fact.recipient
        parts.append(f", made to {json.dumps(recipient, ensure_ascii=False)}")
    others = [s for s in fact.sources if s.author_id != fact.asserted_by]
    if fact.kind.value == "consensus" and others:
        proposer = people.get(others[0].author_id) or normalize(others[0].author_name) or others[0].author_id
        parts.append(f", proposed by {json.dumps(proposer, ensure_ascii=False)}: "
                     f"{json.dumps(others[0].quote, ensure_ascii=False)}")
    return " ".join(parts) + ")"


def _participants(utterances: Sequence[Utterance]) -> dict[str, str]:
    return {u.author_id: u.author_name for u in utterances}


def reply_people(request: ReplyRequest) -> dict[str, str]:
    """User id → display name (normalized) for everyone the reply prompt may name."""
    people = {**_participants([*request.window, request.turn]), **request.participants}
    return {uid: normalize(name) for uid, name in people.items()}


def reply_messages(request: ReplyRequest) -> tuple[str, str]:
    """The reply prompt: the system message (persona and stage instructions) and the user message."""
    lang, tz = request.lang, request.timezone
    people = reply_people(request)
    system = (
        prompts.render("system", lang) + "\n" + prompts.render(prompts.stage_template(request.stage), lang)
    )
    window = [u for u in request.window if u.message_id != request.turn.message_id]
    user = prompts.render(
        "reply",
        lang,
        now=prompts.format_time(request.turn.ts, zone_or_utc(tz)),
        timezone=tz,
        participants=prompts.data_block("participants", prompts.format_participants(people), lang),
        summary=prompts.data_block("summary", request.summary.text if request.summary else "", lang),
        facts=prompts.data_block("facts", [fact_line(f, tz, people) for f in request.facts], lang),
        commitments=prompts.data_block(
            "commitments", [fact_line(f, tz, people) for f in request.open_commitments], lang
        ),
        window=prompts.data_block("window", [utterance_line(u, tz) for u in window], lang),
        turn=prompts.data_block("turn", utterance_line(request.turn, tz), lang),
    )
    return system, user
