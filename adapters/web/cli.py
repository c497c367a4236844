"""``heyan web``: serve the console (``--local`` for one machine, no sign-in), and ``heyan web token``
to create, list and revoke API tokens for scripts. Like every group, this module imports only typer
and rich at the top: FastAPI, the runtime and Redis are imported by the command that uses them."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Annotated, TypeVar

import typer
from rich.table import Table

from adapters.cli.cli_common import console, fail, redis_only, run
from adapters.cli.cli_style import Typer
from bot.text.clock import show_stamp, zone_heading

if TYPE_CHECKING:  # imported where used: `heyan --help` must not load the runtime, Redis or FastAPI
    from adapters.web.access.tokens import ApiTokens
    from bot.config.settings import Settings

__all__ = ["app"]

T = TypeVar("T")

app = Typer(invoke_without_command=True, help="The web console and REST API (/api/v1).")
tokens_app = Typer(no_args_is_help=True, help="API tokens for scripts: scoped to one community, revocable.")
app.add_typer(tokens_app, name="token")


@app.callback()
def web(
    ctx: typer.Context,
    host: Annotated[str | None, typer.Option(help="listening address (default HEYAN_WEB_HOST, 127.0.0.1)")] = None,
    port: Annotated[int | None, typer.Option(help="listening port (default HEYAN_WEB_PORT, else 8080; 0: any free one)",
                                             min=0, max=65535)] = None,
    local: Annotated[bool, typer.Option("--local", help="127.0.0.1 only; you are the console operator, no sign-in")]
    = False,
) -> None:
    """Serve the web console and REST API (run `heyan web token --help` for API tokens)."""
    if ctx.invoked_subcommand is not None:
        return
    if local and host not in (None, "127.0.0.1", "localhost"):
        raise fail(f"--local binds 127.0.0.1 only (it signs in whoever connects as the operator); drop --host {host}")

    def ready(where: str, bound: int) -> None:
        shown = f"[{where}]" if ":" in where else where
        console.print(f"Heyan console on http://{shown}:{bound}/ (API under /api/v1); Ctrl-C stops it",
                      markup=False, highlight=False, soft_wrap=True)

    async def main(settings: Settings) -> None:
        from adapters.web.server import serve_web

        await serve_web(settings, host=host, port=port, local=local, ready=ready)

    run(main)


def _with_tokens(body: Callable[[ApiTokens], Awaitable[T]]) -> T:
    from adapters.runtime.startup import build_cipher
    from adapters.web.access.tokens import ApiTokens, TokenError

    async def main(settings: Settings) -> T:
        async with redis_only(settings) as redis:
            return await body(ApiTokens(redis, cipher=build_cipher(settings)))

    try:
        return run(main)
    except TokenError as exc:
        raise fail(str(exc)) from None




@tokens_app.command("create")
def token_create(
    tenant: Annotated[str, typer.Option(help="the community it may reach, e.g. discord:<guild id>")],
    label: Annotated[str, typer.Option(help="what it is for (shown in listings and the audit log)")] = "",
    read_only: Annotated[bool, typer.Option("--read-only", help="it may only read")] = False,
) -> None:
    """Create a token; it is printed once (only its digest is kept)."""
    token, text = _with_tokens(lambda store: store.create(tenant, label=label, read_only=read_only))
    console.print(text, markup=False, highlight=False)
    typer.echo(f"token {token.id} for {token.tenant}{' (read-only)' if token.read_only else ''}: keep it secret; "
               f"send it as 'Authorization: Bearer <token>'; revoke with `heyan web token revoke {token.id}`", err=True)


@tokens_app.command("list")
def token_list(
    tenant: Annotated[str | None, typer.Option(help="only this community's tokens")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON instead of a table")] = False,
) -> None:
    """Every token (never the secret)."""
    found = _with_tokens(lambda store: store.list(tenant))
    if as_json:
        console.print_json(json.dumps([{"id": t.id, "tenant": t.tenant, "label": t.label, "read_only": t.read_only,
                                        "created_at": t.created_at.isoformat(), "created_by": t.created_by}
                                       for t in found], ensure_ascii=False))
        return
    table = Table("id", "tenant", "label", "scope", zone_heading("created", "UTC"))
    for t in found:
        table.add_row(t.id, t.tenant, t.label, "read-only" if t.read_only else "read-write",
                      show_stamp(t.created_at, "UTC"))
    console.print(table)


@tokens_app.command("revoke")
def token_revoke(token_id: Annotated[str, typer.Argument(help="the token's id (see `heyan web token list`)")]) -> None:
    """Revoke a token: the next request with it gets 401."""
    if not _with_tokens(lambda store: store.revoke(token_id)):
        raise fail(f"no token with the id {token_id}; `heyan web token list` shows them")
    console.print(f"revoked {token_id}", markup=False, highlight=False)
