"""``heyan keys``: the encryption keys of what Heyan stores at rest.

``generate`` prints a new key for ``HEYAN_ENCRYPTION_KEYS``; ``rotate`` re-seals every store record
and Redis value with the first key, record by record, so it is safe to kill and run again; only a
finished run writes the marker that lets the old keys go (``bot.privacy.sealing.write_marker``). The
procedure: docs/DEPLOY.md, "Encryption at rest" (Rotation).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeRemainingColumn

from adapters.cli.cli_common import Typer, console, with_runtime
from memory.models import Scope
from memory.ports import Layer, RecordFilter

if TYPE_CHECKING:  # imported where used: `heyan --help` must not load the runtime, redis or the stores
    from adapters.runtime.composition import Runtime
    from bot.privacy.sealing import Resealable

__all__ = ["RotationReport", "app", "rotate"]

app = Typer(no_args_is_help=True, help="Encryption keys of what Heyan stores (HEYAN_ENCRYPTION_KEYS).")

#: Records per store page while rotating.
_PAGE = 256
_LAYERS: tuple[Layer, ...] = ("facts", "summaries")


@dataclass(slots=True)
class RotationReport:
    """What a rotation rewrote, per place, and the key everything is now sealed with."""

    key: str
    others: tuple[str, ...]
    rewritten: dict[str, int] = field(default_factory=dict)
    visited: dict[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(self.rewritten.values())


async def _store_totals(rt: Runtime) -> dict[Layer, int]:
    totals: dict[Layer, int] = {}
    for layer in _LAYERS:
        totals[layer] = sum([await rt.store.count(layer, Scope(tenant=t)) for t in await rt.store.tenants(layer)])
    return totals


async def _rotate_layer(rt: Runtime, layer: Layer, progress: Progress, task: TaskID, report: RotationReport) -> None:
    """Reseal one layer tenant by tenant, page by page: only records not under the first key are
    handed to ``MemoryService.reseal`` (which reads each again under its lock before writing)."""
    for tenant in await rt.store.tenants(layer):
        offset: str | None = None
        while True:
            hits, offset = await rt.store.scroll(layer, Scope(tenant=tenant), RecordFilter(), _PAGE, offset)
            stale = [h.id for h in hits if not rt.codec.is_current(h.payload)]
            report.rewritten[layer] = report.rewritten.get(layer, 0) + await rt.memory.reseal(layer, tenant, stale)
            report.visited[layer] = report.visited.get(layer, 0) + len(hits)
            progress.advance(task, len(hits))
            if offset is None:
                break
    await rt.store.flush()


def _advancer(progress: Progress, task: TaskID) -> Callable[[int], None]:
    def advance(n: int) -> None:
        progress.advance(task, n)

    return advance


def _slack_parts(rt: Runtime) -> dict[str, Resealable]:
    """Slack's sealed values: workspace installations (bot tokens) and deliveries waiting for a re-run."""
    from adapters.slack.connection.workspaces import RedisInstallationStore
    from adapters.slack.events.redo import EventRedo

    return {"slack installs": RedisInstallationStore(rt.redis, rt.cipher), "slack re-runs": EventRedo(rt.redis, rt.cipher)}


async def rotate(rt: Runtime, progress: Progress) -> RotationReport:
    """Re-encrypt every record with the first key; see the module docstring."""
    from bot.privacy.sealing import scan, write_marker

    report = RotationReport(key=rt.cipher.primary, others=rt.cipher.key_ids[1:])
    totals = await _store_totals(rt)
    tasks = {layer: progress.add_task(f"store {layer}", total=totals[layer]) for layer in _LAYERS}
    from adapters.web.access.sessions import WebSessions
    from adapters.web.access.tokens import ApiTokens

    redis_parts: dict[str, Resealable] = {"windows": rt.window, "outbox": rt.outbox, "sessions": rt.sessions,
                                          "audit": rt.audit, "dead letters": rt.dead_letters,
                                          "web sign-ins": WebSessions(rt.redis, cipher=rt.cipher),
                                          "web tokens": ApiTokens(rt.redis, cipher=rt.cipher),
                                          "agreement cards": rt.moderation.cards, "common ground": rt.moderation.ground}
    redis_parts.update(_slack_parts(rt))
    redis_totals = {
        name: sum([len([k async for k in scan(rt.redis, p)]) for p in part.SEALED_PATTERNS])
        for name, part in redis_parts.items()
    }
    redis_tasks = {name: progress.add_task(f"redis {name}", total=redis_totals[name]) for name in redis_parts}
    for layer in _LAYERS:
        await _rotate_layer(rt, layer, progress, tasks[layer], report)
    for name, part in redis_parts.items():
        report.rewritten[name] = await part.reseal(_advancer(progress, redis_tasks[name]))
        report.visited[name] = redis_totals[name]
    await write_marker(rt.redis, rt.cipher)
    return report


@app.command("generate")
def keys_generate() -> None:
    """Print a new random key (32 bytes, url-safe base64) for HEYAN_ENCRYPTION_KEYS."""
    from memory.store.crypto import generate_key

    print(generate_key())


@app.command("rotate")
def keys_rotate() -> None:
    """Re-encrypt every stored record with the first key of HEYAN_ENCRYPTION_KEYS (resumable)."""

    async def body(rt: Runtime) -> RotationReport:
        columns = (TextColumn("{task.description:<18}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
        with Progress(*columns, console=console, transient=False) as progress:
            return await rotate(rt, progress)

    report = with_runtime(body)
    parts = ", ".join(f"{name} {n}" for name, n in report.rewritten.items() if n)
    console.print(f"re-encrypted {report.total} record{'s' if report.total != 1 else ''}"
                  f"{f' ({parts})' if parts else ''}; everything is now under key {report.key}.", highlight=False)
    if report.others:
        console.print(f"The other keys ({', '.join(report.others)}) are no longer needed: remove them from "
                      f"HEYAN_ENCRYPTION_KEYS and restart.", highlight=False)
