"""``heyan bench importance``: what weighting and forgetting do over months of a community's disputes.

A synthetic history (``adapters.bench.synth.community_history``) is replayed in time order through the
production retrieval path, with uses, settles, confirmations and forgetting applied as the live
system does; variants differ only in ``importance_weight``, the budget's share and forgetting.
Setup and figures: docs/BENCHMARKS.md, "Importance and forgetting".
"""

from __future__ import annotations

import asyncio
import json
import statistics
import tempfile
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.table import Table

from adapters.bench.synth import CommunityHistory, community_history
from bot.config.tenants import TenantSettings
from bot.llm.rendering import fact_line
from bot.privacy.forgetting import FORGET_NOTICE
from bot.tokens import Item, Section, estimate_tokens, fit_to_budget
from memory.index.embedders import make_embedder
from memory.index.sparse import Bm25Encoder
from memory.models import FactStatus, Scope
from memory.ports import Embedder, RecordFilter
from memory.recall.importance import DEFAULT_WEIGHTING, RANKING_WEIGHTING, Weighting, protected, weight
from memory.recall.retrieval import DEFAULT_IMPORTANCE_WEIGHT, Retriever, ScoredFact, index_facts
from memory.store.codec import PayloadCodec
from memory.store.crypto import Cipher, generate_key, parse_keys

__all__ = ["Variant", "run", "run_history"]

_DEFAULTS = TenantSettings()
FORGET_AFTER = timedelta(days=_DEFAULTS.forget_after_days or 14.0)
FORGET_BELOW = _DEFAULTS.forget_below
CLOSED_PURGE = timedelta(days=_DEFAULTS.closed_purge_days)
#: The facts budget of the tight-budget check: about two of the synthetic facts' lines.
TIGHT_BUDGET = 200
_DAY = timedelta(days=1)


@dataclass(frozen=True, slots=True)
class Variant:
    """One way of running the history: the retriever's importance weight, the weight's share in the
    prompt budget's priority, and whether forgetting runs."""

    name: str
    importance_weight: float = DEFAULT_IMPORTANCE_WEIGHT
    budget_weight: float = 0.0
    forget: bool = False
    #: What ranking reads (``memory.recall.importance.RANKING_WEIGHTING``: without plain age), or the whole weight.
    weighting: Weighting = RANKING_WEIGHTING
    #: Delete everything of a dispute closed ``closed_purge_days`` ago (the tenant default, 30).
    purge_closed: bool = False


VARIANTS = (
    Variant("off", importance_weight=0.0),
    Variant("budget 0.5", importance_weight=0.0, budget_weight=0.5),
    Variant("rank 0.05", importance_weight=0.05),
    Variant("rank 0.1", importance_weight=0.1),
    Variant("rank 0.15 (default)", importance_weight=0.15),
    Variant("rank 0.2", importance_weight=0.2),
    Variant("rank 0.4", importance_weight=0.4),
    Variant("rank 0.2 with age", importance_weight=0.2, weighting=DEFAULT_WEIGHTING),
    Variant("rank 0.15 + budget 0.2", importance_weight=0.15, budget_weight=0.2),
    Variant("off + forgetting", importance_weight=0.0, forget=True),
    Variant("rank 0.15 + forgetting", importance_weight=0.15, forget=True),
    Variant("off + closed purge 30 d", importance_weight=0.0, purge_closed=True),
)


