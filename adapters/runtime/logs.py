"""Logging for Heyan's processes: ``HEYAN_LOG_LEVEL`` on stderr, one line per record.

``HEYAN_LOG_FORMAT=text`` (default) or ``json`` (``ts``, ``level``, ``logger``, ``message``,
``process``, ``exc``, ``extra=`` fields: a shipper parses it, a traceback stays in its record). Log
lines quote members, so control characters and line breaks are written as visible escapes: a record
is one line and cannot drive a terminal or forge another.
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from typing import Any

from bot.config.settings import Settings
from memory.normalize import escape_controls

__all__ = ["JsonFormatter", "TextFormatter", "configure_logging"]

_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"

#: Attributes every LogRecord has; anything else on a record came from ``extra=`` and is logged too.
_STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime", "taskName"}


class JsonFormatter(logging.Formatter):
    """One JSON object per record. Values JSON cannot hold are written as their ``str``."""

    def format(self, record: logging.LogRecord) -> str:
        data: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "process": record.process,
        }
        if record.exc_info:
            data["exc"] = self.formatException(record.exc_info)
        if record.stack_info:
            data["stack"] = self.formatStack(record.stack_info)
        for key, value in vars(record).items():
            if key not in _STANDARD and key not in data and not key.startswith("_"):
                data[key] = value
        return json.dumps(data, ensure_ascii=False, default=str)


class TextFormatter(logging.Formatter):
    """One readable line per record, control characters escaped; a traceback keeps its line breaks."""

    def __init__(self) -> None:
        super().__init__(_FORMAT)

    def formatMessage(self, record: logging.LogRecord) -> str:
        return escape_controls(super().formatMessage(record), keep_newlines=False)

    def formatException(self, ei: Any) -> str:
        return escape_controls(super().formatException(ei))

    def formatStack(self, stack_info: str) -> str:
        return escape_controls(super().formatStack(stack_info))


def _formatter(settings: Settings) -> logging.Formatter:
    return JsonFormatter() if settings.log_format == "json" else TextFormatter()


def configure_logging(settings: Settings) -> None:
    """Send records at ``settings.log_level`` and above to stderr (once per process), formatted as
    ``settings.log_format`` asks; a second call updates the level and the format."""
    root = logging.getLogger()
    ours: list[logging.Handler] = [h for h in root.handlers if getattr(h, "_heyan", False)]
    if not ours:
        stream = logging.StreamHandler()
        stream._heyan = True  # type: ignore[attr-defined]
        root.addHandler(stream)
        ours = [stream]
    for handler in ours:
        handler.setFormatter(_formatter(settings))
    root.setLevel(settings.log_level)
