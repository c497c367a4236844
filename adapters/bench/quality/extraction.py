"""``heyan bench extraction``: how well the offline extraction (rules read again with the dialogue acts,
as ``OfflineProvider.extract`` does, then ``bot.extraction.candidates.to_facts``) finds the facts of a labelled
corpus, per kind; then the trigger per part of tests/data/trigger_corpus.jsonl. The corpus format is
described at ``load_corpus``; ``make test`` holds the targets (tests/test_extraction_bench.py)."""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from adapters.bench.quality.trigger import (
    DEFAULT_TRIGGER_CORPUS,
    TriggerLine,
    TriggerReport,
    load_trigger_corpus,
    score_trigger,
)
from adapters.cli.cli_common import fail, one_of
from bot.extraction.candidates import ExtractionRequest, Utterance, to_facts
from bot.text.zones import offset_name
from memory.errors import HeyanError
from memory.models import Fact, FactStatus, Kind

__all__ = ["DEFAULT_CORPUS", "KINDS", "CorpusError", "CorpusRow", "Report", "extraction", "load_corpus", "score",
           "score_corpus_trigger"]

KINDS = ("commitment", "demand", "agreement", "refusal", "emotion", "claim", "flagged")
DEFAULT_CORPUS = Path(__file__).resolve().parents[3] / "tests" / "data" / "extraction_corpus.jsonl"
_REFUSES = frozenset({"refuses", "拒绝"})
#: Gold kinds that make a line one the trigger should send to extraction at once (``bot.extraction.triggers``).
_URGENT = frozenset({"commitment", "demand", "agreement", "refusal"})


