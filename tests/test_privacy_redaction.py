"""PII redaction: identifiers inside Chinese and English text become typed placeholders before
anything is stored or reaches an LLM; look-alikes (dates, amounts, order numbers) are left alone."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.models import Message
from bot.offline.provider import OfflineProvider
from bot.privacy.redaction import redact
from memory.models import Scope
from tests.jobs_helpers import Start, settings

pytestmark = pytest.mark.usefixtures("hash_embedder")

CASES = [
    ("我的手机是13812345678，有事打给我", "我的手机是[PHONE_1]，有事打给我"),
    ("电话+86 138-1234-5678或者008613912345678", "电话[PHONE_1]或者[PHONE_2]"),
    ("拨+8613812345678转分机", "拨[PHONE_1]转分机"),
    ("邮箱zhang.wei@example.com，抄送li_na+work@mail.example.cn", "邮箱[EMAIL_1]，抄送[EMAIL_2]"),
    ("身份证11010519491231002X", "身份证[ID_1]"),
    ("card 4111 1111 1111 1111 please", "card [CARD_1] please"),
    ("卡号6222021234567890128已冻结", "卡号[CARD_1]已冻结"),
    ("the server at 192.168.1.20 and fe80::1ff:fe23:4567:890a", "the server at [IP_1] and [IP_2]"),
    ("call (415) 555-0123 or +44 20 7946 0958", "call [PHONE_1] or [PHONE_2]"),
    ("again 13812345678 and 138 1234 5678", "again [PHONE_1] and [PHONE_1]"),  # one value, one number
]

LOOK_ALIKES = [
    "会议在3点，订单号20261129，金额1500元",
    "I will pay 2026-11-30 at 10:30, version 1.2.3",
    "身份证11010519491231002Y",  # a wrong check digit: not an identity number
    "card 4111111111111112",  # fails the Luhn check
    "room 101, floor 12, 3 people",
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_identifiers_become_typed_placeholders(text: str, expected: str) -> None:
    assert redact(text).text == expected


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_look_alikes_stay(text: str) -> None:
    assert redact(text).text == text and not redact(text).changed


def test_redaction_is_linear_in_the_text() -> None:
    import time

    def cpu(n: int) -> float:
        text = ("打给我13812345678或者 mail a@b.co " + "数字123 456 7890 " * 5) * n
        began = time.process_time()
        redact(text)
        return time.process_time() - began

    small, large = cpu(200), cpu(4000)
    assert large < 60 * max(small, 1e-3)  # 20x the text: well under 60x the work


async def test_nothing_identifying_is_stored_or_prompted(tmp_path: Path, redis_url: str,
                                                         start: Start) -> None:
    rt = await start(settings(tmp_path, redis_url), provider=OfflineProvider())
    scope = Scope(tenant="console:pii", session="s")
    said = Message(id="p1", scope=scope.narrow(user="u-li"), author_name="李娜", ts=datetime.now(UTC),
                   text="我明天下午三点前把合同发到zhang.wei@example.com，有问题打13812345678。")
    await rt.engine.observe(said)
    await rt.engine.flush(scope)
    await rt.drain(60)
    [stored] = await rt.window.get_many(scope, ["p1"])
    assert "13812345678" not in stored.text and "example.com" not in stored.text
    assert "[EMAIL_1]" in stored.text and "[PHONE_1]" in stored.text
    facts = await rt.memory.list_facts(Scope(tenant="console:pii"))
    assert facts and all("13812345678" not in f.model_dump_json() for f in facts)
    summary = await rt.memory.summary(scope)
    assert summary is None or "13812345678" not in summary.text
    reply = await rt.engine.respond(Message(id="p2", scope=scope.narrow(user="u-zhang"), author_name="张伟",
                                            text="我的新号码是13900001111，李娜答应了什么？", ts=datetime.now(UTC),
                                            mention=True))
    assert "13900001111" not in reply.text
