"""The blind dispute scripts as a regression corpus: each set, replayed by real `heyan` processes on its
own script time (``--now``, never today's date) and scored against its key, holds at least what it
reached when it joined the corpus (tests/data/truth_blind/floors.json); what should stay rare stays so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adapters.bench.truth import measure

SETS = Path(__file__).resolve().parent / "data" / "truth_blind"
FLOORS = json.loads((SETS / "floors.json").read_text(encoding="utf-8"))


@pytest.mark.slow  # six replays a set, in one `heyan` process (adapters/bench/replays.py; ~20 s a set)
@pytest.mark.parametrize("name", sorted(k for k in FLOORS if not k.startswith("_")))
def test_a_blind_set_keeps_what_it_reached(name: str) -> None:
    got = measure([SETS / name])["all"].as_dict()
    floors = FLOORS[name]
    fell = {k: (got[k], v) for k, v in floors["at_least"].items() if got[k] < v}
    rose = {k: (got[k], v) for k, v in floors["at_most"].items() if got[k] > v}
    assert fell == {} and rose == {}, f"{name}: (now, bar) {fell} {rose}"
