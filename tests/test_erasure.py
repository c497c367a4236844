"""Erasure that really erases, store by store: session summaries (whose authors accumulate across
versions, so a member whose messages left the window is still found), outbox posts in every state,
audit entries (details that expire with the tenant's retention, names and reasons), dead-lettered
jobs (their errors sealed), and one tenant at a time."""

from __future__ import annotations

import json
import logging
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from adapters.runtime.composition import Runtime
from bot.actors import Actor, Capability, InvalidRequest
from bot.delivery.deadletters import DEAD_LETTER, DeadLetters
from bot.delivery.outbox import Post, PostKind, PostState
from bot.models import Message
from bot.offline.provider import OfflineProvider
from bot.privacy.audit import AuditEntry
from bot.summaries import summarize_session
from bot.text.richtext import Mention, RichText
from jobs import admin
from jobs.worker import JobFailed, resilient
from memory.models import Fact, Kind, Scope, Source, utcnow
from tests.jobs_helpers import Start, settings

pytestmark = pytest.mark.usefixtures("hash_embedder")

T = "discord:501"
OTHER = "discord:502"
SESSION = "thread-e"
NAME = "Quillanne"
MARK = "zephyrquartz"
MOD = Actor(tenant=T, user_id="u-mod", name="Mo", capabilities=frozenset({Capability.MODERATE}))


@pytest.fixture
async def rt(tmp_path: Path, redis_url: str, start: Start) -> Runtime:
    s = settings(tmp_path, redis_url).model_copy(update={"window_size": 3})
    return await start(s, provider=OfflineProvider(), worker=False)


def _msg(n: int, user: str, name: str, text: str, *, tenant: str = T) -> Message:
    return Message(id=f"e{n}", scope=Scope(tenant=tenant, session=SESSION, user=user), author_name=name, text=text,
                   ts=utcnow() - timedelta(minutes=30 - n))


def _fact(user: str, value: str, *, tenant: str = T, kind: Kind = Kind.DEMAND, msg: str = "x1") -> Fact:
    return Fact(tenant=tenant, session=SESSION, kind=kind, subject=user, subject_name=NAME if user == "u-ann" else "Bob",
                attribute="wants", value=value, asserted_by=user, users=(user,),
                sources=(Source(message_id=msg, author_id=user, author_name=NAME if user == "u-ann" else "Bob",
                                ts=utcnow(), quote=value),))


async def _erase(rt: Runtime, user: str = "u-ann", tenant: str = T) -> Any:
    return await rt.erasure.erase(tenant, user, request_id="test", second_pass=False)


# --- summaries ---------------------------------------------------------------------------------


async def test_a_summary_remembers_every_author_and_erasure_rolls_it_back_to_before_them(rt: Runtime) -> None:
    scope = Scope(tenant=T, session=SESSION)

    async def say(n: int, user: str, name: str, text: str) -> None:
        assert await rt.window.append(_msg(n, user, name, text))

    await say(1, "u-bob", "Bob", "I promise to fix the garden fence by Monday.")
    v1 = await summarize_session(rt.window, rt.memory, rt.provider, scope)
    await say(2, "u-ann", NAME, f"I want the {MARK} lamp returned by Friday.")
    v2 = await summarize_session(rt.window, rt.memory, rt.provider, scope)
    for n in (3, 4, 5):  # Ann's message scrolls out of the three-message window
        await say(n, "u-bob", "Bob", f"The weather is fine today, number {n}.")
    assert all(m.author_id == "u-bob" for m in await rt.window.recent(scope))
    v3 = await summarize_session(rt.window, rt.memory, rt.provider, scope)
    assert v1 is not None and v2 is not None and v3 is not None
    assert MARK in v3.text  # carried forward from v2 although no message of Ann's is in the window
    assert "u-ann" in v3.users  # …and so she is still one of its authors

    report = await _erase(rt)
    assert (report.summaries_rewritten, report.summaries_deleted) == (1, 0)
    after = await rt.memory.summary(scope)
    assert after is not None and after.stale and after.text == v1.text
    assert all(MARK not in v.text and NAME not in v.text for v in after.versions())
    assert after.users == ("u-bob",)
    exported = json.dumps((await rt.moderation.export_member(MOD, "u-bob"))["summaries"], ensure_ascii=False)
    assert MARK not in exported and NAME not in exported

    rebuilt = await summarize_session(rt.window, rt.memory, rt.provider, scope)  # the next summary job
    assert rebuilt is not None and not rebuilt.stale and MARK not in rebuilt.text
    assert all(MARK not in v.text for v in rebuilt.versions())


async def test_a_summary_with_no_version_before_the_member_is_deleted(rt: Runtime) -> None:
    scope = Scope(tenant=T, session=SESSION)
    await rt.window.append(_msg(1, "u-ann", NAME, f"I want the {MARK} lamp returned by Friday."))
    assert await summarize_session(rt.window, rt.memory, rt.provider, scope) is not None
    report = await _erase(rt)
    assert report.summaries_deleted == 1 and await rt.memory.summary(scope) is None


# --- the outbox ----------------------------------------------------------------------------------


