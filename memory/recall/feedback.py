"""BM25 pseudo-relevance feedback (RM3-style): a second BM25 pass with the query expanded by the terms of
its top fused facts.

Terms of the top ``facts`` facts are added weighted ``weight`` × the share of them holding each, leaving
out the template's own words and keeping at most ``terms``; the pass is skipped when the first is
already confident (``skip_margin``). Helps answers spread over several facts; docs/BENCHMARKS.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from memory.models import Kind, embed_text
from memory.ports import SparseEncoder, SparseVector
from memory.recall.ranking import Candidate

__all__ = [
    "DEFAULT_FEEDBACK",
    "DEFAULT_FEEDBACK_SKIP",
    "DEFAULT_FEEDBACK_TERMS",
    "DEFAULT_FEEDBACK_WEIGHT",
    "Expander",
    "Feedback",
]

#: Top fused facts per query whose terms expand its BM25 query; 0: off. Measured on locomo-dev (bench
#: harness run), hybrid R@5 / R@10: off 0.670 / 0.735; 2 facts 0.689 / 0.753; 3 facts 0.689 / 0.761;
#: 5 facts 0.678 / 0.761; 10 facts 0.681 / 0.741 (weight 0.5).
DEFAULT_FEEDBACK = 3
#: Weight of a feedback term held by every feedback fact (a query term weighs 1.0). Measured at 3
#: facts, hybrid R@5 / R@10: 0.2 0.685 / 0.750; 0.3 0.678 / 0.758; 0.5 0.689 / 0.761; 0.7 0.691 /
#: 0.750; 1.0 0.696 / 0.752 (R@1 0.488 → 0.480). 0.5 is the middle of the plateau.
DEFAULT_FEEDBACK_WEIGHT = 0.5
#: At most this many feedback terms per query (0: no cap). Three facts hold ~60-95 terms besides the
#: template's. Hybrid R@5 locomo-dev / Chinese dev: no cap 0.689 / 0.935; 32 0.689 / 0.935; 16 0.687 /
#: 0.938 (R@10 0.761 → 0.748); 8 0.674 / 0.928. A BM25 query's cost with tenant IDF grows with its
#: terms (~0.1 ms a term at 100k: 23 terms 0.65 ms, 55 terms 5-6 ms p50 on the unoptimized store).
DEFAULT_FEEDBACK_TERMS = 32
#: Skip the second pass when the first one's best fact leads the second by this much fused score
#: (None: never skip). Hybrid R@5 locomo-dev / Chinese dev: never 0.689 / 0.935; 0.3 0.689 / 0.935
#: (R@10 0.761 → 0.758); 0.2 0.689 / 0.935 (R@10 0.744); 0.1 0.689 / 0.932 (R@10 0.744).
DEFAULT_FEEDBACK_SKIP: float | None = 0.3


@dataclass(frozen=True, slots=True)
class Feedback:
    """The feedback pass's settings (see the module docstring)."""

    facts: int = DEFAULT_FEEDBACK
    weight: float = DEFAULT_FEEDBACK_WEIGHT
    terms: int = DEFAULT_FEEDBACK_TERMS
    skip_margin: float | None = DEFAULT_FEEDBACK_SKIP

    def __post_init__(self) -> None:
        if self.facts < 0 or self.weight < 0.0 or self.terms < 0:
            raise ValueError("feedback facts, weight and terms must be >= 0")
        if self.skip_margin is not None and self.skip_margin < 0.0:
            raise ValueError(f"feedback skip_margin must be >= 0 or None; got {self.skip_margin}")

    @property
    def on(self) -> bool:
        return self.facts > 0

    def confident(self, ranked: Sequence[Candidate]) -> bool:
        """True when the first pass needs no second: its best fact clearly leads."""
        if self.skip_margin is None or not ranked:
            return False
        second = ranked[1].score if len(ranked) > 1 else 0.0
        return ranked[0].score - second >= self.skip_margin


class Expander:
    """Builds expanded BM25 queries for one encoder (its template terms computed once)."""

    def __init__(self, sparse: SparseEncoder, settings: Feedback) -> None:
        self.sparse = sparse
        self.settings = settings
        self._scaffold: frozenset[int] | None = None

    def expand(self, query: SparseVector, texts: Sequence[str]) -> SparseVector:
        """``query`` plus the terms of ``texts`` (the top facts' embed texts, best first)."""
        weights = dict.fromkeys(query.indices, 1.0)
        share = self.settings.weight / max(1, len(texts))
        scaffold = self.scaffold()
        held: dict[int, float] = {}
        first_seen: dict[int, int] = {}
        for rank, text in enumerate(texts):
            for term in self.sparse.encode_document(text).indices:
                if term in weights:  # a query term the top facts hold weighs a little more
                    weights[term] += share
                elif term not in scaffold:
                    held[term] = held.get(term, 0.0) + share
                    first_seen.setdefault(term, rank)
        chosen: list[int] = list(held)
        cap = self.settings.terms
        if cap and len(chosen) > cap:
            chosen.sort(key=lambda t: (-held[t], first_seen[t], t))
            chosen = chosen[:cap]
        for term in chosen:
            weights[term] = held[term]
        ids = sorted(weights)
        return SparseVector(tuple(ids), tuple(weights[i] for i in ids))

    def scaffold(self) -> frozenset[int]:
        """The terms of the embed template itself ("About", "is", "关于", "的事实", the kind names):
        every fact of a language holds them, so as feedback they only make the second BM25 pass
        longer and slower without telling facts apart."""
        if self._scaffold is None:
            words: set[int] = set()
            for kind in Kind:
                for lang in ("en", "zh"):
                    words.update(self.sparse.encode_document(embed_text(kind, "", "", "", lang)).indices)
            self._scaffold = frozenset(words)
        return self._scaffold

