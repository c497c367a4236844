"""``heyan bench load``: ingest rate, recall latency at scale, engine overhead, memory and disk, side by
side with qdrant-client's local mode and Chroma (the same memories, vectors and questions, interleaved:
``adapters.bench.scale.load_stores``; the engine phase: ``adapters.bench.scale.load_engine``). What it builds and what
it found: docs/BENCHMARKS.md, "Scale, speed and cost". Speed lives here, never in tests."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import tempfile
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from adapters.bench.scale.chroma import chroma_missing
from adapters.bench.scale.plots import plot_load, plots_missing
from adapters.bench.synth import tenant_name, tenant_size
from memory.models import Scope

# The stores, the runtime and the settings are imported where they are used: every `heyan` command
# imports this module (to register `heyan bench load`), and qdrant-client alone takes a second.
if TYPE_CHECKING:
    from adapters.bench.scale.load_stores import LoadConfig
    from adapters.bench.scale.measure import TimedEmbedder
    from bot.config.settings import QdrantSettings, Settings
    from memory.ports import MemoryStore

__all__ = ["load", "run_load"]

#: Targets, checked against each run and reported (never enforced): ingest rate, and
#: recall (≤ 10 ms p95 at 100k incl. the query embedding, USE) and engine (≤ 10 ms p95 per plain
#: message in the shipped embedded shape, with its in-process worker).
TARGET_RECALL_P95_MS = 10.0
TARGET_LOCAL_SPEEDUP = 100.0
TARGET_ENGINE_P95_MS = 10.0


def _progress() -> Progress:
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    TimeRemainingColumn(), console=Console(stderr=True), transient=False)


async def _open_heyan(cfg: LoadConfig, settings: Settings, work: Path, embedder: TimedEmbedder
                      ) -> tuple[MemoryStore, Path | None, QdrantSettings]:
    from bot.config.settings import QdrantSettings, SettingsError
    from memory.store.edge import EdgeStore
    from memory.store.server import ServerStore

    if cfg.store == "edge":
        path = work / "data" / "qdrant"
        store = await EdgeStore.open(path, embedder_name=embedder.name, dim=embedder.dim)
        return store, path, QdrantSettings(url=None)
    q = settings.qdrant
    if not q.url:
        raise SettingsError("`--store server` needs HEYAN_QDRANT_URL (a Qdrant server to measure)")
    prefix = f"heyanbench{uuid.uuid4().hex[:8]}"
    key = q.api_key.get_secret_value() if q.api_key else None
    server = await ServerStore.open(url=q.url, api_key=key, prefix=prefix, embedder_name=embedder.name, dim=embedder.dim)
    return server, None, QdrantSettings(url=q.url, api_key=q.api_key, prefix=prefix)


def _ratios(result: dict[str, Any]) -> list[dict[str, Any]]:
    """Each alternative's latency and ingest over Heyan's at the same size (>1: Heyan is faster)."""
    heyan = {c["memories"]: c for c in result["heyan"]["checkpoints"]}
    rows: list[dict[str, Any]] = []
    for name, alt in result["alternatives"].items():
        for c in alt.get("checkpoints", []):
            h = heyan.get(c["memories"])
            if h is None:
                continue
            row: dict[str, Any] = {"store": name, "memories": c["memories"]}
            for key in ("dense", "dense_store_only", "recall"):
                if key in c and h[key]["p50_ms"] and h[key]["p95_ms"]:
                    row[f"{key}_p50_x"] = round(c[key]["p50_ms"] / h[key]["p50_ms"], 1)
                    row[f"{key}_p95_x"] = round(c[key]["p95_ms"] / h[key]["p95_ms"], 1)
            rows.append(row)
        ingest = alt.get("ingest", {})
        heyan_ingest = result["heyan"]["ingest"]
        if ingest.get("store_only_per_s") and heyan_ingest["memories_per_s"]:
            # the alternative with the same embedding cost per memory that Heyan paid
            per_memory_s = 1 / ingest["store_only_per_s"] + heyan_ingest["embed_per_memory_ms"] / 1000
            ingest["with_embedding_per_s"] = round(1 / per_memory_s, 1)
            ingest["heyan_over_this_x"] = round(heyan_ingest["memories_per_s"] / ingest["with_embedding_per_s"], 2)
    return rows


def _targets(result: dict[str, Any]) -> dict[str, Any]:
    heyan = {c["memories"]: c for c in result["heyan"]["checkpoints"]}
    out: dict[str, Any] = {}
    at = heyan.get(100_000) or heyan[max(heyan)]
    out["recall_p95_ms"] = {"at": at["memories"], "value": at["recall"]["p95_ms"], "target": TARGET_RECALL_P95_MS,
                            "met": at["recall"]["p95_ms"] <= TARGET_RECALL_P95_MS}
    local = [r for r in result["ratios"] if r["store"] == "local_mode"]
    if local:
        best = max(local, key=lambda r: r["memories"])
        value = best.get("recall_p95_x", 0.0)
        out["local_mode_speedup"] = {"at": best["memories"], "value": value, "target": TARGET_LOCAL_SPEEDUP,
                                     "met": value >= TARGET_LOCAL_SPEEDUP}
    engine = result.get("engine")
    if engine:
        # the shipped shape: one process, the in-process worker beside the engine
        p95 = engine["embedded"]["message"]["p95_ms"]
        out["engine_message_p95_ms"] = {"value": p95, "target": TARGET_ENGINE_P95_MS, "met": p95 <= TARGET_ENGINE_P95_MS,
                                        "shape": "embedded", "without_worker": engine["engine"]["message"]["p95_ms"]}
    return out


async def run_load(cfg: LoadConfig, settings: Settings) -> dict[str, Any]:
    """Every phase of the bench; returns the report as plain data."""
    from adapters.bench.scale.load_engine import engine_settings, measure_engine, with_keys
    from adapters.bench.scale.load_stores import measure_stores
    from adapters.bench.scale.measure import TimedEmbedder
    from adapters.runtime.composition import build_embedder
    from memory.store.codec import PayloadCodec
    from memory.store.crypto import Cipher, parse_keys

    result: dict[str, Any] = {
        "config": {"memories": cfg.memories, "tenants": cfg.tenants, "store": cfg.store, "batch": cfg.batch,
                   "queries": cfg.queries, "local_max": cfg.local_max, "chroma_max": cfg.chroma_max,
                   "messages": cfg.messages, "seed": cfg.seed, "embedder": "", "cpus": os.cpu_count(),
                   "loadavg": [round(x, 2) for x in os.getloadavg()], "interleaved": True},
        "alternatives": {},
    }
    settings = with_keys(settings)
    keys = settings.privacy.encryption_keys
    assert keys is not None
    codec = PayloadCodec(Cipher(parse_keys(keys.get_secret_value())))  # sealed, as a Heyan process writes
    work = Path(tempfile.mkdtemp(prefix="heyan-bench-load-"))
    inner = build_embedder(settings)
    loader = getattr(inner, "load", None)
    if loader is not None:
        await asyncio.to_thread(loader)  # the model loads once, before anything is timed
    embedder = TimedEmbedder(inner)
    result["config"]["embedder"] = embedder.name
    vectors_file = work / "vectors.f32"
    try:
        with _progress() as progress:
            task = progress.add_task(f"Heyan {cfg.store}: ingest + measure", total=cfg.memories)
            store, store_dir, qdrant = await _open_heyan(cfg, settings, work, embedder)
            alternatives, skipped, closers = await _alternatives(cfg, work, embedder, progress)
            try:
                result["heyan"], result["alternatives"] = await measure_stores(
                    cfg, store, store_dir, embedder, settings.recall_k, vectors_file,
                    lambda n: progress.advance(task, n), codec, alternatives)
            finally:
                await store.close()
                for close in closers:
                    await close()
            result["alternatives"].update(skipped)
            if cfg.messages:
                task = progress.add_task("engine: offline provider", total=2 * cfg.messages)
                es = engine_settings(settings, work / "data", cfg.store, qdrant)
                result["engine"] = await measure_engine(es, tenant_name(0), tenant_size(0, cfg.memories, cfg.tenants),
                                                        cfg.messages, lambda n: progress.advance(task, n))
            if cfg.store == "server":
                await _empty_server(settings, qdrant, embedder, cfg.tenants)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    result["ratios"] = _ratios(result)
    result["targets"] = _targets(result)
    return result


async def _alternatives(cfg: LoadConfig, work: Path, embedder: TimedEmbedder, progress: Progress
                        ) -> tuple[list[Any], dict[str, Any], list[Any]]:
    """The stores to compare with, opened (``(alternative, cap, tick)``), those skipped, and their closers."""
    from adapters.bench.scale.load_stores import ChromaAlternative, StoreAlternative
    from memory.store.server import ServerStore

    chosen: list[Any] = []
    skipped: dict[str, Any] = {}
    closers: list[Any] = []

    def ticker(name: str, cap: int) -> Any:
        task = progress.add_task(name, total=cap)
        return lambda n: progress.advance(task, n)

    if "local" in cfg.compare:
        cap = min(cfg.local_max, cfg.memories)
        local = await ServerStore.open(location=":memory:", prefix="bench", embedder_name=embedder.name, dim=embedder.dim)
        closers.append(local.close)
        chosen.append((StoreAlternative("local_mode", local), cap, ticker("qdrant-client local mode", cap)))
    if "chroma" in cfg.compare:
        missing = chroma_missing()
        if missing:
            skipped["chroma"] = {"skipped": missing}
        else:
            cap = min(cfg.chroma_max, cfg.memories)
            chroma = ChromaAlternative(work / "chroma")

            async def close_chroma() -> None:
                chroma.close()

            closers.append(close_chroma)
            chosen.append((chroma, cap, ticker("Chroma", cap)))
    return chosen, skipped, closers


async def _empty_server(settings: Settings, qdrant: QdrantSettings, embedder: TimedEmbedder, tenants: int) -> None:
    """Delete the bench's points from the server (its empty collections keep the bench prefix)."""
    from memory.store.server import ServerStore

    key = qdrant.api_key.get_secret_value() if qdrant.api_key else None
    store = await ServerStore.open(url=qdrant.url, api_key=key, prefix=qdrant.prefix,
                                   embedder_name=embedder.name, dim=embedder.dim)
    try:
        for t in range(tenants):
            for layer in ("facts", "summaries"):
                await store.delete(layer, Scope(tenant=tenant_name(t)))
    finally:
        await store.close()


