"""Slack threads as communities use them (issue 19): a mention reads its thread back; a dispute
channel's threads belong to its dispute (Heyan's own opening post's thread included); a dispute on
one thread (the message shortcut); opening where Heyan cannot hear is refused with an invitation
hint; the community decides who opens disputes where; a deleted thread parent (tombstone) is a
deletion; archived and deleted channels. Real bolt app, real runtime, the loopback stand-in."""

from __future__ import annotations

from pathlib import Path

from bot.actors import Actor, Capability
from memory.models import Kind, Scope
from tests.slack_standin import ALICE, BOB, CAROL, GENERAL, RESPONSE_URL, SlackChannel, SlackUser
from tests.slack_world import (  # noqa: F401  (fixtures)
    World,
    hash_embedder_fixture,
    no_slack_env_fixture,
    slack_world,
    texts,
)

DAN = "U0DAN00001"
RANDOM = "C0RANDOM01"  # a public channel Heyan was never invited to


async def commitments(w: World, **scope: str) -> list[tuple[str, str | None]]:
    await w.drain()
    return sorted((f.value, f.session) for f in await w.facts(**scope) if f.kind is Kind.COMMITMENT)


def shown(call: object) -> str:
    return texts(call)  # type: ignore[arg-type]


# -- 1. a mention reads its thread --------------------------------------------------------------------


async def test_a_mention_in_a_thread_names_the_promise_made_just_before_it(tmp_path: Path, redis_url: str) -> None:
    """Dan promises in a thread never opened as a dispute; Carol asks Heyan one line later. Before,
    Heyan answered "I have no record of that": it never read the thread it was asked in."""
    async with slack_world(tmp_path, redis_url) as w:
        w.slack.add_user(SlackUser(DAN, "dan", real_name="Dan"))
        p = w.slack.payloads
        parent = w.slack.add_message(GENERAL, "the CI is red again", user=ALICE)
        promise = p.message(user=DAN, channel=GENERAL, thread_ts=parent, text="Fine, I'll fix the CI config by Friday.")
        assert await w.settle(await w.sender.event(promise)) == ["ignored"]  # no dispute: not observed
        ask = p.app_mention(user=CAROL, channel=GENERAL, thread_ts=parent, text="what did Dan promise?")
        await w.event(ask)
        answer = await w.slack.wait_for_call("chat.postMessage")
        read = w.slack.calls_to("conversations.replies")
        window = await w.rt.window.recent(Scope(tenant=w.tenant, session=f"{GENERAL}:{parent}"))
        stored = await w.facts()

    assert answer.params["thread_ts"] == parent
    assert "dan promised to fix the CI config" in answer.params["text"]
    assert read and read[0].params["ts"] == parent and read[0].params["latest"] == ask["ts"]  # up to the mention
    assert [m.text for m in window] == ["what did Dan promise?"]  # what was read is not stored
    assert stored == []


async def test_a_history_slack_refuses_still_gets_an_answer_and_tells_the_installer_once(
    tmp_path: Path, redis_url: str
) -> None:
    async with slack_world(tmp_path, redis_url) as w:
        w.slack.remove_scope("channels:history")  # removed after the start-up check
        p = w.slack.payloads
        parent = w.slack.add_message(GENERAL, "the CI is red again", user=ALICE)
        for ask in ("what did Dan promise?", "and what else?"):
            await w.event(p.app_mention(user=CAROL, channel=GENERAL, thread_ts=parent, text=ask))
        answers = [c.params["text"] for c in w.slack.calls_to("chat.postMessage")]
        told = await w.rt.redis.get(f"heyan:slack-scope:{w.tenant}:channels:history")

    assert len(answers) == 2  # one answer each, from memory
    assert all("channels:history" in a for a in answers)  # the member learns why it was not read
    assert told is not None  # the installer is told once a week, not at every mention


# -- 2. a dispute channel's threads belong to its dispute --------------------------------------------


