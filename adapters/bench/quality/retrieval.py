"""``heyan bench retrieval``: retrieval quality and speed on datasets.

Each conversation of a dataset (shared/data/README.md's format; default: LoCoMo dev when present and
tests/data/zh_retrieval_dev.jsonl; the held-out third only when named) is one tenant and session,
ingested through the production path with sealed payloads; every query runs through
``Retriever.search`` uncached. Memories become ``event`` facts in the production template (it does not
hurt: docs/BENCHMARKS.md). Reports recall@k, MRR and latency per method, dataset and category.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, cast

import typer
from rich.console import Console
from rich.table import Table

from bot.text.lang import detect_lang
from memory.errors import HeyanError
from memory.index.embedders import make_embedder
from memory.index.sparse import Bm25Encoder
from memory.models import NAMESPACE, Fact, Kind, Scope
from memory.ports import Embedder
from memory.recall.retrieval import (
    DEFAULT_CANDIDATES,
    DEFAULT_DENSE_WEIGHT,
    DEFAULT_ENTITY_WEIGHT,
    DEFAULT_FEEDBACK,
    DEFAULT_FEEDBACK_SKIP,
    DEFAULT_FEEDBACK_TERMS,
    DEFAULT_FEEDBACK_WEIGHT,
    DEFAULT_FUSION,
    DEFAULT_IMPORTANCE_WEIGHT,
    DEFAULT_RECENCY_WEIGHT,
    DEFAULT_THRESHOLD,
    DEFAULT_TIME_WEIGHT,
    Fusion,
    Method,
    Retriever,
    index_facts,
)
from memory.store.codec import PayloadCodec
from memory.store.crypto import Cipher, generate_key, parse_keys

__all__ = ["DEFAULT_DATASETS", "Conversation", "DatasetError", "Query", "load_dataset", "retrieval"]

METHODS: tuple[Method, ...] = ("dense", "sparse", "hybrid")
_ROOT = Path(__file__).resolve().parents[3]
#: Measured when no ``--dataset`` is given (those that exist).
DEFAULT_DATASETS = (
    # the shared folder sits beside the main checkout (../shared) or beside the worktrees' parent
    next((p for p in (_ROOT.parent / "shared" / "data" / "locomo-dev.jsonl",
                      _ROOT.parent.parent / "shared" / "data" / "locomo-dev.jsonl") if p.exists()),
         _ROOT.parent / "shared" / "data" / "locomo-dev.jsonl"),
    _ROOT / "tests" / "data" / "zh_retrieval_dev.jsonl",
)


@dataclass(frozen=True, slots=True)
class Memory:
    id: str
    subject: str
    text: str
    ts: datetime | None = None


@dataclass(frozen=True, slots=True)
class Query:
    id: str
    text: str
    relevant: frozenset[str]
    category: str = ""
    asked_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class Conversation:
    name: str
    memories: tuple[Memory, ...]
    queries: tuple[Query, ...]


class DatasetError(HeyanError, ValueError):
    """A dataset file has malformed lines; ``problems`` holds one ``FILE:LINE: reason`` each."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


def _text(obj: dict[str, Any], key: str, where: str) -> str:
    value = obj.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{where} needs a non-empty string {key!r}")
    return value


