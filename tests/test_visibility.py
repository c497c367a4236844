"""Visibility: what is said in a private thread (or DM) keeps its privacy. Recall and open commitments
in a session cover that session's records and the tenant's public ones — a promise made in private is
never recited in a public thread — while moderators and the members it concerns still see it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.actors import Actor, Capability
from bot.models import Message
from bot.offline.provider import OfflineProvider
from memory.models import Kind, Scope, Visibility
from tests.jobs_helpers import Start, settings

pytestmark = pytest.mark.usefixtures("hash_embedder")

T = "discord:7"
NOW = datetime.now(UTC) - timedelta(minutes=5)


def said(i: int, session: str, user: str, name: str, text: str, *, private: bool = False,
         mention: bool = False) -> Message:
    return Message(id=f"{session}-{i}", scope=Scope(tenant=T, session=session, user=user), author_name=name,
                   text=text, ts=NOW + timedelta(seconds=i), mention=mention,
                   visibility=Visibility.PRIVATE if private else Visibility.PUBLIC)


async def test_a_private_promise_is_not_recited_in_a_public_thread(tmp_path: Path, redis_url: str,
                                                                    start: Start) -> None:
    rt = await start(settings(tmp_path, redis_url), provider=OfflineProvider())
    await rt.engine.observe(said(1, "dm-ann-bob", "u-ann", "Ann", "I will pay back the 200 yuan by Friday.",
                                 private=True))
    await rt.engine.observe(said(2, "general", "u-ann", "Ann", "I will bring the projector to the meetup."))
    await rt.engine.observe(said(3, "general", "u-bob", "Bob", "Thanks Ann, I'll book the room by Thursday."))
    for session in ("dm-ann-bob", "general"):
        await rt.engine.flush(Scope(tenant=T, session=session))
    await rt.drain(60)

    facts = await rt.memory.list_facts(Scope(tenant=T))
    [secret] = [f for f in facts if "200 yuan" in f.value]
    assert secret.kind is Kind.COMMITMENT and secret.visibility is Visibility.PRIVATE
    assert all(f.visibility is Visibility.PUBLIC for f in facts if f.session == "general")

    public = await rt.engine.respond(said(4, "general", "u-bob", "Bob", "what did Ann promise?", mention=True))
    assert "200" not in public.text and secret.id not in public.memory_ids
    assert "projector" in public.text  # the public promise is recalled
    private = await rt.engine.respond(said(5, "dm-ann-bob", "u-bob", "Bob", "what did Ann promise?",
                                           private=True, mention=True))
    assert "200 yuan" in private.text and secret.id in private.memory_ids

    # open commitments in the public thread leave it out; the people it concerns and moderators see it
    public_open = await rt.memory.open_commitments(Scope(tenant=T), ["u-ann"], visible_in="general")
    assert secret.id not in {f.id for f in public_open}
    carol = Actor(tenant=T, user_id="u-carol", name="Carol")
    assert secret.id not in {f.id for f in await rt.moderation.commitments(carol, session="general")}
    assert secret.id in {f.id for f in await rt.moderation.my_memories(Actor(tenant=T, user_id="u-ann"))}
    assert secret.id not in {f.id for f in await rt.moderation.my_memories(carol)}
    moderator = Actor(tenant=T, user_id="u-mod", capabilities=frozenset({Capability.MODERATE}))
    assert secret.id in {f.id for f in await rt.moderation.memory_list(moderator)}
    # a summary of the private thread is private too
    summary = await rt.memory.summary(Scope(tenant=T, session="dm-ann-bob"))
    assert summary is not None and summary.visibility is Visibility.PRIVATE
