"""Train the act classifier from ``tests/data/acts/*.jsonl`` and report held-out scores against the rules.

``make acts`` runs ``python -m bot.acts.train``: it embeds every labelled line with the shipped local
embedder, fits on all of it and writes ``bot/data/acts.npz``. ``--report`` first scores, per act, the
"heldout" split and the set-A scripts with a fit that saw neither, and each blind set (B–L, one split
each) with a fit that saw the others but not it, for the classifier and for what today's rules say of
the same lines (``rules_act``).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

from bot.acts.features import Line, cheap, stack
from bot.acts.labels import ACTS, Act
from bot.acts.model import WEIGHTS, ActModel, fit
from bot.acts.reader import ActReader
from bot.acts.rules_view import rules_acts

__all__ = ["Dialogue", "load", "main"]

DATA = Path(__file__).resolve().parents[2] / "tests" / "data" / "acts"


@dataclass(frozen=True, slots=True)
class Dialogue:
    """One labelled dialogue: speakers, lines, acts (None: context only)."""

    ident: str
    lang: str
    split: str
    who: tuple[str, ...]
    texts: tuple[str, ...]
    acts: tuple[Act | None, ...]

    def lines(self) -> list[Line]:
        names = set(self.who)
        return [Line(t, names_other=any(n != w and n in t for n in names)) for w, t in zip(self.who, self.texts,
                                                                                           strict=True)]


def load(folder: Path = DATA) -> list[Dialogue]:
    out = []
    for path in sorted(folder.glob("*.jsonl")):
        for raw in path.read_text(encoding="utf-8").splitlines():
            r = json.loads(raw)
            out.append(Dialogue(r["id"], r["lang"], r["split"], tuple(x["who"] for x in r["lines"]),
                                tuple(x["text"] for x in r["lines"]),
                                tuple(Act(x["act"]) if x["act"] else None for x in r["lines"])))
    return out


def _vectors(dialogues: Sequence[Dialogue]) -> dict[str, list[float]]:
    from memory.index.embedders import LocalEmbedder

    texts = sorted({t for d in dialogues for t in d.texts})
    embed = LocalEmbedder().embed_sync
    vectors: list[list[float]] = []
    for i in range(0, len(texts), 64):
        vectors += embed([" ".join(t.split())[:300] or "." for t in texts[i : i + 64]])
    return dict(zip(texts, vectors, strict=True))


def _rows(dialogues: Sequence[Dialogue], vectors: dict[str, list[float]]) -> tuple[np.ndarray, np.ndarray]:
    """Training rows, each with the gold act of the line before (teacher forcing)."""
    xs, ys = [], []
    for d in dialogues:
        for i, (line, act) in enumerate(zip(d.lines(), d.acts, strict=True)):
            if act is None:
                continue
            extra = cheap(line, d.acts[i - 1] if i else None, same_speaker=bool(i) and d.who[i] == d.who[i - 1])
            xs.append(stack([vectors[d.texts[i]]], [extra])[0])
            ys.append(ACTS.index(act))
    return np.asarray(xs, dtype=np.float32), np.asarray(ys)


def _table(name: str, gold: list[Act], got: dict[str, list[Act]]) -> list[str]:
    out = [f"{name}: {len(gold)} lines", f"  {'act':<11} {'n':>4}  " + "  ".join(f"{k + ' P/R/F1':>22}" for k in got)]
    for act in ACTS:
        n = sum(1 for g in gold if g is act)
        cells = []
        for pred in got.values():
            tp = sum(1 for g, p in zip(gold, pred, strict=True) if g is act and p is act)
            fp = sum(1 for g, p in zip(gold, pred, strict=True) if g is not act and p is act)
            p = tp / (tp + fp) if tp + fp else 0.0
            r = tp / n if n else 0.0
            f = 2 * p * r / (p + r) if p + r else 0.0
            cells.append(f"{p:6.2f} {r:6.2f} {f:6.2f}")
        out.append(f"  {act.value:<11} {n:>4}  " + "  ".join(f"{c:>22}" for c in cells))
    for k, pred in got.items():
        out.append(f"  accuracy {k}: {sum(1 for g, p in zip(gold, pred, strict=True) if g is p) / len(gold):.3f}")
    return out


def _predicted(model: ActModel, dialogues: Sequence[Dialogue], vectors: dict[str, list[float]]) -> tuple[list[Act], list[Act], list[Act]]:
    """(gold, classifier, rules) over the labelled lines, the classifier reading each dialogue in order."""
    reader = ActReader(model, lambda texts: [vectors[t] for t in texts])
    gold: list[Act] = []
    mine: list[Act] = []
    rules: list[Act] = []
    for d in dialogues:
        acts = reader.read(d.lines(), d.who) if d.texts else []
        ts = [datetime(2026, 11, 4, 10, tzinfo=UTC) + timedelta(minutes=2 * i) for i in range(len(d.texts))]
        said = rules_acts(d.who, d.texts, ts, d.lang)
        for g, a, r in zip(d.acts, acts, said, strict=True):
            if g is not None:
                gold.append(g)
                mine.append(a)
                rules.append(r)
    return gold, mine, rules


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--report", action="store_true", help="score held-out lines against the rules first")
    parser.add_argument("--out", type=Path, default=WEIGHTS)
    parser.add_argument("--without", action="append", default=[], metavar="SPLIT",
                        help="leave a split out of the final fit (e.g. set_a, to measure the bench on it unseen)")
    args = parser.parse_args(argv)
    dialogues = [d for d in load() if d.split not in args.without]
    raw = _vectors(dialogues)
    vectors = {t: raw[t] for t in raw}
    keyed = {" ".join(t.split())[:300] or ".": v for t, v in raw.items()}
    vectors.update(keyed)
    n = sum(1 for d in dialogues for a in d.acts if a is not None)
    print(f"{len(dialogues)} dialogues, {n} labelled lines "
          f"(en {sum(1 for d in dialogues if d.lang == 'en' for a in d.acts if a)}, "
          f"zh {sum(1 for d in dialogues if d.lang == 'zh' for a in d.acts if a)})")
    if args.report:
        blind = sorted({d.split for d in dialogues} - {"train", "heldout", "set_a"})
        # the held-out split and set A by a fit on the rest; each blind set by a fit without it
        for parts, unseen in ((("heldout", "set_a"), ()), *(((s,), (s,)) for s in blind)):
            x, y = _rows([d for d in dialogues if d.split == "train" or (d.split in blind and d.split not in unseen)],
                         vectors)
            model = fit(x, y)
            for part in parts:
                gold, mine, rules = _predicted(model, [d for d in dialogues if d.split == part], keyed)
                print("\n".join(_table(part, gold, {"classifier": mine, "rules": rules})))
    x, y = _rows(dialogues, vectors)
    model = fit(x, y)
    model.save(args.out)
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes) from {len(y)} lines")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
