"""``heyan bench truth``: what Heyan holds and answers on dispute scripts with answer keys.

Each script of ``tests/data/truth_blind/<set>/`` (its README says who wrote them) is replayed as by
``heyan --now <key now> chat --script`` into an empty data dir (the LLM mediator with
``HEYAN_LLM_BASE_URL``) and read back, every script of a run in one process (``adapters.bench.quality.replays``). Scored per language against the key: commitments, agreements,
attacks and ordinary lines flagged, questions answered, answers repeating an attack.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any
from zoneinfo import ZoneInfo

import typer
from rich.console import Console
from rich.table import Table

from adapters.bench.quality.replays import replay_many
from adapters.cli.cli_common import fail

__all__ = ["SETS", "Score", "score", "truth"]

SETS = Path(__file__).resolve().parents[3] / "tests" / "data" / "truth_blind"
_GONE = {"superseded", "rejected", "cancelled", "flagged", "expired"}


@dataclass
class Score:
    """Counts for one script, or summed over several (``+``)."""

    commitments: int = 0
    found: int = 0
    owner: int = 0
    recipient: int = 0
    due: int = 0
    timed: int = 0
    due_time: int = 0
    conditional: int = 0
    condition: int = 0
    status: int = 0
    false_commitments: int = 0
    agreements: int = 0
    agreements_found: int = 0
    content: int = 0
    parties: int = 0
    full: int = 0
    spurious_agreements: int = 0
    attacks: int = 0
    caught: int = 0
    attacks_stored: int = 0
    ordinary: int = 0
    ordinary_flagged: int = 0
    questions: int = 0
    answered: int = 0
    answers_with_claims: int = 0
    misses: list[str] = field(default_factory=list)

    def __add__(self, other: Score) -> Score:
        out = Score()
        for f in fields(Score):
            setattr(out, f.name, getattr(self, f.name) + getattr(other, f.name))
        return out

    def as_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(Score) if f.name != "misses"}


def _has(text: str, words: Iterable[str]) -> bool:
    low = text.casefold()
    return any(w.casefold() in low for w in words)


def _all_parts(text: str, parts: Sequence[Sequence[str]]) -> bool:
    return all(_has(text, alternatives) for alternatives in parts)


def _line(fact: dict[str, Any]) -> set[int]:
    out = set()
    for src in fact.get("sources", []):
        tail = str(src.get("message_id", "")).rsplit(":", 1)[-1]
        if tail.isdigit():
            out.add(int(tail))
    return out


def replay(script: Path, now: str, data_dir: Path) -> tuple[dict[int, str], list[dict[str, Any]]]:
    """Replay ``script`` as of ``now`` with a ``heyan`` process: the replies by script line, and the facts."""
    [(replies, facts)] = replay_many([(script, now, data_dir)])
    return _by_line(script, replies), facts


def _by_line(script: Path, replies: list[str]) -> dict[int, str]:
    lines = script.read_text(encoding="utf-8").splitlines()
    asked = [i for i, x in enumerate(lines, 1) if x.strip() and _mention(json.loads(x))]
    if len(asked) != len(replies):
        raise RuntimeError(f"{script.name}: {len(asked)} lines address Heyan but {len(replies)} replies came back")
    return dict(zip(asked, replies, strict=True))


def _mention(row: dict[str, Any]) -> bool:
    text = str(row.get("text", "")).lstrip().casefold()
    return bool(row.get("mention", text.startswith("@heyan") or text.startswith("@和言")))


def _local(iso: str | None, zone: str) -> datetime | None:
    return datetime.fromisoformat(iso).astimezone(ZoneInfo(zone)) if iso else None


def score(script: Path, key: dict[str, Any], replies: dict[int, str], facts: list[dict[str, Any]]) -> Score:
    """One script's counts against its key (see the key format in tests/data/truth_blind/README.md)."""
    rows = [json.loads(x) for x in script.read_text(encoding="utf-8").splitlines() if x.strip()]
    ids = {r["user_name"]: r["user_id"] for r in rows}
    session = rows[0]["session"]
    facts = [f for f in facts if f.get("session") == session]
    res = Score()
    name = script.name

    live = [f for f in facts if f["kind"] == "commitment" and f["status"] not in _GONE]
    matched: set[str] = set()
    for c in key["commitments"]:
        res.commitments += 1
        cands = [f for f in live if _has(f"{f['attribute']} {f['value']}", c["action"])]
        matched.update(f["id"] for f in cands)
        if not cands:
            res.misses.append(f"{name} {c['id']}: not found")
            continue
        res.found += 1
        mine = [f for f in cands if f["subject"] == ids.get(c["owner"])]
        if not mine:
            res.misses.append(f"{name} {c['id']}: owner {[f['subject_name'] for f in cands]}")
            continue
        res.owner += 1
        best = mine[-1]
        if c["recipient"] is None or best.get("recipient") == ids.get(c["recipient"]) or \
                _has(best.get("recipient_name") or "", [c["recipient"]]):
            res.recipient += 1
        else:
            res.misses.append(f"{name} {c['id']}: recipient {best.get('recipient_name')!r}")
        zone = key["zones"].get(c["owner"], "UTC")
        due = _local(best.get("due_at"), zone)
        # no deadline is written null or [] (the key format says []; sets A–C wrote null)
        date_ok = due is None if not c["due"] else due is not None and due.date().isoformat() in c["due"]
        if date_ok:
            res.due += 1
        else:
            res.misses.append(f"{name} {c['id']}: due {best.get('due_at')} (key {c['due']} {zone})")
        if c.get("due_time"):
            res.timed += 1
            if date_ok and due is not None and due.strftime("%H:%M") == c["due_time"]:
                res.due_time += 1
            else:
                res.misses.append(f"{name} {c['id']}: due time {due:%H:%M} (key {c['due_time']})" if due else
                                  f"{name} {c['id']}: no due time (key {c['due_time']})")
        if c.get("condition"):
            res.conditional += 1
            if _has(f"{best['value']} {best.get('condition') or ''}", c["condition"]):
                res.condition += 1
            else:
                res.misses.append(f"{name} {c['id']}: condition lost: {best['value']!r}")
        done = bool(best.get("done_at")) or best["status"] == "done"
        if done == (c["status"] == "done"):
            res.status += 1
        else:
            res.misses.append(f"{name} {c['id']}: {'done' if done else 'open'} (key {c['status']})")
    false = [f for f in live if f["id"] not in matched]
    res.false_commitments += len(false)
    res.misses += [f"{name} false commitment: {f['subject_name']}: {f['value']!r}" for f in false]

    agreements = [f for f in facts if f["kind"] in ("agreement", "consensus") and f["status"] not in _GONE]
    used: set[str] = set()
    for a in key["agreements"]:
        res.agreements += 1
        touching = [f for f in agreements if any(_has(f["value"], alt) for alt in a["content"])]
        used.update(f["id"] for f in touching)
        if not touching:
            res.misses.append(f"{name} agreement at line {a['line']}: not found")
            continue
        res.agreements_found += 1
        whole = [f for f in touching if _all_parts(f["value"], a["content"])]
        if whole:
            res.content += 1
        else:
            res.misses.append(f"{name} agreement at line {a['line']}: content {[f['value'] for f in touching]}")
        people = {f["subject"] for f in whole} | {s.get("author_id") for f in whole for s in f.get("sources", [])}
        wanted = {ids.get(p, p) for p in a["parties"]}
        if whole and wanted <= people:
            res.parties += 1
            res.full += 1
        elif whole:
            res.misses.append(f"{name} agreement at line {a['line']}: parties missing "
                              f"{sorted(p for p in a['parties'] if ids.get(p, p) not in people)}")
    spurious = {f["value"] for f in agreements if f["id"] not in used}
    res.spurious_agreements += len(spurious)
    res.misses += [f"{name} spurious agreement: {v!r}" for v in sorted(spurious)]

    attack_lines = {a["line"] for a in key["attacks"]}
    flagged = [f for f in facts if f["status"] == "flagged"]
    flagged_lines = set().union(*(_line(f) for f in flagged)) if flagged else set()
    kept_lines = set().union(*(_line(f) for f in facts if f["status"] != "flagged")) if facts else set()
    for a in key["attacks"]:
        res.attacks += 1
        if a["line"] in flagged_lines:
            res.caught += 1
        else:
            res.misses.append(f"{name} attack at line {a['line']} not flagged: {rows[a['line'] - 1]['text']!r}")
        if a["line"] in kept_lines:
            res.attacks_stored += 1
            res.misses.append(f"{name} attack at line {a['line']} stored as a record")
    questions = {q["line"] for q in key["questions"]}
    for n, row in enumerate(rows, 1):
        if n in attack_lines or n in questions or _mention(row):
            continue
        res.ordinary += 1
        if n in flagged_lines:
            res.ordinary_flagged += 1
            res.misses.append(f"{name} ordinary line {n} flagged: {row['text']!r}")

    # a claim is a list of words, or one string (one claim, not its characters)
    claims = [w for a in key["attacks"] for w in ([a["claim"]] if isinstance(a["claim"], str) else a["claim"])]
    for q in key["questions"]:
        res.questions += 1
        reply = replies.get(q["line"], "")
        if _all_parts(reply, q["must"]) and not _has(reply, q.get("must_not", [])):
            res.answered += 1
        else:
            res.misses.append(f"{name} question at line {q['line']} ({rows[q['line'] - 1]['text']!r}): {reply!r}")
    res.answers_with_claims += sum(1 for reply in replies.values() if claims and _has(reply, claims))
    return res


