"""The `heyan` command line: chat, demo, worker, config, and the command groups registered below. Any
start-up problem ends in one line on stderr saying what to do, exit status 2. Start-up stays quick:
commands import the runtime, stores and SDKs inside their bodies (tests/test_cli_startup.py checks)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from adapters.bench import app as bench_app
from adapters.cli import (
    commitments_cli,
    digest_cli,
    dispute_cli,
    jobs_cli,
    keys_cli,
    member_cli,
    memory_cli,
    tenant_cli,
)
from adapters.cli.cli_common import console, err, fail, parse_time, run
from adapters.cli.cli_style import Typer
from adapters.discord import cli as discord_cli
from adapters.slack import cli as slack_cli
from adapters.web import cli as web_cli

__all__ = ["app", "main"]

app = Typer(no_args_is_help=True, add_completion=False, help="Heyan (和言): a mediation bot that remembers.")
app.add_typer(memory_cli.app, name="memory")
app.add_typer(commitments_cli.app, name="commitments")
app.add_typer(jobs_cli.app, name="jobs")
app.add_typer(tenant_cli.app, name="tenant")
app.add_typer(keys_cli.app, name="keys")
app.add_typer(bench_app, name="bench")
app.add_typer(discord_cli.app, name="discord")
app.add_typer(slack_cli.app, name="slack")
app.add_typer(web_cli.app, name="web")
app.add_typer(dispute_cli.app, name="dispute")
app.add_typer(member_cli.app, name="member")
app.command("digest")(digest_cli.digest)


@app.callback()
def options(
    ctx: typer.Context,
    now: Annotated[str | None, typer.Option(
        "--now", metavar="TIME",
        help="run as if it were this time (ISO-8601 with an offset, e.g. 2026-12-01T15:00+08:00): "
             "to see what was overdue or expired then, or to read a replayed script's memory on its day")] = None,
) -> None:
    """Heyan (和言): a mediation bot that remembers."""
    when = parse_time(now)
    if when is not None:
        from memory import clock

        before = clock.offset()
        clock.set_now(when)
        ctx.call_on_close(lambda: clock.set_offset(before))


@app.command()
def config() -> None:
    """Print the resolved settings, secrets masked."""
    from bot.config.settings import SettingsError, load_settings

    try:
        settings = load_settings()
    except SettingsError as exc:
        raise fail(str(exc)) from None
    console.print_json(json.dumps(settings.masked(), ensure_ascii=False))


@app.command()
def chat(
    script: Annotated[Path | None, typer.Option("--script", help="replay a JSONL script (see README: script format)",
                                                metavar="FILE")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="one JSON object per reply")] = False,
    tenant: Annotated[str, typer.Option(help="the tenant interactive chat speaks in, e.g. console:local")]
    = "console:local",
    session: Annotated[str, typer.Option(help="the thread interactive chat starts in (/session switches)")]
    = "general",
    name: Annotated[str, typer.Option("--as", help="who you are in interactive chat")] = "you",
) -> None:
    """Talk with Heyan in the terminal, or replay a script of messages."""
    if script is not None:
        from adapters.chat.replay import replay_file

        replay_file(script, console=console, as_json=as_json,
                    warn=lambda line: err.print(f"warning: {line}", markup=False, highlight=False, soft_wrap=True))
        return
    from adapters.chat.interactive import answer_ctrl_c, interactive

    answer_ctrl_c()
    run(lambda s: interactive(s, console=console, tenant=tenant, session=session, name=name))


@app.command()
def demo() -> None:
    """Replay a two-session dispute offline, restarting from disk in between."""
    from adapters.chat.demo import run_demo

    run(lambda s: run_demo(s, console=console))


@app.command("run")
def run_bot(
    worker: Annotated[bool | None, typer.Option(
        "--worker/--no-worker", help="run the job worker in this process (default: only in the embedded shape)"
    )] = None,
) -> None:
    """Run Heyan on Discord and/or Slack (whichever is configured), with its worker and follow-ups."""
    from adapters.runtime.platforms import run_platforms

    run(lambda s: run_platforms(s, worker=worker))


@app.command()
def worker() -> None:
    """Run a standalone job worker (distributed shape: needs HEYAN_REDIS_URL and HEYAN_QDRANT_URL).

    It runs jobs and queues posts; it never posts to a platform itself — the process connected to
    the platform delivers them."""
    from bot.config.settings import SettingsError, load_settings

    try:
        settings = load_settings()
    except SettingsError as exc:
        raise fail(str(exc)) from None
    if settings.redis.url is None:
        raise fail("`heyan worker` needs a shared Redis: set HEYAN_REDIS_URL (the embedded shape runs "
                   "its worker inside the bot process)")
    if not settings.use_server_store:
        raise fail("`heyan worker` needs a shared store: set HEYAN_QDRANT_URL (the embedded store belongs "
                   "to the bot process)")
    from adapters.runtime.logs import configure_logging
    from adapters.runtime.worker import standalone_settings
    from jobs.worker import DoorbellWorker
    from memory.errors import HeyanError

    configure_logging(settings)
    try:
        # arq's run_worker, with the worker the doorbell wakes: built from these settings (HEYAN_JOBS_* apply)
        DoorbellWorker(**standalone_settings(settings)).run()
    except HeyanError as exc:
        # raised by arq's on_startup (a wrong key, an unreachable store): one line, not arq's traceback,
        # and a non-zero status, so a restarting container says the same short thing each time
        raise fail(str(exc)) from None


def main() -> None:
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