async def test_replies_in_a_dispute_channels_threads_are_remembered_for_the_whole_dispute(
    tmp_path: Path, redis_url: str
) -> None:
    """Replies under Heyan's own opening post and in any other thread of the dispute channel are
    observed, in the dispute's session: recalled from another thread, in the summary, closed with it.
    Before, only top-level messages were heard."""
    async with slack_world(tmp_path, redis_url) as w:
        p = w.slack.payloads
        await w.command(CAROL, GENERAL, f"dispute open <@{ALICE}|alice> <@{BOB}|bob> The parking spots")
        opening = await w.slack.wait_for_call("chat.postMessage")
        under_opening = await w.event(p.message(user=ALICE, channel=GENERAL, thread_ts=opening.response["ts"],
                                                text="I will move my car by 6pm"))
        side = w.slack.add_message(GENERAL, "about the visitor spot", user=BOB)
        in_side = await w.event(p.message(user=BOB, channel=GENERAL, thread_ts=side,
                                          text="I will ask the office for a visitor pass by Monday"))
        promised = await commitments(w)
        ask = p.app_mention(user=CAROL, channel=GENERAL, thread_ts=side, text="what did alice promise?")
        await w.event(ask)
        answer = await w.slack.wait_for_call("chat.postMessage", count=2)
        closed = shown(await w.command(CAROL, GENERAL, "dispute close --force"))  # no card round (issue 22)

    assert w.bridge.outcomes.of(under_opening.sent["event_id"]) == ["observed"]
    assert w.bridge.outcomes.of(in_side.sent["event_id"]) == ["observed"]
    assert promised == [("ask the office for a visitor pass by Monday", GENERAL), ("move my car by 6pm", GENERAL)]
    assert "alice promised to move their car" in answer.params["text"] and answer.params["thread_ts"] == side
    assert "Closed the dispute" in closed


async def test_opening_where_heyan_is_not_a_member_asks_to_invite_it(tmp_path: Path, redis_url: str) -> None:
    """Before: "Opened … on its way", an open dispute recorded, and the opening post dead-lettered
    as not_in_channel."""
    async with slack_world(tmp_path, redis_url) as w:
        w.slack.add_channel(SlackChannel(RANDOM, "random", "public", bot_is_member=False))
        answer = shown(await w.command(ALICE, RANDOM, f"dispute open <@{BOB}|bob> The fridge"))
        await w.drain()
        info = await w.rt.sessions.get(w.tenant, RANDOM)
        posted = w.slack.calls_to("chat.postMessage")
        dead = await w.rt.redis.exists("heyan:outbox:slack:dead", "heyan:outbox:slack:ready")

    assert "Invite @heyan first" in answer
    assert info is None and posted == [] and dead == 0


async def test_the_community_decides_who_opens_disputes_and_where(tmp_path: Path, redis_url: str) -> None:
    async with slack_world(tmp_path, redis_url) as w:
        disputes = "C0DISPUTE1"
        w.slack.add_channel(SlackChannel(disputes, "disputes", "public"))
        admin = Actor(tenant=w.tenant, user_id=CAROL, capabilities=frozenset({Capability.MODERATE}))
        await w.rt.moderation.update_community_settings(admin, dispute_channels=[disputes])
        in_general = shown(await w.command(BOB, GENERAL, "dispute open The fridge"))
        in_disputes = shown(await w.command(BOB, disputes, "dispute open The fridge"))
        general_open = await w.rt.sessions.is_open(w.tenant, GENERAL)
        disputes_open = await w.rt.sessions.is_open(w.tenant, disputes)

    assert "不能在这个频道发起争议" in in_general and not general_open  # bob reads Chinese
    assert in_disputes.startswith("已在本频道开启争议") and disputes_open


