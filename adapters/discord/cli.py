"""``heyan discord sync [--guild ID]``: register Heyan's slash commands with Discord, on demand.

Never at start (Discord rate-limits updates; global ones take a while). Without ``--guild``: global;
with it, that server at once. Names and descriptions go with their zh-CN and zh-TW translations.
Needs only ``HEYAN_DISCORD_TOKEN``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from adapters.cli.cli_common import console, run

if TYPE_CHECKING:
    from bot.config.settings import Settings

__all__ = ["app", "sync_commands"]

app = typer.Typer(no_args_is_help=True, help="Discord: register Heyan's slash commands.")


async def sync_commands(settings: Settings, *, guild: int | None = None) -> list[str]:
    """Sync the command tree globally, or into one guild; returns the names Discord registered."""
    import discord  # here, not at import: every `heyan` command imports this module

    from adapters.discord.connection.bot import build_bot
    from adapters.discord.connection.client import Heyan
    from adapters.discord.platform import login, redirect
    from adapters.runtime.startup import StartupError

    undo = redirect(settings.discord)
    bot = build_bot(Heyan(settings))
    try:
        await login(bot, settings.discord)
        try:
            if guild is None:
                synced = await bot.tree.sync()
            else:
                target = discord.Object(id=guild)
                bot.tree.copy_global_to(guild=target)
                synced = await bot.tree.sync(guild=target)
        except discord.Forbidden as exc:
            where = f"guild {guild}" if guild else "this application"
            raise StartupError(f"Discord refused to register commands in {where} ({exc.code}): invite the bot with "
                               "the applications.commands scope (see docs/DISCORD.md)") from exc
        except discord.HTTPException as exc:
            raise StartupError(f"Discord refused the command sync ({exc.status}, code {exc.code}): {exc.text}") from exc
        return [c.name for c in synced]
    finally:
        await bot.close()
        undo()


@app.command("sync")
def sync(
    guild: Annotated[int | None, typer.Option("--guild", help="only this server (a guild id); instant")] = None,
) -> None:
    """Register (or update) Heyan's slash commands with Discord."""
    names = run(lambda s: sync_commands(s, guild=guild))
    where = f"in guild {guild}" if guild is not None else "globally (clients may take up to an hour to show them)"
    console.print(f"synced {len(names)} command(s) {where}: {', '.join('/' + n for n in names)}")
