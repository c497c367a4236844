"""Issue 10's quality targets, held on the labelled corpora (not timings): the offline rules on
tests/data/extraction_corpus.jsonl and the offline answers on tests/data/offline_qa.jsonl, through
the same code as ``heyan bench extraction`` / ``heyan bench answers``."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from adapters.bench import app as bench_app
from adapters.bench.quality.answers import DEFAULT_QA, QaReport, load_qa, score_qa
from adapters.bench.quality.extraction import DEFAULT_CORPUS, KINDS, Report, load_corpus, score
from adapters.bench.quality.trigger import DEFAULT_TRIGGER_CORPUS, load_trigger_corpus, score_trigger

COMMITMENT_RECALL = 0.90
COMMITMENT_PRECISION = 0.95
DUE_ACCURACY = 0.95
#: The other kinds are not targets of the issue; held here so they do not quietly get worse.
OTHER_KINDS = 0.85


@pytest.fixture(scope="module")
def report() -> Report:
    return score(load_corpus(DEFAULT_CORPUS))


@pytest.fixture(scope="module")
def qa() -> QaReport:
    return score_qa(load_qa(DEFAULT_QA))


def test_the_corpus_is_big_bilingual_and_labelled() -> None:
    rows = load_corpus(DEFAULT_CORPUS)
    assert len(rows) >= 300
    assert {r.lang for r in rows} == {"zh", "en"} and min(sum(r.lang == lang for r in rows) for lang in ("zh", "en")) >= 150
    kinds = {g.kind for r in rows for g in r.gold}
    assert kinds == set(KINDS)
    assert sum(1 for r in rows if not r.gold) >= 50  # questions, hedges, small talk: nothing to extract
    assert {r.split for r in rows} == {"dev", "heldout"}


def test_commitment_targets(report: Report) -> None:
    assert report.recall("commitment") >= COMMITMENT_RECALL, report.misses
    assert report.precision("commitment") >= COMMITMENT_PRECISION, report.misses
    assert report.due_accuracy >= DUE_ACCURACY, report.misses
    assert report.non_speaker_commitments == 0


def test_other_kinds_hold(report: Report) -> None:
    for kind in KINDS:
        assert report.precision(kind) >= OTHER_KINDS and report.recall(kind) >= OTHER_KINDS, (kind, report.misses)


def test_trigger_recall_holds_on_every_part() -> None:
    """Issue 20: trigger recall >= 0.95. Every part has been tuned on since its first measurement
    (docs/BENCHMARKS.md has those), so this is a regression bar, not an estimate."""
    lines = load_trigger_corpus(DEFAULT_TRIGGER_CORPUS)
    assert {line.split for line in lines} == {"dev", "heldout", "heldout2", "heldout3"}
    assert {line.lang for line in lines} == {"en", "zh"}
    reports = score_trigger(lines)
    for part, report in reports.items():
        assert report.recall >= 0.95, (part, report.misses)
        assert report.precision >= 0.95, (part, report.misses)


def test_issue20_lines_attribute_and_recall(report: Report) -> None:
    """The issue's exchanges: Omar keeps his promise, Lena's 'Forget it, I'll …' is hers and no
    refusal, a bare 'OK' after an offer is no agreement; indirect promises and 我很不满意 are read."""
    rows = [r for r in load_corpus(DEFAULT_CORPUS) if "-i20" in r.id]
    assert len(rows) >= 60 and {r.split for r in rows} == {"dev", "heldout"} and {r.lang for r in rows} == {"en", "zh"}
    sub = score(rows)
    for kind in ("commitment", "agreement", "refusal", "emotion"):
        assert sub.precision(kind) >= 0.95 and sub.recall(kind) >= 0.95, (kind, sub.misses)
    assert sub.non_speaker_commitments == 0


def test_offline_answers_targets(qa: QaReport) -> None:
    assert qa.cases >= 40
    assert qa.precision >= 0.95 and qa.recall >= 0.90, qa.misses
    assert qa.no_record_cases >= 4 and qa.no_record_ok == qa.no_record_cases, qa.misses
    assert qa.more_cases >= 2 and qa.more_ok == qa.more_cases, qa.misses
    assert qa.lang_ok == qa.cases, qa.misses  # always the asker's language


def test_bench_commands_print_the_numbers() -> None:
    runner = CliRunner()
    result = runner.invoke(bench_app, ["extraction", "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert set(out["kinds"]) == set(KINDS) and out["lines"] >= 300
    assert {"precision", "recall", "gold", "found"} <= set(out["kinds"]["commitment"])
    assert "due_accuracy" in out and out["non_speaker_commitments"] == 0
    assert {"dev", "heldout", "heldout2", "heldout3", "all"} <= set(out["trigger"])
    assert {"recall", "precision", "lines"} <= set(out["trigger"]["all"])
    table = runner.invoke(bench_app, ["extraction", "--split", "heldout"])
    assert table.exit_code == 0 and "commitment" in table.stdout and "due-time accuracy" in table.stdout
    assert "trigger" in table.stdout and "heldout3" in table.stdout
    answers = runner.invoke(bench_app, ["answers", "--json"])
    assert answers.exit_code == 0, answers.output
    assert {"precision", "recall", "no_record_accuracy", "language_accuracy"} <= set(json.loads(answers.stdout))


def test_bench_rejects_a_malformed_corpus(tmp_path: object) -> None:
    from pathlib import Path

    bad = Path(str(tmp_path)) / "bad.jsonl"
    bad.write_text('{"id": "x"}\n{oops\n', encoding="utf-8")
    result = CliRunner().invoke(bench_app, ["extraction", "--corpus", str(bad)])
    assert result.exit_code == 2
    assert f"{bad}:1:" in result.stderr and f"{bad}:2:" in result.stderr
