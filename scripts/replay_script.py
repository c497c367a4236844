"""A long dispute script for `heyan chat --script`, and the job pickup of its replay
(docs/BENCHMARKS.md, "Job pickup").

    .venv/bin/python scripts/replay_script.py 1000 > /tmp/dispute_1000.jsonl
    HEYAN_DATA_DIR=$(mktemp -d) .venv/bin/python scripts/replay_script.py 1000 --run   # pickup ms
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import time
from datetime import timedelta
from typing import Any

from adapters.bench.synth import EPOCH, dispute


def lines(n: int) -> list[dict[str, Any]]:
    return [{"tenant": "console:bench", "session": "bench-thread", "user_id": line.user_id, "user_name": line.name,
             "text": line.text, "ts": (EPOCH + timedelta(seconds=45 * line.index)).isoformat(),
             **({"mention": True} if line.mention else {})} for line in dispute(n)]


def measure(n: int) -> None:
    import tempfile
    from pathlib import Path

    from arq.utils import timestamp_ms
    from arq.worker import Worker
    from rich.console import Console

    from adapters.chat.console import parse_script
    from adapters.chat.replay import replay
    from bot.config.settings import load_settings

    picked: list[int] = []  # due -> started
    woken: list[int] = []  # due -> the read of the queue that found it
    kinds: dict[str, list[int]] = {}
    run_job, poll_iteration = Worker.run_job, Worker._poll_iteration
    read_at = [0]

    async def timed_read(self: Worker) -> None:  # any arq worker, the doorbell's or not
        read_at[0] = timestamp_ms()
        await poll_iteration(self)

    async def timed(self: Worker, job_id: str, score: int) -> None:
        picked.append(max(0, timestamp_ms() - score))
        woken.append(max(0, read_at[0] - score))
        kinds.setdefault(job_id.split(":")[0], []).append(picked[-1])
        await run_job(self, job_id, score)

    Worker.run_job = timed  # type: ignore[method-assign]
    Worker._poll_iteration = timed_read  # type: ignore[method-assign]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "script.jsonl"
        path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines(n)), encoding="utf-8")
        messages = parse_script(path, warn=print)
        with open(os.devnull, "w", encoding="utf-8") as sink:
            started = time.perf_counter()
            asyncio.run(replay(load_settings(), messages, console=Console(file=sink), as_json=False))
            wall = time.perf_counter() - started

    def p(ms: list[int], q: int) -> float:
        return round(statistics.quantiles(ms, n=100, method="inclusive")[q - 1], 1) if len(ms) > 1 else float(sum(ms))

    print(json.dumps({"lines": n, "wall_s": round(wall, 1), "jobs": len(picked),
                      "pickup_p50_ms": p(picked, 50), "pickup_p95_ms": p(picked, 95), "pickup_max_ms": max(picked, default=0),
                      "wake_p50_ms": p(woken, 50), "wake_p95_ms": p(woken, 95), "wake_max_ms": max(woken, default=0),
                      "pickup_by_job": {k: {"n": len(v), "p50_ms": p(v, 50), "p95_ms": p(v, 95)} for k, v in kinds.items()}}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("n", nargs="?", type=int, default=1000, help="lines (default 1000)")
    ap.add_argument("--run", action="store_true", help="replay it here and print wall time and job pickup")
    args = ap.parse_args()
    if args.run:
        measure(args.n)
        return
    for x in lines(args.n):
        print(json.dumps(x, ensure_ascii=False))


if __name__ == "__main__":
    main()