class CorpusError(HeyanError, ValueError):
    """Malformed corpus lines; ``problems`` holds one ``FILE:LINE: reason`` each."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass(frozen=True, slots=True)
class Gold:
    kind: str
    due: tuple[datetime, datetime] | None = None
    #: the promised action as a card shows it (commitments), when labelled
    action: str | None = None
    #: the context message an agreement or refusal answers, when labelled
    answers: int | None = None


@dataclass(frozen=True, slots=True)
class CorpusRow:
    id: str
    lang: str
    speaker: tuple[str, str]  # user id, name
    text: str
    ts: datetime
    gold: tuple[Gold, ...]
    context: tuple[tuple[str, str, str], ...] = ()  # user id, name, text
    #: "dev" lines were written first and the rules tuned on them; "heldout" lines were written
    #: afterwards and first measured untouched (docs/BENCHMARKS.md has both numbers).
    split: str = "dev"
    #: the context messages whose promise this line reports kept; None when not labelled
    closes: tuple[int, ...] | None = None


@dataclass
class Report:
    """Counts per kind, due-time checks, owners, and every miss for reading."""

    tp: Counter[str] = field(default_factory=Counter)
    fp: Counter[str] = field(default_factory=Counter)
    fn: Counter[str] = field(default_factory=Counter)
    due_ok: int = 0
    due_checked: int = 0
    non_speaker_commitments: int = 0
    rows: int = 0
    misses: list[str] = field(default_factory=list)
    #: promises closed as labelled / closed wrongly / left open although reported kept
    done_tp: int = 0
    done_fp: int = 0
    done_fn: int = 0
    #: lines whose report the owner would be asked about (unsure match): kept / must-not-close lines
    done_asked: int = 0
    done_asked_wrongly: int = 0
    done_lines: int = 0
    action_ok: int = 0
    action_checked: int = 0
    answers_ok: int = 0
    answers_checked: int = 0

    @property
    def done_precision(self) -> float:
        return self.done_tp / (self.done_tp + self.done_fp) if self.done_tp + self.done_fp else 1.0

    @property
    def done_recall(self) -> float:
        return self.done_tp / (self.done_tp + self.done_fn) if self.done_tp + self.done_fn else 1.0

    def precision(self, kind: str) -> float:
        found = self.tp[kind] + self.fp[kind]
        return self.tp[kind] / found if found else 1.0

    def recall(self, kind: str) -> float:
        gold = self.tp[kind] + self.fn[kind]
        return self.tp[kind] / gold if gold else 1.0

    @property
    def due_accuracy(self) -> float:
        return self.due_ok / self.due_checked if self.due_checked else 1.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "lines": self.rows,
            "kinds": {
                k: {"gold": self.tp[k] + self.fn[k], "found": self.tp[k] + self.fp[k],
                    "precision": round(self.precision(k), 3), "recall": round(self.recall(k), 3)}
                for k in KINDS
            },
            "due_accuracy": round(self.due_accuracy, 3),
            "due_checked": self.due_checked,
            "non_speaker_commitments": self.non_speaker_commitments,
            "completion": {"lines": self.done_lines, "closed_right": self.done_tp, "closed_wrongly": self.done_fp,
                           "left_open": self.done_fn, "asked": self.done_asked,
                           "asked_wrongly": self.done_asked_wrongly,
                           "precision": round(self.done_precision, 3), "recall": round(self.done_recall, 3)},
            "action": {"checked": self.action_checked, "right": self.action_ok},
            "answers_cite_proposer": {"checked": self.answers_checked, "right": self.answers_ok},
        }


# Each line of the corpus (``tests/data/extraction_corpus.jsonl`` by default) is one message with its
# speaker, its time (the offset of ``ts`` is the speaker's clock), optional earlier messages
# (``context``, for what "OK, deal" answers) and the gold facts: kind (commitment, demand, agreement,
# refusal, emotion, claim), owner (always ``speaker``: nobody else can be bound by what a speaker
# says) and, for a commitment, the due window (``{"from", "to"}``, inclusive) or null for none.
#
# The message goes through the production path — ``bot.offline.rules.extract_rules``, read again with
# the dialogue acts (``bot.offline.acts``, as ``OfflineProvider.extract`` does), and then
# ``bot.extraction.candidates.to_facts`` — and the facts are compared with the gold per message and kind
# (counts: a message with two gold commitments needs two). Reported: precision and recall per kind,
# due-time accuracy (of the commitments found, the share whose due time is in the gold window, or
# absent when the gold has none) and how many commitments are owned by someone other than the
# speaker (the target is 0); then the trigger's recall and precision per part of
# ``tests/data/trigger_corpus.jsonl`` (``adapters.bench.quality.trigger``). ``make test`` holds the targets
# (``tests/test_extraction_bench.py``).
#
# Optional labels, scored only on the lines that carry them (``tests/data/everyday_truth_*.jsonl``):
#
# * ``"action"`` on a gold commitment: the promised action as the agreement card shows it
#   (``promised_action`` of the stored value: "水管我来修" → "修水管");
# * ``"with"`` on a gold agreement or refusal: the index of the context message it answers; the record
#   must cite that message (the proposer) as well as the speaker;
# * ``"closes"`` on a line: the indexes of the context messages whose promise this line reports kept
#   (``[]``: it must close nothing). The context messages are extracted one by one (each after the
#   ones before it), their commitments and the line's own are the open promises, and the line goes
#   through ``done_reports`` and ``bot.extraction.completions.match`` as the extraction job does: a sure match
#   closes a promise, an unsure one asks its owner (counted apart: not closed, not wrong).
def load_corpus(path: Path) -> list[CorpusRow]:
    """Every row of a corpus file, or CorpusError naming each bad line."""
    rows: list[CorpusRow] = []
    problems: list[str] = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not raw.strip():
            continue
        try:
            rows.append(_row(json.loads(raw)))
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            problems.append(f"{path}:{number}: {type(exc).__name__}: {exc}")
    if problems:
        raise CorpusError(problems)
    return rows


def _row(data: dict[str, Any]) -> CorpusRow:
    gold = []
    for item in data["gold"]:
        if item["kind"] not in KINDS:
            raise ValueError(f"unknown kind {item['kind']!r}; use one of {', '.join(KINDS)}")
        if item.get("owner", "speaker") != "speaker":
            raise ValueError("a gold fact's owner is the speaker (claims about others are the speaker's claims)")
        window = item.get("due")
        due = (datetime.fromisoformat(window["from"]), datetime.fromisoformat(window["to"])) if window else None
        answers = item.get("with")
        if answers is not None and not 0 <= int(answers) < len(data.get("context", ())):
            raise ValueError(f"'with': {answers} names no context message")
        gold.append(Gold(item["kind"], due, item.get("action"), None if answers is None else int(answers)))
    context = tuple((c["id"], c["name"], c["text"]) for c in data.get("context", ()))
    ts = datetime.fromisoformat(data["ts"])
    if ts.tzinfo is None:
        raise ValueError("ts needs a UTC offset")
    speaker = (data["speaker"]["id"], data["speaker"]["name"])
    closes = data.get("closes")
    if closes is not None and not all(isinstance(i, int) and 0 <= i < len(context) for i in closes):
        raise ValueError(f"'closes': {closes} names no context message")
    return CorpusRow(data["id"], data["lang"], speaker, data["text"], ts, tuple(gold), context,
                     data.get("split", "dev"), None if closes is None else tuple(closes))


def label(fact: Fact) -> str | None:
    """The corpus kind of an extracted fact (None for kinds the corpus does not score)."""
    if fact.status is FactStatus.FLAGGED:
        return "flagged"  # an instruction to the bot or an impersonation (bot.guard.poisoning)
    if fact.kind is Kind.CONSENSUS:
        return "refusal" if fact.attribute in _REFUSES else "agreement"
    if fact.kind is Kind.EVENT:
        return "claim" if fact.attribute == "claims" else None
    return fact.kind.value if fact.kind.value in KINDS else None


def _earlier(row: CorpusRow) -> list[Utterance]:
    return [Utterance(f"{row.id}-c{i}", uid, name, text, row.ts - timedelta(minutes=len(row.context) - i))
            for i, (uid, name, text) in enumerate(row.context)]


def _extract(turn: Utterance, earlier: list[Utterance], lang: str) -> list[Fact]:
    # here, not at the top: every `heyan` command imports this module (to register `heyan bench extraction`)
    from bot.acts.reader import default_reader, thread_scores
    from bot.offline.acts import derive
    from bot.offline.rules import extract_rules

    request = ExtractionRequest("bench", "corpus", [turn], earlier, lang, "UTC")  # type: ignore[arg-type]
    found = extract_rules(request)
    reader = default_reader()
    if reader is not None:  # read again with the dialogue acts, as OfflineProvider.extract does
        scores = thread_scores(reader, [*earlier, turn])
        found = derive(request, [a for a, _ in scores], found, [p for _, p in scores])
    return to_facts(request, found, now=turn.ts)


def extract(row: CorpusRow) -> list[Fact]:
    """The facts production would store for this row's message."""
    turn = Utterance(row.id, row.speaker[0], row.speaker[1], row.text, row.ts, offset_name(row.ts))
    return _extract(turn, _earlier(row), row.lang)


