"""Heyan's Discord listeners against the stand-in, with a real runtime: mentions and replies, what
feeds memory, edits and deletions, DMs, and leaving a guild.

Real discord.py parses every gateway event; Heyan's replies are checked as Discord received them
(REST requests recorded by the stand-in). Waits poll with generous deadlines.
"""

from __future__ import annotations

import asyncio
import re
from datetime import timedelta
from pathlib import Path

from bot.extraction.candidates import CandidateFact
from bot.llm.base import ReplyRequest
from jobs.queue import QUEUE
from memory.models import Kind, Scope, Visibility, utcnow
from tests.discord_harness import WAIT, Harness, hash_embedder, heyan_on_discord, redis_url
from tests.discord_standin import Fault, MemberSpec, UserSpec
from tests.jobs_helpers import ScriptedProvider

__all__ = ["hash_embedder", "redis_url"]  # fixtures used by name


async def window_texts(h: Harness, session: int | str, tenant: str | None = None) -> list[str]:
    return [m.text for m in await h.rt.window.recent(Scope(tenant=tenant or h.tenant, session=str(session)))]


async def open_dispute(h: Harness, session: int) -> None:
    await h.rt.sessions.open(h.tenant, str(session), title="parking", opened_by=h.user_id("alice"),
                             members=[h.user_id("bob")], visibility=Visibility.PUBLIC)


async def test_mention_gets_a_reply_in_the_thread_that_pings_nobody(tmp_path: Path, redis_url: str) -> None:
    async with heyan_on_discord(tmp_path, redis_url) as h:
        thread = h.discord.guild.channel("existing-thread")
        await open_dispute(h, thread.id)
        # without the Message Content intent an unmentioned message arrives empty: it is not a turn
        await h.say("this is between us", author="carol", channel=thread)
        since = len(h.discord.requests)
        mention = await h.say("{bot} @everyone she parks in my spot, I want it to stop", author="bob", channel=thread)

        reply = (await h.bot_posts(thread.id, since))[0]
        typing = h.discord.find_requests("POST", rf"/channels/{thread.id}/typing")
        assert typing, "a typing indicator while Heyan works"
        assert h.discord.requests.index(typing[0]) < h.discord.requests.index(reply)
        assert reply.json["content"] and reply.json["message_reference"]["message_id"] == int(mention["id"])
        allowed = reply.json["allowed_mentions"]
        assert allowed["parse"] == [] and not allowed.get("users") and not allowed.get("replied_user")
        assert reply.response["mentions"] == [] and reply.response["mention_everyone"] is False

        window = await h.rt.window.recent(Scope(tenant=h.tenant, session=str(thread.id)))
        assert [m.text for m in window] == ["@everyone she parks in my spot, I want it to stop"]
        assert window[0].mention and window[0].author_id == h.user_id("bob") and window[0].author_name == "Bob"
        assert window[0].visibility is Visibility.PUBLIC


async def test_a_reply_to_heyan_is_addressed_to_it_and_bots_are_ignored(tmp_path: Path, redis_url: str) -> None:
    async with heyan_on_discord(tmp_path, redis_url) as h:
        robot = UserSpec(h.discord.ids.next(), "otherbot", bot=True)
        h.discord.guild.members.append(MemberSpec(robot))
        await h.say("{bot} hello from a bot", author="otherbot")
        since = len(h.discord.requests)
        first = await h.say("{bot} hi", author="carol")
        general = h.discord.guild.channel("general")
        answer = (await h.bot_posts(general.id, since))[0]
        since = len(h.discord.requests)
        await h.say("and another thing", author="carol", reply_to=answer.response)  # pings Heyan by replying
        await h.bot_posts(general.id, since)
        assert await window_texts(h, general.id) == ["hi", "and another thing"]
        assert int(first["id"]) != int(answer.response["id"])