def _table(result: dict[str, Any]) -> None:
    console = Console()
    h = result["heyan"]
    ing = h["ingest"]
    console.print(f"[bold]Heyan ({h['store']})[/]: ingest {ing['memories_per_s']:.0f} memories/s "
                  f"(embedding {ing['embed_share']:.0%} of it), peak RSS {h['peak_rss_mb']:.0f} MiB")
    table = Table(title="recall latency, ms, incl. the query's embedding")
    for col in ("store", "memories", "recall p50", "recall p95", "recall p99", "no-feedback p95", "dense p50",
                "dense p95",
                "found@k", "RSS growth/1k MiB", "anon KB/memory", "file KB/memory", "disk/1k MiB"):
        table.add_column(col, justify="right")
    rows = [(f"heyan {h['store']}", c) for c in h["checkpoints"]]
    rows += [(name, c) for name, alt in result["alternatives"].items() for c in alt.get("checkpoints", [])]
    for name, c in rows:
        rec = c.get("recall")
        plain = c.get("recall_feedback_off")
        table.add_row(name, f"{c['memories']:,}", *(f"{rec[k]:.2f}" if rec else "-" for k in ("p50_ms", "p95_ms", "p99_ms")),
                      f"{plain['p95_ms']:.2f}" if plain else "-", f"{c['dense']['p50_ms']:.2f}", f"{c['dense']['p95_ms']:.2f}", str(c.get("found_at_k", "-")),
                      str(c.get("rss_growth_per_1k_mb", "-")), str(c.get("anon_per_memory_kb", "-")),
                      str(c.get("file_per_memory_kb", "-")), str(c.get("disk_per_1k_mb", "-")))
    console.print(table)
    if "engine" in result:
        e = result["engine"]
        for run in ("embedded", "engine"):  # the shipped shape first
            r = e[run]
            console.print(f"{run}: per message p50 {r['message']['p50_ms']:.2f} / p95 {r['message']['p95_ms']:.2f} ms; "
                          f"per reply p50 {r['reply']['p50_ms']:.2f} / p95 {r['reply']['p95_ms']:.2f} ms")
            if "job_pickup" in r:
                pick = r["job_pickup"]
                console.print(f"{run}: job pickup p50 {pick['p50_ms']:.1f} / p95 {pick['p95_ms']:.1f} ms "
                              f"over {pick['n']} jobs")
    for name, alt in result["alternatives"].items():
        if "skipped" in alt:
            console.print(f"{name}: skipped ({alt['skipped']})")
    for row in result["ratios"]:
        console.print(f"{row['store']} at {row['memories']:,}: " + ", ".join(
            f"{k} {v}" for k, v in row.items() if k.endswith("_x")))
    for name, t in result["targets"].items():
        console.print(f"target {name}: {t['value']} (target {t['target']}) {'met' if t['met'] else 'MISSED'}")


