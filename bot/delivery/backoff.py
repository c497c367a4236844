"""How long to wait before trying again: one rule for posts, jobs and LLM calls."""

from __future__ import annotations

import random

__all__ = ["backoff"]


def backoff(attempt: int, *, base: float = 2.0, cap: float = 300.0, jitter: bool = False) -> float:
    """Seconds before the try after ``attempt`` (1-based): ``base`` doubled each time (2, 4, 8, … by
    default), at most ``cap``; with ``jitter``, drawn from the upper half of that, so clients hit by
    one outage spread out."""
    ceiling = min(cap, base * 2 ** (min(max(attempt, 1), 32) - 1))
    return random.uniform(ceiling / 2, ceiling) if jitter else ceiling
