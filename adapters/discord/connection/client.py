"""What Heyan's Discord parts share: ``Heyan`` (settings and the attached services), the intents and
permissions it asks for, and how a component finds ``Heyan`` on its client (bot classes:
``adapters.discord.connection.bot``).

Without Message Content, Discord still sends mentions, DMs and Heyan's own messages;
``HEYAN_DISCORD_MESSAGE_CONTENT=true`` adds it to read whole dispute threads. ``allowed_mentions``
defaults to none; prefix commands are off; the tree syncs only by ``heyan discord sync``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

import discord
from discord.ext import commands

from bot.config.settings import DiscordSettings, Settings

if TYPE_CHECKING:
    from adapters.discord.events.catchup import SeenMarks
    from adapters.discord.events.guilds import GuildRoster
    from adapters.discord.events.notices import Notices
    from bot.platform_port import PlatformPort

__all__ = [
    "REQUIRED_PERMISSIONS",
    "AnyBot",
    "Attached",
    "Heyan",
    "heyan_of",
    "intents_for",
]

log = logging.getLogger(__name__)

#: What Heyan's role needs (the invite link's ``permissions=``; docs/DISCORD.md explains each): read and
#: answer in channels and threads, make dispute threads (private where allowed), add members to them and
#: delete one made for a dispute that could not open (Manage Threads), reply to messages (Read Message
#: History), show memories as embeds and exports as files.
REQUIRED_PERMISSIONS = discord.Permissions(
    view_channel=True, send_messages=True, send_messages_in_threads=True, create_public_threads=True,
    create_private_threads=True, manage_threads=True, embed_links=True, attach_files=True, read_message_history=True,
)
#: discord.py's own pause between IDENTIFYs of a sharded bot (Discord allows one per 5 s per bucket).
IDENTIFY_DELAY = 5.0
#: discord.py's wait after READY for the guilds to arrive before ``on_ready``.
GUILD_READY_TIMEOUT = 2.0
#: The longest 429 wait discord.py sits out itself (its minimum is 30 s). Discord's rate-limits page
#: shows a shared resource limit answering ``retry_after: 1336.57``: sleeping that long inside a
#: listener outlives interaction tokens and the nonce window, so a longer wait raises
#: ``discord.RateLimited`` and the caller reschedules (the outbox) or says so.
MAX_RATELIMIT_WAIT = 60.0


@dataclass(frozen=True, slots=True)
class Attached:
    """What a started process hands the Discord side (``adapters.discord.platform`` builds it): the
    core's platform port, and what Discord keeps in Redis for its own wire."""

    port: PlatformPort
    #: The last message taken in per open dispute thread (the READY catch-up).
    marks: SeenMarks
    #: Once-per-period hints and notices.
    notices: Notices
    #: The guilds Heyan is in (departures while it was offline).
    guilds: GuildRoster


class Heyan:
    """What the Discord side needs of its process: the settings from the start, the platform port
    and Discord's Redis-backed helpers once ``heyan run`` has started it (``heyan discord sync``
    builds the command tree without them)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._attached: Attached | None = None

    def __repr__(self) -> str:
        return f"Heyan(port={'attached' if self._attached else 'none'})"

    @property
    def discord(self) -> DiscordSettings:
        return self.settings.discord

    @property
    def attached(self) -> Attached:
        if self._attached is None:
            raise RuntimeError("the Discord adapter was used before its port was attached")
        return self._attached

    @property
    def port(self) -> PlatformPort:
        return self.attached.port

    @property
    def marks(self) -> SeenMarks:
        return self.attached.marks

    @property
    def notices(self) -> Notices:
        return self.attached.notices

    @property
    def guilds(self) -> GuildRoster:
        return self.attached.guilds

    def attach(self, attached: Attached) -> None:
        self._attached = attached

    @property
    def reads_content(self) -> bool:
        """Whether unmentioned guild messages arrive with their content (the privileged intent)."""
        return self.settings.discord.message_content


def intents_for(settings: DiscordSettings) -> discord.Intents:
    """Guilds, guild messages and DMs; Message Content only when configured."""
    intents = discord.Intents.none()
    intents.guilds = True
    intents.guild_messages = True
    intents.dm_messages = True
    intents.message_content = settings.message_content
    return intents


#: Either bot class (``AutoShardedBot`` is not a ``Bot`` subclass in discord.py).
AnyBot = commands.Bot | commands.AutoShardedBot


def heyan_of(client: discord.Client) -> Heyan:
    """The ``Heyan`` of a bot built by ``build_bot`` (components reach it through ``interaction.client``)."""
    found = getattr(client, "heyan", None)
    if not isinstance(found, Heyan):
        raise RuntimeError("this client was not built by adapters.discord.connection.bot.build_bot")
    return found
