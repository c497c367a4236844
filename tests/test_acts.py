"""The dialogue-act classifier (bot/acts): committed weights, read in order over the local embedder."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bot.acts.features import CHEAP, Line, cheap
from bot.acts.labels import ACTS, Act
from bot.acts.model import ActModel, ActModelError, fit
from bot.acts.reader import default_reader


def test_weights_fit_the_label_set_and_the_input_width() -> None:
    model = ActModel.load()
    assert model.width == 512 + len(CHEAP)
    assert model.weights.shape[1] == len(ACTS)


def test_a_missing_weights_file_is_a_heyan_error(tmp_path: Path) -> None:
    with pytest.raises(ActModelError):
        ActModel.load(tmp_path / "none.npz")


def test_fit_learns_a_separable_toy_problem() -> None:
    rows = np.asarray([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.1, 0.9]], dtype=np.float32)
    labels = np.asarray([ACTS.index(Act.OFFER)] * 2 + [ACTS.index(Act.REQUEST)] * 2)
    model = fit(rows, labels, epochs=300)
    assert model.predict(rows) == [Act.OFFER, Act.OFFER, Act.REQUEST, Act.REQUEST]


def test_cheap_features_see_time_condition_and_what_came_before() -> None:
    after_request = cheap(Line("tomorrow works"), Act.REQUEST)
    assert after_request[CHEAP.index("after_ask")] == 1.0
    assert after_request[CHEAP.index("has_time")] == 1.0
    assert cheap(Line("如果房东同意，我就周末刷墙"), None)[CHEAP.index("condition")] == 1.0
    # one's own line before is not something to answer
    assert cheap(Line("ok"), Act.REQUEST, same_speaker=True)[CHEAP.index("after_ask")] == 0.0


@pytest.mark.parametrize(("lines", "want"), [
    ((("Kim", "Pat, could you email the caterer before Thursday?"), ("Pat", "sure thing — Wednesday evening")),
     [Act.REQUEST, Act.ACCEPT]),
    ((("Lou", "如果周五之前他们回复，我就把合同寄过去"),), [Act.CONDITION]),
    ((("Ada", "proposal: we keep the shared fridge for drinks only"), ("Ben", "fine by me"), ("Cy", "agreed")),
     [Act.PROPOSE, Act.AGREE, Act.AGREE]),
    ((("Jo", "@heyan what did Kim promise me?"),), [Act.QUESTION]),
])
def test_reads_acts_of_lines_it_was_not_trained_on(lines: tuple[tuple[str, str], ...], want: list[Act]) -> None:
    reader = default_reader()
    assert reader is not None
    assert reader.read([Line(text) for _, text in lines], [who for who, _ in lines]) == want
