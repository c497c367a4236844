"""The `heyan` command line: chat, demo, memory, commitments, jobs, config, bench, worker.

Every command reads Settings once; any startup problem (bad setting, locked store, unreachable
server, malformed script) ends in one line on stderr that says what to do, and exit status 2.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.table import Table

from adapters.console import ScriptError, memory_table, parse_script
from bot.bench import bench_app
from bot.commands import MemoryQuery, commitment_view, fact_view, list_memories
from bot.runtime import Runtime, StartupError
from bot.settings import Settings, SettingsError, load_settings
from memory.errors import HeyanMemoryError
from memory.models import Fact, FactStatus, Kind, Scope

__all__ = ["app", "main"]

app = typer.Typer(no_args_is_help=True, add_completion=False, help="Heyan (和言): a mediation bot that remembers.")
memory_app = typer.Typer(no_args_is_help=True, help="Review what Heyan remembers.")
commitments_app = typer.Typer(no_args_is_help=True, help="Commitments and their follow-ups.")
jobs_app = typer.Typer(no_args_is_help=True, help="The background job queue.")
app.add_typer(memory_app, name="memory")
app.add_typer(commitments_app, name="commitments")
app.add_typer(jobs_app, name="jobs")
app.add_typer(bench_app, name="bench")

console = Console()
err = Console(stderr=True)
T = TypeVar("T")


def _fail(message: str) -> typer.Exit:
    err.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    return typer.Exit(2)


def run(main: Callable[[Settings], Coroutine[Any, Any, T]]) -> T:
    """Load settings and run an async command; known failures become one clear line and exit 2."""
    try:
        settings = load_settings()
        return asyncio.run(main(settings))
    except (SettingsError, StartupError, HeyanMemoryError, ScriptError) as exc:
        raise _fail(str(exc)) from None
    except KeyboardInterrupt:
        raise typer.Exit(130) from None


async def _with_runtime(settings: Settings, body: Callable[[Runtime], Awaitable[T]], **kw: Any) -> T:
    rt = await Runtime.start(settings, **kw)
    try:
        return await body(rt)
    finally:
        await rt.stop()


# --- config ------------------------------------------------------------------------------------


@app.command()
def config() -> None:
    """Print the resolved settings, secrets masked."""
    try:
        settings = load_settings()
    except SettingsError as exc:
        raise _fail(str(exc)) from None
    console.print_json(json.dumps(settings.masked(), ensure_ascii=False))


# --- chat --------------------------------------------------------------------------------------

@app.command()
def chat(
    script: Annotated[Path | None, typer.Option("--script", help="replay a JSONL script")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="one JSON object per reply")] = False,
    tenant: Annotated[str, typer.Option(help="tenant for interactive chat")] = "console:local",
    session: Annotated[str, typer.Option(help="thread for interactive chat")] = "general",
    name: Annotated[str, typer.Option("--as", help="who you are in interactive chat")] = "you",
) -> None:
    """Talk with Heyan in the terminal, or replay a script of messages."""
    if script is not None:
        try:
            messages = parse_script(script)  # the whole file is checked before anything runs
        except ScriptError as exc:
            raise _fail(str(exc)) from None
        from adapters.replay import replay

        run(lambda s: replay(s, messages, console=console, as_json=as_json))
        return
    from adapters.interactive import interactive

    run(lambda s: interactive(s, console=console, tenant=tenant, session=session, name=name))


# --- demo --------------------------------------------------------------------------------------


@app.command()
def demo() -> None:
    """Replay a two-session dispute offline, restarting from disk in between."""
    from adapters.demo import run_demo

    run(lambda s: run_demo(s, console=console))


# --- memory ------------------------------------------------------------------------------------


async def _tenants(rt: Runtime, tenant: str | None) -> list[str]:
    return [tenant] if tenant else await rt.store.tenants("facts")


async def _find(rt: Runtime, fact_id: str, tenant: str | None, kind: Kind | None = None) -> Fact | None:
    """A fact by full id (one lookup per tenant) or by a unique id prefix (a scan, for humans typing)."""
    found: list[Fact] = []
    for t in await _tenants(rt, tenant):
        if len(fact_id) == 36:
            exact = await rt.memory.get(Scope(tenant=t), fact_id)
            found += [exact] if exact is not None else []
        else:
            found += [f for f in await list_memories(rt.memory, MemoryQuery(t, kind=kind))
                      if f.id.startswith(fact_id)]
    found = [f for f in found if kind is None or f.kind is kind]
    if len(found) > 1:
        raise _fail(f"the id prefix {fact_id} matches {len(found)} memories; give more characters")
    return found[0] if found else None


@memory_app.command("list")
def memory_list(
    tenant: Annotated[str | None, typer.Option(help="only this tenant (default: all)")] = None,
    session: Annotated[str | None, typer.Option()] = None,
    user: Annotated[str | None, typer.Option(help="facts about or from this user id")] = None,
    kind: Annotated[Kind | None, typer.Option()] = None,
    status: Annotated[FactStatus | None, typer.Option()] = None,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """List remembered facts."""

    async def body(rt: Runtime) -> list[Fact]:
        facts: list[Fact] = []
        for t in await _tenants(rt, tenant):
            facts += await list_memories(rt.memory, MemoryQuery(t, session, user, kind, status))
        return facts

    facts = run(lambda s: _with_runtime(s, body, worker=False))
    if as_json:
        print(json.dumps([fact_view(f) for f in facts], ensure_ascii=False, indent=1))
    else:
        console.print(memory_table(facts, f"{len(facts)} memories"))


@memory_app.command("show")
def memory_show(
    fact_id: Annotated[str, typer.Argument(help="a memory id (a unique prefix is enough)")],
    tenant: Annotated[str | None, typer.Option()] = None,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Show one memory with its sources and history."""

    async def body(rt: Runtime) -> Fact | None:
        return await _find(rt, fact_id, tenant)

    fact = run(lambda s: _with_runtime(s, body, worker=False))
    if fact is None:
        raise _fail(f"no memory with id {fact_id}; `heyan memory list` shows the ids")
    if as_json:
        print(json.dumps(fact_view(fact), ensure_ascii=False, indent=1))
    else:
        console.print_json(json.dumps(fact_view(fact), ensure_ascii=False))