class _Replay:
    """The state of one replay: the store, the retriever, the uses and the forgetting notices."""

    def __init__(self, history: CommunityHistory, retriever: Retriever, codec: PayloadCodec) -> None:
        self.history = history
        self.retriever = retriever
        self.store = retriever.store
        self.codec = codec
        self.scope = Scope(tenant=history.tenant)
        self.uses: dict[str, tuple[int, datetime]] = {}
        self.unfolded: set[str] = set()
        self.notices: dict[str, datetime] = {}  # record id → when it is deleted
        self.deleted: set[str] = set()
        self.by_session: dict[str, list[str]] = {}

    async def _set(self, record_id: str, payload: dict[str, Any]) -> None:
        if record_id not in self.deleted:
            await self.store.set_payload("facts", self.scope, record_id, payload)

    async def ask(self, text: str, at: datetime) -> list[ScoredFact]:
        return await self.retriever.search(self.scope, [text], k=self.retriever.k, now=at)

    def used(self, found: list[ScoredFact], at: datetime) -> None:
        for hit in found:
            count, _ = self.uses.get(hit.fact.id, (0, at))
            self.uses[hit.fact.id] = (count + 1, at)
            self.unfolded.add(hit.fact.id)

    async def fold(self) -> None:
        for record_id in sorted(self.unfolded):
            count, last = self.uses[record_id]
            await self._set(record_id, {"uses": count, "used_at": last.isoformat()})
        self.unfolded.clear()

    async def close(self, session: str, closed: datetime) -> None:
        for record_id in self.by_session.get(session, []):
            update: dict[str, Any] = {"settled_at": closed.isoformat()}
            if record_id in self.history.done:
                update["status"] = FactStatus.DONE.value
            await self._set(record_id, update)

    async def purge_closed(self, day: datetime) -> None:
        """``jobs.cron.purge``'s closed-dispute purge with the tenant default (30 days)."""
        for dispute in self.history.disputes:
            if dispute.closed is None or dispute.closed + CLOSED_PURGE > day:
                continue
            ids = [i for i in self.by_session.get(dispute.session, []) if i not in self.deleted]
            if ids:
                await self.store.delete("facts", self.scope, RecordFilter(ids=frozenset(ids)))
                self.deleted.update(ids)

    async def forget(self, day: datetime) -> None:
        """The forgetting pass of ``bot.privacy.forgetting`` with the tenant defaults, on this store."""
        due = [i for i, when in self.notices.items() if when <= day]
        if due:
            await self.store.delete("facts", self.scope, RecordFilter(ids=frozenset(due)))
            self.deleted.update(due)
            for record_id in due:
                del self.notices[record_id]
        for dispute in self.history.disputes:
            if dispute.closed is None or dispute.closed + FORGET_AFTER > day:
                continue
            ids = [i for i in self.by_session.get(dispute.session, []) if i not in self.deleted]
            for hit in await self.store.retrieve("facts", self.scope, ids):
                fact = self.codec.fact_from_payload(hit.payload)
                low = not protected(fact) and weight(fact, day) < FORGET_BELOW
                if low and fact.id not in self.notices:
                    self.notices[fact.id] = day + FORGET_NOTICE
                elif not low and fact.id in self.notices:
                    del self.notices[fact.id]  # used or confirmed since: its own expiry back


def _percent(values: list[float]) -> float:
    return round(sum(values) / len(values), 3) if values else 0.0


async def run_history(history: CommunityHistory, variant: Variant, *, embedder: Embedder,
                      codec: PayloadCodec | None = None) -> dict[str, Any]:
    """Replay ``history`` under ``variant``; returns recall and token figures per final category."""
    from memory.store.edge import EdgeStore  # here: every `heyan` command imports this module

    codec = codec or PayloadCodec(Cipher(parse_keys(generate_key())))
    sparse = Bm25Encoder()
    with tempfile.TemporaryDirectory(prefix="heyan-bench-") as tmp:
        store = await EdgeStore.open(Path(tmp), embedder_name=embedder.name, dim=embedder.dim)
        try:
            retriever = Retriever(store, embedder, sparse, k=5, codec=codec,
                                  importance_weight=variant.importance_weight, weighting=variant.weighting)
            replay = _Replay(history, retriever, codec)
            events: list[tuple[datetime, int, Any]] = [(f.valid_from, 0, f) for f in history.facts]
            events += [(d.closed, 1, d) for d in history.disputes if d.closed is not None]
            events += [(when, 2, record_id) for record_id, when in history.confirmed.items()]
            events += [(a.at, 3, a) for a in history.asks]
            day = history.facts[0].valid_from
            while day < history.now:
                day += _DAY
                events.append((day, 4, None))
            events.sort(key=lambda e: (e[0], e[1]))
            waiting: list[Any] = []
            for when, order, item in events:
                if order != 0 and waiting:
                    await index_facts(store, embedder, sparse, waiting, codec=codec)
                    waiting = []
                if order == 0:
                    waiting.append(item)
                    replay.by_session.setdefault(item.session, []).append(item.id)
                elif order == 1:
                    await replay.close(item.session, when)
                elif order == 2:
                    await replay._set(item, {"confirmed_at": when.isoformat()})
                elif order == 3:
                    replay.used(await replay.ask(item.text, when), when)
                else:
                    await replay.fold()
                    if variant.forget:
                        await replay.forget(when)
                    if variant.purge_closed:
                        await replay.purge_closed(when)
            if waiting:
                await index_facts(store, embedder, sparse, waiting, codec=codec)
            await replay.fold()
            return await _measure(replay, history, variant)
        finally:
            await store.close()