def _lang(script: Path) -> str:
    return "zh" if script.name.startswith("zh") else "en"


def measure(set_dirs: Sequence[Path]) -> dict[str, Score]:
    """Every script of the sets, replayed and scored: per language and ``all``."""
    out: dict[str, Score] = {}
    scripts = []
    for folder in set_dirs:
        keys = json.loads((folder / "key.json").read_text(encoding="utf-8"))["scripts"]
        scripts += [(folder / name, key) for name, key in sorted(keys.items())]
    with tempfile.TemporaryDirectory(prefix="heyan-truth-") as tmp:
        done = replay_many([(script, key["now"], Path(tmp) / str(i)) for i, (script, key) in enumerate(scripts)])
    for (script, key), (replies, facts) in zip(scripts, done, strict=True):
        res = score(script, key, _by_line(script, replies), facts)
        out[_lang(script)] = out.get(_lang(script), Score()) + res
    out["all"] = sum((s for k, s in out.items()), Score())
    return out


def _pct(n: int, d: int) -> str:
    return f"{n}/{d} ({n / d:.0%})" if d else "—"


_ROWS: tuple[tuple[str, str, str], ...] = (
    ("commitments found", "found", "commitments"), ("right owner", "owner", "commitments"),
    ("right recipient", "recipient", "commitments"), ("right due date", "due", "commitments"),
    ("right due time", "due_time", "timed"), ("condition kept", "condition", "conditional"),
    ("right open/done", "status", "commitments"), ("agreements found", "agreements_found", "agreements"),
    ("agreements with full content", "content", "agreements"),
    ("agreements with content and every party", "full", "agreements"),
    ("attacks flagged", "caught", "attacks"), ("attacks stored as records", "attacks_stored", "attacks"),
    ("ordinary lines flagged", "ordinary_flagged", "ordinary"), ("questions answered right", "answered", "questions"),
)


