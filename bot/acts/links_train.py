"""Train the done-link model (``bot.acts.links``) from the blind sets' keys and report it held out.

``make links`` runs ``python -m bot.acts.links_train --report``. Each key commitment is a promise of its
owner; every later line of the owner up to its report of done (or to the end) is paired with every
promise of the owner open at that line, labelled 1 where the line is that promise's ``done_line``. A
promise reads as the key's action words and the line it was made in, as a stored one reads as its value
and quote. ``--report`` first fits with each set left out and scores the lines of that set: closes right,
closes wrong (another promise, or a line that reports nothing), reports missed.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import numpy as np

from bot.acts.labels import ACTS, Act
from bot.acts.links import SURE, WEIGHTS, LinkModel, fit, pair_rows, promise_text, read
from bot.acts.reader import default_reader, thread_distributions
from bot.extraction.candidates import Utterance

__all__ = ["main"]

SETS = Path(__file__).resolve().parents[2] / "tests" / "data" / "truth_blind"
_DONE = ACTS.index(Act.DONE)
_TO_BOT = ("@heyan", "@和言")


@dataclass(frozen=True, slots=True)
class Group:
    """The pairs of one line: one row per promise of its speaker open then, and which is the right one."""

    set_name: str
    rows: np.ndarray
    right: int | None  # the row of the promise the line reports done, None when it reports none


def _groups(set_dir: Path) -> list[Group]:
    reader = default_reader()
    if reader is None:
        raise SystemExit("the act reader is unavailable (weights or embedder); run `make acts` first")
    out = []
    for name, key in json.loads((set_dir / "key.json").read_text(encoding="utf-8"))["scripts"].items():
        rows = [json.loads(x) for x in (set_dir / name).read_text(encoding="utf-8").splitlines()]
        thread = [Utterance(message_id=str(i), author_id=r["user_id"], author_name=r["user_name"], text=r["text"],
                            ts=datetime.fromisoformat(r["ts"])) for i, r in enumerate(rows, 1)]
        p_done = [float(p[_DONE]) for p in thread_distributions(reader, thread)]
        promises = [(c, promise_text(" ".join(dict.fromkeys(c["action"])), rows[c["line"] - 1]["text"]))
                    for c in key["commitments"]]
        vectors = reader.embed([read(r["text"]) for r in rows] + [t for _, t in promises])
        line_vec, promise_vec = vectors[:len(rows)], vectors[len(rows):]
        # a promise the key marks done without saying where: its owner's later lines are not known either way
        unknown = {c["owner"] for c in key["commitments"] if c["status"] == "done" and not c.get("done_line")}
        for n, row in enumerate(rows, 1):
            if row["text"].lstrip().startswith(_TO_BOT) or row["user_name"] in unknown:
                continue
            open_ = [k for k, (c, _) in enumerate(promises) if c["owner"] == row["user_name"] and c["line"] < n
                     and (c.get("done_line") is None or c["done_line"] >= n)]
            if not open_:
                continue
            right = next((i for i, k in enumerate(open_) if promises[k][0].get("done_line") == n), None)
            x = pair_rows(row["text"], line_vec[n - 1], [promises[k][1] for k in open_],
                          [promise_vec[k] for k in open_], p_done[n - 1])
            out.append(Group(set_dir.name, x, right))
    return out


def _score(model: LinkModel, groups: Sequence[Group]) -> tuple[int, int, int, int]:
    """(reports, closed right, closed wrong, missed) over ``groups``."""
    reports = right = wrong = 0
    for g in groups:
        reports += g.right is not None
        got = model.closes(g.rows)
        if got is not None and got == g.right:
            right += 1
        elif got is not None:
            wrong += 1
    return reports, right, wrong, reports - right


def _fit(groups: Sequence[Group]) -> LinkModel:
    rows = np.concatenate([g.rows for g in groups])
    labels = np.concatenate([np.eye(len(g.rows), dtype=np.float32)[g.right] if g.right is not None
                             else np.zeros(len(g.rows), dtype=np.float32) for g in groups])
    return fit(rows, labels)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--report", action="store_true", help="score each blind set with a fit that did not see it")
    args = parser.parse_args(argv)
    groups = [g for d in sorted(SETS.glob("set_*")) if (d / "key.json").exists() for g in _groups(d)]
    if args.report:
        total = np.zeros(4, dtype=int)
        for name in sorted({g.set_name for g in groups}):
            model = _fit([g for g in groups if g.set_name != name])
            got = _score(model, [g for g in groups if g.set_name == name])
            total += got
            print(f"{name}: {got[0]} reports, {got[1]} closed right, {got[2]} closed wrong, {got[3]} missed (held out)")
        print(f"all held out: {total[0]} reports, {total[1]} right, {total[2]} wrong, {total[3]} missed (p >= {SURE})")
    model = _fit(groups)
    print(f"full fit: {_score(model, groups)}; weights {np.round(model.weights, 2).tolist()} bias {model.bias:.2f}")
    model.save(WEIGHTS)
    print(f"wrote {WEIGHTS}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
