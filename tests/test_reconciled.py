"""What a reconciliation settled is remembered per tenant, so the next one opens only what changed."""

from __future__ import annotations

from redis.asyncio import Redis

from jobs.reconciled import FULL_PASS_AFTER, ReconcileMarks


async def test_marks_remember_versions_forget_closed_ids_and_expire(redis_url: str) -> None:
    redis = Redis.from_url(redis_url)
    try:
        marks = ReconcileMarks(redis)
        assert await marks.settled("t1") == {}
        await marks.record("t1", {"a": 1, "b": 3}, ["a", "b"])
        assert await marks.settled("t1") == {"a": 1, "b": 3}
        assert await marks.settled("t2") == {}  # per tenant
        ttl = await redis.ttl("heyan:reconciled:t1")
        assert 0 < ttl <= FULL_PASS_AFTER
        # b is no longer open (done, deleted): dropped; a changed to version 2
        await marks.record("t1", {"a": 2}, ["a"])
        assert await marks.settled("t1") == {"a": 2}
        assert await redis.ttl("heyan:reconciled:t1") <= ttl  # not extended: a full pass still comes
        await redis.hset("heyan:reconciled:t1", "junk", "not a number")
        assert await marks.settled("t1") == {"a": 2}  # a bad mark only means opening that one again
    finally:
        await redis.aclose()
