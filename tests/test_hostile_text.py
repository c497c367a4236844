"""Hostile text, as a new user would try it (issue 13, item 7): names and messages carrying terminal
escape sequences, NUL, BEL, a bidi override and zero-width spaces. Rules see normalized text, the
stored quote keeps the raw words, and nothing reaches a terminal, a log line or a platform raw."""

from __future__ import annotations

import io
import json
import logging
from datetime import UTC, datetime

import pytest
from rich.console import Console
from typer.testing import CliRunner

from adapters.cli.app import app
from adapters.cli.terminal import SafeConsole
from adapters.cli.views import memory_table
from adapters.discord.display.render import render as discord_render
from adapters.runtime.logs import TextFormatter
from adapters.slack.display.render import render as slack_render
from bot.extraction.candidates import ExtractionRequest, Utterance, to_facts
from bot.offline.rules import extract_rules
from bot.text.richtext import RichText
from memory.models import Kind

CLEAR, RED, RESET, NUL, BEL, RLO, ZWSP = "\x1b[2J", "\x1b[31m", "\x1b[0m", "\x00", "\x07", "\u202e", "\u200b"
RAW_CONTROLS = ("\x1b", NUL, BEL, RLO, ZWSP)
PROMISE = f"{CLEAR}{RED}I pro{ZWSP}mise to send the dr{RLO}aft by Friday{BEL}{NUL}{RESET}"
RAW_QUOTE = f"I pro{ZWSP}mise to send the dr{RLO}aft by Friday"
MALLORY = f"{RED}Mal{ZWSP}lory{RESET}{BEL}"


def _assert_no_raw_controls(output: str) -> None:
    for bad in RAW_CONTROLS:
        assert bad not in output, f"{bad!r} reached the terminal"


def _request(text: str, name: str) -> ExtractionRequest:
    turn = Utterance("m1", "u-mal", name, text, datetime(2026, 11, 2, 10, tzinfo=UTC))
    return ExtractionRequest(tenant="t", session="s", turns=[turn])


def test_hidden_characters_neither_hide_nor_change_a_promise() -> None:
    now = datetime(2026, 11, 2, 10, tzinfo=UTC)
    clean = _request("I promise to send the draft by Friday", "Mallory")
    hostile = _request(PROMISE, MALLORY)
    [expected] = to_facts(clean, extract_rules(clean), now=now)
    [fact] = to_facts(hostile, extract_rules(hostile), now=now)
    assert fact.kind is Kind.COMMITMENT
    assert (fact.attribute, fact.value, fact.due_at) == (expected.attribute, expected.value, expected.due_at)
    assert fact.subject_name == "Mallory"
    assert fact.sources[0].quote == RAW_QUOTE  # the member's own words, hidden characters and all
    assert fact.sources[0].author_name == MALLORY


def test_a_quote_that_is_not_in_the_message_is_still_dropped() -> None:
    request = _request(PROMISE, MALLORY)
    [cand] = extract_rules(request)
    forged = type(cand)(**{**{k: getattr(cand, k) for k in cand.__slots__}, "quote": "I promise to pay"})
    assert to_facts(request, [forged], now=datetime(2026, 11, 2, 10, tzinfo=UTC)) == []


@pytest.fixture(scope="module")
def chatted(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, str], str]:
    folder = tmp_path_factory.mktemp("hostile")
    env = {"HEYAN_DATA_DIR": str(folder / "data"), "HEYAN_TIMEZONE": "UTC", "HEYAN_REDIS_URL": "",
           "HEYAN_QDRANT_URL": ""}
    base = {"tenant": "console:hostile", "session": "thread"}
    lines = [
        {**base, "user_id": "u-mal", "user_name": MALLORY, "text": PROMISE, "ts": "2026-11-02T10:00:00+00:00"},
        {**base, "user_id": "u-bob", "user_name": f"Bob{RLO}{CLEAR}", "text": f"{CLEAR}thanks{NUL}, noted{BEL}",
         "ts": "2026-11-02T10:01:00+00:00"},
        {**base, "user_id": "u-bob", "user_name": f"Bob{RLO}{CLEAR}", "text": f"what did Mal{ZWSP}lory promise?{BEL}",
         "ts": "2026-11-02T10:02:00+00:00", "mention": True},
    ]
    script = folder / "hostile.jsonl"
    script.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    result = CliRunner().invoke(app, ["chat", "--script", str(script)], env=env)
    assert result.exit_code == 0, result.output
    return env, result.output


def test_chat_script_output_shows_escapes_not_controls(chatted: tuple[dict[str, str], str]) -> None:
    _, output = chatted
    _assert_no_raw_controls(output)
    assert "\\x1b[2J\\x1b[31mI pro\\u200bmise" in output  # the echo of the line, made visible
    assert "Bob\\u202e\\x1b[2J" in output
    assert "和言" in output  # the mention was answered


