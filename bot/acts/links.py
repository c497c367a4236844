"""Which open promise a later line of its owner reports kept ("clip's up in #evidence …" closes "pull the
vod segment"): a logistic model over a few features of each (line, open promise) pair, learned from the
blind sets' keys (``make links``: ``bot.acts.links_train``). Weights in ``bot/data/done_links.npz``.

The features: how close the line and the promise are in meaning (sentence vectors) and whether this
promise is the closest of the owner's open ones, how many content words they share, how sure the act
classifier is that the line reports a deed done, whether the rules read a report, and whether the line
asks, takes something on or says something is not done."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from bot.acts.logistic import Logistic, descend
from bot.extraction.candidates import Utterance
from bot.offline.clauses import clean
from bot.offline.done import done_reports, takes_on
from bot.offline.proposals import overlap
from bot.offline.requests import LEAD_NAME
from memory.errors import HeyanError
from memory.normalize import normalize

__all__ = ["SURE", "WEIGHTS", "WIDTH", "LinkModel", "LinkModelError", "default_links", "fit", "pair_rows", "promise_text", "read",
           "says_not_done"]

log = logging.getLogger(__name__)

WEIGHTS = Path(__file__).resolve().parents[1] / "data" / "done_links.npz"
#: The probability a pair needs before its line closes the promise (chosen leaving each blind set out in
#: turn: see ``make links``; a wrong close silences a promise's follow-up, so precision comes first).
SURE = 0.8
#: Characters of a line or promise the model reads.
_READ = 300
#: A line whose first clause says something is not done, or not yet: never a report of a promise kept
#: ("the subs aren't happening tonight, upload's crawling").
_NOT_DONE = re.compile(r"n't\b|\b(?:not|never|yet)\b|还没|没有|没(?!问题|事)|不了|未", re.IGNORECASE)
#: Where a line's first clause ends: what is said after it ("…，密码没变") is detail.
_FIRST_CLAUSE = re.compile(r"[,;!?，。；！？]|\.(?!\d)")
#: Features per pair (``pair_rows``).
WIDTH = 10
_ANY_TIME = datetime(2000, 1, 1, tzinfo=UTC)
_ASKS = re.compile(r"[?？]|吗\s*$|\b(?:did|have|has|can|could|will|would)\s+(?:you|u|anyone)\b", re.IGNORECASE)


class LinkModelError(HeyanError):
    """The done-link weights are missing or do not fit the features."""


def says_not_done(text: str) -> bool:
    """Does the line's first clause, past a name it is said to, say something is not done ("Oskar, the
    subs aren't happening tonight, …", "还没弄完")?"""
    text = normalize(text).strip()
    # "还没弄完，明天吧" reads like a name and a comma: the clause itself is tried as well
    return any(_NOT_DONE.search(_FIRST_CLAUSE.split(t, maxsplit=1)[0]) for t in (text, LEAD_NAME.sub("", text, count=1)))


def read(text: str) -> str:
    """The words the model reads of a line or a promise."""
    return " ".join(text.split())[:_READ] or "."


def promise_text(action: str, quote: str) -> str:
    """What a promise reads as to the model: what is promised, then the words it was made in."""
    return read(f"{action} | {quote}")


def pair_rows(line: str, line_vector: Sequence[float], promises: Sequence[str],
              promise_vectors: Sequence[Sequence[float]], p_done: float) -> np.ndarray:
    """One row of features per open promise of the line's speaker (``promises``: what each promises,
    with the words it was made in), for the line ``line`` the act classifier reads as a report of done
    with probability ``p_done``."""
    if not promises:
        return np.zeros((0, WIDTH), dtype=np.float32)
    v = np.asarray(line_vector, dtype=np.float32)
    m = np.asarray(promise_vectors, dtype=np.float32)
    cos = (m @ v) / (np.linalg.norm(m, axis=1) * np.linalg.norm(v) + 1e-9)
    text = clean(normalize(line))
    reported = float(bool(done_reports_of(line)))
    asks, promising, not_done = float(bool(_ASKS.search(text))), float(takes_on(text)), float(says_not_done(line))
    rows = []
    for k, promise in enumerate(promises):
        others = np.delete(cos, k)
        margin = float(cos[k] - others.max()) if others.size else 0.3
        shared = min(overlap(text, clean(normalize(promise))), 4) / 4
        rows.append([float(cos[k]), margin, shared, float(shared > 0), p_done, reported, asks, promising, not_done,
                     1.0 / len(promises)])
    return np.asarray(rows, dtype=np.float32)


def done_reports_of(line: str) -> bool:
    """Do the rules (``bot.offline.done``) read a report of something done in ``line``?"""
    return bool(done_reports([Utterance(message_id="-", author_id="-", author_name="", text=line, ts=_ANY_TIME)], None))


class LinkModel(Logistic):
    """``weights`` (one per feature, ``WIDTH``) and ``bias``."""

    error = LinkModelError
    remedy = "make links"
    width = WIDTH
    dtype = np.float32

    @classmethod
    def load(cls, path: Path = WEIGHTS) -> LinkModel:
        return super().load(path)

    def save(self, path: Path = WEIGHTS) -> None:
        super().save(path)

    def closes(self, rows: np.ndarray) -> int | None:
        """The one promise (its row) the line surely reports kept, or None (none sure, or several)."""
        p = self.probabilities(rows)
        sure = np.flatnonzero(p >= SURE)
        return int(sure[0]) if sure.size == 1 else None


_DEFAULT: list[LinkModel | None] = []


def default_links() -> LinkModel | None:
    """The model over the committed weights, loaded once; None when they cannot be read (a report of
    done is then read by the rules alone)."""
    if not _DEFAULT:
        try:
            _DEFAULT.append(LinkModel.load())
        except LinkModelError as exc:
            log.warning("done links are off (rules only): %s", exc)
            _DEFAULT.append(None)
    return _DEFAULT[0]


def fit(rows: np.ndarray, labels: np.ndarray, *, l2: float = 1e-3, epochs: int = 3000, lr: float = 0.5) -> LinkModel:
    """Full-batch gradient descent on the cross-entropy, the reports weighing half the ratio of other pairs
    to reports (the few reports are not drowned)."""
    ratio = float((labels == 0).sum()) / max(1.0, float((labels == 1).sum()))
    return LinkModel(*descend(rows, labels, np.where(labels == 1, 0.5 * ratio, 1.0).astype(np.float32), l2=l2,
                              epochs=epochs, lr=lr))
