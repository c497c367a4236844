"""``heyan bench escalation``: precision and recall of the early escalation alert.

Corpus ``tests/data/escalation_corpus.jsonl``: one thread a line (``label`` calm/heated/derailed,
``split`` dev/heldout, ``derail_at``, ``messages``), written before any rule. A heated or derailed
thread should alert, a calm one not; reported per part and language, with ``early`` for derailed ones.
``--misses`` lists the wrong side; ``--threshold`` tries another. Figures: docs/BENCHMARKS.md.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from adapters.cli.cli_common import fail

if TYPE_CHECKING:  # the rules load when the bench runs, not when the CLI starts (tests/test_cli_startup.py)
    from bot.disputes.escalation import Turn

__all__ = ["CORPUS", "Score", "escalation", "load", "measure"]

CORPUS = Path(__file__).resolve().parents[3] / "tests" / "data" / "escalation_corpus.jsonl"
_LABELS = ("calm", "heated", "derailed")
_START = datetime(2026, 11, 20, 9, tzinfo=UTC)


@dataclass
class Score:
    """Alert counts of one part of the corpus."""

    name: str
    positives: int = 0
    negatives: int = 0
    true_alerts: int = 0
    false_alerts: int = 0
    derailed: int = 0
    early: int = 0
    misses: list[str] = field(default_factory=list)

    @property
    def precision(self) -> float:
        alerts = self.true_alerts + self.false_alerts
        return self.true_alerts / alerts if alerts else 1.0

    @property
    def recall(self) -> float:
        return self.true_alerts / self.positives if self.positives else 1.0

    def as_dict(self) -> dict[str, Any]:
        return {"threads": self.positives + self.negatives, "positives": self.positives,
                "true_alerts": self.true_alerts, "false_alerts": self.false_alerts,
                "precision": round(self.precision, 3), "recall": round(self.recall, 3),
                "derailed": self.derailed, "alerted_before_derailing": self.early}


def load(path: Path = CORPUS) -> list[dict[str, Any]]:
    """The threads of a corpus file; ``ValueError`` naming the line when one is malformed."""
    rows = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not raw.strip():
            continue
        try:
            row = json.loads(raw)
            if not isinstance(row, dict) or not {"id", "lang", "label", "split", "messages"} <= row.keys():
                raise ValueError("needs id, lang, label, split and messages")
            if row["label"] not in _LABELS:
                raise ValueError(f"label must be one of {', '.join(_LABELS)}")
            if not row["messages"] or not all({"user", "text", "t"} <= m.keys() for m in row["messages"]):
                raise ValueError("each message needs user, text and t")
        except ValueError as exc:
            raise ValueError(f"{path}:{number}: {exc}") from None
        rows.append(row)
    return rows


def turns_of(row: dict[str, Any]) -> list[Turn]:
    from bot.disputes.escalation import Turn

    return [Turn(author=m["user"], text=m["text"], ts=_START + timedelta(seconds=float(m["t"])), message_id=str(i))
            for i, m in enumerate(row["messages"])]


def measure(name: str, rows: list[dict[str, Any]], threshold: float | None = None) -> Score:
    """Replay each thread through the temperature and count alerts against the labels (at
    ``bot.disputes.escalation.THRESHOLD`` unless ``threshold`` is given)."""
    from bot.disputes.escalation import THRESHOLD, first_crossing, run_thread

    threshold = THRESHOLD if threshold is None else threshold
    part = Score(name)
    for row in rows:
        heats = run_thread(turns_of(row))
        crossed = first_crossing(heats, threshold)
        peak = max(h.temperature for h in heats)
        positive = row["label"] != "calm"
        if positive:
            part.positives += 1
            part.true_alerts += crossed is not None
            if crossed is None:
                part.misses.append(f"{row['id']} ({row['split']}) not alerted, peak {peak:.2f}")
        else:
            part.negatives += 1
            part.false_alerts += crossed is not None
            if crossed is not None:
                part.misses.append(f"{row['id']} ({row['split']}) alerted at message {crossed}, peak {peak:.2f}")
        if row["label"] == "derailed":
            part.derailed += 1
            at = row.get("derail_at")
            part.early += crossed is not None and at is not None and crossed < int(at)
    return part


def escalation(
    corpus: Annotated[Path, typer.Option(help="a corpus file in the format above")] = CORPUS,
    threshold: Annotated[float | None, typer.Option(help="alert at this temperature (default: the alert's own, 2.2)")]
    = None,
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON object instead of a table")] = False,
    misses: Annotated[bool, typer.Option("--misses", help="also list every thread on the wrong side")] = False,
) -> None:
    """Precision and recall of the early escalation alert on the labelled threads (dev, held out, per language)."""
    from bot.disputes.escalation import THRESHOLD

    threshold = THRESHOLD if threshold is None else threshold
    try:
        rows = load(corpus)
    except (OSError, ValueError) as exc:
        raise fail(f"cannot read the escalation corpus: {exc}") from None
    parts = [measure(split, [r for r in rows if r["split"] == split], threshold) for split in ("dev", "heldout")]
    parts += [measure(f"heldout {lang}", [r for r in rows if r["split"] == "heldout" and r["lang"] == lang], threshold)
              for lang in ("en", "zh")]
    parts.append(measure("all", rows, threshold))
    if as_json:
        data: dict[str, Any] = {"threshold": threshold, **{p.name: p.as_dict() for p in parts}}
        if misses:
            data["misses"] = sorted({m for p in parts for m in p.misses})
        print(json.dumps(data, ensure_ascii=False, indent=1))
        return
    console = Console()
    table = Table(title=f"early escalation alert (threshold {threshold:g})", box=None, header_style="bold underline")
    for col in ("part", "threads", "precision", "recall", "false alerts", "early (derailed)"):
        table.add_column(col, justify="left" if col == "part" else "right", no_wrap=True)
    for p in parts:
        alerts = p.true_alerts + p.false_alerts
        table.add_row(p.name, str(p.positives + p.negatives), f"{p.precision:.3f} ({p.true_alerts}/{alerts})",
                      f"{p.recall:.3f} ({p.true_alerts}/{p.positives})", str(p.false_alerts),
                      f"{p.early}/{p.derailed}")
    console.print(table)
    if misses:
        for line in sorted({m for p in parts for m in p.misses}):
            console.print(line, markup=False, highlight=False)
