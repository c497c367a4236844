"""A mention is answered with its conversation in mind, and nothing said in an open dispute while
Heyan was away is lost — through discord.py against the stand-in, wired as ``heyan run`` wires it.

* Dan promises in a thread never opened with /dispute; Carol asks "@Heyan what did Dan promise?":
  the answer names the promise, read from the thread's history (and not stored).
* A history Discord will not give (no Read Message History) still gets an answer, with one note
  naming the permission.
* A promise posted in an open dispute thread while Heyan was stopped is read back at READY, taken
  in once, and listed by /commitments after the restart.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import cast

import discord

from adapters.discord import DiscordPlatform
from adapters.discord.events.listeners import Listeners
from bot.offline.provider import OfflineProvider
from memory.models import Kind, Scope, Visibility
from tests.discord_harness import WAIT, Harness, hash_embedder, heyan_on_discord, redis_url
from tests.discord_standin import MemberSpec, Overwrite, UserSpec
from tests.discord_standin_world import READ_MESSAGE_HISTORY
from tests.jobs_helpers import ScriptedProvider

__all__ = ["hash_embedder", "redis_url"]

PROMISE = "Fine, I'll fix the CI config by Friday."


def add_dan(h: Harness) -> UserSpec:
    dan = UserSpec(h.discord.ids.next(), "dan", global_name="Dan")
    h.discord.guild.members.append(MemberSpec(dan))
    return dan


def offline() -> ScriptedProvider:
    """The offline provider (rules extract the promise); typed as the harness expects."""
    return cast(ScriptedProvider, OfflineProvider())


async def window_texts(h: Harness, session: int) -> list[str]:
    return [m.text for m in await h.rt.window.recent(Scope(tenant=h.tenant, session=str(session)))]


async def test_a_mention_reads_the_thread_it_was_asked_in(tmp_path: Path, redis_url: str) -> None:
    async with heyan_on_discord(tmp_path, redis_url, provider=offline(), message_content=True) as h:
        add_dan(h)
        thread = h.discord.add_thread("general", "ci-trouble", owner="carol")
        await h.discord.dispatch("THREAD_CREATE", h.discord.thread_create_payload(thread))
        await h.say(PROMISE, author="dan", channel=thread)
        since = len(h.discord.requests)
        question = await h.say("{bot} what did Dan promise?", author="carol", channel=thread)

        reply = (await h.bot_posts(thread.id, since))[0]
        assert "CI config" in reply.json["content"] and "Dan" in reply.json["content"], reply.json["content"]
        read = h.discord.find_requests("GET", rf"/channels/{thread.id}/messages")
        assert read and read[0].query["before"] == question["id"] and int(read[0].query["limit"]) <= 100
        # what was read answered the question and was not stored: the thread is not a dispute
        assert await window_texts(h, thread.id) == ["what did Dan promise?"]
        assert await h.facts() == []


async def test_a_refused_history_still_answers_and_names_the_permission_once(tmp_path: Path, redis_url: str) -> None:
    async with heyan_on_discord(tmp_path, redis_url, message_content=True) as h:
        general = h.discord.guild.channel("general")
        general.overwrites.append(Overwrite(h.discord.guild.role("heyan").id, 0, deny=READ_MESSAGE_HISTORY))
        await h.discord.dispatch("CHANNEL_UPDATE", h.discord.channel_payload(h.discord.guild, general))
        since = len(h.discord.requests)
        await h.say("{bot} what was decided?", author="carol")
        first = (await h.bot_posts(general.id, since))[0]
        assert "Read Message History" in first.json["content"]
        assert not h.discord.find_requests("GET", rf"/channels/{general.id}/messages")  # checked, not tried
        since = len(h.discord.requests)
        await h.say("{bot} and then?", author="carol")
        second = (await h.bot_posts(general.id, since))[0]
        assert "Read Message History" not in second.json["content"]  # said once, not on every answer


async def restart(h: Harness) -> tuple[DiscordPlatform, Listeners]:
    """Stop Heyan's Discord connection and start it again (a new READY), same runtime."""
    await h.platform.stop()
    platform = DiscordPlatform(h.settings, guild_ready_timeout=0.2, identify_delay=0)
    await platform.start(h.rt)
    assert platform.bot is not None
    listeners = platform.bot.get_cog("Listeners")
    assert isinstance(listeners, Listeners)
    await listeners.caught_up()
    return platform, listeners


async def test_a_promise_made_while_heyan_was_stopped_is_listed_after_it_restarts(
        tmp_path: Path, redis_url: str) -> None:
    async with heyan_on_discord(tmp_path, redis_url, provider=offline(), message_content=True) as h:
        dan = add_dan(h)
        thread = h.discord.guild.channel("existing-thread")
        opened = await h.run("dispute open", {"title": "the CI"}, user="alice", channel=thread)
        assert "Dispute opened" in opened["content"]
        await h.say("The CI has been red for a week.", author="carol", channel=thread)

        async def heard(texts: list[str]) -> None:
            deadline = asyncio.get_running_loop().time() + WAIT
            while await window_texts(h, thread.id) != texts:
                assert asyncio.get_running_loop().time() < deadline, await window_texts(h, thread.id)
                await asyncio.sleep(0.05)

        await heard(["The CI has been red for a week."])

        await h.platform.stop()
        h.discord.post_offline(h.discord.message_payload(PROMISE, author="dan", channel=thread))
        platform, listeners = await restart(h)
        try:
            await heard(["The CI has been red for a week.", PROMISE])
            reads = h.discord.find_requests("GET", rf"/channels/{thread.id}/messages")
            assert reads and "after" in reads[-1].query
            await h.rt.drain()
            listed = await h.run("commitments", user="dan", channel=thread, locale="en-US")
            assert "fix the CI config" in listed["embeds"][0]["description"], listed
            commitments = [f for f in await h.facts() if f.kind is Kind.COMMITMENT]
            assert [f.subject for f in commitments] == [str(dan.id)]

            # a second READY reads from the mark on: nothing is taken in twice
            await listeners.on_ready()
            assert await listeners.caught_up() == 0
            await heard(["The CI has been red for a week.", PROMISE])
        finally:
            await platform.stop()


async def test_a_dispute_opened_before_marks_existed_is_read_from_its_opening(tmp_path: Path, redis_url: str) -> None:
    """Upgrading: an open dispute with no mark is read back from the time it was opened, not from the
    thread's beginning."""
    async with heyan_on_discord(tmp_path, redis_url, message_content=True) as h:
        thread = h.discord.guild.channel("existing-thread")
        before = h.discord.post_offline(h.discord.message_payload("said before the dispute", author="bob",
                                                                  channel=thread))
        info = await h.rt.sessions.open(h.tenant, str(thread.id), title="old", opened_by=h.user_id("alice"),
                                        members=[], visibility=Visibility.PUBLIC)
        opened = discord.utils.snowflake_time(int(before["id"])) + timedelta(milliseconds=1)
        await h.rt.sessions.put(replace(info, opened_at=opened))
        await h.platform.stop()
        later = discord.utils.time_snowflake(opened + timedelta(milliseconds=1))
        h.discord.post_offline(h.discord.message_payload("said while away", author="bob", channel=thread,
                                                         message_id=later))
        platform, _ = await restart(h)
        try:
            assert await window_texts(h, thread.id) == ["said while away"]
        finally:
            await platform.stop()