@memory_app.command("reindex")
def memory_reindex() -> None:
    """Re-embed every memory with the configured embedder (after changing HEYAN_EMBEDDER)."""
    from adapters.reindex import reindex

    count = run(lambda s: reindex(s, console=console))
    console.print(f"re-indexed {count} records")


# --- commitments -------------------------------------------------------------------------------


@commitments_app.command("list")
def commitments_list(
    tenant: Annotated[str | None, typer.Option()] = None,
    session: Annotated[str | None, typer.Option()] = None,
    status: Annotated[str | None, typer.Option(help="open, overdue, done or cancelled")] = None,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """List commitments, their due times and reminders."""

    async def body(rt: Runtime) -> list[dict[str, Any]]:
        views: list[dict[str, Any]] = []
        for t in await _tenants(rt, tenant):
            facts = await list_memories(rt.memory, MemoryQuery(t, session, kind=Kind.COMMITMENT))
            views += [commitment_view(f) for f in facts]
        return [v for v in views if status is None or v["status"] == status]

    views = run(lambda s: _with_runtime(s, body, worker=False))
    if as_json:
        print(json.dumps(views, ensure_ascii=False, indent=1))
        return
    table = Table(title=f"{len(views)} commitments")
    for col in ("id", "owner", "description", "due", "status", "reminders"):
        table.add_column(col, overflow="fold")
    for v in views:
        table.add_row(v["id"][:8], v["owner_name"] or v["owner"], v["description"], v["due_at"] or "-",
                      v["status"], str(len(v["reminders_sent"])))
    console.print(table)


@commitments_app.command("done")
def commitments_done(
    fact_id: Annotated[str, typer.Argument(help="a commitment id (a unique prefix is enough)")],
    tenant: Annotated[str | None, typer.Option()] = None,
) -> None:
    """Mark a commitment done: its reminder will not fire."""

    async def body(rt: Runtime) -> Fact | None:
        fact = await _find(rt, fact_id, tenant, kind=Kind.COMMITMENT)
        if fact is None:
            return None
        return await rt.memory.set_status(Scope(tenant=fact.tenant), fact.id, FactStatus.DONE)

    fact = run(lambda s: _with_runtime(s, body, worker=False))
    if fact is None:
        raise _fail(f"no commitment with id {fact_id}; `heyan commitments list` shows the ids")
    console.print(f"done: {fact.subject_name or fact.subject} — {fact.value}")


# --- worker ------------------------------------------------------------------------------------


@app.command()
def worker() -> None:
    """Run a standalone job worker (distributed shape: needs HEYAN_REDIS_URL and HEYAN_QDRANT_URL)."""
    try:
        settings = load_settings()
    except SettingsError as exc:
        raise _fail(str(exc)) from None
    if settings.redis.url is None:
        raise _fail("`heyan worker` needs a shared Redis: set HEYAN_REDIS_URL (the embedded shape runs "
                    "its worker inside the bot process)")
    from arq.worker import run_worker

    from jobs.worker import worker_settings

    run_worker(worker_settings(settings))  # built from these settings: HEYAN_JOBS_* apply


import adapters.jobs_cli  # noqa: E402,F401  (registers the `heyan jobs` commands)
from adapters import tenant_cli  # noqa: E402,F401  (registers the `heyan tenant` commands)


def main() -> None:
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