def _closed(row: CorpusRow, facts: list[Fact]) -> tuple[set[str], bool]:
    """(the message ids whose promise the row's message closes, whether its owner would be asked)."""
    from bot.extraction.completions import match
    from bot.offline.done import done_reports

    earlier = _earlier(row)
    open_ = [f for i, said in enumerate(earlier) for f in _extract(said, earlier[:i], row.lang)
             if f.kind is Kind.COMMITMENT and f.status is not FactStatus.FLAGGED]
    open_ += [f for f in facts if f.kind is Kind.COMMITMENT and f.status is not FactStatus.FLAGGED]
    turn = Utterance(row.id, row.speaker[0], row.speaker[1], row.text, row.ts, offset_name(row.ts))
    closed: set[str] = set()
    asked = False
    for report in done_reports([turn], [row.speaker[1], *(name for _, name, _ in row.context)]):
        sure, unsure = match(report, open_, "corpus")
        if sure is not None:
            closed.add(sure.sources[0].message_id if sure.sources else sure.id)
        asked = asked or bool(unsure)
    return closed, asked


def _same_action(a: str, b: str) -> bool:
    return re.sub(r"[\W_]+", "", a.casefold()) == re.sub(r"[\W_]+", "", b.casefold())


def score(rows: list[CorpusRow]) -> Report:
    """Compare the extraction of every row with its gold facts."""
    report = Report(rows=len(rows))
    for row in rows:
        facts = extract(row)
        found = Counter(k for f in facts if (k := label(f)))
        gold = Counter(g.kind for g in row.gold)
        for kind in KINDS:
            hit = min(found[kind], gold[kind])
            report.tp[kind] += hit
            report.fp[kind] += found[kind] - hit
            report.fn[kind] += gold[kind] - hit
            if found[kind] != gold[kind]:
                report.misses.append(f"{row.id} {kind}: found {found[kind]}, gold {gold[kind]} — {row.text}")
        commitments = [f for f in facts if f.kind is Kind.COMMITMENT]
        report.non_speaker_commitments += sum(1 for f in commitments if f.subject != row.speaker[0])
        wanted = [g for g in row.gold if g.kind == "commitment"]
        for g, f in zip(wanted, commitments, strict=False):
            report.due_checked += 1
            ok = f.due_at is None if g.due is None else f.due_at is not None and g.due[0] <= f.due_at <= g.due[1]
            report.due_ok += ok
            if not ok:
                report.misses.append(f"{row.id} due: found {f.due_at}, gold {g.due} — {row.text}")
        _score_labels(row, facts, commitments, report)
    return report


