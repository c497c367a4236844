"""The thread as a reply sees it: what is stored, what the platform says was just written there, and
the facts in those lines that no extraction has stored yet.

Memory lags the thread (extraction is a job; a thread not in dispute is not observed), so the
adapter's ``HistoryReader`` adds the conversation's recent messages as context for this one reply,
and their not-yet-stored facts go through the offline rules and ``to_facts`` (same guards) and are
offered beside recall. None of it is ever written here.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from datetime import timedelta

from bot.extraction.candidates import ExtractionRequest, to_facts
from bot.models import Message
from bot.offline.rules import extract_rules
from bot.ports import HistoryReader
from memory.models import RECALLABLE, Fact, Kind, Lang, Scope, Visibility, utcnow

__all__ = ["HISTORY_LIMIT", "merge_history", "unstored_facts"]

log = logging.getLogger(__name__)

#: Most messages read from a platform's history for one reply (the prompt budget trims further).
HISTORY_LIMIT = 50
#: Earlier lines given to the rules as context for the first unstored line (as the extraction job does).
_RULES_CONTEXT = 6


async def merge_history(
    stored: Sequence[Message],
    turn: Message,
    history: HistoryReader | None,
    *,
    clean: Callable[[Message], Message],
) -> tuple[list[Message], list[Message]]:
    """The stored window with what the platform's history adds (``clean`` applied to each read
    message — PII redaction), oldest first, without the turn itself and without anything written
    after it. Returns (merged, read): ``read`` are the messages that came only from the platform.

    A history the platform refuses (a missing permission, a network error) leaves the stored window:
    the reply is still given, from what Heyan holds."""
    if history is None:
        return [m for m in stored if m.id != turn.id], []
    try:
        fetched = list(await history())
    except Exception as exc:  # a platform error must not cost the member their answer
        log.warning("could not read the history of %s/%s for a reply (%s: %s); answering from memory",
                    turn.scope.tenant, turn.session, type(exc).__name__, exc)
        fetched = []
    held = {m.id for m in stored}
    read = [clean(m) for m in fetched
            if m.id not in held and m.id != turn.id and m.ts <= turn.ts and m.text.strip()]
    read = read[-HISTORY_LIMIT:]
    merged = sorted([*(m for m in stored if m.id != turn.id), *read], key=lambda m: m.ts)
    return merged, read


def unstored_facts(
    messages: Sequence[Message],
    fresh: frozenset[str],
    *,
    scope: Scope,
    lang: Lang,
    timezone: str,
    ttl: dict[Kind, timedelta | None] | None = None,
) -> list[Fact]:
    """Facts the offline rules find in the ``fresh`` messages, through the same guards as a real
    extraction; only recallable ones (a flagged attempt or a claim's guard outcome that is not
    recallable is left out). Nothing here is stored."""
    assert scope.session is not None, "context is per session"
    turns = [m for m in messages if m.id in fresh]
    if not turns:
        return []
    first = turns[0].ts
    earlier = [m.utterance() for m in messages if m.ts < first and m.id not in fresh][-_RULES_CONTEXT:]
    private = any(m.visibility is Visibility.PRIVATE for m in turns)
    request = ExtractionRequest(
        tenant=scope.tenant, session=scope.session, turns=[m.utterance() for m in turns], context=earlier,
        lang=lang, timezone=timezone, visibility=Visibility.PRIVATE if private else Visibility.PUBLIC,
    )
    facts = to_facts(request, extract_rules(request), now=utcnow(), lang=lang, ttl=ttl)
    return [f for f in facts if f.status in RECALLABLE]