async def test_posts_in_every_state_lose_the_members_text(rt: Runtime) -> None:
    def post(i: str, body: RichText, **ref: str) -> Post:
        return Post(id=f"p-{i}", tenant=T, session=SESSION, body=body, kind=PostKind.NOTICE, ref=ref)

    ann = Mention("u-ann", NAME)
    sent = post("sent", RichText.of(ann, f" you promised the {MARK} lamp"))
    dead = post("dead", RichText.of(ann, " a follow-up"))
    waiting = post("waiting", RichText.of(f"{NAME} said the lamp is gone"))  # names her, no mention
    reply = post("reply", RichText.of("you said so"), reply_to="e7")  # answers one of her messages
    bobs = post("bob", RichText.of(Mention("u-bob", "Bob"), " fix the fence"))
    for p in (sent, dead, waiting, reply, bobs):
        assert await rt.outbox.append(p)
    await rt.window.append(_msg(7, "u-ann", NAME, "what did we agree?"))
    claimed = {lease.post.id: lease for lease in await rt.outbox.claim("discord", limit=10)}
    await rt.outbox.delivered(claimed.pop(sent.id), "msg-1")
    await rt.outbox.failed(claimed.pop(dead.id), "gone", permanent=True)
    for rest in claimed.values():
        await rt.outbox.release(rest)
    assert (await rt.outbox.get(dead.id)).state is PostState.DEAD  # type: ignore[union-attr]

    report = await _erase(rt)
    assert report.posts == 4
    for p in (sent, dead, waiting, reply):
        record = await rt.outbox.get(p.id)
        assert record is not None and record.post.body.spans == (), p.id
        assert record.state is (PostState.SENT if p is sent else PostState.CANCELLED)
    assert await rt.outbox.dead() == []  # withdrawn from the dead letters: a retry cannot post it
    assert (await rt.outbox.get(bobs.id)).post.body == bobs.body  # type: ignore[union-attr]
    assert [lease.post.id for lease in await rt.outbox.claim("discord", limit=10)] == [bobs.id]


# --- the audit trail -----------------------------------------------------------------------------


async def test_audit_details_expire_with_the_tenants_retention(rt: Runtime) -> None:
    await rt.tenants.set(T, retention_days={"demand": 10, "emotion": 2})
    [feeling] = (await rt.memory.remember([_fact("u-bob", "tired", kind=Kind.EMOTION)])).written
    [wanting] = (await rt.memory.remember([_fact("u-bob", "a refund", msg="x2")])).written
    await rt.moderation.memory_edit(MOD, feeling.id, "exhausted")
    await rt.moderation.memory_edit(MOD, wanting.id, "a full refund")
    entry = await rt.audit.record(AuditEntry(tenant=T, actor_id="u-mod", actor_name="Mo", action="note",
                                             target=SESSION, after={"x": 1}))
    ttls = {}
    for e in await rt.audit.entries(T):
        ttls[e.kind or e.action] = await rt.redis.ttl(f"heyan:audit-detail:{T}:{e.id}")
    day = 86_400
    assert 2 * day - 60 < ttls["emotion"] <= 2 * day  # the kind's retention
    assert 10 * day - 60 < ttls["demand"] <= 10 * day
    assert 365 * day - 60 < ttls["note"] <= 365 * day  # about no memory: the longest (events, a year)

    # a detail written before details expired gets its expiry, counted from its entry's time
    legacy = f"heyan:audit-detail:{T}:{entry.id}"
    await rt.redis.persist(legacy)
    assert await rt.redis.ttl(legacy) == -1
    assert await rt.audit.expire_details() == 1
    assert 365 * day - 60 < await rt.redis.ttl(legacy) <= 365 * day


async def test_erasure_takes_the_member_out_of_audit_entries(rt: Runtime) -> None:
    ann = Actor(tenant=T, user_id="u-ann", name=NAME)
    [own] = (await rt.memory.remember([_fact("u-ann", f"the {MARK} lamp")])).written
    [bobs] = (await rt.memory.remember([_fact("u-bob", "a refund", msg="x2")])).written
    await rt.moderation.correct(ann, own.id, f"the {MARK} lamp, polished", reason=f"{MARK} typo")
    await rt.moderation.memory_edit(MOD, bobs.id, f"a refund, says {NAME}", reason=f"{NAME} told me")
    await rt.moderation.memory_edit(MOD, bobs.id, "a full refund", reason="Bob clarified")

    report = await _erase(rt)
    assert report.audit_entries >= 3
    entries = await rt.audit.entries(T, limit=100)
    dump = json.dumps([e.as_dict() for e in entries], ensure_ascii=False)
    assert MARK not in dump and NAME not in dump
    assert "Bob clarified" in dump  # what does not concern her stays
    [correction] = [e for e in entries if e.action == "memory.correct"]
    assert correction.actor_id == "u-ann" and correction.actor_name == "" and correction.before is None


# --- dead letters ----------------------------------------------------------------------------------