def test_memory_list_is_escaped_and_stores_raw_quotes(chatted: tuple[dict[str, str], str]) -> None:
    env, _ = chatted
    table = CliRunner().invoke(app, ["memory", "list", "--tenant", "console:hostile"], env={**env, "COLUMNS": "200"})
    assert table.exit_code == 0, table.output
    _assert_no_raw_controls(table.output)
    assert "send the draft" in table.output
    data = CliRunner().invoke(app, ["memory", "list", "--json", "--tenant", "console:hostile"], env=env)
    assert data.exit_code == 0, data.output
    facts = json.loads(data.stdout)
    [promise] = [f for f in facts if f["kind"] == "commitment"]
    assert promise["subject"] == "u-mal" and promise["subject_name"] == "Mallory"
    assert promise["value"] == "send the draft by Friday"
    assert promise["sources"][0]["quote"] == RAW_QUOTE
    assert promise["sources"][0]["author_name"] == MALLORY


def test_views_escape_on_a_plain_console() -> None:
    request = _request(PROMISE, MALLORY)
    facts = to_facts(request, extract_rules(request), now=datetime(2026, 11, 2, 10, tzinfo=UTC))
    facts = [f.model_copy(update={"value": f"{f.value}{CLEAR}{RLO}", "subject_name": MALLORY}) for f in facts]
    out = io.StringIO()
    Console(file=out, width=120, color_system=None).print(memory_table(facts, f"memories {BEL}"))
    _assert_no_raw_controls(out.getvalue())
    assert "\\x1b[2J\\u202e" in out.getvalue() and "\\x07" in out.getvalue()


def test_safe_console_escapes_whatever_it_prints() -> None:
    out = io.StringIO()
    console = SafeConsole(file=out, width=100, force_terminal=True, color_system="standard")
    console.print(f"[bold]{MALLORY}[/]", highlight=False)
    console.print_json(json.dumps({"value": f"x{RLO}\x9b2J"}, ensure_ascii=False))
    printed = out.getvalue()
    assert "\\x1b[31mMal\\u200blory" in printed and "\\u202e" in printed and "\\x9b" in printed
    for bad in (NUL, BEL, RLO, ZWSP, "\x9b", RED, CLEAR):
        assert bad not in printed  # rich's own styling codes are the only escapes written


def test_log_lines_escape_controls() -> None:
    record = logging.LogRecord("heyan.test", logging.WARNING, __file__, 1, "dropped %r from %s",
                               ("quote", f"{MALLORY}\nforged line"), None)
    line = TextFormatter().format(record)
    assert "\n" not in line and "\x1b" not in line and BEL not in line and ZWSP not in line
    assert line.endswith("dropped 'quote' from \\x1b[31mMal\\u200blory\\x1b[0m\\x07\\nforged line")


def test_platform_text_loses_controls_but_keeps_mention_escaping() -> None:
    text = RichText.of(f"{CLEAR}{MALLORY} promised{NUL}: send the dr{RLO}aft @everyone <@123>")
    content, _ = discord_render(text)
    _assert_no_raw_controls(content.replace("@\u200beveryone", "").replace("<\u200b@", ""))
    assert content.startswith("Mallory promised: send the draft @")
    assert "@\u200beveryone" in content and "<\u200b@123>" in content  # the mention escaping is kept
    slack = slack_render(text)
    _assert_no_raw_controls(slack)
    assert slack == "Mallory promised: send the draft @everyone &lt;@123&gt;"


def test_rich_markup_in_member_text_is_shown_as_typed_never_read() -> None:
    """A member who types rich markup neither styles a moderator's table nor breaks it: "[/link]"
    closing nothing made rich raise (the whole `heyan memory list` failed) and "[red]" coloured."""
    request = _request(PROMISE, MALLORY)
    facts = to_facts(request, extract_rules(request), now=datetime(2026, 11, 2, 10, tzinfo=UTC))
    typed = " see [/link] and [red]urgent[/red] [bold]x"
    facts = [f.model_copy(update={"value": f.value + typed}) for f in facts]
    plain, coloured = io.StringIO(), io.StringIO()
    Console(file=plain, width=300, color_system=None).print(memory_table(facts, "memories"))
    Console(file=coloured, width=300, color_system="standard", force_terminal=True).print(memory_table(facts, "m"))
    assert "see [/link] and [red]urgent[/red] [bold]x" in plain.getvalue()
    assert "\x1b[31murgent" not in coloured.getvalue()  # nothing coloured by the member
