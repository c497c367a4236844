"""The standalone worker of the distributed shape: ``heyan worker``, or ``arq adapters.runtime.worker.WorkerSettings``.

It runs every job (extraction, summaries, reminders, erasure, the crons) against the shared Redis
and Qdrant server, builds its services through the composition root at start, and holds no platform
connection: the posts its jobs queue wait in the outbox for the process that has one.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from adapters.runtime.composition import open_services
from adapters.runtime.observability import start_observability
from bot.config.settings import Settings, load_settings
from bot.services import Services
from jobs.worker import worker_settings

__all__ = ["standalone_settings"]


async def _open_observed(settings: Settings) -> tuple[Services, Callable[[], Awaitable[None]]]:
    """The worker's services, plus metrics and /healthz on ``HEYAN_METRICS_PORT`` when it is set."""
    svc, close = await open_services(settings)
    try:
        server = await start_observability(settings.metrics_port, svc.redis, provider=svc.provider)
    except BaseException:
        await close()
        raise

    async def close_all() -> None:
        if server is not None:
            await server.stop()
        await close()

    return svc, close_all


def standalone_settings(settings: Settings) -> dict[str, Any]:
    """arq ``WorkerSettings`` for ``heyan worker``, built from ``settings`` when it starts."""
    return worker_settings(settings, open=_open_observed)


def __getattr__(name: str) -> Any:
    """``adapters.runtime.worker.WorkerSettings`` is built from the environment when it is looked up, not at
    import, so HEYAN_JOBS_* settings apply."""
    if name == "WorkerSettings":
        return standalone_settings(load_settings())
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
