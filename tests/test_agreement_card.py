"""The agreement card through the moderation service on a real runtime (Qdrant Edge, a test Valkey):
what it says and where each line comes from, nothing agreed, an item without an owner, refusal,
everyone confirming (a consensus record naming every party, follow-ups kept after the close), a card
that changed meanwhile, and who may confirm."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from adapters.runtime.composition import Runtime
from bot.actors import InvalidRequest, NotFound, PermissionDenied
from bot.agreements.card import CONFIRM_ACTION, follows_after_close
from bot.delivery.outbox import PostState
from bot.models import Stage
from bot.offline.provider import OfflineProvider
from bot.sessions import DisputeState
from bot.text.richtext import Mention
from jobs.tasks import send_reminder
from memory.models import Fact, FactStatus, Kind, Scope
from tests.jobs_helpers import Start, ctx, settings
from tests.records_helpers import ANN, BOB, CAT, MOD, T0, S, T, said, scope

pytestmark = pytest.mark.usefixtures("hash_embedder")

NOW = T0 + timedelta(hours=2)


@pytest.fixture
async def rt(tmp_path: Path, redis_url: str, start: Start) -> Runtime:
    return await start(settings(tmp_path, redis_url), provider=OfflineProvider(), worker=False)


def kitchen() -> list[Fact]:
    return [
        said(Kind.DEMAND, "u-bob", "wants", "a cleaning rota", minutes=1),
        said(Kind.DEMAND, "u-ann", "wants", "the dishes done every evening", minutes=2),
        said(Kind.EMOTION, "u-ann", "feels", "angry", minutes=2),
        said(Kind.CONSENSUS, "u-ann", "agrees to", "we alternate weeks", minutes=5),
        said(Kind.CONSENSUS, "u-cat", "refuses", "Cat pays for a cleaner", minutes=6),
        said(Kind.COMMITMENT, "u-bob", "write the rota", "write the rota by Sunday", minutes=7,
             due=T0 + timedelta(days=2)),
        said(Kind.COMMITMENT, "u-cat", "fix the dishwasher", "fix the dishwasher by Monday", minutes=9,
             due=T0 + timedelta(days=3)),
    ]


async def open_dispute(rt: Runtime) -> None:
    await rt.moderation.dispute_open(MOD, S, title="Kitchen", members=[Mention("u-ann", "Ann"),
                                                                      Mention("u-bob", "Bob")], announce=False)


async def test_card_lines_come_from_the_records(rt: Runtime) -> None:
    facts = kitchen()
    await rt.memory.remember(facts)
    await open_dispute(rt)
    shown = (await rt.moderation.agreement_card(MOD, S, now=NOW)).card
    data = shown.as_dict()
    ids = {f.with_id().id: f for f in facts}
    assert [(i["owner"], i["action"]) for i in data["items"]] == [("u-bob", "write the rota"),
                                                                   ("u-cat", "fix the dishwasher")]
    assert data["items"][0]["due_at"] == (T0 + timedelta(days=2)).isoformat()
    assert [d["text"] for d in data["decision"]] == ["Ann agreed: we alternate weeks"]
    assert {o["text"]: (o["agreed_by"], o["refused_by"]) for o in data["options"]} == {
        "we alternate weeks": (["u-ann"], []), "Cat pays for a cleaner": ([], ["u-cat"])}
    positions = {p["user"]: p for p in data["positions"]}
    assert [d["text"] for d in positions["u-ann"]["demands"]] == ["the dishes done every evening"]
    assert [e["text"] for e in positions["u-ann"]["emotions"]] == ["angry"]
    assert len(data["context"]) == 2 and "Kitchen" in data["context"][0]["text"]
    assert any("write the rota" in r["text"] for r in data["revisit"])
    # every line cites records that exist, and every item its commitment and message
    for line in (*data["decision"], *data["revisit"], data["context"][1]):
        assert line["sources"] and set(line["sources"]) <= set(ids)
    for item in data["items"]:
        assert item["sources"][0] in ids and item["messages"] == [ids[item["sources"][0]].sources[0].message_id]
    assert set(shown.participants) == {"u-ann", "u-bob", "u-cat"}
    text = shown.body().plain()
    assert "Bob: write the rota" in text and "[" + facts[5].with_id().id[:8] + "]" in text


async def test_close_asks_everyone_then_remembers_and_keeps_followups(rt: Runtime) -> None:
    await rt.memory.remember(kitchen())
    await open_dispute(rt)
    asked = await rt.moderation.dispute_close_card(MOD, S, "settled", now=NOW)
    assert asked.closed is None and asked.votes is not None and asked.votes.pending == ("u-ann", "u-bob", "u-cat")
    info = await rt.sessions.get(T, S)
    assert info is not None and info.is_open  # open until everyone confirmed
    posted = await rt.outbox.get(f"card:{T}:{S}:{asked.card.id}:close-{int(asked.votes.proposed_at.timestamp())}")
    assert posted is not None and posted.post.ref["action"] == CONFIRM_ACTION
    assert set(posted.post.body.mentions) == {"u-ann", "u-bob", "u-cat"}

    with pytest.raises(PermissionDenied):
        await rt.moderation.card_confirm(MOD, S, now=NOW)  # not a party: moderators don't confirm for others
    await rt.moderation.card_confirm(ANN, S, asked.card.id[:6], now=NOW)
    await rt.moderation.card_confirm(BOB, S, now=NOW)
    done = await rt.moderation.card_confirm(CAT, S, now=NOW)
    assert done.closed is not None and done.stored is not None
    record = done.stored
    assert record.kind is Kind.CONSENSUS and set(record.users) == {"u-ann", "u-bob", "u-cat"}
    assert "write the rota" in record.value and record.sources
    info = await rt.sessions.get(T, S)
    assert info is not None and info.state is DisputeState.CLOSED
    bob_item = next(i for i in done.card.items if i.owner == "u-bob")
    assert follows_after_close(info, bob_item.commitment)
    # the closed dispute's confirmed item is still followed up by the reminder job
    assert await send_reminder(ctx(rt), T, bob_item.commitment, 1) == "queued"
    actions = [e.action for e in await rt.moderation.audit_log(MOD)]
    assert actions[:5] == ["dispute.close", "card.agreed", "card.confirm", "card.confirm", "card.confirm"]
    with pytest.raises(NotFound):
        await rt.moderation.card_confirm(ANN, S, now=NOW)  # decided: nothing waits any more


async def test_nothing_agreed_says_so_and_closes(rt: Runtime) -> None:
    await rt.memory.remember([said(Kind.DEMAND, "u-bob", "wants", "an apology", minutes=1),
                              said(Kind.EMOTION, "u-ann", "feels", "hurt", minutes=2)])
    await open_dispute(rt)
    closed = await rt.moderation.dispute_close_card(MOD, S, now=NOW)
    data = closed.card.as_dict()
    assert closed.closed is not None and data["agreed"] is False
    assert data["items"] == [] and data["decision"] == [] and data["needs_owner"] == []
    assert "nothing was agreed" in closed.card.body().plain()
    assert [p["user"] for p in data["positions"]] == ["u-ann", "u-bob"]


async def test_an_item_without_an_owner_is_asked_not_given(rt: Runtime) -> None:
    await rt.memory.remember([
        said(Kind.CONSENSUS, "u-bob", "agrees to", "a quiet hour after 10pm", minutes=1),
        said(Kind.COMMITMENT, "u-ann", "paint the fence", "paint the fence by Sunday", minutes=2,
             quote="We'll paint the fence by Sunday", due=T0 + timedelta(days=2)),
    ])
    await open_dispute(rt)
    card = (await rt.moderation.agreement_card(MOD, S, now=NOW)).card
    assert card.items == ()
    [asked] = card.needs_owner
    assert asked.owner is None and "Who will paint the fence" in asked.question
    assert "Needs an owner" in card.body().plain()


async def test_a_refusal_is_recorded_and_the_dispute_stays_open(rt: Runtime) -> None:
    await rt.memory.remember(kitchen())
    await open_dispute(rt)
    await rt.conversation.stages.set(scope(), Stage.CONFIRMING.value)
    asked = await rt.moderation.dispute_close_card(MOD, S, now=NOW)
    await rt.moderation.card_confirm(ANN, S, now=NOW)
    refused = await rt.moderation.card_refuse(BOB, S, "the rota should be monthly")
    assert refused.votes is not None and refused.votes.refused_by == ("u-bob",)
    info = await rt.sessions.get(T, S)
    assert info is not None and info.is_open
    assert await rt.conversation.stages.get(scope()) == Stage.EXPLORING.value
    entry = (await rt.moderation.audit_log(MOD))[0]
    assert (entry.action, entry.reason, entry.actor_id) == ("card.refuse", "the rota should be monthly", "u-bob")
    with pytest.raises(InvalidRequest):
        await rt.moderation.card_confirm(CAT, S, now=NOW)  # refused: decided, not confirmed
    # a new close proposes again, from scratch
    again = await rt.moderation.dispute_close_card(MOD, S, now=NOW)
    assert again.card.id == asked.card.id and again.votes is not None and again.votes.votes == {}


async def test_a_changed_card_is_proposed_again_not_confirmed(rt: Runtime) -> None:
    await rt.memory.remember(kitchen())
    await open_dispute(rt)
    asked = await rt.moderation.dispute_close_card(MOD, S, now=NOW)
    await rt.memory.remember([said(Kind.COMMITMENT, "u-ann", "buy sponges", "buy sponges tomorrow", minutes=20,
                                   due=T0 + timedelta(days=1))])
    changed = await rt.moderation.card_confirm(ANN, S, now=NOW)
    assert changed.changed and changed.card.id != asked.card.id
    assert changed.votes is not None and changed.votes.card_id == changed.card.id and changed.votes.votes == {}
    with pytest.raises(InvalidRequest, match="replaced"):
        await rt.moderation.card_confirm(ANN, S, asked.card.id, now=NOW)


async def test_members_only_close_their_own_and_see_cards_they_are_on(rt: Runtime) -> None:
    await rt.memory.remember(kitchen())
    await rt.moderation.dispute_open(ANN, S, title="Kitchen", announce=False)
    with pytest.raises(PermissionDenied):
        await rt.moderation.dispute_close_card(BOB, S, now=NOW)
    stranger = BOB.__class__(tenant=T, user_id="u-eve", name="Eve")
    with pytest.raises(PermissionDenied):
        await rt.moderation.agreement_card(stranger, S, now=NOW)
    asked = await rt.moderation.dispute_close_card(ANN, S, now=NOW)  # its opener may
    assert asked.votes is not None
    with pytest.raises(NotFound):
        await rt.moderation.dispute_close_card(BOB, "no-such-thread", now=NOW)


async def test_moderator_closes_a_thread_never_opened_as_a_dispute(rt: Runtime) -> None:
    facts = kitchen()
    await rt.memory.remember(facts)
    asked = await rt.moderation.dispute_close_card(MOD, S, now=NOW)
    info = await rt.sessions.get(T, S)
    assert info is not None and info.is_open and info.opened_at == facts[0].sources[0].ts
    assert asked.votes is not None
    with pytest.raises(NotFound, match="holds nothing"):
        await rt.moderation.dispute_close_card(MOD, "empty-thread", now=NOW)


async def test_stage_proposal_once_per_card_and_a_confirmed_card_closes_at_once(rt: Runtime) -> None:
    await rt.memory.remember(kitchen())
    await open_dispute(rt)
    first = await rt.moderation.propose_card(T, S, now=NOW)
    assert first is not None and first.votes is not None and first.votes.origin == "stage"
    assert await rt.moderation.propose_card(T, S, now=NOW) is None  # the same card: proposed once
    for who in (ANN, BOB, CAT):
        outcome = await rt.moderation.card_confirm(who, S, now=NOW)
    assert outcome.closed is None and outcome.stored is not None  # agreed, but nobody asked to close
    closed = await rt.moderation.dispute_close_card(MOD, S, now=NOW)
    assert closed.closed is not None


async def test_closing_cancels_other_followups_but_keeps_the_cards(rt: Runtime) -> None:
    later = T0 + timedelta(days=30)
    facts = [said(Kind.CONSENSUS, "u-ann", "agrees to", "split the bill", minutes=1),
             said(Kind.COMMITMENT, "u-bob", "pay half", "pay half by Friday", minutes=2, due=later)]
    stray = said(Kind.COMMITMENT, "u-cat", "call the landlord", "call the landlord", minutes=3, due=later,
                 status=FactStatus.CANCELLED)
    await rt.memory.remember([*facts, stray])
    await open_dispute(rt)
    for f in facts:
        stored = await rt.memory.get(Scope(tenant=T), f.with_id().id)
        assert stored is not None
    bob = facts[1].with_id()
    other = said(Kind.COMMITMENT, "u-ann", "send the invoice", "send the invoice later", minutes=30, due=later,
                 quote="we'll send the invoice later")
    await rt.memory.remember([other])
    from bot.delivery.reminders import reminder_post
    for f in (bob, other.with_id()):
        stored = await rt.memory.get(Scope(tenant=T), f.id)
        assert stored is not None
        await rt.outbox.append(reminder_post(stored, "UTC"))
    await rt.moderation.dispute_close_card(MOD, S, now=NOW)
    for who in (ANN, BOB):
        done = await rt.moderation.card_confirm(who, S, now=NOW)
    assert done.closed is not None and done.closed.cancelled_followups == 1
    kept = await rt.outbox.get(f"remind:{T}:{bob.id}:1")
    gone = await rt.outbox.get(f"remind:{T}:{other.with_id().id}:1")
    assert kept is not None and kept.state is PostState.PENDING
    assert gone is not None and gone.state is PostState.CANCELLED


async def test_reaching_confirming_agreement_proposes_the_card_after_extraction(rt: Runtime) -> None:
    from arq.jobs import Job, JobStatus

    from bot.models import Message
    from jobs.card_digest import propose_card
    from jobs.queue import QUEUE, deserialize

    await rt.memory.remember(kitchen()[:3])
    lines = [("u-bob", "Bob", "How about we alternate weeks?", False),
             ("u-ann", "Ann", "@heyan OK, deal, I agree to alternate weeks.", True)]
    for i, (who, name, text, mention) in enumerate(lines):
        msg = Message(id=f"c{i}", scope=Scope(tenant=T, session=S, user=who), author_name=name, text=text,
                      ts=T0 + timedelta(minutes=30 + i), mention=mention)
        if mention:
            reply = await rt.engine.handle(msg)
            assert reply is not None and reply.stage is Stage.CONFIRMING
        else:
            await rt.engine.observe(msg)
    job = Job(f"propose-card:{T}:{S}:c1", rt.redis, _queue_name=QUEUE, _deserializer=deserialize)
    assert await job.status() is JobStatus.queued  # the stage hook queued the proposal
    assert (await propose_card(ctx(rt), T, S)).startswith("proposed ")  # extraction first, then the card
    votes = await rt.moderation.cards.get(T, S)
    assert votes is not None and votes.origin == "stage"
    card = await rt.moderation.build_agreement_card(T, S)
    assert card.id == votes.card_id and any("alternate weeks" in d.text for d in card.decision)
    assert await propose_card(ctx(rt), T, S) == "nothing to propose"  # the same card: once
