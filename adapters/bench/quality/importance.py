"""``heyan bench importance``: what weighting and forgetting do over months of a community's disputes.

The command only declares its options here; the replay (``adapters.bench.quality.importance_run``, which
documents what is measured) is imported when it runs, so ``heyan --help`` loads no store, no redis and
no tenant settings (tests/test_cli_startup.py).
"""

from __future__ import annotations

from typing import Annotated

import typer


def importance(
    seed: Annotated[list[int] | None, typer.Option("--seed", help="community seed (1: dev, 2: held out)")] = None,
    variant: Annotated[list[str] | None, typer.Option("--variant", help="only these variants (by name)")] = None,
    months: Annotated[int, typer.Option("--months", min=1)] = 6,
    disputes: Annotated[int, typer.Option("--disputes", min=5)] = 60,
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON object instead of tables")] = False,
) -> None:
    """R@k and prompt tokens over a long synthetic community history, with and without weighting and forgetting."""
    from adapters.bench.quality.importance_run import run

    run(seed, variant, months, disputes, as_json)
