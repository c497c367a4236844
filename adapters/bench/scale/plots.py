"""PNG plots for ``--plot DIR``: recall latency against memory count for each store, and prompt tokens
per reply against conversation length.

matplotlib is in the optional ``bench`` extra and is imported only when a plot is asked for, with
the non-interactive Agg backend (no display on servers).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["plot_cost", "plot_load", "plots_missing"]


def plots_missing() -> str | None:
    """Why plots cannot be drawn here (None when they can)."""
    import importlib.util

    if importlib.util.find_spec("matplotlib") is None:
        return "matplotlib is not installed: pip install -e '.[bench]'"
    return None


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_load(result: dict[str, Any], out: Path) -> list[Path]:
    """recall-latency.png: p50 and p95 (incl. the query's embedding) against memories, log-log."""
    plt = _pyplot()
    out.mkdir(parents=True, exist_ok=True)
    fig, ax = plt.subplots(figsize=(11, 5.5), dpi=100)
    heyan = result["heyan"]
    series: list[tuple[str, list[dict[str, Any]], str]] = [
        (f"Heyan {heyan['store']} — recall (hybrid + feedback)", heyan["checkpoints"], "recall"),
        (f"Heyan {heyan['store']} — dense top-10", heyan["checkpoints"], "dense"),
    ]
    for name, alt in result["alternatives"].items():
        if "checkpoints" not in alt:
            continue
        if any("recall" in c for c in alt["checkpoints"]):
            series.append((f"{name} — recall (Heyan's retriever)", alt["checkpoints"], "recall"))
        series.append((f"{name} — dense top-10", alt["checkpoints"], "dense"))
    for label, points, key in series:
        xs = [p["memories"] for p in points if key in p]
        p50 = [p[key]["p50_ms"] for p in points if key in p]
        p95 = [p[key]["p95_ms"] for p in points if key in p]
        line = ax.plot(xs, p50, marker="o", label=f"{label} p50")[0]
        ax.plot(xs, p95, marker="x", linestyle="--", color=line.get_color(), alpha=0.6, label=f"{label} p95")
    ax.axhline(5.0, color="grey", linewidth=0.8, linestyle=":")
    ax.text(ax.get_xlim()[0] if ax.get_xlim()[0] > 0 else 1000, 5.2, "target p95 5 ms", color="grey", fontsize=8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(f"memories in the store ({result['config']['tenants']} tenants)")
    ax.set_ylabel("ms per query, incl. the query's embedding")
    ax.set_title("Recall latency against memory count (heyan bench load)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    fig.tight_layout()
    path = out / "recall-latency.png"
    fig.savefig(path)
    plt.close(fig)
    return [path]


def plot_cost(result: dict[str, Any], out: Path) -> list[Path]:
    """prompt-tokens.png: prompt tokens of each reply against the message it answered."""
    plt = _pyplot()
    out.mkdir(parents=True, exist_ok=True)
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=110)
    xs = [r["message"] for r in result["replies"]]
    ys = [r["prompt_tokens"] for r in result["replies"]]
    ax.plot(xs, ys, marker=".", linewidth=1, label="reply prompt (estimated tokens)")
    budget = result["config"]["context_tokens"]
    ax.axhline(budget, color="grey", linestyle=":", linewidth=0.8)
    ax.text(xs[0] if xs else 0, budget * 1.01, f"HEYAN_CONTEXT_TOKENS = {budget}", color="grey", fontsize=8)
    ax.set_xlabel("message number in the dispute")
    ax.set_ylabel("prompt tokens per reply")
    ax.set_ylim(0, budget * 1.15)
    ax.set_title("Prompt tokens per reply against conversation length (heyan bench cost)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    path = out / "prompt-tokens.png"
    fig.savefig(path)
    plt.close(fig)
    return [path]
