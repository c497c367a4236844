"""``heyan bench relations``: recall with and without one hop through relations.

Corpora ``tests/data/relations_dev.jsonl`` (tuned on) and ``_heldout`` (measured once): short
histories with questions, their ``gold`` messages and whether they need the hop. Each history is
stored as production would (messages as ``event`` records, extracted relations linked to them, sealed)
and each question asked through ``Retriever.search`` with and without ``memory.recall.hops``. R@k: the share
of gold messages cited by the top k.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.table import Table

from bot.extraction.candidates import ExtractionRequest, Utterance, to_facts
from bot.offline.relations import extract_relations
from memory.index.embedders import make_embedder
from memory.index.sparse import Bm25Encoder
from memory.models import Fact, Kind, Scope, Source
from memory.ports import Embedder
from memory.recall.hops import Hops
from memory.recall.relations import link
from memory.recall.retrieval import Retriever, index_facts
from memory.store.codec import PayloadCodec
from memory.store.crypto import Cipher, generate_key, parse_keys

__all__ = ["CORPORA", "load", "run", "run_history"]

_DATA = Path(__file__).resolve().parents[3] / "tests" / "data"
CORPORA = {"dev": _DATA / "relations_dev.jsonl", "held-out": _DATA / "relations_heldout.jsonl"}
_T0 = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


def load(split: str) -> list[dict[str, Any]]:
    """The histories of ``split`` (dev, held-out or all)."""
    names = list(CORPORA) if split == "all" else [split]
    if any(n not in CORPORA for n in names):
        raise typer.BadParameter(f"--split is dev, held-out or all; got {split!r}")
    return [json.loads(line) for n in names for line in CORPORA[n].read_text(encoding="utf-8").splitlines() if line]


def records(history: dict[str, Any]) -> tuple[list[Fact], list[Fact]]:
    """(message records, relation records) of one history, as the bench stores them."""
    tenant, session = f"bench:{history['id']}", "general"
    turns = [Utterance(m["id"], m["user"], m["name"], m["text"], _T0 + timedelta(minutes=i))
             for i, m in enumerate(history["messages"])]
    said = [Fact(tenant=tenant, session=session, kind=Kind.EVENT, subject=u.author_id, subject_name=u.author_name,
                 attribute="said", value=u.text, asserted_by=u.author_id, users=(u.author_id,), lang=history["lang"],
                 sources=(Source(message_id=u.message_id, author_id=u.author_id, author_name=u.author_name, ts=u.ts,
                                 quote=u.text),), valid_from=u.ts, created_at=u.ts, updated_at=u.ts,
                 slot=f"said:{u.message_id}").with_id() for u in turns]
    request = ExtractionRequest(tenant, session, turns, lang=history["lang"])
    relations = to_facts(request, extract_relations(request), now=turns[-1].ts)
    linked = link([*said, *relations])
    return linked[: len(said)], linked[len(said):]


async def run_history(history: dict[str, Any], *, embedder: Embedder, hops: Hops, k: int) -> list[dict[str, Any]]:
    """Each question of ``history`` asked with and without the hop: its R@k both ways."""
    from memory.store.edge import EdgeStore  # here: every `heyan` command imports this module

    codec = PayloadCodec(Cipher(parse_keys(generate_key())))
    said, relations = records(history)
    with tempfile.TemporaryDirectory(prefix="heyan-bench-") as tmp:
        store = await EdgeStore.open(Path(tmp), embedder_name=embedder.name, dim=embedder.dim)
        try:
            sparse = Bm25Encoder()
            await index_facts(store, embedder, sparse, [*said, *relations], codec=codec)
            with_hop = Retriever(store, embedder, sparse, k=k, codec=codec, query_cache=0, hops=hops)
            without = with_hop.tuned(hops=replace(hops, limit=0))
            scope = Scope(tenant=said[0].tenant)
            now = said[-1].valid_from + timedelta(hours=1)
            out = []
            for q in history["questions"]:
                gold = set(q["gold"])
                row: dict[str, Any] = {"id": q["id"], "lang": history["lang"], "hop": q["hop"],
                                       "relations": len(relations)}
                for name, retriever in (("with", with_hop), ("without", without)):
                    found = await retriever.search(scope, [q["text"]], k=k, now=now)
                    cited = {s.message_id for f in found for s in f.fact.sources}
                    row[name] = len(gold & cited) / len(gold)
                    row[f"{name}_missed"] = sorted(gold - cited)
                out.append(row)
            return out
        finally:
            await store.close()


def _mean(rows: list[dict[str, Any]], key: str) -> float:
    return round(sum(r[key] for r in rows) / len(rows), 3) if rows else 0.0


def run(split: str, decay: float | None, limit: int | None, k: int, as_json: bool) -> None:
    """Run ``heyan bench relations`` (its options are documented on the command)."""
    hops = Hops()
    hops = replace(hops, decay=hops.decay if decay is None else decay, limit=hops.limit if limit is None else limit)
    embedder = make_embedder("local")
    histories = load(split)
    rows: list[dict[str, Any]] = []
    relations = 0
    for history in histories:
        got = asyncio.run(run_history(history, embedder=embedder, hops=hops, k=k))
        relations += got[0]["relations"] if got else 0
        rows += got
    groups = {"all": rows, "hop": [r for r in rows if r["hop"]], "direct": [r for r in rows if not r["hop"]],
              "zh": [r for r in rows if r["lang"] == "zh"], "en": [r for r in rows if r["lang"] == "en"]}
    report: dict[str, Any] = {"split": split, "k": k, "decay": hops.decay, "limit": hops.limit, "relations_extracted": relations,
              "groups": {name: {"questions": len(g), f"r@{k}_without_hop": _mean(g, "without"),
                                f"r@{k}_with_hop": _mean(g, "with")} for name, g in groups.items()},
              "missed_with_hop": {r["id"]: r["with_missed"] for r in rows if r["with_missed"]}}
    if as_json:
        typer.echo(json.dumps(report, ensure_ascii=False, indent=2))
        return
    table = Table(title=f"relations bench ({split}, k={k}, decay {hops.decay}, limit {hops.limit}; "
                        f"{relations} relations extracted)")
    for column in ("questions", "group", f"R@{k} without hop", f"R@{k} with hop"):
        table.add_column(column)
    for name, g in report["groups"].items():
        table.add_row(str(g["questions"]), name, f"{g[f'r@{k}_without_hop']:.3f}", f"{g[f'r@{k}_with_hop']:.3f}")
    console = Console()
    console.print(table)
    for qid, missed in report["missed_with_hop"].items():
        console.print(f"missed with the hop: {qid}: {', '.join(missed)}")
