"""``heyan bench relations``: what one hop through relations adds to recall.

The command only declares its options here; the run (``adapters.bench.quality.relations_run``, which
documents what is measured) is imported when it runs, so ``heyan --help`` loads no store and no
embedder (tests/test_cli_startup.py).
"""

from __future__ import annotations

from typing import Annotated

import typer


def relations(
    split: Annotated[str, typer.Option("--split", help="dev, held-out or all")] = "dev",
    decay: Annotated[float | None, typer.Option("--decay", min=0.0, max=1.0,
                                                help="hop score share (default: memory.recall.hops)")] = None,
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="facts one hop may add")] = None,
    k: Annotated[int, typer.Option("--k", min=1)] = 5,
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON object instead of tables")] = False,
) -> None:
    """R@k with and without the one-hop recall expansion, on questions that need the hop (zh and en)."""
    from adapters.bench.quality.relations_run import run

    run(split, decay, limit, k, as_json)
