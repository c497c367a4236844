"""Fusing one query's dense and BM25 hits, and the signals added on top: names, time, recency.

``fuse`` combines the two lists (weighted sum, or RRF). ``Signals`` adds, from clear payload fields only
(``RANK_FIELDS``): a subject the query names (as ``PayloadCodec.subject_key``: nothing decrypted), a
span it points at (``memory.recall.timeq``), recency when it asks about now. ``reweigh`` adds the best facts'
``memory.recall.importance`` weight. Weights kept only where they helped (docs/BENCHMARKS.md); 0 turns one off.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from memory.ports import Hit
from memory.recall.timeq import TimeWindow

__all__ = [
    "RANK_FIELDS",
    "RRF_K",
    "Candidate",
    "Fusion",
    "Signals",
    "fuse",
    "hit_time",
    "kept",
    "merge",
    "query_names",
    "reweigh",
]

Fusion = Literal["rrf", "weighted"]

#: Reciprocal-rank-fusion constant from Cormack et al. (2009); 60 is the usual choice.
RRF_K = 60
#: The clear payload fields the signals read (ids and dates: never sealed text).
RANK_FIELDS = ("subject", "session", "valid_from")


@dataclass(slots=True)
class Candidate:
    """One fact while a query is ranked: its hit (ids and ``RANK_FIELDS``), fused score, calibrated
    dense score (None if BM25 alone found it) and best BM25 rank (None if BM25 did not)."""

    hit: Hit
    score: float
    dense: float | None
    sparse_rank: int | None


def fuse(
    dense: list[Hit] | None,
    sparse: list[Hit] | None,
    fusion: Fusion,
    dense_weight: float,
    calibrate: object = None,
) -> dict[str, Candidate]:
    """Fuse one query's dense and sparse rankings (either may be absent) into candidates by id.

    ``calibrate`` (a callable, or None for the identity) maps the dense cosine onto the common scale
    first (``memory.index.embedders.calibrate``)."""
    cal = calibrate if callable(calibrate) else None
    out: dict[str, Candidate] = {}
    if dense is not None:
        for rank, hit in enumerate(dense):
            cosine = cal(hit.score) if cal is not None else hit.score
            score = dense_weight / (RRF_K + rank + 1) if fusion == "rrf" else dense_weight * cosine
            out[hit.id] = Candidate(hit, score, cosine, None)
    if sparse:
        best = sparse[0].score or 1.0
        weight = 1.0 - dense_weight
        for rank, hit in enumerate(sparse):
            score = weight / (RRF_K + rank + 1) if fusion == "rrf" else weight * hit.score / best
            found = out.get(hit.id)
            if found is None:
                out[hit.id] = Candidate(hit, score, None, rank + 1)
            else:
                found.score += score
                found.sparse_rank = rank + 1
    return out


def kept(fused: dict[str, Candidate], matched: set[str], threshold: float | None) -> list[Candidate]:
    """One query's candidates best first, without those the threshold cuts: facts that the query's own
    BM25 terms did not match (``matched``) and whose dense score is weak. A BM25 match is evidence of
    its own: short keyword queries ("deposit") have low cosines (~0.07) to the sentence holding the word."""
    out = [
        c
        for c in fused.values()
        if threshold is None or c.hit.id in matched or c.dense is None or c.dense >= threshold
    ]
    out.sort(key=lambda c: (-c.score, c.hit.id))
    return out


def merge(per_query: list[list[Candidate]]) -> list[Candidate]:
    """Several queries' candidates as one list, best score per fact, best first."""
    merged: dict[str, Candidate] = {}
    for cands in per_query:
        for cand in cands:
            pid = cand.hit.id
            best = merged.get(pid)
            if best is None or cand.score > best.score:
                merged[pid] = cand
                if best is not None:  # keep what the other query knew
                    cand.dense = _max(cand.dense, best.dense)
                    cand.sparse_rank = _min(cand.sparse_rank, best.sparse_rank)
            else:
                best.dense = _max(cand.dense, best.dense)
                best.sparse_rank = _min(cand.sparse_rank, best.sparse_rank)
    return sorted(merged.values(), key=lambda c: (-c.score, c.hit.id))


