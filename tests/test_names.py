"""Issue 10: one display name per user id in a tenant — the latest — in tables and replies."""

from __future__ import annotations

import io
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from rich.console import Console

from adapters.cli.views import commitment_view, commitments_table, memory_table
from bot.extraction.candidates import ExtractionRequest, Utterance, to_facts
from bot.llm.base import ReplyRequest
from bot.models import Stage
from bot.offline import OfflineProvider
from bot.offline.rules import extract_rules
from bot.text.names import NameBook, TenantNames
from memory.models import Fact, Kind

TZ = "Asia/Shanghai"
T0 = datetime(2026, 11, 4, 10, 0, tzinfo=ZoneInfo(TZ))

LINES = [
    ("u-zhang", "张伟", "李娜，你上周又没把设计稿发给我，我很生气。"),
    ("u-li", "李娜", "我保证明天下午三点前把草稿发给你。"),
    ("u-li", "Lina", "I'll send Mike the logo files by next Monday."),
    ("u-mike", "Mike", "I want the final logo files before the launch."),
    ("u-li", "李娜", "好的，我也同意以后有延期先在群里说。"),
]


def facts() -> list[Fact]:
    turns = [Utterance(f"m{i}", uid, name, text, T0 + timedelta(minutes=i)) for i, (uid, name, text) in enumerate(LINES)]
    request = ExtractionRequest("console:demo", "design", turns, lang="zh", timezone=TZ)
    return to_facts(request, extract_rules(request), now=T0)


def test_the_latest_name_wins_and_old_names_are_aliases() -> None:
    book = NameBook.of(facts())
    assert book.name("u-li") == "李娜"  # her last message was sent as 李娜
    assert book.aliases()["u-li"] == ("李娜", "Lina")
    later = NameBook.of(facts(), [Utterance("m9", "u-li", "Lina", "ok", T0 + timedelta(days=1))])
    assert later.name("u-li") == "Lina"
    assert book.name("u-nobody", "fallback") == "fallback"


def _rendered(table: object) -> str:
    out = io.StringIO()
    Console(file=out, width=80, color_system=None).print(table)
    return out.getvalue()


def test_tables_show_one_name_per_person() -> None:
    everything = facts()
    text = _rendered(memory_table(everything, "memories"))
    assert "Lina" not in text and text.count("李娜") >= 3
    commitments = [f for f in everything if f.kind is Kind.COMMITMENT]
    names = TenantNames(everything)
    views = [commitment_view(f, names) for f in commitments]
    assert {v["owner_name"] for v in views} == {"李娜"}
    assert "Lina" not in _rendered(commitments_table(views))


async def test_replies_name_each_person_once() -> None:
    everything = facts()
    commitments = [f for f in everything if f.kind is Kind.COMMITMENT]
    turn = Utterance("q", "u-mike", "Mike", "Heyan, what did Lina promise?", T0 + timedelta(hours=1))
    request = ReplyRequest("en", Stage.GATHERING, turn, facts=[f for f in everything if f not in commitments],
                           open_commitments=commitments, participants={"u-mike": "Mike"}, timezone=TZ)
    text = await OfflineProvider().reply(request)
    assert "李娜 promised" in text and "Lina" not in text  # asked by her old name, named by her latest
    # 李娜 said "发给你" to 张伟: told to Mike, it is 张伟 who was promised the draft
    assert "send Mike the logo files" in text and "把草稿发给张伟" in text


def test_llm_fact_lines_name_participants_by_their_current_name() -> None:
    from bot.llm.rendering import fact_line

    logo = next(f for f in facts() if "logo" in f.value and f.kind is Kind.COMMITMENT)
    assert logo.sources[0].author_name == "Lina"  # the message was sent under that name
    line = fact_line(logo, TZ, {"u-li": "李娜"})
    assert 'said by "李娜"' in line and 'about "李娜"' in line and "Lina" not in line
