"""The trigger's recall and precision on ``tests/data/trigger_corpus.jsonl`` (shown by ``heyan bench extraction``).

One message a line with ``fact_bearing``; each ``split`` (dev, heldout, heldout2, heldout3) was written
before the tuning round first measuring it, then became a regression bar. First figures:
docs/BENCHMARKS.md.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

__all__ = ["DEFAULT_TRIGGER_CORPUS", "TriggerLine", "TriggerReport", "load_trigger_corpus", "score_trigger"]

DEFAULT_TRIGGER_CORPUS = Path(__file__).resolve().parents[3] / "tests" / "data" / "trigger_corpus.jsonl"
_AT = datetime(2026, 11, 4, 10, tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class TriggerLine:
    id: str
    lang: str
    split: str
    text: str
    fact_bearing: bool


@dataclass
class TriggerReport:
    """Counts of one part: sent at once and fact-bearing (tp), sent but not (fp), missed (fn)."""

    lines: int = 0
    tp: int = 0
    fp: int = 0
    fn: int = 0
    misses: list[str] = field(default_factory=list)

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    def as_dict(self) -> dict[str, Any]:
        return {"lines": self.lines, "fact_bearing": self.tp + self.fn, "sent": self.tp + self.fp,
                "recall": round(self.recall, 3), "precision": round(self.precision, 3)}


def load_trigger_corpus(path: Path) -> list[TriggerLine]:
    """Every line of a trigger corpus; a malformed one stops with ``FILE:LINE: reason``."""
    lines = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not raw.strip():
            continue
        try:
            data = json.loads(raw)
            lines.append(TriggerLine(data["id"], data["lang"], data.get("split", "dev"), data["text"],
                                     bool(data["fact_bearing"])))
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise ValueError(f"{path}:{number}: {type(exc).__name__}: {exc}") from None
    return lines


def score_trigger(lines: list[TriggerLine]) -> dict[str, TriggerReport]:
    """One report per part (``split``) and one for all lines (``"all"``)."""
    from bot.extraction.triggers import fact_bearing
    from bot.models import Message  # the rules load when a bench runs, not when the CLI starts
    from memory.models import Scope

    reports: dict[str, TriggerReport] = {"all": TriggerReport()}
    for line in lines:
        msg = Message(id=line.id, scope=Scope(tenant="bench", session="trigger", user="u-bench"),
                      author_name="Bench", text=line.text, ts=_AT)
        sent = fact_bearing(msg)
        for report in (reports["all"], reports.setdefault(line.split, TriggerReport())):
            report.lines += 1
            if sent and line.fact_bearing:
                report.tp += 1
            elif sent:
                report.fp += 1
                report.misses.append(f"{line.id} sent, not fact-bearing — {line.text}")
            elif line.fact_bearing:
                report.fn += 1
                report.misses.append(f"{line.id} missed — {line.text}")
    return reports
