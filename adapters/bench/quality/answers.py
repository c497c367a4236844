"""``heyan bench answers``: do the offline mediator's answers name what was asked for, and only that?

Each line of ``tests/data/offline_qa.jsonl`` holds a question, its asker, the facts held (each with a
``marker``) and the expected answer (``expect``, ``no_record``, ``more``); it goes through
``OfflineProvider.reply``. Scored: precision and recall of facts named, no-record accuracy, the "and N
more" count, the asker's language, and "you" only for a promise's recipient. Targets:
``tests/test_extraction_bench.py``.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from adapters.cli.cli_common import fail, one_of
from bot.text.lang import detect_lang
from memory.models import Confidence, Fact, FactStatus, Kind, Source

if TYPE_CHECKING:  # the rest is imported where used: every `heyan` command imports this module
    from bot.llm.base import ReplyRequest

__all__ = ["DEFAULT_QA", "QaReport", "answers", "load_qa", "score_qa"]

DEFAULT_QA = Path(__file__).resolve().parents[3] / "tests" / "data" / "offline_qa.jsonl"
_QUOTED = re.compile(r"“[^”]*”")
_ATTRIBUTE = {
    ("commitment", "en"): "promise", ("commitment", "zh"): "承诺",
    ("demand", "en"): "wants", ("demand", "zh"): "要求",
    ("agreement", "en"): "agrees to", ("agreement", "zh"): "同意",
    ("refusal", "en"): "refuses", ("refusal", "zh"): "拒绝",
    ("emotion", "en"): "feels", ("emotion", "zh"): "感受",
}  # fmt: skip
_KIND = {"commitment": Kind.COMMITMENT, "demand": Kind.DEMAND, "agreement": Kind.CONSENSUS,
         "refusal": Kind.CONSENSUS, "emotion": Kind.EMOTION, "claim": Kind.EVENT}


@dataclass(frozen=True, slots=True)
class QaCase:
    id: str
    question: str
    asker: str
    request: ReplyRequest
    markers: dict[str, tuple[str, ...]]
    expect: frozenset[str]
    no_record: bool
    more: int | None
    lang: str
    split: str = "dev"
    #: words the answer must hold, and words it must not hold outside quotes ("send you" told to a
    #: third party): whose "you" it is, and who is named
    must: tuple[str, ...] = ()
    must_not: tuple[str, ...] = ()


@dataclass
class QaReport:
    cases: int = 0
    tp: int = 0
    fp: int = 0
    fn: int = 0
    no_record_ok: int = 0
    no_record_cases: int = 0
    more_ok: int = 0
    more_cases: int = 0
    lang_ok: int = 0
    wording_ok: int = 0
    wording_cases: int = 0
    misses: list[str] = field(default_factory=list)

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    def as_dict(self) -> dict[str, Any]:
        def share(ok: int, n: int) -> float:
            return round(ok / n, 3) if n else 1.0

        return {"cases": self.cases, "precision": round(self.precision, 3), "recall": round(self.recall, 3),
                "no_record_accuracy": share(self.no_record_ok, self.no_record_cases),
                "no_record_cases": self.no_record_cases, "more_accuracy": share(self.more_ok, self.more_cases),
                "more_cases": self.more_cases, "language_accuracy": share(self.lang_ok, self.cases),
                "perspective_accuracy": share(self.wording_ok, self.wording_cases),
                "perspective_cases": self.wording_cases}


def _fact(case_id: str, i: int, data: dict[str, Any], people: dict[str, str], lang: str) -> Fact:
    kind = data["kind"]
    subject = data["subject"]
    said = datetime.fromisoformat(data["said"])
    author = data.get("by", subject)
    name = data.get("name", people.get(author, author))
    attribute = "claims" if kind == "claim" else _ATTRIBUTE[(kind, data.get("lang", lang))]
    source = Source(message_id=f"{case_id}-m{i}", author_id=author, author_name=name, ts=said,
                    quote=data.get("quote", data["value"]))
    status = FactStatus(data.get("status", "unverified" if kind == "claim" else "active"))
    return Fact(
        id=f"{case_id}-{data['ref']}", tenant="bench", session="qa", kind=_KIND[kind], subject=subject,
        subject_name=name, attribute=attribute, value=data["value"], sources=(source,), asserted_by=author,
        confidence=Confidence.HIGH, status=status, valid_from=said,
        due_at=datetime.fromisoformat(data["due"]) if data.get("due") else None,
        users=tuple(dict.fromkeys((subject, author))), lang=data.get("lang", lang),
        recipient=data.get("recipient", ""), recipient_name=people.get(data.get("recipient", ""), ""),
    )


def _case(data: dict[str, Any]) -> QaCase:
    from bot.extraction.candidates import Utterance
    from bot.llm.base import ReplyRequest
    from bot.models import Stage

    people: dict[str, str] = data["people"]
    lang = data["thread_lang"]
    facts = [_fact(data["id"], i, f, people, lang) for i, f in enumerate(data["facts"])]
    opened = {f"{data['id']}-{ref}" for ref in data.get("open", ())}
    now = datetime.fromisoformat(data["now"])
    turn = Utterance(f"{data['id']}-q", data["asker"], people[data["asker"]], data["question"], now)
    request = ReplyRequest(
        lang=lang, stage=Stage(data.get("stage", "gathering")), turn=turn,
        facts=[f for f in facts if f.id not in opened], open_commitments=[f for f in facts if f.id in opened],
        participants=dict(people), timezone=data.get("tz", "UTC"),
        open_commitments_total=data.get("open_total"),
    )
    markers = {f"{data['id']}-{f['ref']}": tuple([f["marker"]] if isinstance(f["marker"], str) else f["marker"])
               for f in data["facts"]}
    expect = frozenset(f"{data['id']}-{ref}" for ref in data.get("expect", ()))
    return QaCase(data["id"], data["question"], data["asker"], request, markers, expect,
                  bool(data.get("no_record")), data.get("more"), detect_lang(data["question"]),
                  data.get("split", "dev"), tuple(data.get("must", ())), tuple(data.get("must_not", ())))


def load_qa(path: Path) -> list[QaCase]:
    """Every case of a QA file; a malformed line stops with ``FILE:LINE: reason``."""
    cases = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if raw.strip():
            try:
                cases.append(_case(json.loads(raw)))
            except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
                raise ValueError(f"{path}:{number}: {type(exc).__name__}: {exc}") from None
    return cases


def _reply_lang(text: str, default: str) -> str:
    return detect_lang(_QUOTED.sub(" ", text), default=default)  # type: ignore[arg-type]


async def _replies(cases: list[QaCase]) -> list[str]:
    # here, not at the top: every `heyan` command imports this module (to register `heyan bench answers`)
    from bot.offline.provider import OfflineProvider

    provider = OfflineProvider()
    return [await provider.reply(case.request) for case in cases]


def score_qa(cases: list[QaCase]) -> QaReport:
    from bot.offline.answers import NO_RECORD, NO_RECORD_LEADS

    report = QaReport(cases=len(cases))
    for case, reply in zip(cases, asyncio.run(_replies(cases)), strict=True):
        named = {ref for ref, markers in case.markers.items() if any(m in reply for m in markers)}
        tp, fp, fn = len(named & case.expect), len(named - case.expect), len(case.expect - named)
        report.tp, report.fp, report.fn = report.tp + tp, report.fp + fp, report.fn + fn
        wrong = fp or fn
        if case.no_record:
            report.no_record_cases += 1
            ok = any(phrase in reply for phrase in NO_RECORD.values()) or reply.startswith(NO_RECORD_LEADS)
            report.no_record_ok += ok
            wrong = wrong or not ok
        if case.more is not None:
            report.more_cases += 1
            ok = f"and {case.more} more" in reply or f"还有{case.more}条" in reply
            report.more_ok += ok
            wrong = wrong or not ok
        if case.must or case.must_not:
            report.wording_cases += 1
            outside = _QUOTED.sub(" ", reply)  # a direct quote keeps the speaker's own "you"
            ok = all(w in reply for w in case.must) and not any(w in outside for w in case.must_not)
            report.wording_ok += ok
            wrong = wrong or not ok
        lang_ok = _reply_lang(reply, case.lang) == case.lang
        report.lang_ok += lang_ok
        if wrong or not lang_ok:
            report.misses.append(f"{case.id}: {case.question!r} named {sorted(named)} expected {sorted(case.expect)}"
                                 f" → {reply!r}")
    return report


def answers(
    qa: Annotated[Path, typer.Option("--qa", help="QA JSONL file (default: the repository's tests/data/offline_qa.jsonl)",
                                     metavar="FILE", show_default=False)] = DEFAULT_QA,
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON object instead of a table")] = False,
    misses: Annotated[bool, typer.Option("--misses", help="also list every case answered wrongly")] = False,
    split: Annotated[str, typer.Option("--split", help="all, dev or heldout questions", metavar="SPLIT")] = "all",
) -> None:
    """Item precision and recall, no-record accuracy and reply language of the offline answers."""
    if not qa.is_file():
        raise fail(f"no QA set at {qa}; pass --qa FILE")
    try:
        cases = load_qa(qa)
    except ValueError as exc:
        print(exc, file=sys.stderr)
        raise typer.Exit(2) from None
    one_of("split", split, ("all", "dev", "heldout"))
    report = score_qa([c for c in cases if split in ("all", c.split)])
    if as_json:
        data = report.as_dict() | {"qa": str(qa), "split": split}
        if misses:
            data["misses"] = report.misses
        print(json.dumps(data, ensure_ascii=False, indent=1))
        return
    console = Console()
    table = Table(title=f"offline answers on {qa.name}, {split} ({report.cases} questions)")
    table.add_column("measure", no_wrap=True)
    table.add_column("value", justify="right", no_wrap=True)
    for key, value in report.as_dict().items():
        if key != "cases":
            table.add_row(key, str(value))
    console.print(table)
    if misses:
        for line in report.misses:
            console.print(line, markup=False, highlight=False)
