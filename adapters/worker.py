"""The standalone worker of the distributed shape: ``heyan worker``, or ``arq adapters.worker.WorkerSettings``.

It runs every job (extraction, summaries, reminders, erasure, the crons) against the shared Redis
and Qdrant server, builds its services through the composition root at start, and holds no platform
connection: the posts its jobs queue wait in the outbox for the process that has one.
"""

from __future__ import annotations

from typing import Any

from adapters.runtime import open_services
from bot.settings import Settings, load_settings
from jobs.worker import worker_settings

__all__ = ["standalone_settings"]


def standalone_settings(settings: Settings) -> dict[str, Any]:
    """arq ``WorkerSettings`` for ``heyan worker``, built from ``settings`` when it starts."""
    return worker_settings(settings, open=open_services)


def __getattr__(name: str) -> Any:
    """``adapters.worker.WorkerSettings`` is built from the environment when it is looked up, not at
    import, so HEYAN_JOBS_* settings apply."""
    if name == "WorkerSettings":
        return standalone_settings(load_settings())
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
