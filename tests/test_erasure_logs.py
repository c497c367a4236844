"""Logs at WARNING and above name ids, types and lengths, never what members wrote: an LLM's invalid
output (which quotes the members) reaches neither the log nor the error a job dead-letters, and an
extraction item the model got wrong is logged without its words."""

from __future__ import annotations

import json
import logging

import pytest

from bot.extraction.candidates import ExtractionRequest, Utterance
from bot.llm.base import ProviderError
from bot.llm.openai_provider import OpenAIProvider
from memory.models import utcnow
from tests.openai_stub import OpenAIStub, openai_stub  # noqa: F401
from tests.test_openai_provider import provider, sleeps  # noqa: F401  (fixtures)

MARK = "Obsidianwren"


async def test_invalid_llm_output_is_never_logged_or_raised_with_its_words(
        provider: OpenAIProvider, openai_stub: OpenAIStub, caplog: pytest.LogCaptureFixture) -> None:  # noqa: F811
    caplog.set_level(logging.WARNING)
    quoted = {"emotion": f"{MARK} is furious", "intent": f"{MARK} wants out", "intensity": "very"}
    openai_stub.push_chat(json.dumps(quoted))
    openai_stub.push_chat(json.dumps(quoted))
    with pytest.raises(ProviderError) as failure:
        await provider.classify(Utterance(message_id="m1", author_id="u1", author_name=MARK,
                                          text=f"{MARK} here", ts=utcnow()), [], "en")
    assert MARK not in str(failure.value)
    assert "intensity" in str(failure.value)  # where it was wrong is still said
    assert caplog.records and MARK not in caplog.text
    # the repair request still shows the model its mistake (that is the model's own output)
    assert MARK in json.dumps(openai_stub.chat_requests[1]["messages"][-1], ensure_ascii=False)


async def test_dropped_extraction_items_are_logged_without_their_words(
        provider: OpenAIProvider, openai_stub: OpenAIStub, caplog: pytest.LogCaptureFixture) -> None:  # noqa: F811
    caplog.set_level(logging.WARNING)
    item = {"kind": "demand", "subject": "u1", "attribute": f"{MARK} attr", "value": f"{MARK} value",
            "message_id": "m1", "quote": f"{MARK} said something else entirely", "confidence": "high",
            "due_at": f"{MARK}-day", "reported": False}
    openai_stub.push_chat(json.dumps({"facts": [item, {**item, "message_id": f"{MARK}-id"}]}))
    request = ExtractionRequest(tenant="t", session="s", turns=[Utterance(
        message_id="m1", author_id="u1", author_name="Wren", text="I want a quiet evening.", ts=utcnow())])
    assert await provider.extract(request) == []
    assert len(caplog.records) >= 2 and MARK not in caplog.text
