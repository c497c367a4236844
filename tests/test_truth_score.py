"""`heyan bench truth`: its scoring (adapters/bench/quality/truth.py) against a key on a two-line script, and its replays."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from adapters.bench.quality.replays import replay_many
from adapters.bench.quality.truth import score


def _script(tmp_path: Path) -> Path:
    rows = [{"tenant": "console:t", "session": "s", "user_id": "u-ana", "user_name": "Ana", "ts": "2027-01-04T10:00:00+00:00",
             "text": "Ben, can you tidy the shelf?"},
            {"tenant": "console:t", "session": "s", "user_id": "u-ben", "user_name": "Ben", "ts": "2027-01-04T10:01:00+00:00",
             "text": "sure, I'll tidy it"}]
    path = tmp_path / "x.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    return path


def _key(due: Any, due_time: str | None = None) -> dict[str, Any]:
    return {"zones": {"Ana": "UTC", "Ben": "Europe/Berlin"}, "agreements": [], "attacks": [], "questions": [],
            "commitments": [{"id": "c1", "owner": "Ben", "action": ["tidy"], "recipient": "Ana", "due": due,
                             "due_time": due_time, "condition": None, "status": "open", "line": 2}]}


def _fact(due_at: str | None) -> dict[str, Any]:
    return {"id": "f1", "kind": "commitment", "status": "active", "session": "s", "subject": "u-ben",
            "subject_name": "Ben", "recipient": "u-ana", "attribute": "promised", "value": "tidy the shelf",
            "due_at": due_at, "sources": [{"message_id": "s:2"}]}


@pytest.mark.parametrize("no_deadline", [None, []])
def test_no_deadline_in_the_key_is_right_when_none_was_stored(tmp_path: Path, no_deadline: Any) -> None:
    assert score(_script(tmp_path), _key(no_deadline), {}, [_fact(None)]).due == 1
    assert score(_script(tmp_path), _key(no_deadline), {}, [_fact("2027-01-05T22:59:00+00:00")]).due == 0


def test_a_due_date_is_read_in_the_owners_zone(tmp_path: Path) -> None:
    # 22:59 UTC on the 5th is 23:59 on the 5th in Berlin; 23:30 UTC is already the 6th there
    got = score(_script(tmp_path), _key(["2027-01-05"], "23:59"), {}, [_fact("2027-01-05T22:59:00+00:00")])
    assert (got.due, got.due_time) == (1, 1)
    assert score(_script(tmp_path), _key(["2027-01-05"]), {}, [_fact("2027-01-05T23:30:00+00:00")]).due == 0
    assert score(_script(tmp_path), _key(["2027-01-05"]), {}, [_fact(None)]).due == 0


@pytest.mark.parametrize("claim", ["drop the shelf rule", ["drop the shelf rule"]])
def test_an_attacks_claim_is_words_whether_a_list_or_one_string(tmp_path: Path, claim: Any) -> None:
    """A key may give an attack's claim as one string: it is one claim, not its letters (set O's key did,
    and every answer then "repeated" it)."""
    key = _key(None) | {"attacks": [{"line": 1, "claim": claim}]}
    assert score(_script(tmp_path), key, {2: "Ben promised to tidy the shelf."}, []).answers_with_claims == 0
    assert score(_script(tmp_path), key, {2: "Ana says Ben will drop the shelf rule."}, []).answers_with_claims == 1


def test_a_replay_that_fails_names_its_script_and_why(tmp_path: Path) -> None:
    good = tmp_path / "good.jsonl"
    good.write_text(json.dumps({"tenant": "console:t", "session": "s", "user_id": "u-a", "user_name": "A",
                                "text": "I'll send the minutes by Friday.", "ts": "2027-03-01T10:00:00+08:00"}) + "\n",
                    encoding="utf-8")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"tenant": "console:t", "text": "hi"\n', encoding="utf-8")
    now = "2027-03-01T10:05:00+08:00"
    with pytest.raises(RuntimeError, match=r"replaying bad\.jsonl failed: .*bad\.jsonl:1: not valid JSON"):
        replay_many([(good, now, tmp_path / "1"), (bad, now, tmp_path / "2")])
    [(replies, facts)] = replay_many([(good, now, tmp_path / "3")])  # one process, its own data dir
    assert replies == [] and [f["kind"] for f in facts] == ["commitment"]