def _score_labels(row: CorpusRow, facts: list[Fact], commitments: list[Fact], report: Report) -> None:
    """The optional labels: the promised action, the proposal an answer cites, the promises closed."""
    from bot.offline.actions import promised_action

    for g in (g for g in row.gold if g.kind == "commitment" and g.action is not None):
        report.action_checked += 1
        actions = [promised_action(f.value) for f in commitments]
        if any(_same_action(a, g.action or "") for a in actions):
            report.action_ok += 1
        else:
            report.misses.append(f"{row.id} action: found {actions}, gold {g.action!r} — {row.text}")
    for g in (g for g in row.gold if g.answers is not None):
        report.answers_checked += 1
        cited = [f for f in facts if label(f) == g.kind
                 and any(s.message_id == f"{row.id}-c{g.answers}" for s in f.sources)]
        if cited:
            report.answers_ok += 1
        else:
            report.misses.append(f"{row.id} {g.kind} answering context {g.answers}: not recorded with its proposer "
                                 f"— {row.text}")
    if row.closes is None:
        return
    report.done_lines += 1
    wanted = {f"{row.id}-c{i}" for i in row.closes}
    closed, asked = _closed(row, facts)
    report.done_tp += len(closed & wanted)
    report.done_fp += len(closed - wanted)
    report.done_fn += len(wanted - closed)
    if asked and not closed:
        if wanted:
            report.done_asked += 1
        else:
            report.done_asked_wrongly += 1
    if closed != wanted or (asked and not wanted):
        report.misses.append(f"{row.id} closes: {sorted(closed)}{' (asked)' if asked else ''}, gold {sorted(wanted)} "
                             f"— {row.text}")


def score_corpus_trigger(rows: list[CorpusRow]) -> TriggerReport:
    """The trigger on the corpus's own lines: fact-bearing when the gold holds an urgent kind."""
    lines = [TriggerLine(r.id, r.lang, r.split, r.text, any(g.kind in _URGENT for g in r.gold)) for r in rows]
    return score_trigger(lines)["all"]