async def test_a_dispute_opened_on_one_thread_hears_that_thread_only(tmp_path: Path, redis_url: str) -> None:
    async with slack_world(tmp_path, redis_url) as w:
        p = w.slack.payloads
        parent = w.slack.add_message(GENERAL, f"<@{BOB}> your car is in my spot again", user=ALICE)
        reply = w.slack.add_message(GENERAL, "it is my spot", user=BOB, thread_ts=parent)
        shortcut = {**p._interaction_base("message_action", CAROL), "callback_id": "heyan_open_dispute",
                    "trigger_id": p.trigger_id(), "response_url": w.slack.response_url(),
                    "channel": {"id": GENERAL, "name": "general"}, "message_ts": reply,
                    "message": {"type": "message", "user": BOB, "text": "it is my spot", "ts": reply,
                                "thread_ts": parent}}
        answered = await w.sender.interaction(shortcut)
        told = await w.response(shortcut["response_url"])
        opening = await w.slack.wait_for_call("chat.postMessage")
        inside = await w.event(p.message(user=BOB, channel=GENERAL, thread_ts=parent, text="I will park outside by Monday"))
        outside = await w.event(p.message(user=ALICE, channel=GENERAL, text="I will buy a cover by Monday"))
        promised = await commitments(w)

    assert (answered.status, answered.text) == (200, "")
    assert "on this thread" in told.params["text"]
    assert opening.params["thread_ts"] == parent  # the opening post goes into the thread
    assert w.bridge.outcomes.of(inside.sent["event_id"]) == ["observed"]
    assert w.bridge.outcomes.of(outside.sent["event_id"]) == ["ignored"]
    assert promised == [("park outside by Monday", f"{GENERAL}:{parent}")]


# -- 7. deletions ---------------------------------------------------------------------------------------


async def test_deleting_a_threads_first_message_is_a_deletion_not_an_edit(tmp_path: Path, redis_url: str) -> None:
    """Slack turns a deleted parent with replies into a tombstone ("This message was deleted.") and
    says so with message_changed; before, that text entered the window as an edit."""
    async with slack_world(tmp_path, redis_url) as w:
        p = w.slack.payloads
        await w.command(CAROL, GENERAL, "dispute open The fence")
        parent = await w.event(p.message(user=ALICE, channel=GENERAL, text="I will paint the fence by Friday"))
        ts = parent.sent["event"]["ts"]
        await w.event(p.message(user=BOB, channel=GENERAL, thread_ts=ts, text="thanks"))
        before = await commitments(w)
        tomb = await w.event(p.tombstone(channel=GENERAL, ts=ts, user=ALICE, text="I will paint the fence by Friday"))
        after = await commitments(w)
        window = await w.rt.window.recent(Scope(tenant=w.tenant, session=GENERAL))

    assert before == [("paint the fence by Friday", GENERAL)]
    assert w.bridge.outcomes.of(tomb.sent["event_id"]) == ["retracted"]
    assert after == []
    assert [m.text for m in window] == ["thanks"]  # no "This message was deleted."


async def test_an_archived_channel_closes_its_dispute_and_a_deleted_one_forgets_it(
    tmp_path: Path, redis_url: str
) -> None:
    async with slack_world(tmp_path, redis_url) as w:
        p = w.slack.payloads
        other = "C0OTHER001"
        w.slack.add_channel(SlackChannel(other, "other", "public"))
        await w.command(CAROL, GENERAL, "dispute open The fence")
        await w.command(CAROL, other, "dispute open The bins")
        await w.event(p.message(user=ALICE, channel=GENERAL, text="I will paint the fence by Friday"))
        await w.event(p.message(user=BOB, channel=other, text="I will empty the bins by Monday"))
        await commitments(w)
        archived = await w.event(p.channel_event("channel_archive", channel=GENERAL, user=CAROL))
        deleted = await w.event(p.channel_event("channel_deleted", channel=other))
        general = await w.rt.sessions.get(w.tenant, GENERAL)
        left = await commitments(w)
        other_window = await w.rt.window.recent(Scope(tenant=w.tenant, session=other))
        calls = w.slack.calls_to(RESPONSE_URL)

    assert w.bridge.outcomes.of(archived.sent["event_id"]) == ["closed"]
    assert w.bridge.outcomes.of(deleted.sent["event_id"]) == ["forgotten"]
    assert general is not None and not general.is_open
    assert left == [("paint the fence by Friday", GENERAL)]  # archived: kept; deleted: forgotten
    assert other_window == [] and calls