def truth(
    sets: Annotated[list[str] | None, typer.Argument(help="sets under tests/data/truth_blind (default: set_a), "
                                                          "or folders holding key.json")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON instead of a table")] = False,
    misses: Annotated[bool, typer.Option("--misses", help="list every item Heyan got wrong")] = False,
) -> None:
    """Commitments, agreements, attacks and answers on dispute scripts with answer keys, per language."""
    folders = []
    for s in sets or ["set_a"]:
        folder = Path(s) if Path(s).is_dir() else SETS / s
        if not (folder / "key.json").is_file():
            known = ", ".join(sorted(p.name for p in SETS.iterdir() if (p / "key.json").is_file()))
            raise fail(f"no answer key at {folder / 'key.json'}; known sets: {known}")
        folders.append(folder)
    try:
        result = measure(folders)
    except RuntimeError as exc:
        raise fail(str(exc)) from None
    if as_json:
        print(json.dumps({k: v.as_dict() for k, v in result.items()}, ensure_ascii=False, indent=1))
    else:
        console = Console()
        table = Table(title=f"truth on {', '.join(f.name for f in folders)}"
                            f" ({'LLM mediator' if os.environ.get('HEYAN_LLM_BASE_URL') else 'offline rules'})")
        langs = [k for k in ("en", "zh", "all") if k in result]
        table.add_column("")
        for lang in langs:
            table.add_column(lang, justify="right")
        for label, num, den in _ROWS:
            table.add_row(label, *(_pct(getattr(result[k], num), getattr(result[k], den)) for k in langs))
        for label, attr in (("false commitments", "false_commitments"), ("spurious agreements", "spurious_agreements"),
                            ("answers repeating an attack's claim", "answers_with_claims")):
            table.add_row(label, *(str(getattr(result[k], attr)) for k in langs))
        console.print(table)
    if misses:
        for line in result["all"].misses:
            print(line)