def _when(value: object, where: str) -> datetime | None:
    """An optional ISO time (naive times are UTC); ValueError names the field when malformed."""
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise ValueError(f"{where} must be an ISO date-time string")
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        raise ValueError(f"{where} is not an ISO date-time: {value!r}") from None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def _parse_line(raw: str) -> Conversation:
    try:
        row = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(row, dict):
        raise ValueError("expected one JSON object per line")
    name = _text(row, "conversation", "the line")
    memories_raw, queries_raw = row.get("memories"), row.get("queries")
    if not isinstance(memories_raw, list) or not memories_raw:
        raise ValueError("'memories' must be a non-empty list")
    if not isinstance(queries_raw, list):
        raise ValueError("'queries' must be a list")
    memories: list[Memory] = []
    for i, m in enumerate(memories_raw):
        if not isinstance(m, dict):
            raise ValueError(f"memories[{i}] is not an object")
        where = f"memories[{i}]"
        memories.append(Memory(_text(m, "id", where), _text(m, "subject", where), _text(m, "text", where),
                               _when(m.get("ts"), f"{where}.ts")))
    ids = {m.id for m in memories}
    if len(ids) != len(memories):
        raise ValueError("memory ids are not unique")
    queries: list[Query] = []
    for i, q in enumerate(queries_raw):
        if not isinstance(q, dict):
            raise ValueError(f"queries[{i}] is not an object")
        where = f"queries[{i}]"
        relevant = q.get("relevant")
        if not isinstance(relevant, list) or not relevant or not all(isinstance(r, str) for r in relevant):
            raise ValueError(f"{where} needs 'relevant': a non-empty list of memory ids")
        unknown = sorted(set(relevant) - ids)
        if unknown:
            raise ValueError(f"{where} names unknown memory ids {unknown[:3]}")
        queries.append(Query(_text(q, "id", where), _text(q, "text", where), frozenset(relevant),
                             str(q.get("category", "")), _when(q.get("asked_at"), f"{where}.asked_at")))
    return Conversation(name, tuple(memories), tuple(queries))


def load_dataset(path: Path) -> list[Conversation]:
    """Parse every line; raises DatasetError listing every malformed line before anything is used."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise DatasetError([f"{path}: cannot read: {exc.strerror}"]) from exc
    except UnicodeDecodeError as exc:
        raise DatasetError([f"{path}: not UTF-8 text ({exc.reason})"]) from exc
    problems: list[str] = []
    conversations: list[Conversation] = []
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            conversations.append(_parse_line(raw))
        except ValueError as exc:
            problems.append(f"{path}:{number}: {exc}")
    if not problems and not conversations:
        problems.append(f"{path}:1: the file holds no conversations")
    if len({c.name for c in conversations}) != len(conversations):
        problems.append(f"{path}: conversation names are not unique")
    if problems:
        raise DatasetError(problems)
    return conversations


def _point_id(memory_id: str) -> str:
    return str(uuid.uuid5(NAMESPACE, f"bench\x1f{memory_id}"))


def _facts(conv: Conversation, scope: Scope) -> list[Fact]:
    return [
        Fact(
            id=_point_id(m.id),
            tenant=scope.tenant,
            session=scope.session,
            kind=Kind.EVENT,
            subject=m.subject,
            attribute="观察" if detect_lang(m.text) == "zh" else "observation",
            value=m.text,
            asserted_by=m.subject,
            lang=detect_lang(m.text),  # the template in the memory's language, as production does
            **({"valid_from": m.ts, "created_at": m.ts, "updated_at": m.ts} if m.ts else {}),
        )
        for m in conv.memories
    ]


def _asked(conv: Conversation, query: Query) -> datetime:
    """When a query is asked: its ``asked_at``, else just after the conversation's last memory."""
    if query.asked_at is not None:
        return query.asked_at
    times = [m.ts for m in conv.memories if m.ts is not None]
    return max(times) if times else datetime.now(UTC)


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def run_retrieval(
    conversations: list[Conversation],
    methods: tuple[Method, ...],
    ks: tuple[int, ...],
    *,
    embedder: Embedder | None = None,
    codec: PayloadCodec | None = None,
    categories: dict[str, dict[str, dict[str, float]]] | None = None,
    **knobs: Any,
) -> dict[str, dict[str, float]]:
    """Ingest, query and score; returns metrics per method. ``knobs`` are ``Retriever`` settings
    (fusion, dense_weight, threshold, candidates, feedback…). ``codec``: sealed with a throwaway key
    unless given (``memory.store.codec.PLAIN`` measures without encryption). ``categories``, when given, is
    filled with the hybrid recall@k per query category."""
    from memory.store.edge import EdgeStore  # here: every `heyan` command imports this module

    codec = codec or PayloadCodec(Cipher(parse_keys(generate_key())))
    embedder = embedder or make_embedder("local")
    sparse = Bm25Encoder()
    kmax = max(ks)
    with tempfile.TemporaryDirectory(prefix="heyan-bench-") as tmp:
        store = await EdgeStore.open(Path(tmp), embedder_name=embedder.name, dim=embedder.dim)
        try:
            scopes: dict[str, Scope] = {}
            back: dict[str, str] = {}
            for conv in conversations:
                scope = Scope(tenant=f"bench:{conv.name}", session=conv.name)
                scopes[conv.name] = scope
                back.update({_point_id(m.id): m.id for m in conv.memories})
                await index_facts(store, embedder, sparse, _facts(conv, scope), codec=codec)
            await store.optimize()
            retriever = Retriever(store, embedder, sparse, k=kmax, codec=codec, query_cache=0, **knobs)
            # Warm up: the first query pays for lazy initialisation that no user query would.
            first = conversations[0]
            await retriever.search(scopes[first.name], ["warm up"], k=1)
            results: dict[str, dict[str, float]] = {}
            for method in methods:
                recall = dict.fromkeys(ks, 0.0)
                mrr = 0.0
                latencies: list[float] = []
                per_cat: dict[str, list[float]] = {}
                n = 0
                for conv in conversations:
                    for query in conv.queries:
                        asked = _asked(conv, query)
                        started = time.perf_counter()
                        hits = await retriever.search(
                            scopes[conv.name], [query.text], k=kmax, method=method, now=asked
                        )
                        latencies.append((time.perf_counter() - started) * 1000)
                        got = [back[h.fact.id] for h in hits]
                        for k in ks:
                            recall[k] += len(query.relevant & set(got[:k])) / len(query.relevant)
                        rank = next((i for i, mid in enumerate(got) if mid in query.relevant), None)
                        mrr += 0.0 if rank is None else 1.0 / (rank + 1)
                        if query.category:
                            per_cat.setdefault(query.category, []).append(
                                len(query.relevant & set(got[:5])) / len(query.relevant)
                            )
                        n += 1
                n = max(n, 1)
                row = {f"recall@{k}": round(recall[k] / n, 3) for k in ks}
                row["mrr"] = round(mrr / n, 3)
                row["p50_ms"] = round(statistics.median(latencies), 2) if latencies else 0.0
                row["p95_ms"] = round(_percentile(latencies, 0.95), 2)
                results[method] = row
                if categories is not None and per_cat:
                    categories[method] = {
                        c: {"n": len(v), "recall@5": round(sum(v) / len(v), 3)} for c, v in sorted(per_cat.items())
                    }
            return results
        finally:
            await store.close()


