"""``heyan slack``: the app manifest to create the Slack app from, and a check of the bot token.

``heyan slack manifest`` prints ``adapters/slack/manifest.yaml`` (paste it into "Create New App → From
a manifest"). ``heyan slack check`` runs the start-up checks of ``heyan run`` against Slack — the bot
token and its scopes — without starting anything else.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from adapters.cli.cli_common import console, fail, run

if TYPE_CHECKING:
    from bot.config.settings import Settings

__all__ = ["MANIFEST", "app"]

#: The app manifest shipped with the adapter.
MANIFEST = Path(__file__).with_name("manifest.yaml")

app = typer.Typer(no_args_is_help=True, help="Set up Heyan's Slack app.")


@app.command()
def manifest() -> None:
    """Print the Slack app manifest (bot scopes, events, /heyan, interactivity, App Home, Socket Mode)."""
    print(MANIFEST.read_text(encoding="utf-8"), end="")


@app.command()
def check() -> None:
    """Check HEYAN_SLACK_BOT_TOKEN and its scopes with Slack (auth.test), as `heyan run` does (or, for many
    workspaces, the OAuth settings)."""

    async def body(settings: Settings) -> None:
        from adapters.runtime.startup import StartupError
        from adapters.slack.platform import check_identity, make_client

        s = settings.slack
        if s.oauth:
            if s.client_secret is None or s.signing_secret is None or s.app_token is not None:
                raise fail("many workspaces (HEYAN_SLACK_CLIENT_ID) need HEYAN_SLACK_CLIENT_SECRET and "
                           "HEYAN_SLACK_SIGNING_SECRET (HTTP mode), and no HEYAN_SLACK_APP_TOKEN")
            console.print(f"ok: OAuth install for client {s.client_id}: workspaces install Heyan at "
                          f"https://<host>/slack/install (HTTP mode on port {s.http_port})", highlight=False)
            return
        if s.bot_token is None:
            raise StartupError("HEYAN_SLACK_BOT_TOKEN is not set: give the app's Bot User OAuth Token (xoxb-…), or "
                               "HEYAN_SLACK_CLIENT_ID/SECRET for many workspaces")
        identity = await check_identity(make_client(s.bot_token.get_secret_value(), s.api_url))
        console.print(f"ok: bot {identity.bot_user_id} in team {identity.team_id}, every scope granted", highlight=False)
        if not s.socket_mode and s.signing_secret is None:
            raise fail("set HEYAN_SLACK_APP_TOKEN (Socket Mode) or HEYAN_SLACK_SIGNING_SECRET (HTTP mode)")
        console.print("Socket Mode" if s.socket_mode else f"HTTP mode on port {s.http_port}", highlight=False)

    run(body)
