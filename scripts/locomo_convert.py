"""Convert LoCoMo conversations (snap-research/locomo, data/locomo10.zip, CC BY-NC 4.0) into the
retrieval format of shared/data/README.md, the way locomo-dev.jsonl was made: each session's
observations become memories (subject = speaker, ts = the session's date), a memory is relevant to
a question when one of its source turns is in the question's evidence, and adversarial questions
(category 5) or questions whose evidence maps to no observation are left out.

    python scripts/locomo_convert.py DIR_OF_JSON [--skip 26,30] > unseen.jsonl

Used to check retrieval on conversations nobody tuned on (the dev file holds 26 and 30).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from datetime import datetime
from pathlib import Path


def _when(raw: str) -> str:
    # "1:56 pm on 8 May, 2023"
    try:
        return datetime.strptime(raw.strip(), "%I:%M %p on %d %B, %Y").isoformat()
    except ValueError:
        return ""


def convert(path: Path) -> dict[str, object]:
    conv = json.loads(path.read_text(encoding="utf-8"))
    name = f"locomo-{path.stem}"
    memories: list[dict[str, str]] = []
    by_turn: dict[str, list[str]] = {}
    sessions = sorted(
        (int(m.group(1)), key) for key in conv if (m := re.fullmatch(r"session_(\d+)_observation", key))
    )
    for number, key in sessions:
        ts = _when(str(conv.get(f"session_{number}_date_time", "")))
        for speaker, items in conv[key].items():
            for i, (text, evidence) in enumerate(items):
                mid = f"{name}:s{number}:{speaker}:{i}"
                memories.append({"id": mid, "subject": speaker, "text": text, "ts": ts})
                turns = evidence if isinstance(evidence, list) else re.split(r"[;,\s]+", str(evidence))
                for turn in turns:
                    if turn.strip():
                        by_turn.setdefault(turn.strip(), []).append(mid)
    queries = []
    for i, qa in enumerate(conv["qa"]):
        if qa.get("category") == 5:
            continue
        relevant = sorted({m for turn in qa.get("evidence", []) for m in by_turn.get(str(turn).strip(), [])})
        if not relevant:
            continue
        queries.append({"id": f"{name}:q{i}", "text": qa["question"], "relevant": relevant,
                        "category": qa["category"]})
    return {"conversation": name, "memories": memories, "queries": queries}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--skip", default="26,30", help="conversation numbers to leave out")
    parser.add_argument("--only", default="", help="conversation numbers to keep (default: all)")
    args = parser.parse_args()
    skip = {s.strip() for s in args.skip.split(",") if s.strip()}
    only = {s.strip() for s in args.only.split(",") if s.strip()}
    for path in sorted(args.folder.glob("*.json"), key=lambda p: int(p.stem)):
        if path.stem in skip or (only and path.stem not in only):
            continue
        sys.stdout.write(json.dumps(convert(path), ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
