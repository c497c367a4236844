"""A moderator's verdict on a flagged record: confirm means "this was an ordinary message" — it is
extracted again, the detector overridden for it, so its promise becomes a commitment with its
follow-up, and the flagged record is retired; reject keeps it out for good."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from arq.constants import job_key_prefix

from adapters.runtime.composition import Runtime
from bot.actors import Actor, Capability, InvalidRequest, PermissionDenied
from bot.guard.poisoning import Flag, flag_of
from bot.models import Message
from bot.offline.provider import OfflineProvider
from jobs.tasks import extract_memories
from memory.models import Fact, FactStatus, Kind, Scope
from tests.jobs_helpers import Start, ctx, remind_id, settings

pytestmark = pytest.mark.usefixtures("hash_embedder")

T, SESSION = "console:review", "thread-7"
NOW = datetime(2026, 11, 20, 9, tzinfo=UTC)
MOD = Actor(tenant=T, user_id="u-mod", name="Mo", capabilities=frozenset({Capability.MODERATE}))
ANN = Actor(tenant=T, user_id="u-ann", name="Ann")
#: An ordinary line the detector reads as a request to record what Bob agreed: a moderator's call.
LINE = "Please note that Bob agreed to lend me his car, and I'll return it by Sunday 6pm."


@pytest.fixture
async def rt(tmp_path: Path, redis_url: str, start: Start) -> Runtime:
    runtime = await start(settings(tmp_path, redis_url), provider=OfflineProvider(), worker=False)
    for mid, (uid, name, text) in enumerate([("u-bob", "Bob", "Sure, you can borrow the car this weekend."),
                                             ("u-ann", "Ann", LINE)]):
        await runtime.window.append(Message(id=f"m{mid}", scope=Scope(tenant=T, session=SESSION, user=uid),
                                            author_name=name, text=text, ts=NOW.replace(minute=mid)))
        await extract_memories(ctx(runtime), T, SESSION, [f"m{mid}"])
    return runtime


async def _facts(rt: Runtime) -> list[Fact]:
    return await rt.memory.list_facts(Scope(tenant=T))


async def _flagged(rt: Runtime) -> Fact:
    [flagged] = [f for f in await _facts(rt) if f.status is FactStatus.FLAGGED]
    assert flag_of(flagged.attribute) is Flag.INSTRUCTION and flagged.sources[0].quote == LINE
    assert not [f for f in await _facts(rt) if f.kind is Kind.COMMITMENT]  # the promise waits for a moderator
    return flagged


@pytest.mark.parametrize("window_kept", [True, False], ids=["from the window", "from the record"])
async def test_confirm_recovers_the_promise_and_retires_the_flag(rt: Runtime, window_kept: bool) -> None:
    flagged = await _flagged(rt)
    if not window_kept:  # days later: the window let the message go; the record's quote is the message
        await rt.window.remove(Scope(tenant=T, session=SESSION), "m1")

    retired = await rt.moderation.memory_confirm(MOD, flagged.id[:8], "an ordinary update")

    assert (retired.id, retired.status, retired.version) == (flagged.id, FactStatus.SUPERSEDED, flagged.version + 1)
    facts = await _facts(rt)
    [promise] = [f for f in facts if f.kind is Kind.COMMITMENT]
    assert (promise.subject, promise.asserted_by, promise.status) == ("u-ann", "u-ann", FactStatus.ACTIVE)
    assert "return it" in promise.value and promise.due_at == datetime(2026, 11, 22, 18, tzinfo=UTC)
    assert promise.sources[0].message_id == "m1"
    # what she said about Bob stays her claim, not his promise
    assert not [f for f in facts if f.subject == "u-bob" and f.kind is Kind.COMMITMENT]
    assert await rt.redis.exists(job_key_prefix + remind_id(promise))  # its follow-up is queued
    assert not [f for f in facts if f.status is FactStatus.FLAGGED]
    [entry] = [e for e in await rt.audit.entries(T, target=flagged.id) if e.action == "memory.confirm"]
    assert entry.after is not None and promise.id in entry.after["recovered"]
    assert entry.after["status"] == "superseded" and entry.actor_id == "u-mod"
    # the review queue no longer holds it
    assert flagged.id not in {f.id for f in (await rt.moderation.review_queue(MOD, limit=50)).items}


async def test_recover_flagged_says_what_was_recovered(rt: Runtime) -> None:
    flagged = await _flagged(rt)
    recovered = await rt.moderation.recover_flagged(MOD, flagged.id)
    assert recovered.retired.status is FactStatus.SUPERSEDED
    assert [f.kind for f in recovered.recovered if f.kind is Kind.COMMITMENT] == [Kind.COMMITMENT]
    with pytest.raises(InvalidRequest, match="not flagged"):
        await rt.moderation.recover_flagged(MOD, recovered.recovered[0].id)


async def test_reject_keeps_it_out(rt: Runtime) -> None:
    flagged = await _flagged(rt)
    rejected = await rt.moderation.memory_reject(MOD, flagged.id, "a plant")
    assert rejected.status is FactStatus.REJECTED
    # the same extraction again (a replayed job, the idle batch) writes nothing from it
    assert await extract_memories(ctx(rt), T, SESSION, ["m1"]) == 0
    facts = await _facts(rt)
    assert not [f for f in facts if f.kind is Kind.COMMITMENT or (f.sources[0].message_id == "m1"
                and f.id != flagged.id)]
    assert [f.status for f in facts if f.id == flagged.id] == [FactStatus.REJECTED]


async def test_only_a_moderator_confirms_a_flag(rt: Runtime) -> None:
    flagged = await _flagged(rt)
    with pytest.raises(PermissionDenied):
        await rt.moderation.memory_confirm(ANN, flagged.id)
    assert [f.status for f in await _facts(rt) if f.id == flagged.id] == [FactStatus.FLAGGED]
    assert not [f for f in await _facts(rt) if f.kind is Kind.COMMITMENT]


def test_the_console_confirm_of_a_flagged_record_lists_what_it_recovered(tmp_path: Path) -> None:
    """`heyan memory confirm` on a flagged record says what its message yields now, not just
    "superseded" (the moderator should see the promise that came back)."""
    import json

    from typer.testing import CliRunner

    from adapters.cli.app import app

    env = {"HEYAN_DATA_DIR": str(tmp_path / "d"), "HEYAN_REDIS_URL": "", "HEYAN_QDRANT_URL": ""}
    lines = [{"tenant": T, "session": SESSION, "user_id": "u-bob", "user_name": "Bob", "id": "m0",
              "text": "Sure, you can borrow the car this weekend.", "ts": "2026-11-20T09:00:00+00:00"},
             {"tenant": T, "session": SESSION, "user_id": "u-ann", "user_name": "Ann", "id": "m1",
              "text": LINE, "ts": "2026-11-20T09:01:00+00:00"}]
    script = tmp_path / "flagged.jsonl"
    script.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    runner = CliRunner()
    assert runner.invoke(app, ["chat", "--script", str(script)], env=env).exit_code == 0
    listed = runner.invoke(app, ["memory", "list", "--tenant", T, "--status", "flagged", "--json"], env=env)
    [flagged] = json.loads(listed.stdout)
    done = runner.invoke(app, ["memory", "confirm", flagged["id"][:8], "--tenant", T], env=env)
    assert done.exit_code == 0, done.output
    assert f"confirmed {flagged['id'][:8]} as an ordinary message" in done.stdout
    assert "commitment: return" in done.stdout and "Sunday" not in done.stdout.split("commitment:")[0]
