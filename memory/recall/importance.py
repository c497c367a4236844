"""How much a record matters now: its weight, from use, recency, confirmation and its dispute's state.

``weight(fact, now)`` is in [0, 1], from the record's clear bookkeeping fields alone, so ranking, the
prompt budget, forgetting and ``heyan memory list`` read the same value (shares and half lives:
``Weighting``). ``protected`` records (open commitments, disputed facts) never settle or expire.
Figures: ``heyan bench importance`` (docs/BENCHMARKS.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

from memory.models import OPEN_COMMITMENT, Fact, FactStatus, Kind

__all__ = ["DEFAULT_WEIGHTING", "NEUTRAL", "RANKING_WEIGHTING", "Weighting", "protected", "weight"]

_DAY = 86_400.0

#: The weight of a record said just now, never used, not confirmed, not settled.
NEUTRAL = 0.5


@dataclass(frozen=True, slots=True)
class Weighting:
    """The constants of ``weight``. The shares should sum to 1.

    recency: since last said or used, halving every ``half_life_days``, and once its dispute closed
    also every ``settled_half_life_days`` since the close (or its last use after it); use:
    ``1 − e^(−uses / uses_scale)``, fading over ``use_half_life_days`` since the last; confirmation
    does not fade. So a new unused record is 0.5, a confirmed one 0.7 and never below 0.2, one used
    a handful of times lately near 0.8, an unused one of a dispute closed a month ago about 0.15.
    """

    half_life_days: float = 60.0
    uses_scale: float = 3.0
    use_half_life_days: float = 180.0
    settled_half_life_days: float = 30.0
    recency_share: float = 0.5
    use_share: float = 0.3
    confirmed_share: float = 0.2

    def __post_init__(self) -> None:
        if min(self.half_life_days, self.uses_scale, self.use_half_life_days, self.settled_half_life_days) <= 0:
            raise ValueError("half lives and uses_scale must be positive")
        if min(self.recency_share, self.use_share, self.confirmed_share) < 0:
            raise ValueError("the shares of a weighting must not be negative")


DEFAULT_WEIGHTING = Weighting()
#: What ranking reads: the weight without plain age (an infinite half life), so only what a record
#: earned or lost — uses, a confirmation, its dispute closed — moves it. Age alone is the recency
#: signal of ``memory.recall.ranking``, measured and left off; with age, the weight cost locomo-dev R@5
#: 0.694 → 0.673 (docs/BENCHMARKS.md).
RANKING_WEIGHTING = Weighting(half_life_days=math.inf)


def protected(fact: Fact) -> bool:
    """A record forgetting must never expire: an open commitment (someone still owes it) or a
    disputed fact (a moderator has yet to decide it)."""
    if fact.kind is Kind.COMMITMENT and fact.status in OPEN_COMMITMENT:
        return True
    return fact.status is FactStatus.DISPUTED or bool(fact.contested)


def _days(later: datetime, earlier: datetime) -> float:
    if (later.tzinfo is None) != (earlier.tzinfo is None):
        return 0.0  # a naive time from an old record: no decay rather than a crash
    return max(0.0, (later - earlier).total_seconds() / _DAY)


def weight(fact: Fact, now: datetime, w: Weighting = DEFAULT_WEIGHTING) -> float:
    """The record's weight at ``now``, in [0, 1] (rounded to 3 decimals, so it reads the same
    wherever it is shown)."""
    last = fact.valid_from
    if fact.used_at is not None and fact.used_at.timestamp() > last.timestamp():
        last = fact.used_at
    recency = math.pow(0.5, _days(now, last) / w.half_life_days)
    if fact.settled_at is not None and not protected(fact):
        # from the close, or from a use since: a record people still come back to is not settled
        since = fact.settled_at if last.timestamp() < fact.settled_at.timestamp() else last
        recency *= math.pow(0.5, _days(now, since) / w.settled_half_life_days)
    use = 1.0 - math.exp(-max(0, fact.uses) / w.uses_scale)
    if fact.used_at is not None:
        use *= math.pow(0.5, _days(now, fact.used_at) / w.use_half_life_days)
    confirmed = 1.0 if fact.confirmed_at is not None else 0.0
    value = w.recency_share * recency + w.use_share * use + w.confirmed_share * confirmed
    return round(min(1.0, max(0.0, value)), 3)
