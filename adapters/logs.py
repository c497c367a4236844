"""Logging for Heyan's processes: ``HEYAN_LOG_LEVEL`` on stderr, one line per record."""

from __future__ import annotations

import logging

from bot.settings import Settings

__all__ = ["configure_logging"]

_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def configure_logging(settings: Settings) -> None:
    """Send records at ``settings.log_level`` and above to stderr (once per process)."""
    root = logging.getLogger()
    if not any(getattr(h, "_heyan", False) for h in root.handlers):
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter(_FORMAT))
        handler._heyan = True  # type: ignore[attr-defined]
        root.addHandler(handler)
    root.setLevel(settings.log_level)
