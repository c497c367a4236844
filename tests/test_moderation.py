"""The moderation service on a real runtime: permissions (member vs moderator), audit entries,
self-service, erasure, commitments and disputes — the same calls every surface makes."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from adapters.runtime.composition import Runtime
from bot.actors import Actor, Ambiguous, Capability, InvalidRequest, NotFound, PermissionDenied
from bot.delivery.outbox import PostKind, PostState
from bot.delivery.reminders import reminder_post
from bot.limits import SlowDown
from bot.offline.provider import OfflineProvider
from bot.text.richtext import Mention
from memory.models import Confidence, Fact, FactStatus, Kind, Scope, Source, Visibility, utcnow
from tests.jobs_helpers import Start, settings

pytestmark = pytest.mark.usefixtures("hash_embedder")

T = "discord:42"
T0 = datetime(2026, 11, 20, 9, tzinfo=UTC)
MOD = Actor(tenant=T, user_id="u-mod", name="Mo", capabilities=frozenset({Capability.MODERATE}),
            moderator_hint="the Manage Messages permission")
ANN = Actor(tenant=T, user_id="u-ann", name="Ann", moderator_hint="the Manage Messages permission")
BOB = Actor(tenant=T, user_id="u-bob", name="Bob")


def fact(kind: Kind, subject: str, attribute: str, value: str, *, by: str | None = None, msg: str = "m1",
         status: FactStatus = FactStatus.ACTIVE, session: str = "thread-1", due: datetime | None = None,
         confidence: Confidence = Confidence.HIGH) -> Fact:
    speaker = by or subject
    return Fact(tenant=T, session=session, kind=kind, subject=subject, subject_name=subject.removeprefix("u-"),
                attribute=attribute, value=value, asserted_by=speaker, status=status, due_at=due,
                confidence=confidence, valid_from=T0, users=tuple(dict.fromkeys((subject, speaker))),
                sources=(Source(message_id=msg, author_id=speaker, ts=T0, quote=value),))


@pytest.fixture
async def rt(tmp_path: Path, redis_url: str, start: Start) -> Runtime:
    runtime = await start(settings(tmp_path, redis_url), provider=OfflineProvider(), worker=False)
    await runtime.memory.remember([
        fact(Kind.COMMITMENT, "u-ann", "send the draft", "send the draft by Friday", due=utcnow() + timedelta(days=2)),
        fact(Kind.DEMAND, "u-bob", "wants", "an apology in the channel", msg="m2"),
        fact(Kind.EVENT, "u-bob", "claims", "Ann: deleted my files", msg="m3", status=FactStatus.UNVERIFIED),
        fact(Kind.EMOTION, "u-ann", "feels", "tired", msg="m4", confidence=Confidence.LOW),
    ])
    return runtime


async def _ids(rt: Runtime) -> dict[tuple[str, str], str]:
    facts = await rt.memory.list_facts(Scope(tenant=T))
    return {(f.subject, f.attribute): f.id for f in facts}


async def test_members_are_refused_moderator_actions_and_nothing_changes(rt: Runtime) -> None:
    ids = await _ids(rt)
    before = await rt.memory.list_facts(Scope(tenant=T))
    for call in (
        rt.moderation.memory_list(ANN),
        rt.moderation.memory_edit(ANN, ids[("u-bob", "wants")], "nothing"),
        rt.moderation.memory_delete(ANN, ids[("u-bob", "wants")]),
        rt.moderation.memory_confirm(ANN, ids[("u-bob", "claims")]),
        rt.moderation.review_queue(ANN),
        rt.moderation.audit_log(ANN),
        rt.moderation.export_member(ANN, "u-bob"),
    ):
        with pytest.raises(PermissionDenied) as refused:
            await call
        assert "moderator" in str(refused.value) and "Manage Messages" in str(refused.value)
        assert "管理员" in refused.value.text("zh")
    assert await rt.memory.list_facts(Scope(tenant=T)) == before
    assert await rt.moderation.audit_log(MOD) == []  # refusals change nothing, so nothing is audited


async def test_moderator_edit_delete_confirm_reject_are_audited(rt: Runtime) -> None:
    ids = await _ids(rt)
    edited = await rt.moderation.memory_edit(MOD, ids[("u-bob", "wants")][:8], "a private apology", "Bob clarified")
    assert edited.value == "a private apology" and edited.version == 2
    assert edited.history[-1].value == "an apology in the channel"  # never silently overwritten
    confirmed = await rt.moderation.memory_confirm(MOD, ids[("u-ann", "feels")])
    assert confirmed.confidence is Confidence.HIGH
    rejected = await rt.moderation.memory_reject(MOD, ids[("u-bob", "claims")], "no evidence")
    assert rejected.status is FactStatus.REJECTED
    deleted = await rt.moderation.memory_delete(MOD, ids[("u-ann", "send the draft")], "duplicate")
    assert await rt.memory.get(Scope(tenant=T), deleted.id) is None

    log = await rt.moderation.audit_log(MOD)
    assert [e.action for e in log] == ["memory.delete", "memory.reject", "memory.confirm", "memory.edit"]
    edit = log[-1]
    assert (edit.actor_id, edit.reason, edit.target) == ("u-mod", "Bob clarified", edited.id)
    assert edit.before is not None and edit.after is not None
    assert (edit.before["value"], edit.after["value"]) == ("an apology in the channel", "a private apology")
    assert "u-bob" in edit.users
    delete = log[0]
    assert delete.before is not None and "value" not in delete.before  # an erased text leaves no copy
    assert "send the draft by Friday" not in json.dumps([e.as_dict() for e in log])
    assert [e.action for e in await rt.moderation.audit_log(MOD, user="u-bob")] == [
        "memory.reject", "memory.edit"]


async def test_ids_unknown_ambiguous_and_too_short(rt: Runtime) -> None:
    with pytest.raises(NotFound, match="no memory with id"):
        await rt.moderation.memory_show(MOD, "ffffffff")
    with pytest.raises(InvalidRequest, match="at least 4"):
        await rt.moderation.memory_show(MOD, "ab")
    with pytest.raises(NotFound):
        await rt.moderation.memory_show(MOD, "00000000-0000-0000-0000-000000000000")
    twins = [fact(Kind.EVENT, "u-bob", f"said {i}", f"thing {i}", msg=f"t{i}").model_copy(
        update={"id": f"abcd1234-0000-4000-8000-00000000000{i}"}) for i in (1, 2)]
    await rt.memory.remember(twins)
    with pytest.raises(Ambiguous, match="matches 2 memories"):
        await rt.moderation.memory_show(MOD, "abcd12")
    assert (await rt.moderation.memory_show(MOD, "abcd1234-0000-4000-8000-000000000002")).value == "thing 2"


async def test_members_see_and_correct_only_their_own(rt: Runtime) -> None:
    ids = await _ids(rt)
    mine = await rt.moderation.my_memories(ANN)
    assert {f.attribute for f in mine} == {"send the draft", "feels"}
    with pytest.raises(NotFound):  # Bob's demand does not concern Ann: she cannot even see it
        await rt.moderation.memory_show(ANN, ids[("u-bob", "wants")])
    corrected = await rt.moderation.correct(ANN, ids[("u-ann", "feels")], "tired but hopeful")
    assert corrected.value == "tired but hopeful" and corrected.asserted_by == "u-ann"
    # Bob's account of Ann concerns Ann only if it names her as a user; here it is Bob's own claim,
    # and a public one: Ann is told it is not hers to correct (in her language too)
    with pytest.raises(PermissionDenied, match="about other members") as refused:
        await rt.moderation.correct(ANN, ids[("u-bob", "claims")], "I did not")
    assert "与你无关" in refused.value.text("zh")
    [entry] = await rt.moderation.audit_log(MOD)
    assert (entry.action, entry.actor_id) == ("memory.correct", "u-ann")


async def test_member_contests_a_record_about_them_they_did_not_make(rt: Runtime) -> None:
    claim = fact(Kind.EVENT, "u-bob", "claims", "Ann broke the build", msg="m9", status=FactStatus.UNVERIFIED)
    claim = claim.model_copy(update={"users": ("u-bob", "u-ann")})
    await rt.memory.remember([claim])
    [stored] = [f for f in await rt.memory.list_facts(Scope(tenant=T)) if f.value == "Ann broke the build"]
    contested = await rt.moderation.correct(ANN, stored.id, "the build broke before my change")
    assert contested.status is FactStatus.DISPUTED and contested.value == "Ann broke the build"
    assert contested.contested[-1].value == "the build broke before my change"
    page = await rt.moderation.review_queue(MOD)
    assert stored.id in {f.id for f in page.items}  # it waits for a moderator


async def test_export_and_two_step_erasure(rt: Runtime) -> None:
    exported = await rt.moderation.export_member(ANN)
    assert exported["user"] == "u-ann" and {f["attribute"] for f in exported["facts"]} == {"send the draft", "feels"}
    request = await rt.moderation.request_erasure(ANN)
    assert (request.facts, request.summaries) == (2, 0)
    with pytest.raises(InvalidRequest):
        await rt.moderation.confirm_erasure(ANN, "wrong-token")
    with pytest.raises(PermissionDenied):
        await rt.moderation.request_erasure(ANN, "u-bob")
    assert await rt.moderation.confirm_erasure(ANN, request.token) == 2
    assert await rt.moderation.my_memories(ANN) == []
    assert {f.subject for f in await rt.memory.list_facts(Scope(tenant=T))} == {"u-bob"}
    with pytest.raises(InvalidRequest):  # a token works once
        await rt.moderation.confirm_erasure(ANN, request.token)


async def test_commitments_done_and_snooze_by_owner_or_moderator(rt: Runtime) -> None:
    ids = await _ids(rt)
    draft = ids[("u-ann", "send the draft")]
    assert [f.id for f in await rt.moderation.commitments(BOB)] == []  # not Bob's, and no session given
    assert [f.id for f in await rt.moderation.commitments(BOB, session="thread-1")] == [draft]
    with pytest.raises(NotFound):  # asked from nowhere, Bob cannot name Ann's commitment
        await rt.moderation.commitment_done(BOB, draft)
    with pytest.raises(PermissionDenied, match="owner or a moderator"):  # from the thread he can, but not close it
        await rt.moderation.commitment_done(BOB, draft, session="thread-1")
    later = utcnow() + timedelta(days=5)
    snoozed = await rt.moderation.commitment_snooze(ANN, draft, later, "sick")
    assert snoozed.due_at == later and snoozed.version == 2
    queued = await rt.redis.zrange("arq:queue", 0, -1)
    assert f"remind:{T}:{draft}:2".encode() in queued  # the follow-up moved with it
    with pytest.raises(InvalidRequest, match="past"):
        await rt.moderation.commitment_snooze(ANN, draft, utcnow() - timedelta(hours=1))
    done = await rt.moderation.commitment_done(ANN, draft)
    assert done.status is FactStatus.DONE
    assert [e.action for e in await rt.moderation.audit_log(MOD)] == ["commitment.done", "commitment.snooze"]


async def test_dispute_open_posts_through_the_outbox_and_close_cancels_followups(rt: Runtime) -> None:
    info = await rt.moderation.dispute_open(ANN, "thread-1", title="The late draft",
                                            members=[Mention("u-bob", "Bob")], visibility=Visibility.PRIVATE)
    assert info.is_open and info.members == ("u-ann", "u-bob") and info.visibility is Visibility.PRIVATE
    with pytest.raises(InvalidRequest, match="already open"):
        await rt.moderation.dispute_open(BOB, "thread-1", title="again")
    [opening] = [r for r in [await rt.outbox.get(i.decode()) for i in
                             await rt.redis.zrange("heyan:outbox:discord:ready", 0, -1)] if r is not None]
    assert opening.post.kind is PostKind.DISPUTE_OPENED and opening.post.body.mentions == ("u-bob",)
    assert "The late draft" in opening.post.body.plain()

    [draft] = await rt.memory.open_commitments(Scope(tenant=T))
    await rt.outbox.append(reminder_post(draft, "UTC"))
    with pytest.raises(PermissionDenied, match="opened this dispute or a moderator"):
        await rt.moderation.dispute_close(BOB, "thread-1")
    closed = await rt.moderation.dispute_close(ANN, "thread-1", "resolved")
    assert closed.cancelled_followups == 1 and not closed.info.is_open
    record = await rt.outbox.get(reminder_post(draft, "UTC").id)
    assert record is not None and record.state is PostState.CANCELLED
    status = await rt.moderation.dispute_status(BOB, "thread-1")
    assert status.info is not None and status.info.state.value == "closed"
    actions = [e.action for e in await rt.moderation.audit_log(MOD)]
    assert actions == ["dispute.close", "dispute.open"]


async def test_commands_are_rate_limited_per_user(tmp_path: Path, redis_url: str, start: Start) -> None:
    from bot.config.settings import LimitSettings

    s = settings(tmp_path, redis_url).model_copy(update={"limits": LimitSettings(commands_per_user="3/minute")})
    runtime = await start(s, provider=OfflineProvider(), worker=False)
    for _ in range(3):
        await runtime.moderation.my_memories(ANN)
    with pytest.raises(SlowDown) as slow:
        await runtime.moderation.my_memories(ANN)
    assert slow.value.scope == "user" and 0 < slow.value.retry_after <= 60
    assert "慢" in slow.value.text("zh")
    await runtime.moderation.my_memories(BOB)  # others are not held up
    for _ in range(10):  # the local operator is never limited
        await runtime.moderation.memory_list(Actor.operator(T))


async def test_replies_are_rate_limited_with_one_slow_down(tmp_path: Path, redis_url: str,
                                                           start: Start) -> None:
    from bot.config.settings import LimitSettings
    from bot.models import Message

    s = settings(tmp_path, redis_url).model_copy(update={"limits": LimitSettings(replies_per_user="2/minute")})
    runtime = await start(s, provider=OfflineProvider(), worker=False)

    def ask(i: int, user: str = "u-ann") -> Message:
        return Message(id=f"q{i}", scope=Scope(tenant=T, session="thread-1", user=user), author_name=user,
                       text="what did we agree?", ts=utcnow(), mention=True)

    replies = [await runtime.engine.handle(ask(i)) for i in range(4)]
    assert replies[0] is not None and replies[1] is not None
    assert replies[2] is not None and "try me again in" in replies[2].text  # told once…
    assert replies[3] is None  # …then quiet until the window passes
    assert await runtime.engine.handle(ask(9, "u-bob")) is not None  # others still get answers


async def test_erasure_reaches_windows_posts_audit_and_in_flight_extraction(
    tmp_path: Path, redis_url: str, start: Start
) -> None:
    from bot.extraction.candidates import ExtractionRequest, to_facts
    from bot.models import Message

    runtime = await start(settings(tmp_path, redis_url), provider=OfflineProvider(), worker=False)
    scope = Scope(tenant=T, session="thread-9")
    said = Message(id="e1", scope=scope.narrow(user="u-ann"), author_name="Ann",
                   text="I will repay the 300 yuan by Friday.", ts=utcnow() - timedelta(minutes=1))
    await runtime.engine.observe(said)
    await runtime.memory.remember([fact(Kind.COMMITMENT, "u-ann", "repay", "repay the 300 yuan", msg="e1",
                                        session="thread-9", due=utcnow() + timedelta(days=1))])
    [owed] = await runtime.memory.open_commitments(Scope(tenant=T))
    await runtime.outbox.append(reminder_post(owed, "UTC"))
    await runtime.moderation.memory_edit(MOD, owed.id, "repay the 300 yuan to Bob", "clarified")
    # an extraction that read Ann's message before the erasure, and writes after it
    request = ExtractionRequest(tenant=T, session="thread-9", turns=[said.utterance()])
    late = to_facts(request, await OfflineProvider().extract(request), now=utcnow())
    assert late

    ticket = await runtime.moderation.request_erasure(ANN)
    await runtime.moderation.confirm_erasure(ANN, ticket.token)
    assert await runtime.memory.list_facts(Scope(tenant=T, user="u-ann")) == []
    assert await runtime.window.get_many(scope, ["e1"]) == []  # the summary cannot rebuild it
    assert await runtime.conversation.batches.pending(scope) == []
    record = await runtime.outbox.get(reminder_post(owed, "UTC").id)
    assert record is not None and record.state is PostState.CANCELLED
    [edit] = [e for e in await runtime.moderation.audit_log(MOD) if e.action == "memory.edit"]
    assert edit.before is None and edit.after is None  # the texts are gone; who did what stays
    assert (await runtime.erasure.admissible(late)) == []  # the tombstone stops the late writer
    queued = [j.decode() for j in await runtime.redis.zrange("arq:queue", 0, -1)]
    assert any(j.startswith(f"forget:{T}:u-ann:") for j in queued)  # and a second pass is queued
