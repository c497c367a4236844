"""Issue 20, item 6: one kind vocabulary. CLI filters, tables, JSON and the platforms name kinds the
same way, and every filter accepts both the shown names and the store's (``bot.text.kinds``)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from adapters.cli.app import app
from adapters.discord.commands.memory_commands import kind_choices
from adapters.discord.display.translate import kind_label as discord_label
from bot.text.kinds import LABELS, label, parse
from memory.models import Fact, Kind


def _fact(kind: Kind, attribute: str) -> Fact:
    return Fact(tenant="t", kind=kind, subject="u", attribute=attribute, value="v", asserted_by="u")


def test_labels_and_their_names() -> None:
    assert label(_fact(Kind.CONSENSUS, "agrees to")) == "agreement"
    assert label(_fact(Kind.CONSENSUS, "拒绝")) == "refusal"
    assert label(_fact(Kind.EVENT, "claims")) == "claim"
    assert label(_fact(Kind.COMMITMENT, "send")) == "commitment"
    assert parse("agreement").labels == {"agreement"} and parse("Consensus").labels == {"agreement", "refusal"}
    assert parse("同意").labels == {"agreement"} and parse("claims").labels == {"claim"}
    assert parse("consensus").stored == {Kind.CONSENSUS}
    with pytest.raises(ValueError, match="agreement"):
        parse("feelingz")


def test_platforms_show_the_same_names() -> None:
    agreement = _fact(Kind.CONSENSUS, "agrees to")
    assert discord_label(agreement, "en") == "agreement" and discord_label(agreement, "zh") == "同意"
    assert [c.value for c in kind_choices("", "en")] == list(LABELS)
    assert [c.value for c in kind_choices("agree", "en")] == ["agreement"]


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("kinds")
    env = {"HEYAN_DATA_DIR": str(folder / "data"), "HEYAN_TIMEZONE": "UTC", "HEYAN_REDIS_URL": "",
           "HEYAN_QDRANT_URL": ""}
    base = {"tenant": "console:kinds", "session": "thread"}
    lines = [
        {**base, "user_id": "u-bob", "user_name": "Bob", "text": "How about we split the cost 50/50?",
         "ts": "2026-11-02T10:00:00+00:00"},
        {**base, "user_id": "u-ann", "user_name": "Ann", "text": "OK, deal.", "ts": "2026-11-02T10:01:00+00:00"},
        {**base, "user_id": "u-bob", "user_name": "Bob", "text": "I refuse to pay for the lamp.",
         "ts": "2026-11-02T10:02:00+00:00"},
        {**base, "user_id": "u-ann", "user_name": "Ann", "text": "I'll clean the kitchen tonight.",
         "ts": "2026-11-02T10:03:00+00:00"},
    ]
    script = folder / "kinds.jsonl"
    script.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    result = CliRunner().invoke(app, ["chat", "--script", str(script)], env=env)
    assert result.exit_code == 0, result.output
    return env


def _kinds(env: dict[str, str], *args: str) -> list[str]:
    out = CliRunner().invoke(app, ["memory", "list", "--json", *args], env=env)
    assert out.exit_code == 0, out.output
    return sorted(f["kind"] for f in json.loads(out.stdout))


def test_memory_list_takes_the_names_it_shows(env: dict[str, str]) -> None:
    assert _kinds(env) == ["agreement", "commitment", "refusal"]  # JSON names kinds as tables do
    assert _kinds(env, "--kind", "agreement") == ["agreement"]
    assert _kinds(env, "--kind", "refusal") == ["refusal"]
    assert _kinds(env, "--kind", "consensus") == ["agreement", "refusal"]  # the store's name still works
    table = CliRunner().invoke(app, ["memory", "list", "--kind", "agreement"], env={**env, "COLUMNS": "200"})
    assert table.exit_code == 0 and "agreement" in table.stdout and "refusal" not in table.stdout, table.stdout
    bad = CliRunner().invoke(app, ["memory", "list", "--kind", "feelingz"], env=env)
    assert bad.exit_code != 0 and "agreement" in bad.output and "consensus" in bad.output


def test_json_keeps_the_facts_fields(env: dict[str, str]) -> None:
    out = CliRunner().invoke(app, ["memory", "list", "--json", "--kind", "agreement"], env=env)
    [fact] = json.loads(out.stdout)
    assert fact["attribute"] == "agrees to" and {s["author_id"] for s in fact["sources"]} == {"u-ann", "u-bob"}
