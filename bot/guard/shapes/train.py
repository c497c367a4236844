"""``make attacks``: fit the learned attack check on the labelled lines of ``tests/data`` (``--report``: each
blind set held out in turn first; ``--without set_x``: keep a set out of the committed fit)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bot.guard.poisoning import fold
from bot.guard.shapes.attack_model import WEIGHTS, cheap, fit, read, rows
from bot.guard.shapes.learned import THRESHOLD, states
from memory.index.embedders import LocalEmbedder

__all__ = ["Labelled", "load", "main"]

DATA = Path(__file__).resolve().parents[3] / "tests" / "data"
_EXTRACTION = ("extraction_corpus", "extraction_corpus_everyday", "everyday_truth_dev", "everyday_truth_heldout",
               "everyday_truth_heldout2", "everyday_truth_heldout3", "trigger_corpus")


@dataclass(frozen=True, slots=True)
class Labelled:
    """One line: its words, speaker, the members' names around it, attack or not, and its part
    (``set_a``…: a blind set; ``corpora``: everything else); ``near_miss``: an ordinary line written
    to look like an attack (the poisoning corpora's benign lines)."""

    text: str
    speaker: str
    names: tuple[str, ...]
    attack: bool
    part: str
    near_miss: bool = False


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def load(data: Path = DATA) -> list[Labelled]:
    out: list[Labelled] = []
    # the poisoning corpora's members by the ids their lines give: the names `heyan bench poisoning` asks with
    cast: dict[str, str] = json.loads((data / "poisoning_cast.json").read_text(encoding="utf-8"))
    for path in sorted(data.glob("poisoning_*.jsonl")):
        out += [Labelled(r["text"], cast.get(r["speaker"], ""), tuple(cast.values()), r["expect"] == "flagged",
                         "corpora", near_miss=r["expect"] != "flagged") for r in _jsonl(path)]
    for name in _EXTRACTION:
        rows = _jsonl(data / f"{name}.jsonl")
        speakers = [r["speaker"]["name"] if isinstance(r.get("speaker"), dict) else "" for r in rows]
        members = tuple(sorted(set(speakers) - {""}))
        out += [Labelled(r["text"], who, members, "flagged" in json.dumps(r.get("gold", "")), "corpora")
                for r, who in zip(rows, speakers, strict=True)]
    for folder in sorted((data / "truth_blind").glob("set_*")):
        key = json.loads((folder / "key.json").read_text(encoding="utf-8"))
        for file, script in key["scripts"].items():
            attacks = {a["line"] for a in script["attacks"]}
            questions = {q["line"] for q in script["questions"]}
            names = tuple(script["zones"])
            for i, row in enumerate(_jsonl(folder / file), 1):  # a question to Heyan is a near miss
                out.append(Labelled(row["text"], row["user_name"], names, i in attacks, folder.name,
                                    near_miss=i in questions))
    attacks = {x.text for x in out if x.attack}
    for path in sorted((data / "acts").glob("*.jsonl")):
        out += [Labelled(x["text"], x["who"], (), False, "corpora") for r in _jsonl(path) for x in r["lines"]
                if x["text"] not in attacks]
    out += [Labelled(m["text"], m["name"], (), False, "corpora") for r in _jsonl(data / "escalation_corpus.jsonl")
            for m in r["messages"] if m["text"] not in attacks]
    out += [Labelled(r["q"], "", (), False, "corpora", near_miss=True) for r in _jsonl(data / "question_paraphrases.jsonl")]
    out += [Labelled(r["question"], r["people"].get(r["asker"], ""), tuple(r["people"].values()), False, "corpora",
                     near_miss=True) for r in _jsonl(data / "offline_qa.jsonl")]
    return out


def _inputs(lines: Sequence[Labelled], vectors: dict[str, list[float]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    x = rows([vectors[read(s.text)] for s in lines], [cheap(s.text, s.speaker, s.names) for s in lines])
    return (x, np.asarray([1.0 if s.attack else 0.0 for s in lines], dtype=np.float32),
            np.asarray([s.near_miss for s in lines]))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--report", action="store_true", help="leave each blind set out in turn and score it")
    parser.add_argument("--without", action="append", default=[], metavar="SET",
                        help="leave a blind set out of the committed fit (e.g. set_f, to measure it unseen)")
    parser.add_argument("--out", type=Path, default=WEIGHTS)
    args = parser.parse_args(argv)
    lines = load()
    texts = sorted({read(s.text) for s in lines})
    embed = LocalEmbedder().embed_sync
    vectors: dict[str, list[float]] = {}
    for i in range(0, len(texts), 64):
        vectors.update(zip(texts[i : i + 64], embed(texts[i : i + 64]), strict=True))
    print(f"{len(lines)} labelled lines, {sum(s.attack for s in lines)} attacks")
    if args.report:
        print(f"held out, flagged at p >= {THRESHOLD} when the line states what attacks plant:")
        for part in sorted({s.part for s in lines} - {"corpora"}):
            model = fit(*_inputs([s for s in lines if s.part != part], vectors))
            held = [s for s in lines if s.part == part]
            p = model.probabilities(_inputs(held, vectors)[0])
            flagged = [q >= THRESHOLD and states(fold(s.text)) for s, q in zip(held, p, strict=True)]
            caught = sum(1 for s, f in zip(held, flagged, strict=True) if s.attack and f)
            false = sum(1 for s, f in zip(held, flagged, strict=True) if not s.attack and f)
            print(f"  {part}: attacks caught {caught}/{sum(s.attack for s in held)}, "
                  f"ordinary lines flagged {false}/{sum(not s.attack for s in held)}")
    kept = [s for s in lines if s.part not in args.without]
    model = fit(*_inputs(kept, vectors))
    p = model.probabilities(_inputs(kept, vectors)[0])
    print(f"in the fit: attacks caught {sum(1 for s, q in zip(kept, p, strict=True) if s.attack and q >= THRESHOLD)}"
          f"/{sum(s.attack for s in kept)}, ordinary lines flagged "
          f"{sum(1 for s, q in zip(kept, p, strict=True) if not s.attack and q >= THRESHOLD)}/{sum(not s.attack for s in kept)}"
          + "".join(f"\n  flagged: {s.text[:100]!r} ({q:.3f})" for s, q in zip(kept, p, strict=True)
                    if not s.attack and q >= THRESHOLD))
    model.save(args.out)
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
