"""Issue 22 end to end at the console (embedded shape, the real CLI): two disputes replayed from scripts
in English and Chinese — promises by several people, said days before "now", two of them reported
done in the thread — then closed with their agreement cards, the moderators' digest and each member's
promise record, all as of an explicit now."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from adapters.cli.app import app

DATA = Path(__file__).parent / "data"
NOW = "2026-11-25T12:00:00+00:00"
TENANT = "console:flat"

pytestmark = [pytest.mark.slow, pytest.mark.dated]


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    env = {"HEYAN_DATA_DIR": str(tmp_path_factory.mktemp("heyan")), "HEYAN_TIMEZONE": "UTC", "HEYAN_REDIS_URL": "",
           "HEYAN_QDRANT_URL": ""}
    for name in ("features_dispute_en.jsonl", "features_dispute_zh.jsonl"):
        result = CliRunner().invoke(app, ["--now", NOW, "chat", "--script", str(DATA / name), "--json"],
                                    env=env)
        assert result.exit_code == 0, result.output
    return env


def heyan(env: dict[str, str], *args: str) -> Any:
    result = CliRunner().invoke(app, ["--now", NOW, *args, "--json"], env=env)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_cards_name_the_right_owners_in_both_languages(env: dict[str, str]) -> None:
    en = heyan(env, "dispute", "close", "--tenant", TENANT, "--session", "flat-en", "--now", NOW)
    assert en["state"] == "proposed" and en["agreed"]
    assert {(i["owner"], i["action"], i["status"]) for i in en["items"]} == {
        ("u-bob", "write the rota", "overdue"), ("u-ann", "buy cleaning supplies", "done"),
        ("u-cat", "fix the shower drain", "overdue")}
    assert all(i["due_at"] and i["sources"] and i["messages"] for i in en["items"])
    assert [d["text"] for d in en["decision"]] == ["Bob agreed to Ann's proposal: we each take one room per week"]
    assert en["options"][0]["proposed_by"] == ["u-ann"] and en["options"][0]["agreed_by"] == ["u-bob"]
    assert {"decision", "positions", "options", "items", "revisit"} <= en.keys()
    zh = heyan(env, "dispute", "close", "--tenant", TENANT, "--session", "flat-zh", "--now", NOW)
    assert {i["owner"]: i["action"] for i in zh["items"]} == {
        # a card never says "you": 王 said 先转一半给你 to 张伟 (issue 29)
        "u-wang": "先转一半给张伟", "u-li": "把这次的对账单发到群里", "u-zhang": "把收据发到这个帖子里"}
    assert zh["lang"] == "zh" and zh["decision"] and zh["positions"]
    # everyone confirms the Chinese card: it closes, and is remembered with every party in it
    for user in ("u-zhang", "u-wang", "u-li"):
        last = heyan(env, "dispute", "confirm-card", "--tenant", TENANT, "--session", "flat-zh", "--user", user,
                     "--now", NOW)
    assert last["state"] == "closed" and last["record"]
    shown = heyan(env, "memory", "show", last["record"][:8], "--tenant", TENANT)
    assert shown["kind"] == "agreement" and set(shown["users"]) == {"u-zhang", "u-wang", "u-li"}


def test_digest_lists_the_overdue_promises_and_records_count_them(env: dict[str, str]) -> None:
    # "Done, I bought the cleaning supplies." (Ann) and "一半的钱已经转给你了。" (王芳) closed their promises,
    # each said before its due time: kept on time, although the replay read them days later
    digest = heyan(env, "digest", "--tenant", TENANT, "--now", NOW)
    overdue = {(c["owner"], c["action"]) for c in digest["overdue"]}
    assert overdue == {("u-bob", "write the rota"), ("u-cat", "fix the shower drain"),
                       ("u-li", "把这次的对账单发到群里"), ("u-zhang", "把收据发到这个帖子里")}
    bob = heyan(env, "member", "record", "--tenant", TENANT, "--user", "u-bob", "--now", NOW)
    assert (bob["overdue"], bob["kept_on_time"], bob["kept_late"], bob["total"]) == (1, 0, 0, 1)
    for user in ("u-ann", "u-wang"):
        kept = heyan(env, "member", "record", "--tenant", TENANT, "--user", user, "--now", NOW)
        assert (kept["kept_on_time"], kept["kept_late"], kept["overdue"]) == (1, 0, 0), kept
    early = heyan(env, "member", "record", "--tenant", TENANT, "--user", "u-li", "--now", "2026-11-18T00:00:00+00:00")
    assert (early["overdue"], early["open"]) == (0, 1)  # as of before its due time: not overdue yet