def extraction(
    corpus: Annotated[Path, typer.Option("--corpus", help="labelled JSONL corpus (default: the repository's "
                                         "tests/data/extraction_corpus.jsonl)", metavar="FILE",
                                         show_default=False)] = DEFAULT_CORPUS,
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON object instead of a table")] = False,
    misses: Annotated[bool, typer.Option("--misses", help="also list every line that was not extracted as labelled")]
    = False,
    split: Annotated[str, typer.Option("--split", help="all lines of the corpus, or one part of it (dev, heldout, "
                                       "... as its lines name)", metavar="SPLIT")] = "all",
    trigger_corpus: Annotated[Path, typer.Option("--trigger-corpus", help="labelled trigger lines (default: the "
                                                 "repository's tests/data/trigger_corpus.jsonl)", metavar="FILE",
                                                 show_default=False)] = DEFAULT_TRIGGER_CORPUS,
) -> None:
    """Precision and recall per kind, due-time accuracy and commitment owners of the offline rules; the
    trigger's recall and precision per part of its corpus."""
    if not corpus.is_file():
        raise fail(f"no corpus at {corpus}; pass --corpus FILE")
    if not trigger_corpus.is_file():
        raise fail(f"no trigger corpus at {trigger_corpus}; pass --trigger-corpus FILE")
    try:
        rows = load_corpus(corpus)
        lines = load_trigger_corpus(trigger_corpus)
    except CorpusError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        raise typer.Exit(2) from None
    except ValueError as exc:
        print(exc, file=sys.stderr)
        raise typer.Exit(2) from None
    one_of("split", split, ("all", *sorted({r.split for r in rows})))
    chosen = [r for r in rows if split in ("all", r.split)]
    report = score(chosen)
    own = score_corpus_trigger(chosen)
    triggers = score_trigger(lines)
    if as_json:
        data = report.as_dict() | {"corpus": str(corpus), "split": split, "corpus_trigger": own.as_dict(),
                                   "trigger": {part: r.as_dict() for part, r in triggers.items()}}
        if misses:
            data["misses"] = report.misses + own.misses + triggers["all"].misses
        print(json.dumps(data, ensure_ascii=False, indent=1))
        return
    console = Console()
    table = Table(title=f"extraction on {corpus.name}, {split} ({report.rows} lines)")
    for col in ("kind", "gold", "found", "precision", "recall"):
        table.add_column(col, justify="left" if col == "kind" else "right", no_wrap=True)
    for kind in KINDS:
        table.add_row(kind, str(report.tp[kind] + report.fn[kind]), str(report.tp[kind] + report.fp[kind]),
                      f"{report.precision(kind):.3f}", f"{report.recall(kind):.3f}")
    console.print(table)
    console.print(f"due-time accuracy: {report.due_accuracy:.3f} ({report.due_ok}/{report.due_checked})")
    console.print(f"commitments owned by someone other than the speaker: {report.non_speaker_commitments}")
    if report.done_lines:
        console.print(f"promises closed by reports of them kept ({report.done_lines} lines): precision "
                      f"{report.done_precision:.3f}, recall {report.done_recall:.3f} ({report.done_tp} right, "
                      f"{report.done_fp} wrongly, {report.done_fn} left open; owner asked on {report.done_asked} "
                      f"of those, wrongly on {report.done_asked_wrongly} lines that close nothing)")
    if report.action_checked:
        console.print(f"promised action as labelled: {report.action_ok}/{report.action_checked}")
    if report.answers_checked:
        console.print(f"answers recorded with their proposer: {report.answers_ok}/{report.answers_checked}")
    console.print(f"trigger on these lines: recall {own.recall:.3f}, precision {own.precision:.3f} "
                  f"({own.tp + own.fn} fact-bearing, {own.tp + own.fp} sent, {own.lines} lines)")
    trigger = Table(title=f"trigger (sent to extraction at once) on {trigger_corpus.name}")
    for col in ("part", "lines", "fact-bearing", "sent", "recall", "precision"):
        trigger.add_column(col, justify="left" if col == "part" else "right", no_wrap=True)
    for part, r in triggers.items():
        trigger.add_row(part, str(r.lines), str(r.tp + r.fn), str(r.tp + r.fp), f"{r.recall:.3f}", f"{r.precision:.3f}")
    console.print(trigger)
    if misses:
        for line in report.misses + own.misses + triggers["all"].misses:
            console.print(line, markup=False, highlight=False)
