"""The outbox on Discord: a follow-up reaches its dispute thread and pings only its owner (an
``@everyone`` in the quoted promise pings nobody); deleted, locked or forbidden places end in the dead
letters with the reason; server errors are retried; long posts are split; a post never lands in
another tenant's guild."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path

from bot.delivery.outbox import Post, PostKind, PostRecord, PostState
from bot.extraction.candidates import CandidateFact
from bot.text.richtext import Mention, RichText
from memory.models import Kind, Scope, utcnow
from tests.clock import JobSchedule
from tests.discord_harness import WAIT, Harness, hash_embedder, heyan_on_discord, redis_url
from tests.discord_standin import Fault

__all__ = ["hash_embedder", "redis_url"]


async def settled(h: Harness, post_id: str, *states: PostState) -> PostRecord:
    deadline = asyncio.get_running_loop().time() + WAIT
    while True:
        record = await h.rt.outbox.get(post_id)
        if record is not None and record.state in states:
            return record
        assert asyncio.get_running_loop().time() < deadline, f"post {post_id}: {record}"
        await asyncio.sleep(0.05)


def post(h: Harness, post_id: str, session: int | str, *spans: str | Mention, tenant: str | None = None) -> Post:
    return Post(id=post_id, tenant=tenant or h.tenant, session=str(session), body=RichText.of(*spans),
                kind=PostKind.REMINDER)


async def test_a_follow_up_reaches_the_thread_and_pings_only_its_owner(tmp_path: Path, redis_url: str) -> None:
    async with heyan_on_discord(tmp_path, redis_url) as h:
        thread = h.discord.guild.channel("existing-thread")
        bob = h.user_id("bob")
        said = h.discord.message_payload("{bot} I will repaint the fence soon, @everyone <@&1> come and watch",
                                         author="bob", channel=thread)
        h.provider.script[said["id"]] = [CandidateFact(
            kind=Kind.COMMITMENT, subject=bob, subject_name="Bob", attribute="repaint the fence",
            value="repaint the fence", message_id=said["id"], quote="I will repaint the fence soon, @everyone <@&1> come",
            asserted_by=bob, due_at=utcnow() + timedelta(hours=1))]
        since = len(h.discord.requests)
        await h.discord.dispatch("MESSAGE_CREATE", said)

        schedule = JobSchedule(h.rt.redis)  # the due time comes when the test moves arq's schedule
        [due] = (await schedule.wait_deferred("remind:")).values()
        assert await schedule.run_due(due)
        posts = await h.bot_posts(thread.id, since, count=2)  # Heyan's reply, then the follow-up
        follow_up = next(p for p in posts if "message_reference" not in p.json)
        content = follow_up.json["content"]
        assert content.startswith(f"<@{bob}> a gentle follow-up on your commitment")
        assert "I will repaint the fence soon, @\u200beveryone <\u200b@&1> come" in content
        assert follow_up.json["allowed_mentions"] == {"parse": [], "users": [int(bob)]}
        assert [m["id"] for m in follow_up.response["mentions"]] == [bob]
        assert follow_up.response["mention_everyone"] is False and follow_up.response["mention_roles"] == []

        deadline = asyncio.get_running_loop().time() + WAIT
        while True:  # delivered, then recorded on the commitment
            facts = await h.rt.memory.list_facts(Scope(tenant=h.tenant))
            if facts and facts[0].reminders_sent:
                break
            assert asyncio.get_running_loop().time() < deadline, facts
            await asyncio.sleep(0.05)


async def test_undeliverable_posts_are_dead_lettered_with_the_reason(tmp_path: Path, redis_url: str) -> None:
    async with heyan_on_discord(tmp_path, redis_url) as h:
        bob = Mention(h.user_id("bob"), "Bob")
        deleted = h.discord.add_thread("general", "gone")
        await h.discord.dispatch("THREAD_CREATE", h.discord.thread_create_payload(deleted))
        await h.discord.delete_channel(deleted)
        await h.rt.outbox.append(post(h, "to-deleted", deleted.id, bob, " how is it going?"))
        gone = await settled(h, "to-deleted", PostState.DEAD)
        assert gone.attempts == 1 and "no longer exists (deleted)" in (gone.error or "")
        assert "10003" in (gone.error or "")

        locked = h.discord.add_thread("general", "locked")
        locked.archived = locked.locked = True
        await h.rt.outbox.append(post(h, "to-locked", locked.id, bob, " still there?"))
        record = await settled(h, "to-locked", PostState.DEAD)
        assert "archived, locked thread" in (record.error or "") and "50083" in (record.error or "")

        general = h.discord.guild.channel("general")
        h.discord.inject("POST", rf"/channels/{general.id}/messages", Fault.missing_permissions())
        await h.rt.outbox.append(post(h, "to-forbidden", general.id, bob, " hello"))
        record = await settled(h, "to-forbidden", PostState.DEAD)
        assert "lacks a permission" in (record.error or "") and "50013" in (record.error or "")

        other_guild = await h.rt.outbox.append(post(h, "cross-tenant", general.id, "hi", tenant="discord:42"))
        assert other_guild
        record = await settled(h, "cross-tenant", PostState.DEAD)
        assert "does not belong to discord:42" in (record.error or "")
        dead = {r.post.id for r in await h.rt.outbox.dead("discord")}
        assert dead == {"to-deleted", "to-locked", "to-forbidden", "cross-tenant"}


async def test_server_errors_and_rate_limits_are_retried_and_long_posts_split(tmp_path: Path, redis_url: str) -> None:
    async with heyan_on_discord(tmp_path, redis_url) as h:
        general = h.discord.guild.channel("general")
        # discord.py retries 500/502/504 itself; a 503 reaches Heyan, whose outbox tries again later
        h.discord.inject("POST", rf"/channels/{general.id}/messages", Fault.server_error(503), times=1)
        lines = [f"line {i}: " + "x" * 880 for i in range(3)]
        await h.rt.outbox.append(post(h, "long", general.id, Mention(h.user_id("carol"), "Carol"), "\n".join(lines)))
        sent = await settled(h, "long", PostState.SENT)
        assert sent.attempts == 2 and sent.error is None
        posts = [r for r in h.discord.find_requests("POST", rf"/channels/{general.id}/messages") if r.status == 200]
        assert len(posts) == 2 and all(len(p.json["content"]) <= 2000 for p in posts)
        assert posts[0].json["content"].endswith("x" * 880) and posts[1].json["content"].startswith("line 2")
        assert sent.message_id == posts[0].response["id"]

        mediation = h.discord.guild.channel("mediation")  # a 429 (with Discord's Via header): discord.py waits
        h.discord.inject("POST", rf"/channels/{mediation.id}/messages", Fault.rate_limited(0.05), times=1)
        await h.rt.outbox.append(post(h, "limited", mediation.id, "after a pause"))
        sent = await settled(h, "limited", PostState.SENT)
        statuses = [r.status for r in h.discord.find_requests("POST", rf"/channels/{mediation.id}/messages")]
        assert sent.attempts == 1 and statuses == [429, 200]
