"""The promise-keeping record: each outcome counted from the records (done vs due, overdue as of an
explicit now, cancelled), who may see it, and the moderators' notice when a member joins a dispute."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from adapters.runtime.composition import Runtime
from bot.actors import PermissionDenied
from bot.agreements.promises import GRACE, Outcome, outcome, promise_record
from bot.models import Message
from bot.offline.provider import OfflineProvider
from memory.models import FactStatus, Kind, Scope, Visibility
from tests.jobs_helpers import Start, settings
from tests.records_helpers import ANN, BOB, MOD, T0, S, T, said

pytestmark = pytest.mark.usefixtures("hash_embedder")

DUE = T0 + timedelta(days=1)
NOW = T0 + timedelta(days=3)


def bobs() -> list:  # type: ignore[type-arg]
    c = Kind.COMMITMENT
    return [
        said(c, "u-bob", "pay rent", "pay rent by Friday", due=DUE, status=FactStatus.DONE,
             done_at=DUE - timedelta(hours=2)),                                             # on time
        said(c, "u-bob", "fix the tap", "fix the tap by Friday", due=DUE, status=FactStatus.DONE,
             done_at=DUE + timedelta(days=1)),                                              # late
        said(c, "u-bob", "return the drill", "return the drill by Friday", due=DUE),        # overdue (active, past due)
        said(c, "u-bob", "clean the oven", "clean the oven", due=DUE, status=FactStatus.OVERDUE),  # overdue
        said(c, "u-bob", "buy milk", "buy milk", status=FactStatus.CANCELLED),               # cancelled
        said(c, "u-bob", "water plants", "water plants next week", due=NOW + timedelta(days=4)),  # not due yet
        said(c, "u-bob", "call mum", "call mum", status=FactStatus.DONE, done_at=T0),        # no due time: on time
        said(c, "u-bob", "paint", "paint the door", status=FactStatus.REJECTED),            # not counted
        said(c, "u-ann", "mow", "mow the lawn", due=DUE),                                   # someone else's
        said(Kind.DEMAND, "u-bob", "wants", "quiet evenings"),                              # not a promise
    ]


def test_each_outcome_is_counted_from_its_record() -> None:
    record = promise_record(T, "u-bob", bobs(), NOW)
    assert (record.kept_on_time, record.kept_late, record.overdue, record.cancelled, record.open) == (2, 1, 2, 1, 1)
    assert record.name == "Bob" and record.total == 7
    assert [line.outcome for line in record.lines][:3] == [Outcome.OVERDUE, Outcome.OVERDUE, Outcome.LATE]
    assert "2 kept on time, 1 kept late, 2 overdue, 1 cancelled (1 not due yet)" in record.text("en")
    assert "按时完成 2，逾期完成 1，已逾期未完成 2，已取消 1" in record.text("zh")
    assert record.as_dict()["kept_on_time"] == 2 and len(record.as_dict()["commitments"]) == 7


def test_as_of_an_earlier_now_nothing_is_overdue_yet() -> None:
    record = promise_record(T, "u-bob", bobs(), T0)
    assert record.overdue == 1  # only the one reconciliation already marked overdue
    assert record.open == 2


def test_done_a_moment_after_the_deadline_is_on_time_and_done_time_falls_back_to_the_last_change() -> None:
    just = said(Kind.COMMITMENT, "u-bob", "x", "x", due=DUE, status=FactStatus.DONE, done_at=DUE + GRACE)
    assert outcome(just, NOW) is Outcome.ON_TIME
    legacy = said(Kind.COMMITMENT, "u-bob", "y", "y", due=DUE, status=FactStatus.DONE).model_copy(
        update={"updated_at": DUE + timedelta(days=2)})
    assert outcome(legacy, NOW) is Outcome.LATE


@pytest.fixture
async def rt(tmp_path: Path, redis_url: str, start: Start) -> Runtime:
    return await start(settings(tmp_path, redis_url), provider=OfflineProvider(), worker=False)


async def test_members_see_their_own_moderators_anyone(rt: Runtime) -> None:
    await rt.memory.remember(bobs())
    own = await rt.moderation.promise_record(BOB, now=NOW)
    assert own.overdue == 2 and own.user == "u-bob"
    assert (await rt.moderation.promise_record(MOD, "u-bob", now=NOW)).kept_late == 1
    with pytest.raises(PermissionDenied):
        await rt.moderation.promise_record(ANN, "u-bob", now=NOW)


async def test_commitment_done_keeps_when_it_was_done(rt: Runtime) -> None:
    [late] = [said(Kind.COMMITMENT, "u-bob", "fix", "fix the tap by Friday", due=DUE)]
    await rt.memory.remember([late])
    reported = DUE - timedelta(hours=1)  # said "done" before the deadline; recorded days later
    done = await rt.moderation.commitment_done(BOB, late.with_id().id, at=reported)
    assert done.done_at == reported
    assert (await rt.moderation.promise_record(BOB, now=NOW)).kept_on_time == 1


async def test_joining_a_dispute_shows_moderators_the_record_once(rt: Runtime) -> None:
    await rt.memory.remember(bobs())
    await rt.moderation.update_community_settings(MOD, digest_channel="mods")
    await rt.moderation.dispute_open(MOD, S, title="Tools", announce=False)
    msg = Message(id="j1", scope=Scope(tenant=T, session=S, user="u-bob"), author_name="Bob", text="hi", ts=NOW)
    assert await rt.joins.observe(msg, now=NOW)
    assert not await rt.joins.observe(msg, now=NOW)  # once per member and dispute
    opened = await rt.sessions.get(T, S)
    assert opened is not None and opened.opened_at is not None
    post = await rt.outbox.get(f"joined:{T}:{S}:u-bob:{int(opened.opened_at.timestamp())}")
    assert post is not None and post.post.session == "mods" and not post.post.body.mentions
    text = post.post.body.plain()
    assert "Bob joined the dispute “Tools”" in text and "2 overdue" in text
    # not in a dispute: nothing
    elsewhere = Message(id="j2", scope=Scope(tenant=T, session="other", user="u-ann"), author_name="Ann", text="hi",
                        ts=NOW)
    assert not await rt.joins.observe(elsewhere, now=NOW)


async def test_a_private_dispute_is_not_named_in_the_notice(rt: Runtime) -> None:
    await rt.moderation.update_community_settings(MOD, digest_channel="mods")
    await rt.moderation.dispute_open(MOD, S, title="Secret matter", announce=False, visibility=Visibility.PRIVATE)
    msg = Message(id="p1", scope=Scope(tenant=T, session=S, user="u-ann"), author_name="Ann", text="hello", ts=NOW,
                  visibility=Visibility.PRIVATE)
    assert await rt.joins.observe(msg, now=NOW)
    posts = [r for r in [await rt.outbox.get(i) for i in await _ids(rt)] if r is not None]
    [notice] = [r for r in posts if r.post.ref.get("member") == "u-ann"]
    assert "Secret matter" not in notice.post.body.plain() and "a private dispute" in notice.post.body.plain()


async def _ids(rt: Runtime) -> list[str]:
    keys = [k.decode() if isinstance(k, bytes) else k async for k in rt.redis.scan_iter(match="heyan:outbox:post:*")]
    return [k.removeprefix("heyan:outbox:post:") for k in keys]