def reweigh(cands: list[Candidate], weights: Mapping[str, float], scale: float) -> list[Candidate]:
    """The candidates with ``scale`` × their weight added to their scores (in place), best first.
    A candidate without a weight keeps its score."""
    for cand in cands:
        cand.score += scale * weights.get(cand.hit.id, 0.0)
    return sorted(cands, key=lambda c: (-c.score, c.hit.id))


_LATIN_NAME = re.compile(r"\b[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*")
_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
#: Chinese names and things are 2-4 characters; every substring of that length is a candidate (a
#: 20-character question gives ~50), matched exactly against the subjects of the candidates.
_CJK_NAME_LEN = (2, 3, 4)
#: Bounds the work for a long query: names are looked for in its first this many characters.
_NAME_SCAN = 400


def query_names(text: str) -> set[str]:
    """Strings in a query that may name a subject: capitalised words and runs of them ("Caroline",
    "Mount Rainier") with every piece of such a run, and every 2-4 character piece of a Chinese run."""
    text = text[:_NAME_SCAN]
    names: set[str] = set()
    for match in _LATIN_NAME.finditer(text):
        words = [w.removesuffix("'s") for w in match.group(0).split()][:6]
        # every contiguous piece: "Did Mount Rainier" holds "Mount Rainier" (the run starts a sentence)
        names.update(" ".join(words[i:j]) for i in range(len(words)) for j in range(i + 1, len(words) + 1))
    for match in _CJK_RUN.finditer(text):
        run = match.group(0)
        for size in _CJK_NAME_LEN:
            names.update(run[i : i + size] for i in range(len(run) - size + 1))
    return names


def hit_time(hit: Hit) -> datetime | None:
    """When the fact was said (its ``valid_from``), from a hit's clear payload; None if absent."""
    raw = hit.payload.get("valid_from")
    if not isinstance(raw, str):
        return None
    try:
        return datetime.fromisoformat(raw)
    except ValueError:
        return None


@dataclass(frozen=True, slots=True)
class Signals:
    """What one query adds to its candidates' fused scores (see the module docstring)."""

    subjects: Collection[str] = ()
    window: TimeWindow | None = None
    latest: bool = False
    entity_weight: float = 0.0
    time_weight: float = 0.0
    recency_weight: float = 0.0

    @property
    def active(self) -> bool:
        return bool(
            (self.subjects and self.entity_weight)
            or (self.window is not None and self.time_weight)
            or (self.latest and self.recency_weight)
        )

    def apply(self, fused: dict[str, Candidate]) -> None:
        """Add the signals to the candidates' scores, in place."""
        if not self.active:
            return
        if self.subjects and self.entity_weight:
            for cand in fused.values():
                if cand.hit.payload.get("subject") in self.subjects:
                    cand.score += self.entity_weight
        timed = self.window is not None and self.time_weight
        recent = self.latest and self.recency_weight
        if not (timed or recent):
            return
        times = {pid: hit_time(c.hit) for pid, c in fused.items()}
        if timed:
            assert self.window is not None
            for pid, cand in fused.items():
                when = times[pid]
                if when is not None and _comparable(when, self.window.start) and self.window.holds(when):
                    cand.score += self.time_weight
        if recent:
            spans: dict[object, tuple[datetime, datetime]] = {}
            for pid, cand in fused.items():
                when = times[pid]
                if when is None:
                    continue
                key = cand.hit.payload.get("session")
                lo, hi = spans.get(key, (when, when))
                spans[key] = (min(lo, when), max(hi, when))
            for pid, cand in fused.items():
                when = times[pid]
                if when is None:
                    continue
                lo, hi = spans[cand.hit.payload.get("session")]
                if hi > lo:
                    cand.score += self.recency_weight * (when - lo) / (hi - lo)


def _comparable(a: datetime, b: datetime) -> bool:
    return (a.tzinfo is None) == (b.tzinfo is None)


def _max(a: float | None, b: float | None) -> float | None:
    return b if a is None else a if b is None else max(a, b)


def _min(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else min(a, b)