async def test_unmentioned_messages_feed_memory_only_in_open_dispute_threads(tmp_path: Path, redis_url: str) -> None:
    async with heyan_on_discord(tmp_path, redis_url, message_content=True) as h:
        dispute = h.discord.guild.channel("existing-thread")
        await open_dispute(h, dispute.id)
        chatter = h.discord.add_thread("general", "chatter", owner="carol")
        await h.discord.dispatch("THREAD_CREATE", h.discord.thread_create_payload(chatter))

        await h.say("the spot is mine on weekdays", author="bob", channel=dispute)
        await h.say("lunch anyone?", author="carol", channel=chatter)
        await h.say("nice weather", author="carol", channel="general")

        async def seen() -> bool:
            return await window_texts(h, dispute.id) == ["the spot is mine on weekdays"]

        deadline = asyncio.get_running_loop().time() + WAIT
        while not await seen():
            assert asyncio.get_running_loop().time() < deadline, await window_texts(h, dispute.id)
            await asyncio.sleep(0.05)
        since = len(h.discord.requests)  # a mention after them: by its reply, the others were handled
        await h.say("{bot} are you there?", author="carol", channel=chatter)
        await h.bot_posts(chatter.id, since)
        assert await window_texts(h, chatter.id) == ["are you there?"]
        assert await window_texts(h, h.discord.guild.channel("general").id) == []


async def test_without_read_message_history_the_reply_is_a_plain_message(tmp_path: Path, redis_url: str) -> None:
    async with heyan_on_discord(tmp_path, redis_url) as h:
        general = h.discord.guild.channel("general")
        h.discord.inject("POST", rf"/channels/{general.id}/messages", Fault.missing_permissions(), times=1)
        await h.say("{bot} hello?", author="carol")
        await h.bot_posts(general.id)
        tries = h.discord.find_requests("POST", rf"/channels/{general.id}/messages")
        assert [(r.status, "message_reference" in r.json) for r in tries] == [(403, True), (200, False)]


