"""The moderators' digest: what it lists as of an explicit now, who may see it, the scheduled post
(once per day or week, at 09:00 the community's time, to its moderators' channel) and the one notice
when that channel refuses Heyan's posts."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from adapters.runtime.composition import Runtime
from bot.actors import InvalidRequest, PermissionDenied
from bot.agreements.digest import ALERT_ACTION
from bot.delivery.outbox import PostState
from bot.moderation.digests import post_digest
from bot.offline.provider import OfflineProvider
from bot.privacy.audit import SYSTEM, AuditEntry
from bot.text.richtext import Mention
from memory.models import FactStatus, Kind
from tests.jobs_helpers import Start, settings
from tests.records_helpers import ANN, MOD, T0, S, T, said

pytestmark = pytest.mark.usefixtures("hash_embedder")

NOW = T0 + timedelta(days=10)


@pytest.fixture
async def rt(tmp_path: Path, redis_url: str, start: Start) -> Runtime:
    return await start(settings(tmp_path, redis_url), provider=OfflineProvider(), worker=False)


def records() -> list:  # type: ignore[type-arg]
    c = Kind.COMMITMENT
    return [
        said(c, "u-bob", "pay rent", "pay rent by Friday", due=NOW - timedelta(days=2)),          # overdue
        said(c, "u-ann", "send invoice", "send the invoice", due=NOW - timedelta(hours=1),
             status=FactStatus.OVERDUE),                                                        # overdue
        said(c, "u-cat", "fix tap", "fix the tap tomorrow", due=NOW + timedelta(hours=20)),      # due soon
        said(c, "u-cat", "paint", "paint next month", due=NOW + timedelta(days=30)),             # later
        said(c, "u-bob", "done thing", "done thing", due=NOW - timedelta(days=1), status=FactStatus.DONE),
        said(Kind.EVENT, "u-ann", "claims", "Bob broke it", status=FactStatus.UNVERIFIED),       # review queue
    ]


async def test_the_digest_lists_what_needs_a_moderator(rt: Runtime) -> None:
    await rt.memory.remember(records())
    await rt.moderation.dispute_open(MOD, S, title="Old quarrel", members=[Mention("u-bob", "Bob")], announce=False)
    info = await rt.sessions.get(T, S)
    assert info is not None
    from dataclasses import replace
    await rt.sessions.put(replace(info, opened_at=NOW - timedelta(days=9)))
    await rt.audit.record(AuditEntry(tenant=T, actor_id="u-mod", actor_name="Mo", action="member.erase",
                                     target="u-eve", at=NOW - timedelta(hours=3)))
    await rt.audit.record(AuditEntry(tenant=T, actor_id=SYSTEM, actor_name="Heyan", action=ALERT_ACTION, target=S,
                                     at=NOW - timedelta(hours=2)))
    await rt.audit.record(AuditEntry(tenant=T, actor_id=SYSTEM, actor_name="Heyan", action=ALERT_ACTION, target=S,
                                     at=NOW - timedelta(days=3)))  # before the period
    digest = await rt.moderation.digest(MOD, now=NOW)
    data = digest.as_dict()
    assert [c["owner"] for c in data["overdue"]] == ["u-bob", "u-ann"]
    assert [c["action"] for c in data["due_soon"]] == ["fix the tap"]
    assert [d["session"] for d in data["stale_disputes"]] == [S] and data["stale_disputes"][0]["days"] == 9.0
    assert data["review_queue"]["total"] == 1 and data["review_queue"]["unverified"] == 1
    assert data["erasures"] == {"count": 1, "members": ["u-eve"]}
    assert data["alerts"]["count"] == 1
    text = digest.body().plain()
    assert "Overdue commitments (2)" in text and "pay rent" in text and "Old quarrel" in text
    weekly = await rt.moderation.digest(MOD, now=NOW, period="weekly")
    assert weekly.as_dict()["alerts"]["count"] == 2 and [c["action"] for c in weekly.as_dict()["due_soon"]] == [
        "fix the tap"]
    with pytest.raises(PermissionDenied):
        await rt.moderation.digest(ANN, now=NOW)


async def test_settings_take_a_channel_and_a_schedule(rt: Runtime) -> None:
    updated = await rt.moderation.update_community_settings(MOD, digest_channel=" mods ", digest_schedule="weekly")
    assert (updated.digest_channel, updated.digest_schedule) == ("mods", "weekly")
    with pytest.raises(InvalidRequest):
        await rt.moderation.update_community_settings(MOD, digest_schedule="hourly")
    with pytest.raises(InvalidRequest):
        await rt.moderation.update_community_settings(MOD, digest_channel="two words")


async def _post(rt: Runtime, now: datetime) -> str:
    return await post_digest(memory=rt.memory, sessions=rt.sessions, audit=rt.audit, tenants=rt.tenants,
                             redis=rt.redis, outbox=rt.outbox, tenant=T, now=now)


async def test_scheduled_post_once_a_day_from_nine_local(rt: Runtime) -> None:
    await rt.memory.remember(records())
    assert await _post(rt, NOW) == "not due"  # no channel yet
    await rt.moderation.update_community_settings(MOD, digest_channel="mods", timezone="Asia/Shanghai")
    morning = datetime(2026, 12, 2, 0, 30, tzinfo=UTC)  # 08:30 in Shanghai
    assert await _post(rt, morning) == "not due"
    nine = morning + timedelta(minutes=40)
    assert await _post(rt, nine) == "posted"
    assert await _post(rt, nine + timedelta(hours=1)) == "already posted"
    record = await rt.outbox.get(f"digest:{T}:mods:2026-12-02")
    assert record is not None and record.post.session == "mods" and "Overdue commitments" in record.post.body.plain()
    await rt.moderation.update_community_settings(MOD, digest_schedule="weekly")
    assert await _post(rt, nine + timedelta(days=1)) == "not due"  # Thursday
    monday = datetime(2026, 12, 7, 2, 0, tzinfo=UTC)
    assert await _post(rt, monday) == "posted"
    assert await rt.outbox.get(f"digest:{T}:mods:2026-W50") is not None
    await rt.moderation.update_community_settings(MOD, digest_schedule="off")
    assert await _post(rt, monday + timedelta(days=1)) == "not due"


async def test_a_channel_heyan_cannot_post_in_is_noticed_once(rt: Runtime) -> None:
    await rt.moderation.update_community_settings(MOD, digest_channel="gone")
    day = datetime(2026, 12, 2, 10, tzinfo=UTC)
    assert await _post(rt, day) == "posted"
    lease = (await rt.outbox.claim("discord"))[0]
    await rt.outbox.failed(lease, "403 Missing Access", permanent=True)
    assert (await rt.outbox.get(f"digest:{T}:gone:2026-12-02")).state is PostState.DEAD  # type: ignore[union-attr]
    assert await _post(rt, day + timedelta(days=1)) == "channel unusable"
    assert await _post(rt, day + timedelta(days=2)) == "channel unusable"
    notices = [e for e in await rt.moderation.audit_log(MOD) if e.action == "digest.undeliverable"]
    assert len(notices) == 1 and notices[0].target == "gone" and "403" in str(notices[0].after)
    digest = await rt.moderation.digest(MOD, now=day)
    assert digest.undeliverable == ("gone", "403 Missing Access")
    await rt.moderation.update_community_settings(MOD, digest_channel="mods")  # a new channel is tried again
    assert await _post(rt, day + timedelta(days=3)) == "posted"
