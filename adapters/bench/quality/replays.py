"""Replays of dispute scripts for ``heyan bench truth``, several in one ``heyan`` process.

Each script runs as ``heyan --now <now> chat --script <file> --json`` would, into its own empty data dir,
and what ``heyan memory list --json`` would then print is read on the same runtime; one child process
serves every script of a run: it pays Python's start-up, the imports and the embedding model once.

The child runs ``main`` with a JSON list of ``{"script", "now", "data_dir"}`` on
stdin; it prints one JSON line per script: ``{"replies": [...], "facts": [...]}``, or ``{"error": ...}``.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    from adapters.runtime.composition import Runtime

__all__ = ["Replay", "replay_many"]

#: The replies of a script (the text of each, in script order) and the facts it left.
Replay = tuple[list[str], list[dict[str, Any]]]
_ROOT = Path(__file__).resolve().parents[3]


def replay_many(items: Sequence[tuple[Path, str, Path]], timeout: float = 1800) -> list[Replay]:
    """Replay each ``(script, now, data_dir)`` in one ``heyan`` process, in order."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEYAN_") or k.startswith("HEYAN_LLM")}
    env["HEYAN_TIMEZONE"] = "UTC"
    if "HEYAN_ENCRYPTION_KEYS" in os.environ:
        env["HEYAN_ENCRYPTION_KEYS"] = os.environ["HEYAN_ENCRYPTION_KEYS"]
    asked = json.dumps([{"script": str(s), "now": now, "data_dir": str(d)} for s, now, d in items])
    child = "from adapters.bench.quality.replays import main; main()"  # not `-m`: adapters.bench imports this module
    out = subprocess.run([sys.executable, "-c", child], input=asked, env=env, cwd=_ROOT,
                         capture_output=True, text=True, timeout=timeout)
    results = [json.loads(x) for x in out.stdout.splitlines() if x.startswith("{")]
    for (script, _, _), res in zip(items, results, strict=False):
        if "error" in res:
            raise RuntimeError(f"replaying {script.name} failed: {res['error']}: {out.stderr.strip()[-2000:]}")
    if out.returncode != 0 or len(results) != len(items):
        raise RuntimeError(f"the replay process failed: {out.stderr.strip()[-2000:]}")
    return [(r["replies"], r["facts"]) for r in results]


def _command(body: Any, **kwargs: Any) -> str:
    """What a ``heyan`` command prints to stdout (its error line goes to stderr, as from the command)."""
    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf):
            body(**kwargs)
    except typer.Exit as exc:
        if exc.exit_code:
            raise RuntimeError(f"the replay ended with status {exc.exit_code}") from None
    return buf.getvalue()


def _one(script: Path, now: str, data_dir: str) -> Replay:
    """``heyan --now <now> chat --script <script> --json``, then what ``heyan memory list --json`` would
    print, on the replay's own runtime (a second runtime only paid for opening the same store again).
    A repeated id is dropped without a word."""
    from adapters.chat.console import ScriptError, parse_script
    from adapters.chat.replay import replay
    from adapters.cli.cli_common import console, parse_time, run
    from adapters.cli.memory_cli import as_records, listed
    from memory import clock
    from memory.models import Fact, utcnow

    try:
        messages = parse_script(script, warn=lambda line: None)
    except ScriptError as exc:
        raise RuntimeError(f"chat ended: {exc}") from None
    facts: list[Fact] = []

    async def keep(rt: Runtime) -> None:
        facts.extend(await listed(rt))

    os.environ["HEYAN_DATA_DIR"] = data_dir
    before = clock.offset()
    when = parse_time(now)
    assert when is not None
    clock.set_now(when)
    try:
        said = _command(lambda: run(lambda s: replay(s, messages, console=console, as_json=True, after=keep)))
        records = as_records(facts, utcnow())
    finally:
        clock.set_offset(before)
    replies = [json.loads(x)["text"] for x in said.splitlines() if x.startswith("{") and "memory_ids" in x]
    return replies, records  # JSON-ready already (fact_view), as the command would print them


def main() -> None:
    for item in json.loads(sys.stdin.read()):
        try:
            replies, facts = _one(Path(item["script"]), item["now"], item["data_dir"])
            line = {"replies": replies, "facts": facts}
        except RuntimeError as exc:
            line = {"error": str(exc)}
        print(json.dumps(line, ensure_ascii=False), flush=True)