async def _measure(replay: _Replay, history: CommunityHistory, variant: Variant) -> dict[str, Any]:
    cats: dict[str, dict[str, list[float]]] = {}
    for ask in history.final:
        found = await replay.retriever.search(replay.scope, [ask.text], k=10, now=history.now)
        got = [s.fact.id for s in found]
        rank = next((i for i, fid in enumerate(got) if fid in ask.relevant), None)
        lines = [estimate_tokens(fact_line(s.fact, "UTC", {})) + 1 for s in found]
        row = cats.setdefault(ask.category, {k: [] for k in ("r1", "r5", "mrr", "facts_tokens", "to_answer", "tight")})
        row["r1"].append(float(rank is not None and rank < 1))
        row["r5"].append(float(rank is not None and rank < 5))
        row["mrr"].append(0.0 if rank is None else 1.0 / (rank + 1))
        row["facts_tokens"].append(float(sum(lines[:5])))
        if rank is not None and rank < 5:
            row["to_answer"].append(float(sum(lines[: rank + 1])))
        top = found[:5]
        fitted = fit_to_budget([Section("facts", [
            Item(fact_line(s.fact, "UTC", {}), s.score + variant.budget_weight * s.weight, s.fact.id) for s in top])],
            TIGHT_BUDGET)
        kept = {i.payload for i in fitted.section("facts").items}
        row["tight"].append(float(bool(kept & ask.relevant)))
    out: dict[str, Any] = {}
    everything: dict[str, list[float]] = {}
    for cat, row in sorted(cats.items()):
        for key, values in row.items():
            everything.setdefault(key, []).extend(values)
        out[cat] = _summary(row)
    out["all"] = _summary(everything)
    out["forgotten"] = len(replay.deleted)
    return out


def _summary(row: dict[str, list[float]]) -> dict[str, float]:
    return {
        "n": len(row["r5"]), "recall@1": _percent(row["r1"]), "recall@5": _percent(row["r5"]),
        "mrr": _percent(row["mrr"]), "facts_tokens": round(statistics.mean(row["facts_tokens"]), 1),
        "tokens_to_answer": round(statistics.mean(row["to_answer"]), 1) if row["to_answer"] else 0.0,
        "kept_in_tight_budget": _percent(row["tight"]),
    }


def run(seed: list[int] | None, variant: list[str] | None, months: int, disputes: int, as_json: bool) -> None:
    """Run ``heyan bench importance`` (its options are documented on the command, ``adapters.bench.quality.importance``)."""
    names = {v.name: v for v in VARIANTS}
    unknown = sorted(set(variant or ()) - set(names))
    if unknown:
        raise typer.BadParameter(f"unknown variant(s) {', '.join(unknown)}; known: {', '.join(names)}")
    chosen = [names[n] for n in variant] if variant else list(VARIANTS)
    embedder = make_embedder("local")
    report: dict[str, Any] = {"variants": {}, "seeds": seed or [1]}
    for s in seed or [1]:
        history = community_history(s, months=months, disputes=disputes)
        report.setdefault("histories", {})[str(s)] = {
            "facts": len(history.facts), "asked_meanwhile": len(history.asks), "disputes": len(history.disputes),
            "final": {c: sum(1 for a in history.final if a.category == c) for c in ("open", "standing", "past")}}
        for v in chosen:
            result = asyncio.run(run_history(history, v, embedder=embedder))
            report["variants"].setdefault(v.name, {})[str(s)] = result
    if as_json:
        print(json.dumps(report, ensure_ascii=False))
        return
    for s in seed or [1]:
        table = Table(title=f"community history, seed {s}: R@5 per category (n) · all: R@1 / R@5 / MRR · tokens")
        for col in ("variant", "open", "standing", "past", "all R@1/R@5/MRR", "facts tok", "to answer", "tight",
                    "forgotten"):
            table.add_column(col)
        for name, per_seed in report["variants"].items():
            r = per_seed[str(s)]
            a = r["all"]
            table.add_row(name, *(f"{r[c]['recall@5']:.3f} ({r[c]['n']})" if c in r else "-"
                                  for c in ("open", "standing", "past")),
                          f"{a['recall@1']:.3f} / {a['recall@5']:.3f} / {a['mrr']:.3f}", f"{a['facts_tokens']:.0f}",
                          f"{a['tokens_to_answer']:.0f}", f"{a['kept_in_tight_budget']:.3f}", str(r["forgotten"]))
        Console().print(table)
