"""The Slack outbox: follow-ups posted in their thread mentioning only their owner, untrusted text
that pings nobody, Slack's 429s honoured, and a channel the bot was removed from dead-lettered
with Slack's reason. Posts go through the real ``Deliverer`` the runtime runs for ``SlackSender``.
"""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

from bot.delivery.outbox import Post, PostRecord, PostState
from bot.text.richtext import Mention, RichText
from memory.models import Kind, Scope, Visibility, utcnow
from tests.clock import JobSchedule
from tests.slack_standin import ALICE, BOB, CAROL, GENERAL, SlackChannel
from tests.slack_world import (  # noqa: F401  (fixtures)
    World,
    hash_embedder_fixture,
    no_slack_env_fixture,
    slack_world,
)

_MARKUP = re.compile(r"<[^>]*>")


def pings(text: str) -> list[str]:
    """Every piece of live Slack markup in a posted text (what could notify someone)."""
    return _MARKUP.findall(text)


async def test_a_follow_up_is_posted_in_its_thread_mentioning_only_its_owner(tmp_path: Path, redis_url: str) -> None:
    async with slack_world(tmp_path, redis_url) as w:
        parent = w.slack.add_message(GENERAL, "the 50 dollars", user=BOB)
        session = f"{GENERAL}:{parent}"
        await w.rt.sessions.open(w.tenant, session, title="the loan", opened_by=CAROL, members=[ALICE, BOB],
                                 visibility=Visibility.PUBLIC)
        said = w.slack.payloads.message(user=ALICE, channel=GENERAL, thread_ts=parent,
                                        text="I will pay back the 50 dollars in 3 hours <!channel> <!here>")
        await w.event(said)
        schedule = JobSchedule(w.rt.redis)  # the due time comes when the test moves arq's schedule
        [due] = (await schedule.wait_deferred("remind:")).values()
        assert await schedule.run_due(due)
        follow_up = await w.slack.wait_for_call("chat.postMessage", timeout=30)
        [fact] = [f for f in await w.facts() if f.kind is Kind.COMMITMENT]
        sent = await w.until(lambda: _recorded(w, fact.id), "the reminder recorded on the commitment")
        record = await w.rt.outbox.get(f"remind:{w.tenant}:{fact.id}:{fact.version}")

    text = follow_up.params["text"]
    assert follow_up.params["channel"] == GENERAL and follow_up.params["thread_ts"] == parent
    assert follow_up.params["link_names"] is False
    assert pings(text) == [f"<@{ALICE}>"]  # the owner, and nobody else
    assert "I will pay back the 50 dollars in 3 hours @channel @here" in text  # quoted, inert
    assert sent and record is not None and record.state is PostState.SENT
    assert record.message_id == follow_up.response["ts"]


async def _recorded(w: World, fact_id: str) -> bool:
    fact = await w.rt.memory.get(Scope(tenant=w.tenant), fact_id)
    return bool(fact and fact.reminders_sent)


async def test_raw_slack_markup_in_memory_is_escaped_when_posted(tmp_path: Path, redis_url: str) -> None:
    async with slack_world(tmp_path, redis_url) as w:
        parent = w.slack.add_message(GENERAL, "the loan", user=BOB)
        quote = "<!channel> <!here> <!everyone> <!subteam^S0MODS0001|@moderators> <@U0BOB00001> & <#C0MODS0001>"
        [fact] = await w.remember(w.fact(Kind.COMMITMENT, ALICE, "alice <!here>", "pay back", "pay back 50",
                                         session=f"{GENERAL}:{parent}", quote=quote,
                                         due_at=utcnow() + timedelta(seconds=1)))
        await w.rt.queue.remind(w.tenant, fact.id, fact.version, utcnow())
        post = await w.slack.wait_for_call("chat.postMessage", timeout=30)

    text = post.params["text"]
    assert pings(text) == [f"<@{ALICE}>"]
    assert ("&lt;!channel&gt; &lt;!here&gt; &lt;!everyone&gt; &lt;!subteam^S0MODS0001|@moderators&gt; "
            "&lt;@U0BOB00001&gt; &amp; &lt;#C0MODS0001&gt;") in text


async def test_a_channel_the_bot_was_removed_from_goes_to_the_dead_letters(tmp_path: Path, redis_url: str) -> None:
    async with slack_world(tmp_path, redis_url) as w:
        w.slack.add_channel(SlackChannel("C0LEFT0001", "left", "public", bot_is_member=False))
        w.slack.add_channel(SlackChannel("C0SECRET01", "secret", "private", bot_is_member=False))
        w.slack.add_channel(SlackChannel("C0ARCHIVE1", "old", "public", is_archived=True))
        for channel in ("C0LEFT0001", "C0SECRET01:1700000000.000100", "C0ARCHIVE1"):
            await w.rt.outbox.append(Post(id=f"notice:{w.tenant}:{channel}", tenant=w.tenant, session=channel,
                                          body=RichText.of(Mention(ALICE, "alice"), " a follow-up")))
        dead = await w.until(lambda: _dead(w, 3), "three dead letters")
        attempts = len(w.slack.calls_to("chat.postMessage"))

    reasons = {r.post.session: r.error or "" for r in dead}
    assert reasons["C0LEFT0001"].startswith("not_in_channel: the bot is not a member of the channel")
    assert reasons["C0SECRET01:1700000000.000100"].startswith("channel_not_found")
    assert reasons["C0ARCHIVE1"].startswith("is_archived")
    assert all(r.attempts == 1 for r in dead) and attempts == 3  # permanent: no retries


async def _dead(w: World, n: int) -> list[PostRecord] | None:
    dead = await w.rt.outbox.dead("slack")
    return dead if len(dead) >= n else None


async def test_slacks_rate_limits_are_honoured(tmp_path: Path, redis_url: str) -> None:
    async with slack_world(tmp_path, redis_url) as w:
        w.slack.rate_limit("chat.postMessage", retry_after=1, times=2)  # the client waits once, then the outbox
        await w.rt.outbox.append(Post(id=f"notice:{w.tenant}:limited", tenant=w.tenant, session=GENERAL,
                                      body=RichText.of("patience")))
        posted = await w.slack.wait_for_call("chat.postMessage", count=3, timeout=30)
        record = await w.until(lambda: _sent(w, f"notice:{w.tenant}:limited"), "the post recorded as sent")

    statuses = [c.status for c in w.slack.calls_to("chat.postMessage")]
    assert statuses == [429, 429, 200]
    first, _, last = w.slack.calls_to("chat.postMessage")
    assert last.at - first.at >= 2.0  # Retry-After: 1 s, twice
    assert record.attempts == 2 and record.message_id == posted.response["ts"]


async def _sent(w: World, post_id: str) -> PostRecord | None:
    record = await w.rt.outbox.get(post_id)
    return record if record is not None and record.state is PostState.SENT else None


async def test_a_reply_slack_refused_for_a_while_is_delivered_from_the_outbox(tmp_path: Path, redis_url: str) -> None:
    async with slack_world(tmp_path, redis_url) as w:
        w.slack.fail("chat.postMessage", "internal_error")
        mention = w.slack.payloads.app_mention(user=ALICE, channel=GENERAL, text="are you there?")
        assert await w.settle(await w.sender.event(mention)) == ["reply-queued"]
        delivered = await w.slack.wait_for_call("chat.postMessage", count=2, timeout=30)

    assert delivered.status == 200 and delivered.params["thread_ts"] == mention["ts"]
