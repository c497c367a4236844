"""The act classifier: multinomial logistic regression over [sentence vector | cheap features].

Weights live in ``bot/data/acts.npz`` (float16, ~15 KB), written by ``bot.acts.train``. Pure numpy.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bot.acts.labels import ACTS, Act
from memory.errors import HeyanError

__all__ = ["WEIGHTS", "ActModel", "ActModelError", "fit"]

#: Where the committed weights are.
WEIGHTS = Path(__file__).resolve().parents[1] / "data" / "acts.npz"


class ActModelError(HeyanError):
    """The act weights are missing or do not fit the label set or the input width."""


@dataclass(frozen=True, slots=True)
class ActModel:
    """``weights`` (inputs × acts) and ``bias`` (acts)."""

    weights: np.ndarray
    bias: np.ndarray

    @classmethod
    def load(cls, path: Path = WEIGHTS) -> ActModel:
        try:
            with np.load(path) as data:
                labels = [str(x) for x in data["labels"]]
                weights, bias = data["weights"].astype(np.float32), data["bias"].astype(np.float32)
        except (OSError, KeyError, ValueError) as exc:
            raise ActModelError(f"cannot read the act weights {path}: {exc}") from exc
        if labels != [a.value for a in ACTS] or weights.shape[1] != len(ACTS) or bias.shape != (len(ACTS),):
            raise ActModelError(f"{path} was trained for other acts ({labels}); run `make acts`")
        return cls(weights, bias)

    @property
    def width(self) -> int:
        return int(self.weights.shape[0])

    def probabilities(self, rows: np.ndarray) -> np.ndarray:
        if rows.ndim != 2 or rows.shape[1] != self.width:
            raise ActModelError(f"the act model takes rows of {self.width} values, got {rows.shape}")
        logits = rows @ self.weights + self.bias
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        return np.asarray(p / p.sum(axis=1, keepdims=True), dtype=np.float32)

    def predict(self, rows: np.ndarray) -> list[Act]:
        return [ACTS[i] for i in self.probabilities(rows).argmax(axis=1)]

    def save(self, path: Path = WEIGHTS) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(path, weights=self.weights.astype(np.float16), bias=self.bias.astype(np.float16),
                            labels=np.asarray([a.value for a in ACTS]))


def fit(rows: np.ndarray, labels: np.ndarray, *, l2: float = 1e-4, epochs: int = 2000, lr: float = 1.0,
        balance: float = 0.25) -> ActModel:
    """Full-batch gradient descent on the weighted cross-entropy. Each line of an act weighs
    (lines / (acts × lines of that act)) ** ``balance``: 1 gives every act the same total weight, 0 none;
    0.25 lifts the few "reschedule" lines without drowning "other" (chosen on the held-out split)."""
    n, d = rows.shape
    k = len(ACTS)
    onehot = np.zeros((n, k), dtype=np.float32)
    onehot[np.arange(n), labels] = 1.0
    counts = onehot.sum(axis=0)
    per_class = np.where(counts > 0, (n / (k * np.maximum(counts, 1))) ** balance, 0.0)
    sample = (onehot * per_class).sum(axis=1, keepdims=True).astype(np.float32)
    sample /= sample.mean()
    w = np.zeros((d, k), dtype=np.float32)
    b = np.zeros(k, dtype=np.float32)
    for _ in range(epochs):
        logits = rows @ w + b
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        grad = (p - onehot) * sample / n
        w -= lr * (rows.T @ grad + l2 * w)
        b -= lr * grad.sum(axis=0)
    return ActModel(w, b)
