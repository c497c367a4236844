"""Nothing said in an open dispute is lost (issue 19): what was said while Heyan was stopped is read
back at start, once; a delivery whose handling fails after bolt's ack is re-queued and handled;
Slack's rate limits on a reply neither lose it nor post it twice."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memory.models import Kind
from tests.slack_standin import ALICE, BOB, CAROL, GENERAL, SlackStandIn
from tests.slack_world import (  # noqa: F401  (fixtures)
    World,
    hash_embedder_fixture,
    no_slack_env_fixture,
    slack_world,
)


async def commitments(w: World) -> list[str]:
    await w.drain()
    return sorted(f.value for f in await w.facts() if f.kind is Kind.COMMITMENT)


async def test_a_promise_made_in_a_dispute_thread_while_heyan_was_stopped_is_read_back_once(
    tmp_path: Path, redis_url: str
) -> None:
    async with SlackStandIn() as slack:
        async with slack_world(tmp_path, redis_url, slack=slack) as w:
            p = slack.payloads
            await w.command(CAROL, GENERAL, f"dispute open <@{ALICE}|alice> <@{BOB}|bob> The parking spots")
            opening = await slack.wait_for_call("chat.postMessage")
            thread = opening.response["ts"]
            await w.event(p.message(user=ALICE, channel=GENERAL, thread_ts=thread, text="I will move my car by 6pm"))
            before = await commitments(w)
            assert w.platform.catchup is not None and w.platform.catchup.total == 0

        # Heyan is stopped: Slack keeps the messages; their events reach nobody.
        missed = p.message(user=BOB, channel=GENERAL, thread_ts=thread, text="I will buy a parking permit by Friday")
        top = p.message(user=CAROL, channel=GENERAL, text="Let's settle this by the end of the week")

        async with slack_world(tmp_path, redis_url, slack=slack) as w:
            await w.platform.catchup_done.wait()
            report = w.platform.catchup
            after = await commitments(w)
            # Slack's late retry of the same message, after the catch-up read it: handled once
            late = await w.sender.event(missed, retry_num=1, retry_reason="http_timeout")
            outcome = await w.settle(late)
            again = await commitments(w)

    assert before == ["move my car by 6pm"]
    assert report is not None and report.total == 2 and report.refused == {}
    assert after == ["buy a parking permit by Friday", "move my car by 6pm"]
    assert outcome == ["duplicate"] and again == after
    assert top["ts"]  # (read back too: the channel's top level belongs to the dispute)


async def test_a_delivery_that_fails_after_the_ack_is_requeued_and_handled(tmp_path: Path, redis_url: str) -> None:
    """Slack never sends an acked event again: before, a failure here lost the message."""
    async with slack_world(tmp_path, redis_url) as w:
        await w.command(CAROL, GENERAL, "dispute open The parking spots")
        hear = w.rt.engine.hear
        failures = [RuntimeError("the store is briefly away")]

        async def flaky(*args: Any, **kwargs: Any) -> Any:
            if failures:
                raise failures.pop()
            return await hear(*args, **kwargs)

        w.rt.engine.hear = flaky  # type: ignore[method-assign]
        said = await w.sender.event(w.slack.payloads.message(user=ALICE, channel=GENERAL,
                                                             text="I will move my car by 6pm"))
        outcomes = await w.settle(said, count=2)
        promised = await commitments(w)
        stored = [k async for k in w.rt.redis.scan_iter(match="heyan:slack-redo:*")]

    assert outcomes == ["requeued", "observed"]
    assert promised == ["move my car by 6pm"]
    assert stored == []  # dropped once handled


async def test_a_rate_limit_storm_delays_a_reply_but_never_loses_or_doubles_it(tmp_path: Path, redis_url: str) -> None:
    async with slack_world(tmp_path, redis_url) as w:
        w.slack.rate_limit("chat.postMessage", retry_after=1, times=3)  # the client waits out one, then gives up
        mention = await w.sender.event(w.slack.payloads.app_mention(user=ALICE, channel=GENERAL, text="hello"))
        outcome = await w.settle(mention)
        posted = await w.until(lambda: _ok_posts(w), "the reply was never delivered")
        await w.drain()
        final = _ok_posts_now(w)

    assert outcome == ["reply-queued"]
    assert len(posted) == 1 and len(final) == 1  # delivered from the outbox, once


def _ok_posts_now(w: World) -> list[Any]:
    return [c for c in w.slack.calls_to("chat.postMessage") if c.status == 200 and c.response.get("ok")]


async def _ok_posts(w: World) -> list[Any] | None:
    await w.rt.deliver_now()
    return _ok_posts_now(w) or None


async def test_a_recent_mention_from_the_downtime_is_answered_in_its_thread(tmp_path: Path, redis_url: str) -> None:
    """As on Discord: a member who asked Heyan a minute before it came back gets the answer; the
    question is answered once (Slack's late retry of it finds it answered)."""
    async with SlackStandIn() as slack:
        async with slack_world(tmp_path, redis_url, slack=slack) as w:
            p = slack.payloads
            await w.command(CAROL, GENERAL, f"dispute open <@{ALICE}|alice> <@{BOB}|bob> The parking spots")
            opening = await slack.wait_for_call("chat.postMessage")
            thread = opening.response["ts"]
            await w.event(p.message(user=BOB, channel=GENERAL, thread_ts=thread, text="I will buy a permit by Friday"))
            await commitments(w)

        bot = slack.workspace.bot_user_id
        asked = p.message(user=ALICE, channel=GENERAL, thread_ts=thread, text=f"<@{bot}> what did <@{BOB}> promise?")
        posts_before = len(slack.calls_to("chat.postMessage"))

        async with slack_world(tmp_path, redis_url, slack=slack) as w:
            await w.platform.catchup_done.wait()
            await w.rt.deliver_now()
            late = await w.sender.event(p.app_mention(user=ALICE, channel=GENERAL, thread_ts=thread,
                                                      text=asked["text"], ts=asked["ts"]), retry_num=1,
                                        retry_reason="http_timeout")
            outcome = await w.settle(late)

    replies = [c for c in slack.calls_to("chat.postMessage")[posts_before:] if c.response.get("ok")]
    assert len(replies) == 1 and replies[0].params.get("thread_ts") == thread
    assert "permit" in replies[0].params["text"]
    assert outcome in (["duplicate"], ["not-answered"])  # the retry finds it answered: no second reply
