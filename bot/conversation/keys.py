"""Key names and small Redis helpers shared by the conversation modules.

Every key of the conversation layer is ``heyan:<family>:<tenant>:<session>[:<message id>]``; each
family belongs to one module of ``bot.conversation`` (its docstring names it). The names are the
ones ``bot/window.py`` used before the split, so data written before it is read as before.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable
from typing import TypeVar

__all__ = ["PREFIX", "aw", "glob_escape", "session_key", "text"]

PREFIX = "heyan"

T = TypeVar("T")


async def aw(value: Awaitable[T] | T) -> T:
    """redis-py types its asyncio commands as ``Awaitable[T] | T``; this awaits either."""
    return await value if inspect.isawaitable(value) else value


def session_key(family: str, tenant: str, session: str) -> str:
    """The key of one session in a key family."""
    return f"{PREFIX}:{family}:{tenant}:{session}"


def glob_escape(value: str) -> str:
    """``value`` with Redis glob characters escaped."""
    return "".join(f"\\{c}" if c in "*?[]\\" else c for c in value)


def text(raw: bytes | str) -> str:
    """A Redis reply as ``str``."""
    return raw.decode() if isinstance(raw, bytes) else str(raw)
