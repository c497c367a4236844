"""Issue 20, item 7: small talk and out-of-scope questions get a short, friendly answer in the
asker's language that says what Heyan can do — not a mediation line meant for a dispute."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.extraction.candidates import Utterance
from bot.llm.base import ReplyRequest
from bot.models import Stage
from bot.offline.provider import OfflineProvider
from bot.text.lang import detect_lang

PEOPLE = {"u-ann": "Ann", "u-bob": "Bob"}


async def reply(text: str, stage: Stage = Stage.GATHERING) -> str:
    turn = Utterance("q", "u-ann", "Ann", text, datetime(2026, 11, 4, 10, tzinfo=UTC))
    return await OfflineProvider().reply(ReplyRequest("en", stage, turn, participants=PEOPLE))


@pytest.mark.parametrize(
    ("text", "lang", "opening"),
    [
        ("@heyan hi", "en", "Hi Ann!"),
        ("@heyan who are you?", "en", "Hi Ann!"),
        ("@heyan what's the weather?", "en", "I can't help with that, Ann."),
        ("@heyan tell me a joke", "en", "I can't help with that, Ann."),
        ("@heyan 你好", "zh", "你好，Ann！"),
        ("和言，讲个笑话", "zh", "这个我帮不上忙，Ann。"),
        ("@heyan 今天天气怎么样？", "zh", "这个我帮不上忙，Ann。"),
    ],
)
async def test_what_heyan_can_do(text: str, lang: str, opening: str) -> None:
    said = await reply(text)
    assert said.startswith(opening), said
    assert detect_lang(said.replace("Ann", "").replace("Bob", "").replace("Slack", "")) == lang
    assert ("promise" in said and "agree" in said and "/commitments" in said) if lang == "en" else \
        ("答应" in said and "共识" in said and "/commitments" in said), said
    assert "Bob" in said  # the example question names someone in the thread
    assert len(said) < 260, said  # short


async def test_record_questions_and_mediation_are_not_small_talk() -> None:
    # answered from the records, saying whose promise it looked for
    assert await reply("@heyan what did Bob promise?") == "I have no record of a promise Bob made."
    assert "Heyan" not in await reply("@heyan thanks, it's settled.", Stage.CLOSED)
    assert "Heyan" not in await reply("@heyan I'm furious, he is late again!", Stage.DE_ESCALATING)
    # a promise that happens to mention the weather is still a mediation turn
    assert "Noted" in await reply("@heyan I'll fix the rain gutter by Friday, promise.")
