"""The blind dispute scripts as a regression corpus: each set, replayed on its own script time (``--now``,
never today's date) and scored against its key, holds at least what it reached when it joined the corpus
(tests/data/truth_blind/floors.json); what should stay rare stays so."""

from __future__ import annotations

import importlib
import json
import os
from collections.abc import Sequence
from pathlib import Path

import pytest

from adapters.bench.quality import replays
from adapters.bench.quality.truth import measure

SETS = Path(__file__).resolve().parent / "data" / "truth_blind"
FLOORS = json.loads((SETS / "floors.json").read_text(encoding="utf-8"))


@pytest.fixture
def replay_here(monkeypatch: pytest.MonkeyPatch) -> None:
    """``measure`` replays each script as ``heyan bench truth``'s child does (``replays._one``: its own
    data dir, the script's clock), here in the test's process with the child's environment: the worker has
    paid for Python, the imports and the embedding model already, which a child paid again for each set
    (~2 s of CPU of ~10). The child itself is tested in tests/test_truth_score.py."""
    for key in [k for k in os.environ if k.startswith("HEYAN_") and not k.startswith("HEYAN_LLM")
                and k != "HEYAN_ENCRYPTION_KEYS"]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("HEYAN_TIMEZONE", "UTC")
    monkeypatch.setenv("HEYAN_DATA_DIR", "")  # restored afterwards: _one sets it for each script

    def replay_many(items: Sequence[tuple[Path, str, Path]], timeout: float = 1800) -> list[replays.Replay]:
        return [replays._one(script, now, str(data_dir)) for script, now, data_dir in items]

    # the module (``adapters.bench.truth`` as an attribute of its package is the ``truth`` command)
    monkeypatch.setattr(importlib.import_module("adapters.bench.quality.truth"), "replay_many", replay_many)


@pytest.mark.slow  # six replays a set (adapters/bench/quality/replays.py; ~10 s a set)
@pytest.mark.parametrize("name", sorted(k for k in FLOORS if not k.startswith("_")))
def test_a_blind_set_keeps_what_it_reached(name: str, replay_here: None) -> None:
    got = measure([SETS / name])["all"].as_dict()
    floors = FLOORS[name]
    fell = {k: (got[k], v) for k, v in floors["at_least"].items() if got[k] < v}
    rose = {k: (got[k], v) for k, v in floors["at_most"].items() if got[k] > v}
    assert fell == {} and rose == {}, f"{name}: (now, bar) {fell} {rose}"
