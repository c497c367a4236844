"""Common ground: neutral statements from each side's demands and feelings (offline, both languages),
a model's candidates kept only when they stand on the facts, private endorsement per party, and the
statement every party endorsed posted and remembered once."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from adapters.runtime.composition import Runtime
from bot.actors import InvalidRequest, NotFound, PermissionDenied
from bot.agreements.common_ground import checked, draft, sides_of
from bot.disputes.escalation import signals
from bot.moderation.common_ground import GROUND_ACTION
from bot.offline.provider import OfflineProvider
from memory.models import Kind, Lang, Scope
from tests.jobs_helpers import Start, settings
from tests.records_helpers import ANN, BOB, CAT, MOD, S, T, said

pytestmark = pytest.mark.usefixtures("hash_embedder")


def dispute(lang: Lang = "en") -> list:  # type: ignore[type-arg]
    if lang == "zh":
        return [said(Kind.DEMAND, "u-zhang", "要求", "尽快退款", minutes=1, lang="zh"),
                said(Kind.EMOTION, "u-zhang", "感受", "失望", minutes=1, lang="zh"),
                said(Kind.DEMAND, "u-wang", "要求", "给财务一点时间", minutes=2, lang="zh"),
                said(Kind.EMOTION, "u-wang", "感受", "焦虑", minutes=3, lang="zh")]
    return [said(Kind.DEMAND, "u-ann", "wants", "a quiet house after 10pm", minutes=1),
            said(Kind.EMOTION, "u-ann", "feels", "tired", minutes=1),
            said(Kind.DEMAND, "u-bob", "wants", "to practise guitar in the evening", minutes=2),
            said(Kind.EMOTION, "u-bob", "feels", "frustrated", minutes=3),
            said(Kind.EVENT, "u-bob", "claims", "Ann never lets me play", minutes=4)]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_offline_statements_are_neutral_and_cite_each_side(lang: Lang) -> None:
    facts = [f.with_id() for f in dispute(lang)]
    sides, agreed = sides_of(facts)
    statements = draft(sides, agreed, lang)
    assert 2 <= len(statements) <= 3
    ids = {f.id for f in facts}
    for s in statements:
        found = signals(s.text)
        assert not (found.accusation or found.insult or found.blame or found.absolute), s.text
        assert s.sources and set(s.sources) <= ids
    needs = statements[0]
    assert {f.subject for f in facts if f.id in needs.sources} == {s.user for s in sides}
    assert "never lets me play" not in " ".join(s.text for s in statements)  # claims are no one's position


def test_a_partisan_demand_is_not_quoted() -> None:
    facts = [said(Kind.DEMAND, "u-ann", "wants", "you to stop being so lazy all the time").with_id(),
             said(Kind.DEMAND, "u-bob", "wants", "some peace").with_id()]
    sides, agreed = sides_of(facts)
    [first, *_] = draft(sides, agreed, "en")
    assert "lazy" not in first.text and "Ann has asked for a change" in first.text


def test_model_candidates_must_stand_on_the_facts() -> None:
    facts = [f.with_id() for f in dispute()]
    sides, agreed = sides_of(facts)
    kept = checked([
        "Ann wants a quiet house after 10pm and Bob wants time to practise guitar; both matter.",  # grounded
        "Bob is always selfish about the noise.",  # partisan
        "Everyone should adopt a cat.",  # stands on nothing
        "Both of you want evenings that work: quiet for Ann, guitar practice for Bob.",  # grounded
    ], sides, agreed)
    assert [k.text.split()[0] for k in kept] == ["Ann", "Both"]
    assert all(k.sources for k in kept)


@pytest.fixture
async def rt(tmp_path: Path, redis_url: str, start: Start) -> Runtime:
    return await start(settings(tmp_path, redis_url), provider=OfflineProvider(), worker=False)


async def test_endorsed_by_everyone_is_posted_and_remembered_once(rt: Runtime) -> None:
    await rt.memory.remember(dispute())
    view = await rt.moderation.common_ground_draft(MOD, S)
    assert set(view.participants) == {"u-ann", "u-bob"} and view.source == "offline"
    prompt = await rt.outbox.get(f"ground:{T}:{S}:{view.round_id}")
    assert prompt is not None and prompt.post.ref["action"] == GROUND_ACTION
    assert set(prompt.post.body.mentions) == {"u-ann", "u-bob"}
    assert view.statements[0].text not in prompt.post.body.plain()  # statements are asked privately
    with pytest.raises(PermissionDenied):
        await rt.moderation.common_ground_endorse(CAT, S, ["1"])
    mine = await rt.moderation.common_ground_endorse(ANN, S, ["1", "2"])
    assert mine.endorsed == (view.statements[0].id, view.statements[1].id) and mine.posted == ()
    assert (await rt.moderation.common_ground_view(BOB, S)).endorsed == ()  # each sees only their own
    both = await rt.moderation.common_ground_endorse(BOB, S, [view.statements[1].id[:5]])
    assert both.posted == (view.statements[1].id,)
    posted = await rt.outbox.get(f"ground-agreed:{T}:{S}:{view.round_id}:{view.statements[1].id}")
    assert posted is not None and view.statements[1].text in posted.post.body.plain()
    records = [f for f in await rt.memory.list_facts(Scope(tenant=T, session=S)) if f.slot.startswith("ground:")]
    assert len(records) == 1 and set(records[0].users) == {"u-ann", "u-bob"} and records[0].kind is Kind.CONSENSUS
    await rt.moderation.common_ground_endorse(BOB, S, ["2"])  # again: nothing new is posted or remembered
    assert len([f for f in await rt.memory.list_facts(Scope(tenant=T, session=S)) if f.slot.startswith("ground:")]) == 1
    with pytest.raises(InvalidRequest, match="no single statement"):
        await rt.moderation.common_ground_endorse(ANN, S, ["9"])


async def test_one_side_only_is_refused_and_nothing_drafted_is_not_found(rt: Runtime) -> None:
    with pytest.raises(NotFound):
        await rt.moderation.common_ground_view(ANN, S)
    await rt.memory.remember([said(Kind.DEMAND, "u-ann", "wants", "a quiet house")])
    with pytest.raises(InvalidRequest, match="at least two sides"):
        await rt.moderation.common_ground_draft(MOD, S)


class Writer(OfflineProvider):
    """A model stand-in that writes one grounded and one partisan statement, then a grounded pair."""

    def __init__(self, answers: list[list[str]]) -> None:
        super().__init__()
        self.answers = answers

    async def common_ground(self, sides: Sequence[str], agreed: Sequence[str], lang: Lang) -> list[str]:
        assert any("quiet house" in s for s in sides)
        return self.answers.pop(0)


async def test_model_statements_are_checked_and_fall_back(rt: Runtime) -> None:
    await rt.memory.remember(dispute())
    rt.moderation.provider = Writer([
        ["Ann wants a quiet house after 10pm; Bob wants evening guitar practise.", "Bob never listens."],
        ["Ann wants a quiet house after 10pm; Bob wants evening guitar practise.",
         "Both of you feel tired and frustrated by the evenings."],
    ])
    first = await rt.moderation.common_ground_draft(MOD, S)
    assert first.source == "offline"  # only one stood on the facts
    second = await rt.moderation.common_ground_draft(MOD, S)
    assert second.source == "llm" and len(second.statements) == 2


async def test_erasing_a_member_drops_their_rounds_and_card_proposals(rt: Runtime) -> None:
    await rt.memory.remember(dispute())
    await rt.moderation.common_ground_draft(MOD, S)
    await rt.moderation.cards.propose(T, S, "abc123", origin="close", participants=("u-ann", "u-bob"),
                                      proposed_by="u-mod", reason="Ann and Bob settled it")
    await rt.moderation.cards.propose(T, "other", "def456", origin="stage", participants=("u-cat",),
                                      proposed_by="system")
    report = await rt.erasure.erase(T, "u-ann", request_id="t", second_pass=False)
    assert report.disputes >= 2
    with pytest.raises(NotFound):
        await rt.moderation.common_ground_view(BOB, S)
    assert await rt.moderation.cards.get(T, S) is None
    assert await rt.moderation.cards.get(T, "other") is not None  # Cat's stays


async def test_key_rotation_reseals_rounds_and_proposals(redis_url: str) -> None:
    from redis.asyncio import Redis

    from bot.agreements.card_votes import CardBook
    from bot.agreements.ground_store import GroundStore
    from memory.store.crypto import Cipher, parse_keys
    from tests.keys import OTHER_KEY, TEST_KEY

    old, both, new = (Cipher(parse_keys(k)) for k in (TEST_KEY, f"{OTHER_KEY},{TEST_KEY}", OTHER_KEY))
    redis = Redis.from_url(redis_url)
    try:
        await GroundStore(redis, cipher=old).save(T, "C1:17.5", {"round": "1", "participants": {"u-ann": "Ann"}},
                                                  [{"id": "s1", "text": "Ann needs quiet", "sources": []}])
        await CardBook(redis, cipher=old).propose(T, "C1:17.5", "abc123", origin="close", participants=("u-ann",),
                                                  proposed_by="u-mod", reason="quiet hours agreed")
        raw = await redis.hget(GroundStore.key(T, "C1:17.5"), "data")
        assert b"Ann needs quiet" not in raw  # sealed
        assert await GroundStore(redis, cipher=both).reseal(lambda n: None) == 1
        assert await CardBook(redis, cipher=both).reseal(lambda n: None) == 1
        assert await GroundStore(redis, cipher=both).reseal(lambda n: None) == 0  # done: nothing again
        found = await GroundStore(redis, cipher=new).load(T, "C1:17.5")
        assert found is not None and found.data["statements"][0]["text"] == "Ann needs quiet"
        card = await CardBook(redis, cipher=new).get(T, "C1:17.5")
        assert card is not None and card.reason == "quiet hours agreed"
    finally:
        await redis.aclose()
