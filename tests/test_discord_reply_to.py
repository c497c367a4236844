"""Issue 20 (perspective): a Discord reply says whom its "you" means. The message reference's author
reaches ``Message.reply_to`` through the real discord.py parser and the conversation log, and
``bot.extraction.candidates.to_facts`` prefers it over the message just before (a busy thread)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.conversation.log import decode_message, encode_message
from bot.extraction.candidates import CandidateFact, ExtractionRequest, Utterance, to_facts
from bot.models import Message
from memory.models import Kind, Scope, Visibility
from tests.discord_harness import WAIT, hash_embedder, heyan_on_discord, redis_url

__all__ = ["hash_embedder", "redis_url"]  # fixtures used by name

T0 = datetime(2026, 11, 4, 10, tzinfo=UTC)


async def test_a_discord_reply_keeps_the_replied_author(tmp_path: Path, redis_url: str) -> None:
    async with heyan_on_discord(tmp_path, redis_url, message_content=True) as h:
        thread = h.discord.guild.channel("existing-thread")
        await h.rt.sessions.open(h.tenant, str(thread.id), title="docs", opened_by=h.user_id("alice"),
                                 members=[h.user_id("bob")], visibility=Visibility.PUBLIC)
        asked = await h.say("can you send me the API docs?", author="alice", channel=thread)
        await h.say("unrelated: lunch at noon?", author="carol", channel=thread)
        await h.say("Sure, I'll send you the API docs by Wednesday.", author="bob", channel=thread,
                    reply_to=asked, reply_ping=False)
        await h.say("and plain chatter", author="carol", channel=thread)

        scope = Scope(tenant=h.tenant, session=str(thread.id))
        deadline = asyncio.get_running_loop().time() + WAIT
        while len(window := await h.rt.window.recent(scope)) < 4:
            assert asyncio.get_running_loop().time() < deadline, [m.text for m in window]
            await asyncio.sleep(0.05)
        replies = {m.text: m.reply_to for m in window}
        assert replies["Sure, I'll send you the API docs by Wednesday."] == str(h.user_id("alice"))
        assert replies["and plain chatter"] is None and replies["unrelated: lunch at noon?"] is None


def test_the_log_keeps_reply_to() -> None:
    msg = Message(id="m1", scope=Scope(tenant="t", session="s", user="u-bob"), author_name="Bob", text="hi",
                  ts=T0, reply_to="u-wei")
    assert decode_message(encode_message(msg)).reply_to == "u-wei"
    assert msg.utterance().reply_to == "u-wei"


def _promise(turn: Utterance, thread: list[Utterance]) -> str:
    request = ExtractionRequest("t", "s", [turn], thread, "en")
    cand = CandidateFact(kind=Kind.COMMITMENT, subject=turn.author_id, subject_name=turn.author_name,
                         attribute="send the API docs", value="send you the API docs by Wednesday",
                         message_id=turn.message_id, quote=turn.text, asserted_by=turn.author_id)
    (fact,) = to_facts(request, [cand], now=T0)
    return fact.recipient


def test_you_goes_to_the_replied_author_in_a_busy_thread() -> None:
    wei = Utterance("m1", "u-wei", "Wei", "Bob, can you send me the API docs?", T0)
    mike = Utterance("m2", "u-mike", "Mike", "anyone up for lunch?", T0 + timedelta(minutes=1))
    said = "Sure, I'll send you the API docs by Wednesday."
    plain = Utterance("m3", "u-bob", "Bob", said, T0 + timedelta(minutes=2))
    reply = Utterance("m3", "u-bob", "Bob", said, T0 + timedelta(minutes=2), reply_to="u-wei")
    assert _promise(plain, [wei, mike]) == "u-mike"  # without the platform's word: the message just before
    assert _promise(reply, [wei, mike]) == "u-wei"
    own = Utterance("m3", "u-bob", "Bob", said, T0 + timedelta(minutes=2), reply_to="u-bob")
    assert _promise(own, [wei, mike]) == "u-mike"  # replying to oneself says nothing about "you"
