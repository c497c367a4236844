"""``heyan bench retrieval`` through typer's CliRunner on a tiny dataset."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from adapters.bench import app as bench_app

ROW = {
    "conversation": "tiny",
    "memories": [
        {"id": "tiny:0", "subject": "Alice", "text": "Alice will return the hall deposit by Friday."},
        {"id": "tiny:1", "subject": "Bob", "text": "Bob feels ignored in the planning meetings."},
        {"id": "tiny:2", "subject": "Carol", "text": "Carol wants the music to stop at ten."},
    ],
    "queries": [
        {"id": "tiny:q0", "text": "When is the deposit coming back?", "relevant": ["tiny:0"]},
        {"id": "tiny:q1", "text": "How does Bob feel about meetings?", "relevant": ["tiny:1"]},
    ],
}


def test_json_output_has_the_keys(tmp_path: Path) -> None:
    path = tmp_path / "tiny.jsonl"
    path.write_text(json.dumps(ROW) + "\n", encoding="utf-8")
    result = CliRunner().invoke(bench_app, ["retrieval", "--dataset", str(path), "--k", "1,5", "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["dataset"] == str(path) and out["queries"] == 2
    assert set(out["methods"]) == {"dense", "sparse", "hybrid"}
    for row in out["methods"].values():
        assert set(row) == {"recall@1", "recall@5", "mrr", "p50_ms", "p95_ms"}
    assert out["methods"]["hybrid"]["recall@5"] == 1.0


def test_table_output_for_one_method(tmp_path: Path) -> None:
    path = tmp_path / "tiny.jsonl"
    path.write_text(json.dumps(ROW) + "\n", encoding="utf-8")
    result = CliRunner().invoke(bench_app, ["retrieval", "--dataset", str(path), "--method", "hybrid"])
    assert result.exit_code == 0, result.output
    assert (
        "hybrid" in result.stdout
        and "recall@10" in result.stdout
        and "dense" not in result.stdout.split("\n", 3)[-1]
    )


def test_malformed_lines_exit_before_ingesting(tmp_path: Path) -> None:
    bad_ref = dict(ROW, conversation="other", queries=[{"id": "q", "text": "x", "relevant": ["nope"]}])
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(ROW) + "\n{not json\n" + json.dumps(bad_ref) + "\n", encoding="utf-8")
    result = CliRunner().invoke(bench_app, ["retrieval", "--dataset", str(path), "--json"])
    assert result.exit_code == 2
    assert f"{path}:2: not valid JSON" in result.stderr
    assert f"{path}:3:" in result.stderr and "nope" in result.stderr
    assert result.stdout == ""
