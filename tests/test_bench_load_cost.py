"""Issue 14: ``heyan bench load`` and ``heyan bench cost`` run (tiny N) and report what they promise.

Speed lives in the benches, never here: these check only that each phase ran and its keys are
there. Chroma and matplotlib are the optional ``bench`` extra: their paths are tested when it is
installed, and the bench says it skipped Chroma when it is not.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from adapters.bench import app as bench_app
from adapters.bench.synth import dispute, memory_at, tenant_name, tenant_size

#: Settings the benches must not inherit from the machine running the suite.
CLEAN_ENV = {"HEYAN_QDRANT_URL": "", "HEYAN_REDIS_URL": "", "HEYAN_LLM_BASE_URL": "", "HEYAN_LLM_API_KEY": "",
             "HEYAN_STORE": "auto"}
ROOT = Path(__file__).resolve().parent.parent
HAS_BENCH_EXTRA = importlib.util.find_spec("chromadb") is not None and importlib.util.find_spec("matplotlib") is not None


def _run(*args: str) -> dict[str, Any]:
    result = CliRunner().invoke(bench_app, list(args), env=CLEAN_ENV)
    assert result.exit_code == 0, result.output
    out: dict[str, Any] = json.loads(result.stdout)
    return out


def test_synthetic_memories_are_varied_and_bilingual() -> None:
    facts = [memory_at(i, 10).fact for i in range(2000)]
    texts = {f.embed_text() for f in facts}
    assert len(texts) > 1900  # not one repeated string
    assert {f.lang for f in facts} == {"zh", "en"}
    assert len({f.kind for f in facts}) == 6 and len({f.tenant for f in facts}) == 10
    assert memory_at(1234, 10) == memory_at(1234, 10)  # rebuilt from its index alone
    for n, tenants in ((300, 3), (2000, 10), (3000, 100), (50, 7)):
        counted = Counter(memory_at(i, tenants).fact.tenant for i in range(n))
        assert [counted[tenant_name(k)] for k in range(tenants)] == [tenant_size(k, n, tenants) for k in range(tenants)]


def test_synthetic_dispute_has_labels_and_mentions() -> None:
    lines = dispute(200)
    assert [ln.index for ln in lines if ln.mention] == list(range(10, 201, 10))
    assert 20 <= sum(ln.fact_bearing for ln in lines) <= 60
    assert {ln.lang for ln in lines} == {"zh", "en"}


def test_bench_load_reports_every_phase() -> None:
    out = _run("load", "--memories", "300", "--tenants", "3", "--json", "--messages", "20", "--queries", "10",
               "--compare", "local")
    heyan = out["heyan"]
    assert heyan["store"] == "edge" and heyan["ingest"]["memories"] == 300
    assert heyan["ingest"]["memories_per_s"] > 0 and 0 < heyan["ingest"]["embed_share"] <= 1
    (point,) = heyan["checkpoints"]
    assert point["memories"] == 300
    for key in ("recall", "recall_feedback_off", "dense", "dense_store_only", "query_embed"):
        assert set(point[key]) == {"n", "p50_ms", "p95_ms", "p99_ms", "mean_ms"}
    assert point["recall"]["n"] == 10 and 0 <= point["found_at_k"] <= 1
    assert point["disk_per_1k_mb"] > 0 and "rss_growth_per_1k_mb" in point and heyan["peak_rss_mb"] > 0
    engine = out["engine"]
    assert engine["tenant_memories"] == 108  # 16-memory chunks dealt round-robin: 7 of the 19 chunks
    for run in ("engine", "embedded"):
        assert engine[run]["message"]["n"] == 18 and engine[run]["reply"]["n"] == 2
    # the embedded run lets its jobs finish and says how long each waited to be picked (issue 31)
    pickup = engine["embedded"]["job_pickup"]
    assert pickup["n"] > 0 and set(pickup) == {"n", "p50_ms", "p95_ms", "p99_ms", "mean_ms"}
    assert "job_pickup" not in engine["engine"]
    local = out["alternatives"]["local_mode"]
    assert local["cap"] == 300 and local["checkpoints"][0]["recall"]["n"] == 10
    assert "chroma" not in out["alternatives"]
    (ratio,) = out["ratios"]
    assert ratio["store"] == "local_mode" and ratio["dense_p50_x"] > 0 and "recall_p95_x" in ratio
    assert set(out["targets"]) == {"recall_p95_ms", "local_mode_speedup", "engine_message_p95_ms"}


def test_bench_load_without_chroma_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    load_module = sys.modules["adapters.bench.scale.load"]  # the package exports the command under this name
    monkeypatch.setattr(load_module, "chroma_missing", lambda: "chromadb is not installed: pip install -e '.[bench]'")
    out = _run("load", "--memories", "50", "--tenants", "2", "--json", "--messages", "0", "--queries", "3",
               "--compare", "chroma")
    assert out["alternatives"]["chroma"] == {"skipped": "chromadb is not installed: pip install -e '.[bench]'"}
    assert "engine" not in out and out["ratios"] == []


@pytest.mark.skipif(not HAS_BENCH_EXTRA, reason="the optional bench extra (chromadb, matplotlib) is not installed")
def test_bench_load_with_chroma_and_a_plot(tmp_path: Path) -> None:
    out = _run("load", "--memories", "120", "--tenants", "2", "--json", "--messages", "0", "--queries", "5",
               "--compare", "chroma", "--plot", str(tmp_path))
    chroma = out["alternatives"]["chroma"]
    assert chroma["cap"] == 120 and chroma["checkpoints"][0]["dense"]["n"] == 5
    assert chroma["ingest"]["with_embedding_per_s"] > 0
    assert (tmp_path / "recall-latency.png").read_bytes()[:4] == b"\x89PNG"


def test_bench_load_refuses_bad_options() -> None:
    result = CliRunner().invoke(bench_app, ["load", "--store", "cloud"], env=CLEAN_ENV)
    assert result.exit_code == 2 and "edge or server" in result.output
    result = CliRunner().invoke(bench_app, ["load", "--compare", "pinecone"], env=CLEAN_ENV)
    assert result.exit_code == 2 and "pinecone" in result.output
    result = CliRunner().invoke(bench_app, ["load", "--store", "server", "--memories", "10", "--messages", "0"],
                                env=CLEAN_ENV)
    assert result.exit_code == 2 and "HEYAN_QDRANT_URL" in result.output


def test_bench_cost_reports_tokens_calls_and_trigger_recall(tmp_path: Path) -> None:
    args = ["cost", "--messages", "60", "--json"]
    if HAS_BENCH_EXTRA:
        args += ["--plot", str(tmp_path)]
    out = _run(*args)
    assert out["config"]["messages"] == 60
    assert set(out["prompt_tokens_at"]) == {"10"} and out["prompt_tokens_at"]["10"] > 0
    assert [r["message"] for r in out["replies"]] == [10, 20, 30, 40, 50, 60]
    assert out["extraction_calls_per_100"] > 0
    assert out["fact_bearing_messages"] > 0 and 0 < out["trigger_recall"] <= 1
    assert out["extraction_coverage"] == 1.0  # the final flush sends every waiting message
    by_tier = out["llm"]["by_tier"]
    assert by_tier["reply"]["calls"] == 6 and by_tier["fast"]["calls"] > 0
    assert set(out["targets"]) == {"extraction_calls_per_100", "trigger_recall"}
    if HAS_BENCH_EXTRA:
        assert (tmp_path / "prompt-tokens.png").read_bytes()[:4] == b"\x89PNG"


async def test_bench_load_against_a_qdrant_server(tmp_path: Path) -> None:
    """``--store server`` through the real qdrant-client and HTTP (the stand-in: the code path, not speed)."""
    import asyncio
    import os

    from tests.qdrant_standin import QdrantStandIn

    async with QdrantStandIn() as url:
        env = {**{k: v for k, v in os.environ.items() if not k.startswith("HEYAN_")},
               "HEYAN_QDRANT_URL": url, "PYTHONPATH": str(ROOT)}
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "adapters.cli.app", "bench", "load", "--store", "server", "--memories", "60",
            "--tenants", "2", "--messages", "10", "--queries", "3", "--compare", "none", "--json",
            cwd=tmp_path, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        out, err = await asyncio.wait_for(proc.communicate(), timeout=300)
        assert proc.returncode == 0, err.decode()[-2000:]
        result = json.loads(out)
        assert result["heyan"]["store"] == "server" and result["heyan"]["checkpoints"][0]["recall"]["n"] == 3
        assert "disk_mb" not in result["heyan"]["checkpoints"][0]  # the server's disk is not ours to read
        assert result["engine"]["embedded"]["reply"]["n"] == 1
