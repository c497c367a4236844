"""``heyan bench``: measurements too slow or too noisy for the test suite; the numbers live in
docs/BENCHMARKS.md, each with the command that produced it."""

from __future__ import annotations

from adapters.bench.quality.answers import answers
from adapters.bench.quality.escalation import escalation
from adapters.bench.quality.extraction import extraction
from adapters.bench.quality.importance import importance
from adapters.bench.quality.poisoning import poisoning
from adapters.bench.quality.relations import relations
from adapters.bench.quality.retrieval import retrieval
from adapters.bench.quality.truth import truth
from adapters.bench.scale.cost import cost
from adapters.bench.scale.load import load
from adapters.cli.cli_style import Typer

__all__ = ["app"]

app = Typer(help="Measure quality, speed and cost.", no_args_is_help=True)
app.command("retrieval")(retrieval)
app.command("extraction")(extraction)
app.command("answers")(answers)
app.command("load")(load)
app.command("cost")(cost)
app.command("poisoning")(poisoning)
app.command("importance")(importance)
app.command("escalation")(escalation)
app.command("relations")(relations)
app.command("truth")(truth)


@app.callback()
def _bench() -> None:
    """Measure quality, speed and cost."""
    # A callback keeps each measurement a sub-command even while there is only one.
