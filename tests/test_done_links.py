"""Done links (bot/acts/links.py): which open promise a later line of its owner reports kept, learned from
the blind sets' keys; and the promise a report that names its result closes, end to end."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from bot.acts.labels import ACTS, Act
from bot.acts.links import (
    WIDTH,
    LinkModel,
    LinkModelError,
    default_links,
    fit,
    pair_rows,
    read,
    says_not_done,
)
from bot.acts.reader import default_reader, thread_distributions
from bot.extraction.candidates import Utterance
from bot.models import Message
from bot.offline.provider import OfflineProvider
from memory.models import FactStatus, Scope
from tests.jobs_helpers import Start, settings

pytestmark = pytest.mark.dated  # fixed dates on the fake clock: `make any-day` runs them years ahead too

T = "slack:T1"
SCOPE = Scope(tenant=T, session="C1:200.1")
TUESDAY = datetime(2031, 3, 4, 9, tzinfo=UTC)
#: Two promises of one member (what each promises | the words it was made in), phrased as no set phrases them.
PROMISES = ["fix the caption on the club newsletter | I'll fix the newsletter caption and credit the photographer Thursday",
            "return the projector to the library | the projector goes back to the library by Saturday, I'll drop it off"]


@pytest.mark.parametrize(("text", "not_done"), [
    ("the caption is still wrong", False),  # "still" alone says nothing is undone; the model weighs the rest
    ("haven't sent it yet, sorry", True), ("Oskar, the subs aren't happening tonight, upload's crawling", True),
    ("还没弄完，明天吧", True), ("projector's back at the library, they gave me a receipt", False),
    ("sent it. not sure it arrived", False),  # only the first clause says whether it is done
])
def test_a_first_clause_that_says_not_done(text: str, not_done: bool) -> None:
    assert says_not_done(text) is not_done


def test_pair_rows_give_one_row_per_open_promise() -> None:
    line, promises = [1.0, 0.0, 0.0], [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    rows = pair_rows("the projector is back at the library", line, ["return the projector | …", "fix the caption | …"],
                     promises, 0.6)
    assert rows.shape == (2, WIDTH)
    assert rows[0, 0] == pytest.approx(1.0) and rows[1, 0] == pytest.approx(0.0)  # closeness in meaning
    assert rows[0, 1] > 0 > rows[1, 1]  # the closest of the owner's promises, and by how much
    assert rows[0, 2] > 0 and rows[1, 2] == 0  # the words they share
    assert pair_rows("x", line, [], [], 0.5).shape == (0, WIDTH)


def test_a_line_closes_one_promise_or_none() -> None:
    model = LinkModel(np.asarray([10.0] + [0.0] * (WIDTH - 1), dtype=np.float32), -5.0)
    one = np.zeros((2, WIDTH), dtype=np.float32)
    one[1, 0] = 1.0
    assert model.closes(one) == 1
    assert model.closes(np.ones((2, WIDTH), dtype=np.float32)) is None  # two sure: which one is not known
    assert model.closes(np.zeros((2, WIDTH), dtype=np.float32)) is None


def test_fit_learns_which_feature_marks_a_report() -> None:
    rows = np.zeros((40, WIDTH), dtype=np.float32)
    rows[:10, 4] = 1.0  # the act classifier's "done"
    labels = np.asarray([1.0] * 10 + [0.0] * 30, dtype=np.float32)
    model = fit(rows, labels, epochs=500)
    p = model.probabilities(rows)
    assert p[:10].min() > 0.8 > 0.2 > p[10:].max()


def test_weights_that_cannot_be_read_say_what_to_run(tmp_path: Path) -> None:
    with pytest.raises(LinkModelError, match="make links"):
        LinkModel.load(tmp_path / "none.npz")
    np.savez(tmp_path / "bad.npz", weights=np.zeros(3), bias=np.float32(0))
    with pytest.raises(LinkModelError, match="make links"):
        LinkModel.load(tmp_path / "bad.npz")


def _closes(line: str) -> int | None:
    reader, model = default_reader(), default_links()
    assert reader is not None and model is not None
    p_done = float(thread_distributions(reader, [Utterance("1", "u", "Ann", line, TUESDAY)])[0][ACTS.index(Act.DONE)])
    vectors = reader.embed([read(line), *PROMISES])
    return model.closes(pair_rows(line, vectors[0], PROMISES, vectors[1:], p_done))


def test_the_shipped_model_closes_the_promise_a_result_names() -> None:
    assert _closes("projector's back at the library front desk, they gave me a receipt") == 1
    # neither a setback, a question, chatter about the same thing nor a plan closes anything
    for line in ["the caption is still wrong, will sort it tonight", "who has the projector?",
                 "the newsletter looks great this month btw", "I'll take the projector back after lunch"]:
        assert _closes(line) is None, line


@pytest.fixture
def _on_tuesday(clock_at: Callable[[datetime], None]) -> None:
    clock_at(TUESDAY + timedelta(minutes=30))


def said(mid: str, user: str, name: str, text: str, minutes: int) -> Message:
    return Message(id=mid, scope=SCOPE.narrow(user=user), author_name=name, text=text,
                   ts=TUESDAY + timedelta(minutes=minutes))


@pytest.mark.usefixtures("_on_tuesday", "hash_embedder")
async def test_a_report_naming_its_result_closes_that_promise_only(tmp_path: Path, redis_url: str, start: Start) -> None:
    rt = await start(settings(tmp_path, redis_url), provider=OfflineProvider())
    await rt.engine.observe(said("m1", "u-ann", "Ann", "I'll fix the newsletter caption and credit Dana by Thursday.", 0))
    await rt.engine.observe(said("m2", "u-ann", "Ann", "and I'll drop the projector back at the library by Saturday.", 1))
    await rt.drain(60)
    open_ = await rt.memory.open_commitments(Scope(tenant=T))
    assert len(open_) == 2
    await rt.engine.observe(said("m3", "u-ann", "Ann", "the caption is still wrong, will sort it tonight", 5))
    await rt.engine.observe(said("m4", "u-ann", "Ann", "projector's back at the library front desk, they gave me a receipt", 9))
    # a line nothing in it marks as worth extracting at once waits for the batch (bot/engine.py, five lines)
    for n, text in enumerate(["lol the library guy is a legend", "anyone up for pizza thursday", "me!", "same"]):
        await rt.engine.observe(said(f"m{5 + n}", "u-bob", "Bob", text, 10 + n))
    await rt.drain(60)
    status = {f.value: (await rt.memory.get(Scope(tenant=T), f.id)).status for f in open_}  # type: ignore[union-attr]
    assert sorted(status.values()) == [FactStatus.ACTIVE, FactStatus.DONE]
    assert next(s for v, s in status.items() if "projector" in v) is FactStatus.DONE