async def test_a_dead_letter_keeps_its_error_sealed_and_erasure_drops_it(
        rt: Runtime, caplog: pytest.LogCaptureFixture) -> None:
    async def extract(ctx: dict[str, Any], tenant: str, session: str, ids: list[str]) -> None:
        raise ValueError(f"the model said: {NAME} hid the {MARK} lamp")

    caplog.set_level(logging.INFO)
    ctx = {"heyan": rt.services, "redis": rt.redis, "max_tries": 2, "job_id": "extract:x"}
    for job_try, raised in ((1, Exception), (2, JobFailed)):
        with pytest.raises(raised) as failure:
            await resilient(extract)({**ctx, "job_try": job_try}, T, SESSION, ["e1"])
        assert MARK not in str(failure.value)
    await DeadLetters(rt.redis).add(job_id="other", function="extract", args=[OTHER, "s", ["m"]],
                                    exc=ValueError(f"{MARK} elsewhere"), tries=2)
    # an entry from before errors were sealed, and a timeout (our own words): one to scrub, one to keep
    await rt.redis.rpush(DEAD_LETTER, json.dumps({  # type: ignore[misc]
        "job_id": "old", "function": "extract", "args": [T, "s", ["m"]], "error": f"ValueError: {NAME} said",
        "tries": 2, "at": "2026-01-01T00:00:00+00:00"}))
    await rt.services.dead_letters.add(job_id="slow", function="extract", args=[T, "s", ["m"]],  # type: ignore[union-attr]
                                       exc=TimeoutError(), tries=2, timeout=10)
    raw = b"\n".join(await rt.redis.lrange(DEAD_LETTER, 0, -1))  # type: ignore[misc]
    assert raw.count(MARK.encode()) == 1  # only the unsealed one of the other tenant (no cipher there)
    assert MARK not in caplog.text and NAME not in caplog.text  # logs: the error's type, not its words
    [mine, theirs, old, slow] = await admin.dead_letters(rt.redis, rt.services.dead_letters)
    assert mine.error.startswith("ValueError") and MARK in mine.detail
    assert slow.error == "timed out after 10s" and slow.detail == ""

    report = await _erase(rt)
    assert report.dead_letters == 2
    [mine, theirs, old, slow] = await admin.dead_letters(rt.redis, rt.services.dead_letters)
    assert mine.detail == "" and "removed by an erasure" in mine.error and mine.args[0] == T
    assert old.error == "ValueError (details removed by an erasure)" and NAME not in old.raw
    assert slow.error == "timed out after 10s"  # nothing of anyone's in it: kept as it was
    assert MARK in theirs.detail  # another tenant's job is not this erasure's
    assert await admin.retry_dead(rt.redis, "extract:x") == 1  # it can still be retried


# --- one tenant at a time ------------------------------------------------------------------------


async def test_an_erasure_stays_in_its_tenant(rt: Runtime) -> None:
    await rt.memory.remember([_fact("u-ann", f"the {MARK} lamp")])
    await rt.memory.remember([_fact("u-ann", f"the {MARK} lamp", tenant=OTHER)])
    elsewhere = Actor(tenant=OTHER, user_id="u-mod2", name="Other mod", capabilities=frozenset({Capability.MODERATE}))
    ticket = await rt.moderation.request_erasure(MOD, "u-ann")
    assert (ticket.tenant, ticket.facts) == (T, 1)
    with pytest.raises(InvalidRequest):  # a moderator of another tenant cannot use this one's ticket
        await rt.moderation.confirm_erasure(elsewhere, ticket.token, "u-ann")
    assert await rt.moderation.confirm_erasure(MOD, ticket.token, "u-ann") == 1
    assert await rt.memory.list_facts(Scope(tenant=T, user="u-ann")) == []
    assert len(await rt.memory.list_facts(Scope(tenant=OTHER, user="u-ann"))) == 1
    [entry] = [e for e in await rt.moderation.audit_log(MOD) if e.action == "member.erase"]
    assert entry.after is not None and entry.after["facts"] == 1


async def test_disputes_opened_by_the_member_lose_their_title(rt: Runtime) -> None:
    from memory.models import Visibility

    await rt.sessions.open(T, SESSION, title=f"{NAME} and the {MARK} lamp", opened_by="u-ann",
                           members=["u-bob"], visibility=Visibility.PUBLIC)
    await rt.sessions.open(T, "thread-2", title="the fence", opened_by="u-bob", members=[],
                           visibility=Visibility.PUBLIC)
    report = await _erase(rt)
    assert report.disputes == 1
    assert (await rt.sessions.get(T, SESSION)).title == ""  # type: ignore[union-attr]
    assert (await rt.sessions.get(T, "thread-2")).title == "the fence"  # type: ignore[union-attr]


def test_the_report_counts_every_store() -> None:
    from bot.privacy.erasure import ErasureReport

    report = ErasureReport(tenant=T, user="u", facts=1, summaries_rewritten=2, summaries_deleted=3, messages=4,
                           posts=5, audit_entries=6, dead_letters=7, disputes=8)
    assert report.records == 4 and report.total == 36
    assert set(report.counts()) == {"facts", "summaries_rewritten", "summaries_deleted", "messages", "posts",
                                    "audit_entries", "dead_letters", "disputes"}