def load(
    memories: Annotated[int, typer.Option("--memories", min=1, max=5_000_000, help="memories to build")] = 100_000,
    tenants: Annotated[int, typer.Option("--tenants", min=1, help="tenants they are spread over")] = 100,
    store: Annotated[str, typer.Option("--store", help="edge (embedded) or server (HEYAN_QDRANT_URL)")] = "edge",
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON object")] = False,
    plot: Annotated[Path | None, typer.Option("--plot", help="write recall-latency.png into this folder")] = None,
    queries: Annotated[int, typer.Option("--queries", min=1, help="recall queries per checkpoint")] = 200,
    messages: Annotated[int, typer.Option("--messages", min=0, help="messages per engine run (0: skip)")] = 500,
    local_max: Annotated[int, typer.Option("--local-max", min=1, help="memories given to local mode")] = 50_000,
    chroma_max: Annotated[int, typer.Option("--chroma-max", min=1, help="memories given to Chroma")] = 100_000,
    compare: Annotated[str, typer.Option("--compare", help="local,chroma | local | chroma | none")] = "local,chroma",
    batch: Annotated[int, typer.Option("--batch", min=1, help="memories per write batch")] = 256,
) -> None:
    """Ingest rate, recall latency p50/p95/p99 at N memories, engine overhead, RSS and disk — and the
    same data in qdrant-client's local mode and Chroma, as ratios."""
    from adapters.bench.scale.load_stores import LoadConfig
    from bot.config.settings import SettingsError, load_settings

    if store not in ("edge", "server"):
        raise typer.BadParameter(f"--store must be edge or server; got {store!r}")
    chosen = tuple(c.strip() for c in compare.split(",") if c.strip() and c.strip() != "none")
    unknown = set(chosen) - {"local", "chroma"}
    if unknown:
        raise typer.BadParameter(f"--compare takes local, chroma or none; got {', '.join(sorted(unknown))}")
    if plot is not None and plots_missing():
        raise typer.BadParameter(str(plots_missing()))
    try:
        settings = load_settings()
    except SettingsError as exc:
        raise typer.BadParameter(str(exc)) from None
    cfg = LoadConfig(memories=memories, tenants=min(tenants, memories), store=store,  # type: ignore[arg-type]
                     batch=batch, queries=queries, local_max=local_max, local_queries=min(20, queries),
                     chroma_max=chroma_max, chroma_queries=min(100, queries), messages=messages, compare=chosen)
    try:
        result = asyncio.run(run_load(cfg, settings))
    except SettingsError as exc:
        raise typer.BadParameter(str(exc)) from None
    if plot is not None:
        result["plots"] = [str(p) for p in plot_load(result, plot)]
    if as_json:
        print(json.dumps(result, ensure_ascii=False))
    else:
        _table(result)