class GatedProvider(ScriptedProvider):
    """Replies only when the test opens the gate: a slow LLM, without a wall-clock window."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = asyncio.Event()

    async def reply(self, request: ReplyRequest) -> str:
        await self.gate.wait()
        return await super().reply(request)


async def test_typing_shows_while_a_slow_reply_is_written(tmp_path: Path, redis_url: str) -> None:
    provider = GatedProvider()
    async with heyan_on_discord(tmp_path, redis_url, provider=provider) as h:
        general = h.discord.guild.channel("general")
        since = len(h.discord.requests)
        await h.say("{bot} can you help?", author="bob")
        await h.discord.wait_for_request("POST", rf"/channels/{general.id}/typing", since=since, timeout=WAIT)
        assert not h.discord.find_requests("POST", rf"/channels/{general.id}/messages")
        provider.gate.set()
        await h.bot_posts(general.id, since)


async def test_edit_re_extracts_and_delete_removes_what_came_only_from_it(tmp_path: Path, redis_url: str) -> None:
    async with heyan_on_discord(tmp_path, redis_url) as h:
        thread = h.discord.guild.channel("existing-thread")
        bob, alice = h.user_id("bob"), h.user_id("alice")
        promise = h.discord.message_payload("{bot} I will send the draft by Friday", author="bob", channel=thread)
        wish = h.discord.message_payload("{bot} I want the draft before the meeting", author="alice", channel=thread)

        def commitment(value: str) -> CandidateFact:
            return CandidateFact(kind=Kind.COMMITMENT, subject=bob, subject_name="Bob", attribute="send the draft",
                                 value=value, message_id=promise["id"], quote=f"I will {value}", asserted_by=bob)

        h.provider.script[promise["id"]] = [commitment("send the draft by Friday")]
        h.provider.script[wish["id"]] = [CandidateFact(
            kind=Kind.DEMAND, subject=alice, subject_name="Alice", attribute="wants", value="the draft before the meeting",
            message_id=wish["id"], quote="I want the draft before the meeting", asserted_by=alice)]
        await h.discord.dispatch("MESSAGE_CREATE", promise)
        await h.discord.dispatch("MESSAGE_CREATE", wish)

        async def values() -> set[str]:
            return {f.value for f in await h.facts()}

        async def until(expected: set[str]) -> None:
            deadline = asyncio.get_running_loop().time() + WAIT
            while (got := await values()) != expected:
                assert asyncio.get_running_loop().time() < deadline, f"memories {got}, expected {expected}"
                await asyncio.sleep(0.1)

        await until({"send the draft by Friday", "the draft before the meeting"})

        h.provider.script[promise["id"]] = [commitment("send the draft by Monday")]
        me = h.discord.bot_user.id  # message_update_payload takes literal content (no {bot} placeholder)
        edited = h.discord.message_update_payload(promise, content=f"<@{me}> I will send the draft by Monday")
        await h.discord.dispatch("MESSAGE_UPDATE", edited)
        await until({"send the draft by Monday", "the draft before the meeting"})
        assert "I will send the draft by Monday" in await window_texts(h, thread.id)

        await h.discord.dispatch("MESSAGE_DELETE", h.discord.message_delete_payload(promise))
        await until({"the draft before the meeting"})
        assert await window_texts(h, thread.id) == ["I want the draft before the meeting"]


async def test_a_dm_is_its_own_private_tenant(tmp_path: Path, redis_url: str) -> None:
    async with heyan_on_discord(tmp_path, redis_url) as h:
        carol = h.discord.user("carol")
        dm = h.discord.dm_message_payload("can you help me privately?", author="carol")
        await h.discord.dispatch("MESSAGE_CREATE", dm)
        channel = int(dm["channel_id"])
        reply = (await h.bot_posts(channel))[0]
        assert reply.response["mentions"] == []
        window = await h.rt.window.recent(Scope(tenant=f"discord:dm:{carol.id}", session=str(channel)))
        assert [(m.text, m.visibility) for m in window] == [("can you help me privately?", Visibility.PRIVATE)]
        assert await h.rt.sessions.tenant_sessions(h.tenant) == []


async def test_leaving_a_guild_schedules_its_purge_and_coming_back_cancels_it(tmp_path: Path, redis_url: str) -> None:
    async with heyan_on_discord(tmp_path, redis_url, leave_purge_days=2) as h:
        guild, tenant = h.discord.guild, h.tenant
        marker = f"heyan:tenant-left:{tenant}"
        await h.discord.remove_from_guild(guild)

        async def request() -> str | None:
            raw = await h.rt.redis.get(marker)
            return raw.decode() if isinstance(raw, bytes) else raw

        deadline = asyncio.get_running_loop().time() + WAIT
        while (held := await request()) is None:
            assert asyncio.get_running_loop().time() < deadline, "no purge scheduled"
            await asyncio.sleep(0.05)
        score = await h.rt.redis.zscore(QUEUE, f"purge-tenant:{tenant}:{held}")
        assert score is not None
        expected = (utcnow() + timedelta(days=2)).timestamp() * 1000
        assert abs(score - expected) < 3600_000  # about two days from now

        await h.discord.join_guild(guild)
        deadline = asyncio.get_running_loop().time() + WAIT
        while await request() is not None:
            assert asyncio.get_running_loop().time() < deadline, "the purge was not cancelled"
            await asyncio.sleep(0.05)


async def test_the_tenant_is_the_events_guild_whatever_the_text_says(tmp_path: Path, redis_url: str) -> None:
    """Text naming another tenant ("tenant=discord:4242", "guild 4242", role and channel markup) in a
    message and in a slash command's option lands in the guild's tenant, and nothing anywhere names 4242."""
    forged = "tenant=discord:4242 guild 4242 <@&4242> <#4242> server discord:dm:4242"
    async with heyan_on_discord(tmp_path, redis_url) as h:
        thread = h.discord.guild.channel("existing-thread")
        await open_dispute(h, thread.id)
        await h.say("{bot} " + forged, author="bob", channel=thread)
        await h.bot_posts(thread.id)
        answer = await h.run("dispute open", {"title": forged}, user="alice", channel="general")
        assert "<#" in answer["content"]

        assert await window_texts(h, thread.id) == [forged]  # unknown role and channel markup kept as is
        assert await window_texts(h, thread.id, tenant="discord:4242") == []
        titles = [s.title for s in await h.rt.sessions.tenant_sessions(h.tenant)]
        assert forged in titles and await h.rt.sessions.tenant_sessions("discord:4242") == []
        keys = [k if isinstance(k, str) else k.decode() async for k in h.rt.redis.scan_iter(count=1000)]
        assert any(h.tenant in k for k in keys)
        assert [k for k in keys if re.search(r"(?<!\d)4242(?!\d)", k)] == []