def _parse_ks(value: str) -> tuple[int, ...]:
    try:
        ks = tuple(sorted({int(part) for part in value.split(",") if part.strip()}))
    except ValueError:
        raise typer.BadParameter(f"--k takes comma-separated positive integers, got {value!r}") from None
    if not ks or ks[0] < 1:
        raise typer.BadParameter(f"--k takes comma-separated positive integers, got {value!r}")
    return ks


def retrieval(
    dataset: Annotated[
        list[Path] | None,
        typer.Option("--dataset", help="JSONL file, one conversation per line (repeat for several)"),
    ] = None,
    k: Annotated[str, typer.Option("--k", help="cut-offs for recall@k, comma-separated")] = "1,5,10",
    method: Annotated[str, typer.Option("--method", help="dense, sparse, hybrid or all")] = "all",
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON object instead of a table")] = False,
    embedder_name: Annotated[str, typer.Option("--embedder", help="offline embedder: local (USE) or e5")] = "local",
    fusion: Annotated[str, typer.Option("--fusion", help="hybrid fusion: weighted or rrf")] = DEFAULT_FUSION,
    dense_weight: Annotated[float, typer.Option("--dense-weight", min=0.0, max=1.0)] = DEFAULT_DENSE_WEIGHT,
    threshold: Annotated[
        float, typer.Option("--threshold", help="minimum dense score; negative for none")
    ] = DEFAULT_THRESHOLD,
    candidates: Annotated[int, typer.Option("--candidates", min=1)] = DEFAULT_CANDIDATES,
    feedback: Annotated[
        int, typer.Option("--feedback", min=0, help="top facts whose terms expand BM25; 0 for one pass")
    ] = DEFAULT_FEEDBACK,
    feedback_weight: Annotated[float, typer.Option("--feedback-weight", min=0.0)] = DEFAULT_FEEDBACK_WEIGHT,
    feedback_terms: Annotated[
        int, typer.Option("--feedback-terms", min=0, help="most feedback terms per query; 0 for all")
    ] = DEFAULT_FEEDBACK_TERMS,
    feedback_skip: Annotated[
        float, typer.Option("--feedback-skip", help="skip feedback when the best fact leads by this; negative: never")
    ] = -1.0 if DEFAULT_FEEDBACK_SKIP is None else DEFAULT_FEEDBACK_SKIP,
    entity_weight: Annotated[float, typer.Option("--entity-weight", min=0.0)] = DEFAULT_ENTITY_WEIGHT,
    time_weight: Annotated[float, typer.Option("--time-weight", min=0.0)] = DEFAULT_TIME_WEIGHT,
    recency_weight: Annotated[float, typer.Option("--recency-weight", min=0.0)] = DEFAULT_RECENCY_WEIGHT,
    importance_weight: Annotated[float, typer.Option("--importance-weight", min=0.0)] = DEFAULT_IMPORTANCE_WEIGHT,
) -> None:
    """Recall@k, MRR and p50/p95 query latency of dense, BM25 and hybrid retrieval, per dataset."""
    ks = _parse_ks(k)
    if method not in (*METHODS, "all"):
        raise typer.BadParameter(f"--method must be dense, sparse, hybrid or all; got {method!r}")
    if fusion not in ("weighted", "rrf"):
        raise typer.BadParameter(f"--fusion must be weighted or rrf; got {fusion!r}")
    if embedder_name not in ("local", "e5"):
        raise typer.BadParameter(f"--embedder must be local or e5; got {embedder_name!r}")
    methods = METHODS if method == "all" else (cast(Method, method),)
    paths = list(dataset) if dataset else [p for p in DEFAULT_DATASETS if p.exists()]
    loaded: list[tuple[Path, list[Conversation]]] = []
    failed = False
    for path in paths:
        try:
            loaded.append((path, load_dataset(path)))
        except DatasetError as exc:
            failed = True
            for problem in exc.problems:
                print(problem, file=sys.stderr)
    if failed or not loaded:
        if not loaded and not failed:
            print("no dataset: pass --dataset FILE.jsonl", file=sys.stderr)
        raise typer.Exit(2)
    knobs: dict[str, Any] = {
        "fusion": cast(Fusion, fusion), "dense_weight": dense_weight,
        "threshold": threshold if threshold >= 0 else None, "candidates": candidates, "feedback": feedback,
        "feedback_weight": feedback_weight, "feedback_terms": feedback_terms,
        "feedback_skip": feedback_skip if feedback_skip >= 0 else None, "entity_weight": entity_weight,
        "time_weight": time_weight, "recency_weight": recency_weight, "importance_weight": importance_weight,
    }
    embedder = make_embedder(embedder_name)
    reports = []
    for path, conversations in loaded:
        cats: dict[str, dict[str, dict[str, float]]] = {}
        results = asyncio.run(run_retrieval(conversations, methods, ks, embedder=embedder, categories=cats, **knobs))
        reports.append({"dataset": str(path), "queries": sum(len(c.queries) for c in conversations),
                        "conversations": len(conversations), "methods": results, "categories": cats})
    if as_json:
        first = reports[0]
        print(json.dumps({"dataset": first["dataset"], "queries": first["queries"], "methods": first["methods"],
                          "embedder": embedder.name, "settings": knobs, "datasets": reports}, ensure_ascii=False))
        return
    for report in reports:
        _table(report, ks)


def _table(report: dict[str, Any], ks: tuple[int, ...]) -> None:
    name = Path(report["dataset"]).name
    table = Table(title=f"retrieval on {name}: {report['queries']} queries, {report['conversations']} conversations")
    table.add_column("method")
    columns = [f"recall@{x}" for x in ks] + ["mrr", "p50_ms", "p95_ms"]
    for column in columns:
        table.add_column(column, justify="right")
    for method, row in report["methods"].items():
        table.add_row(method, *(f"{row[c]:.3f}" if not c.endswith("_ms") else f"{row[c]:.2f}" for c in columns))
    Console().print(table)
    hybrid = report["categories"].get("hybrid")
    if hybrid:
        Console().print("hybrid recall@5 by category: " + ", ".join(
            f"{c} {v['recall@5']:.3f} ({v['n']})" for c, v in hybrid.items()))
