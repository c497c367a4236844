"""The figures answers from records reach on blind set A (``heyan bench truth set_a``): every script
replayed by a ``heyan`` process as of its key's time (no test here depends on today's date).

Reached with the records offline extraction wrote at the time: 10 of 18 questions answered right
(from 1), none repeating an attack's claim. The 8 misses each lack the record that holds the answer
(docs/_incoming/answers.md); the figure may only go up as extraction improves.

The replay itself runs once, in ``tests/test_truth_blind.py`` (``set_a``), which holds set A to the
bars of ``tests/data/truth_blind/floors.json``: replaying the same six scripts here again cost ~35 s
of CPU for nothing it did not already check. This test holds those bars to this figure: set A's key
asks 18 questions, and the corpus may never expect fewer than 10 answered, nor allow an answer that
repeats an attack's claim or an ordinary line flagged."""

from __future__ import annotations

import json

from adapters.bench.quality.truth import SETS

#: Questions answered right on set A, and the floor this test holds.
ANSWERED = 10


def test_questions_on_blind_set_a_are_answered_from_records() -> None:
    keys = json.loads((SETS / "set_a" / "key.json").read_text(encoding="utf-8"))["scripts"]
    assert sum(len(key["questions"]) for key in keys.values()) == 18
    floors = json.loads((SETS / "floors.json").read_text(encoding="utf-8"))["set_a"]
    assert floors["at_least"]["answered"] >= ANSWERED
    assert floors["at_most"]["answers_with_claims"] == 0
    assert floors["at_most"]["ordinary_flagged"] == 0
