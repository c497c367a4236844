"""Build the labelled lines of tests/data/acts/*.jsonl from the project's corpora and written dialogues.

Run once when a source changes: ``.venv/bin/python scripts/build_acts_data.py``. Each output line is one
dialogue: {"id", "lang", "source", "split", "lines": [{"who", "text", "act"}]} ("act": null = context).
The split ("train" / "heldout", ~20%) is fixed by a hash of the id, so rebuilding keeps it.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
OUT = DATA / "acts"

_COND = re.compile(r"\b(?:if|unless|as long as|provided)\b|如果|只要|要是|假如|除非", re.IGNORECASE)
_ASKS = re.compile(r"\?|？|\b(?:can|could|would) you\b|你能|能不能|可以吗|行吗|好吗", re.IGNORECASE)

# set A (dev set of issue 29): the lines that are not "other", labelled by hand from the scripts.
SET_A: dict[str, dict[int, str]] = {
    "en_hackerspace_laser.jsonl": {
        7: "request", 8: "counter", 9: "accept", 11: "request", 12: "accept", 13: "offer", 15: "propose",
        16: "agree", 17: "agree", 18: "agree", 19: "offer", 20: "request", 21: "accept", 22: "done", 23: "done",
        25: "propose", 26: "agree", 27: "agree", 28: "refuse", 29: "propose", 30: "condition", 33: "done",
        34: "reschedule", 35: "done", 36: "done", 37: "request", 38: "question", 39: "question", 40: "question"},
    "en_foodbank_rota.jsonl": {
        5: "offer", 6: "request", 7: "request", 8: "counter", 9: "accept", 10: "request", 11: "accept", 12: "offer",
        14: "request", 15: "accept", 16: "propose", 17: "agree", 18: "agree", 20: "agree", 21: "condition",
        24: "done", 25: "done", 28: "done", 31: "done", 33: "reschedule", 35: "question", 36: "question",
        37: "question"},
    "en_studygroup_project.jsonl": {
        4: "offer", 8: "request", 9: "accept", 10: "propose", 11: "agree", 12: "agree", 13: "agree", 14: "request",
        15: "accept", 17: "request", 18: "counter", 19: "accept", 21: "propose", 22: "agree", 23: "agree",
        24: "refuse", 25: "offer", 27: "done", 28: "agree", 31: "condition", 33: "done", 34: "done",
        36: "reschedule", 37: "question", 38: "question", 39: "question"},
    "zh_rent_utilities.jsonl": {
        6: "offer", 9: "propose", 10: "refuse", 11: "request", 12: "accept", 14: "request", 15: "counter",
        16: "accept", 17: "done", 18: "propose", 19: "agree", 20: "agree", 21: "agree", 23: "offer", 24: "request",
        25: "agree", 27: "request", 28: "accept", 30: "done", 31: "condition", 32: "reschedule", 34: "done",
        38: "question", 39: "question", 40: "question"},
    "zh_oss_release.jsonl": {
        5: "offer", 6: "condition", 7: "request", 8: "accept", 10: "offer", 12: "request", 13: "accept",
        14: "request", 15: "counter", 16: "accept", 17: "propose", 18: "agree", 19: "agree", 20: "agree",
        21: "refuse", 25: "reschedule", 27: "done", 28: "done", 33: "done", 34: "done", 35: "question",
        36: "question", 37: "question"},
    "zh_badminton_courts.jsonl": {
        6: "request", 7: "accept", 8: "offer", 10: "request", 11: "counter", 12: "accept", 13: "offer",
        15: "propose", 16: "agree", 17: "agree", 18: "agree", 19: "agree", 20: "done", 21: "offer", 22: "done",
        26: "reschedule", 27: "condition", 29: "propose", 32: "done", 34: "done", 36: "question", 37: "question",
        38: "question"},
}


def _split(ident: str) -> str:
    return "heldout" if hashlib.blake2b(ident.encode(), digest_size=2).digest()[0] < 52 else "train"


def _row(ident: str, lang: str, source: str, lines: list[dict[str, object]], split: str | None = None) -> dict:
    return {"id": ident, "lang": lang, "source": source, "split": split or _split(ident), "lines": lines}


def _corpus_act(gold: list[dict], text: str, context: list[dict]) -> str | None:
    kinds = {g["kind"] for g in gold}
    if kinds == {"commitment"}:
        if _COND.search(text):
            return "condition"
        return "accept" if context and _ASKS.search(context[-1]["text"]) else "offer"
    if kinds == {"demand"}:
        return "request"
    if kinds == {"refusal"}:
        return "refuse"
    if kinds == {"agreement"}:
        return "agree"
    if not kinds or kinds <= {"claim", "emotion", "flagged"}:
        return "other"
    return None  # two acts in one line: left out


def corpora() -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {"en": [], "zh": []}
    for name in ("extraction_corpus.jsonl", "extraction_corpus_everyday.jsonl"):
        for raw in (DATA / name).read_text(encoding="utf-8").splitlines():
            r = json.loads(raw)
            context = r.get("context", [])
            act = _corpus_act(r["gold"], r["text"], context)
            if act is None:
                continue
            lines = [{"who": c["name"], "text": c["text"], "act": None} for c in context]
            lines.append({"who": r["speaker"]["name"], "text": r["text"], "act": act})
            out[r["lang"]].append(_row(f"{name.split('.')[0]}:{r['id']}", r["lang"], name, lines))
    for raw in (DATA / "trigger_corpus.jsonl").read_text(encoding="utf-8").splitlines():
        r = json.loads(raw)
        if not r["fact_bearing"]:
            out[r["lang"]].append(_row(f"trigger:{r['id']}", r["lang"], "trigger_corpus.jsonl",
                                       [{"who": "A", "text": r["text"], "act": "other"}]))
    for raw in (DATA / "everyday_truth_dev.jsonl").read_text(encoding="utf-8").splitlines():
        r = json.loads(raw)
        if r.get("closes"):
            lines = [{"who": c["name"], "text": c["text"], "act": None} for c in r.get("context", [])]
            lines.append({"who": r["speaker"]["name"], "text": r["text"], "act": "done"})
            out[r["lang"]].append(_row(f"everyday:{r['id']}", r["lang"], "everyday_truth_dev.jsonl", lines))
    for raw in (DATA / "question_paraphrases.jsonl").read_text(encoding="utf-8").splitlines():
        r = json.loads(raw)
        lang = "zh" if re.search(r"[\u4e00-\u9fff]", r["q"]) else "en"
        out[lang].append(_row(f"paraphrase:{r['q']}", lang, "question_paraphrases.jsonl",
                              [{"who": "A", "text": r["q"], "act": "question"}]))
    return out


def set_a() -> list[dict]:
    rows = []
    for name, labels in SET_A.items():
        script = [json.loads(x) for x in (DATA / "truth_blind" / "set_a" / name).read_text(encoding="utf-8").splitlines()
                  if x.strip()]
        lines = [{"who": r["user_name"], "text": r["text"], "act": labels.get(i, "other")}
                 for i, r in enumerate(script, 1)]
        rows.append(_row(f"set_a:{name}", name[:2], "truth_blind/set_a", lines, split="set_a"))
    return rows


def blind() -> list[dict]:
    """Sets B–M, labelled by hand (tests/data/acts/blind_labels.json): one split per set, so that
    ``bot.acts.train --report`` can score each set with a fit that never saw it."""
    labels = json.loads((OUT / "blind_labels.json").read_text(encoding="utf-8"))
    rows = []
    for folder, scripts in sorted((k, v) for k, v in labels.items() if not k.startswith("_")):
        for name, acts in sorted(scripts.items()):
            script = [json.loads(x) for x in (DATA / "truth_blind" / folder / name).read_text(encoding="utf-8")
                      .splitlines() if x.strip()]
            lines = [{"who": r["user_name"], "text": r["text"], "act": acts.get(str(i), "other")}
                     for i, r in enumerate(script, 1)]
            rows.append(_row(f"{folder}:{name}", name[:2], f"truth_blind/{folder}", lines, split=folder))
    return rows


def written(lang: str) -> list[dict]:
    rows, lines, n = [], [], 0
    for raw in [*(OUT / f"written_{lang}.txt").read_text(encoding="utf-8").splitlines(), ""]:
        if raw.startswith("#"):
            continue
        if not raw.strip():
            if lines:
                n += 1
                rows.append(_row(f"written_{lang}:{n}", lang, f"written_{lang}.txt", lines))
                lines = []
            continue
        who, act, text = raw.split("|", 2)
        lines.append({"who": who, "text": text, "act": None if act == "-" else act})
    return rows


def main() -> None:
    found = corpora()
    outputs = {"corpora_en": found["en"], "corpora_zh": found["zh"], "written_en": written("en"),
               "written_zh": written("zh"), "set_a": set_a(), "blind": blind()}
    for name, rows in outputs.items():
        (OUT / f"{name}.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                                           encoding="utf-8")
        print(name, len(rows), "dialogues", sum(1 for r in rows for x in r["lines"] if x["act"]), "labelled lines")


if __name__ == "__main__":
    main()
