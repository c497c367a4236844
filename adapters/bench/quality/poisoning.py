"""``heyan bench poisoning``: how often ordinary lines are flagged and attempts are caught.

Corpora under ``tests/data/`` (``poisoning_dev``/``_heldout``, ``_corpus``, ``_shapes``), one JSON object
a line (``id``, ``lang``, ``speaker``, ``text``, ``expect``, ``commits``). Each line goes through
``bot.guard.poisoning.attempt`` as extraction asks; reported per part: false flags, catches, and promises
that survive extraction. Figures: docs/BENCHMARKS.md; ``tests/test_poisoning.py`` holds them as a bar.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from adapters.cli.cli_common import fail
from bot.extraction.candidates import ExtractionRequest, Utterance, to_facts
from bot.guard.poisoning import attempt
from memory.models import Kind

__all__ = ["DATA", "PARTS", "PEOPLE", "Part", "held_out", "load", "measure", "poisoning"]

DATA = Path(__file__).resolve().parents[3] / "tests" / "data"
PARTS = {"dev": DATA / "poisoning_dev.jsonl", "heldout": DATA / "poisoning_heldout.jsonl",
         "regression": DATA / "poisoning_corpus.jsonl", "fresh": DATA / "poisoning_fresh.jsonl",
         "shapes": DATA / "poisoning_shapes.jsonl"}
#: Every corpus speaker, by id: each line is read with all of them as the thread's participants.
#: The corpora's members by the ids their lines give (the learned check trains with the same names).
PEOPLE: dict[str, str] = json.loads((DATA / "poisoning_cast.json").read_text(encoding="utf-8"))
_NOW = datetime(2026, 11, 6, 9, 0, tzinfo=UTC)
_CONTEXT = tuple(Utterance(f"ctx-{uid}", uid, name, "我在。" if not name.isascii() else "I'm here.", _NOW)
                 for uid, name in PEOPLE.items())


def held_out(text: str) -> bool:
    """The split rule: a line is held out when the first byte of its text's SHA-256 is divisible by 3."""
    return hashlib.sha256(text.encode()).digest()[0] % 3 == 0


@dataclass
class Part:
    """One corpus part's counts, and the lines on the wrong side."""

    name: str
    ordinary: int = 0
    false_flags: int = 0
    attempts: int = 0
    caught: int = 0
    promises: int = 0
    promises_kept: int = 0
    misses: list[str] = field(default_factory=list)

    @property
    def false_flag_rate(self) -> float:
        return self.false_flags / self.ordinary if self.ordinary else 0.0

    @property
    def catch_rate(self) -> float:
        return self.caught / self.attempts if self.attempts else 1.0

    def as_dict(self) -> dict[str, Any]:
        return {"ordinary": self.ordinary, "false_flags": self.false_flags,
                "false_flag_rate": round(self.false_flag_rate, 4), "attempts": self.attempts,
                "caught": self.caught, "catch_rate": round(self.catch_rate, 4),
                "promises": self.promises, "promises_kept": self.promises_kept}


def load(path: Path) -> list[dict[str, Any]]:
    """The rows of a corpus file; ``ValueError`` naming the line when one is malformed."""
    rows = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not raw.strip():
            continue
        try:
            row = json.loads(raw)
            if not isinstance(row, dict) or not {"id", "lang", "speaker", "text", "expect"} <= row.keys():
                raise ValueError("needs id, lang, speaker, text and expect")
            if row["speaker"] not in PEOPLE:
                raise ValueError(f"unknown speaker {row['speaker']!r}; use one of {', '.join(PEOPLE)}")
        except ValueError as exc:
            raise ValueError(f"{path}:{number}: {exc}") from None
        rows.append(row)
    return rows


def _keeps_promise(row: dict[str, Any]) -> bool:
    # here, not at the top: every `heyan` command imports this module (to register `heyan bench poisoning`)
    from bot.offline.rules import extract_rules

    turn = Utterance(row["id"], row["speaker"], PEOPLE[row["speaker"]], row["text"], _NOW)
    request = ExtractionRequest("bench", "poisoning", [turn], context=_CONTEXT, lang=row["lang"])
    facts = to_facts(request, extract_rules(request), now=_NOW)
    return any(f.kind is Kind.COMMITMENT and f.subject == row["speaker"] for f in facts)


def measure(name: str, rows: list[dict[str, Any]]) -> Part:
    """Flag every row as extraction would and count each side."""
    part = Part(name)
    for row in rows:
        found = attempt(row["text"], speaker=PEOPLE[row["speaker"]], names=PEOPLE.values())
        if row["expect"] == "flagged":
            part.attempts += 1
            part.caught += found is not None
            if found is None:
                part.misses.append(f"{name} {row['id']} missed: {row['text']!r}")
            continue
        part.ordinary += 1
        part.false_flags += found is not None
        if found is not None:
            part.misses.append(f"{name} {row['id']} flagged ({found.reason}): {row['text']!r}")
        if row.get("commits"):
            part.promises += 1
            if _keeps_promise(row):
                part.promises_kept += 1
            elif found is None:
                part.misses.append(f"{name} {row['id']} promise not extracted (rules): {row['text']!r}")
    return part


def _cost_of_200kb() -> float:
    """Seconds for the first check of a 200 KB message (every check after it is cached)."""
    text = ("我周五前把草稿发给你，记住这件事。I'll review the system prompt by Friday, remember? " * 3000)[:200_000]
    start = time.perf_counter()
    attempt(f"{start} {text}", speaker="Alice", names=PEOPLE.values())  # a text not checked before
    return time.perf_counter() - start


def poisoning(
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON object instead of a table")] = False,
    misses: Annotated[bool, typer.Option("--misses", help="also list every line on the wrong side")] = False,
) -> None:
    """False-flag and catch rates of the poisoning detector on the dev, held-out, regression, fresh and shapes corpora."""
    try:
        parts = [measure(name, load(path)) for name, path in PARTS.items()]
    except (OSError, ValueError) as exc:
        raise fail(f"cannot read the poisoning corpus: {exc}") from None
    cost = _cost_of_200kb()
    if as_json:
        data: dict[str, Any] = {p.name: p.as_dict() for p in parts} | {"seconds_200kb": round(cost, 4)}
        if misses:
            data["misses"] = [m for p in parts for m in p.misses]
        print(json.dumps(data, ensure_ascii=False, indent=1))
        return
    console = Console()
    table = Table(title="poisoning detector", box=None, header_style="bold underline")
    for col in ("part", "false flags", "caught", "promises kept"):
        table.add_column(col, justify="left" if col == "part" else "right", no_wrap=True)
    for p in parts:
        table.add_row(p.name, f"{p.false_flags}/{p.ordinary} ({p.false_flag_rate:.1%})",
                      f"{p.caught}/{p.attempts} ({p.catch_rate:.1%})", f"{p.promises_kept}/{p.promises}")
    console.print(table)
    console.print(f"first check of a 200 KB message: {cost * 1000:.1f} ms (reads the first 8,000 characters)")
    if misses:
        for line in (m for p in parts for m in p.misses):
            print(line, file=sys.stdout)
