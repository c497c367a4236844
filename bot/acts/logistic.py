"""A binary logistic regression in numpy, for the small learned checks whose weights ship in ``bot/data/``
(the attack check, the done links): load, score, save, and fit by full-batch gradient descent."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Self

import numpy as np

from memory.errors import HeyanError

__all__ = ["Logistic", "descend"]


@dataclass(frozen=True, slots=True)
class Logistic:
    """``weights`` (one per input) and ``bias``. A subclass names its error, the command that writes its
    weights, and the width of its rows when fixed."""

    weights: np.ndarray
    bias: float

    error: ClassVar[type[HeyanError]] = HeyanError
    remedy: ClassVar[str] = ""
    width: ClassVar[int | None] = None
    dtype: ClassVar[type[np.floating]] = np.float16

    @classmethod
    def load(cls, path: Path) -> Self:
        try:
            with np.load(path) as data:
                weights, bias = data["weights"].astype(np.float32), float(data["bias"])
        except (OSError, KeyError, ValueError) as exc:
            raise cls.error(f"cannot read the weights {path}: {exc}; run `{cls.remedy}`") from exc
        if weights.ndim != 1 or (cls.width is not None and weights.shape[0] != cls.width):
            raise cls.error(f"{path} holds weights of shape {weights.shape}; run `{cls.remedy}`")
        return cls(weights, bias)

    def probabilities(self, inputs: np.ndarray) -> np.ndarray:
        if inputs.ndim != 2 or inputs.shape[1] != self.weights.shape[0]:
            raise self.error(f"the model takes rows of {self.weights.shape[0]} values, got {inputs.shape}")
        return np.asarray(1.0 / (1.0 + np.exp(-(inputs @ self.weights + self.bias))), dtype=np.float32)

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(path, weights=self.weights.astype(self.dtype), bias=np.float32(self.bias))


def descend(inputs: np.ndarray, labels: np.ndarray, weight: np.ndarray, *, l2: float, epochs: int,
            lr: float) -> tuple[np.ndarray, float]:
    """(weights, bias) minimising the cross-entropy with each row weighing ``weight`` (normalised to mean 1)."""
    n = inputs.shape[0]
    weight = (weight / weight.mean()).astype(np.float32)
    w = np.zeros(inputs.shape[1], dtype=np.float32)
    b = 0.0
    for _ in range(epochs):
        p = 1.0 / (1.0 + np.exp(-(inputs @ w + b)))
        grad = (p - labels) * weight / n
        w -= lr * (inputs.T @ grad + l2 * w)
        b -= lr * float(grad.sum())
    return w, b
