"""``heyan bench cost``: what a long dispute costs in LLM calls and tokens.

A synthetic dispute (``--messages``, default 1,000) is replayed through the real runtime against a
recording stand-in LLM (``adapters.bench.scale.llm_stub``), jobs drained before each reply as live. Reported:
reply prompt tokens at 10/100/1,000 messages, extraction calls per 100, trigger recall and precision,
coverage, and calls and tokens per task and tier.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import statistics
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from adapters.bench.scale.plots import plot_cost, plots_missing
from adapters.bench.synth import dispute
from memory.models import Scope

# The runtime and the settings are imported where they are used: every `heyan` command imports
# this module (to register `heyan bench cost`), and the runtime brings arq, redis and the stores.
if TYPE_CHECKING:
    from adapters.bench.scale.llm_stub import RecordingLLM
    from bot.config.settings import Settings

__all__ = ["cost", "run_cost"]

TENANT = "console:bench-cost"
SESSION = "long-dispute"
REPLY_MODEL = "bench-reply"
FAST_MODEL = "bench-fast"
#: Targets (reported, never enforced).
TARGET_SPREAD = 0.10
TARGET_EXTRACT_PER_100 = 25.0
TARGET_TRIGGER_RECALL = 0.98


def _settings(work: Path, llm: RecordingLLM, base: Settings) -> Settings:
    from bot.config.settings import LimitSettings, LLMSettings, QdrantSettings, RedisSettings, load_settings

    return load_settings(
        data_dir=work / "data", store="edge", embeddings=base.embeddings, qdrant=QdrantSettings(url=None),
        redis=RedisSettings(url=None), limits=LimitSettings(enabled=False), jobs=base.jobs,
        context_tokens=base.context_tokens, window_size=base.window_size,
        llm=LLMSettings(base_url=llm.base_url, api_key="bench", model=REPLY_MODEL, fast_model=FAST_MODEL,
                        max_attempts=1),
    )


def _at(replies: list[dict[str, int]], message: int) -> int | None:
    return next((r["prompt_tokens"] for r in replies if r["message"] == message), None)


async def run_cost(messages: int, base: Settings, progress: Progress | None = None) -> dict[str, Any]:
    """Replay the dispute and return the report as plain data."""
    from adapters.bench.scale.llm_stub import serve_recording_llm
    from adapters.runtime.composition import Runtime
    from bot.extraction.triggers import fact_bearing
    from bot.models import Message

    lines = dispute(messages)
    work = Path(tempfile.mkdtemp(prefix="heyan-bench-cost-"))
    try:
        with serve_recording_llm() as llm:
            settings = _settings(work, llm, base)
            rt = await Runtime.start(settings)
            replies: list[dict[str, int]] = []
            triggered: set[int] = set()
            probe: dict[str, list[float]] = {"first": [], "again": []}
            try:
                task = progress.add_task("replaying the dispute", total=messages) if progress else None
                start = datetime.now(UTC) - timedelta(hours=messages // 60 + 1)
                for line in lines:
                    llm.at_message = line.index
                    msg = Message(id=f"m{line.index:05d}", scope=Scope(tenant=TENANT, session=SESSION, user=line.user_id),
                                  author_name=line.name, text=line.text, ts=start + timedelta(minutes=line.index),
                                  mention=line.mention)
                    if fact_bearing(msg):
                        triggered.add(line.index)
                    await rt.engine.observe(msg)
                    if line.mention:
                        await rt.drain(timeout=300)
                        before = len(llm.of("reply"))
                        await rt.engine.respond(msg)
                        new = llm.of("reply")[before:]
                        if new:
                            replies.append({"message": line.index, "prompt_tokens": new[-1].prompt_tokens})
                        await _probe_cache(rt, msg, probe)
                    if progress and task is not None:
                        progress.advance(task)
                llm.at_message = messages + 1
                await rt.engine.flush(Scope(tenant=TENANT, session=SESSION))
                await rt.drain(timeout=300)
                cache = rt.memory.retriever.recall_cache
                cached = _cache_report(cache, probe)
            finally:
                await rt.stop()
            result = _report(lines, llm, replies, triggered, settings)
            result["recall_cache"] = cached
            return result
    finally:
        shutil.rmtree(work, ignore_errors=True)


async def _probe_cache(rt: Any, msg: Any, probe: dict[str, list[float]]) -> None:
    """The question of a reply asked twice more at once (a second member asking the same, a retried
    mention): the first pays for a recall (the reply's own queries were the rewrite's), the second
    is what the recall cache saves."""
    cache = rt.memory.retriever.recall_cache
    before = (cache.hits, cache.misses) if cache is not None else (0, 0)
    for name in ("first", "again"):
        started = time.perf_counter()
        await rt.memory.recall(msg.scope.narrow(), [msg.text])
        probe[name].append((time.perf_counter() - started) * 1000)
    if cache is not None:
        probe.setdefault("probe_hits", []).append(cache.hits - before[0])
        probe.setdefault("probe_misses", []).append(cache.misses - before[1])


def _cache_report(cache: Any, probe: dict[str, list[float]]) -> dict[str, Any]:
    """Hit rate over every recall of the run (replies and probes) and the work a hit saved."""
    if cache is None:
        return {"enabled": False}
    first, again = probe["first"], probe["again"]
    reply_hits = cache.hits - int(sum(probe.get("probe_hits", [])))
    reply_lookups = reply_hits + cache.misses - int(sum(probe.get("probe_misses", [])))
    return {
        "enabled": True, "hits": cache.hits, "misses": cache.misses, "stale": cache.stale,
        "hit_rate": round(cache.hit_rate, 3),
        # the replies' own recalls (the rewrite's queries), without the probes
        "replies_hit_rate": round(reply_hits / reply_lookups, 3) if reply_lookups else None,
        "probe_ms": {"miss_p50": round(statistics.median(first), 3) if first else None,
                     "hit_p50": round(statistics.median(again), 3) if again else None},
        "saved_ms_per_hit": round(statistics.fmean(first) - statistics.fmean(again), 3) if first and again else None,
    }


def _report(lines: list[Any], llm: RecordingLLM, replies: list[dict[str, int]], triggered: set[int],
            settings: Settings) -> dict[str, Any]:
    n = len(lines)
    bearing = [ln.index for ln in lines if ln.fact_bearing]
    reached: dict[str, int] = {}
    for record in llm.of("extract"):
        # the newest message of a batch is the one whose arrival sent it to extraction
        sent_at = max((int(mid[1:]) for mid in record.message_ids if mid[1:].isdigit()), default=record.at_message)
        for mid in record.message_ids:
            reached.setdefault(mid, sent_at)
    lags = [reached[f"m{i:05d}"] - i for i in bearing if f"m{i:05d}" in reached]
    late = [r["prompt_tokens"] for r in replies if r["message"] >= 100]
    spread = (max(abs(t - statistics.median(late)) for t in late) / statistics.median(late)) if late else None
    by_task: dict[str, dict[str, int]] = {}
    by_tier: dict[str, dict[str, int]] = {}
    for record in llm.records:
        tier = "reply" if record.model == REPLY_MODEL else "fast"
        for bucket in (by_task.setdefault(record.task, {}), by_tier.setdefault(tier, {})):
            bucket["calls"] = bucket.get("calls", 0) + 1
            bucket["prompt_tokens"] = bucket.get("prompt_tokens", 0) + record.prompt_tokens
            bucket["completion_tokens"] = bucket.get("completion_tokens", 0) + record.completion_tokens
    extract_calls = by_task.get("extract", {}).get("calls", 0)
    hits = len(triggered & set(bearing))
    result: dict[str, Any] = {
        "config": {"messages": n, "context_tokens": settings.context_tokens, "window_size": settings.window_size,
                   "batch_turns": settings.jobs.batch_turns, "summary_turns": settings.jobs.summary_turns,
                   "idle_seconds": settings.jobs.idle_seconds},
        "prompt_tokens_at": {str(m): _at(replies, m) for m in (10, 100, 1000) if m <= n},
        "reply_prompt_spread_from_100": round(spread, 3) if spread is not None else None,
        "extraction_calls_per_100": round(extract_calls * 100 / n, 2),
        "fact_bearing_messages": len(bearing),
        "trigger_recall": round(hits / len(bearing), 3) if bearing else None,
        "trigger_precision": round(hits / len(triggered), 3) if triggered else None,
        "extraction_coverage": round(len(lags) / len(bearing), 3) if bearing else None,
        "extraction_lag_messages": {"p50": statistics.median(lags) if lags else None,
                                    "max": max(lags) if lags else None},
        "llm": {"by_task": by_task, "by_tier": by_tier},
        "replies": replies,
    }
    result["targets"] = _targets(result)
    return result


def _targets(r: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if r["reply_prompt_spread_from_100"] is not None:
        out["prompt_spread_from_100"] = {"value": r["reply_prompt_spread_from_100"], "target": TARGET_SPREAD,
                                         "met": r["reply_prompt_spread_from_100"] <= TARGET_SPREAD}
    out["extraction_calls_per_100"] = {"value": r["extraction_calls_per_100"], "target": TARGET_EXTRACT_PER_100,
                                       "met": r["extraction_calls_per_100"] <= TARGET_EXTRACT_PER_100}
    if r["trigger_recall"] is not None:
        out["trigger_recall"] = {"value": r["trigger_recall"], "target": TARGET_TRIGGER_RECALL,
                                 "met": r["trigger_recall"] >= TARGET_TRIGGER_RECALL}
    return out


def _print(result: dict[str, Any]) -> None:
    console = Console()
    table = Table(title=f"heyan bench cost: {result['config']['messages']} messages")
    table.add_column("figure")
    table.add_column("value", justify="right")
    for m, tokens in result["prompt_tokens_at"].items():
        table.add_row(f"reply prompt tokens at message {m}", str(tokens))
    for key in ("reply_prompt_spread_from_100", "extraction_calls_per_100", "fact_bearing_messages", "trigger_recall",
                "trigger_precision", "extraction_coverage"):
        table.add_row(key.replace("_", " "), str(result[key]))
    lag = result["extraction_lag_messages"]
    table.add_row("messages until a fact reaches extraction (p50 / max)", f"{lag['p50']} / {lag['max']}")
    for task, row in sorted(result["llm"]["by_task"].items()):
        table.add_row(f"{task}: calls / prompt tokens", f"{row['calls']} / {row['prompt_tokens']}")
    console.print(table)
    for name, t in result["targets"].items():
        console.print(f"target {name}: {t['value']} (target {t['target']}) {'met' if t['met'] else 'MISSED'}")


def cost(
    messages: Annotated[int, typer.Option("--messages", min=10, max=100_000, help="messages in the dispute")] = 1000,
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON object")] = False,
    plot: Annotated[Path | None, typer.Option("--plot", help="write prompt-tokens.png into this folder")] = None,
) -> None:
    """Prompt tokens per reply as a dispute grows, extraction calls per 100 messages and trigger recall,
    against a recording stand-in LLM."""
    from bot.config.settings import SettingsError, load_settings

    if plot is not None and plots_missing():
        raise typer.BadParameter(str(plots_missing()))
    try:
        base = load_settings()
    except SettingsError as exc:
        raise typer.BadParameter(str(exc)) from None
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        console=Console(stderr=True))
    with progress:
        result = asyncio.run(run_cost(messages, base, progress))
    if plot is not None:
        result["plots"] = [str(p) for p in plot_cost(result, plot)]
    if as_json:
        print(json.dumps(result, ensure_ascii=False))
    else:
        _print(result)
