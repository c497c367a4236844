"""Catch-up after downtime: what was said in open disputes while Heyan was stopped.

Slack drops events for an app that is down, so at start each open dispute is read back from the newest
message handled there (``Places.last_seen``, else its opening) and fed through the live exactly-once
path (``EventGate`` by ``client_msg_id``; the window drops ids it holds). Late mentions follow
``Engine.answers_late``. A refused dispute is left for the next start; one rate-limited past the
client's wait is retried in this run.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from datetime import UTC, datetime

from adapters.slack.bridge import Bridge, NotInstalled
from adapters.slack.events.history import HistoryRefused, since
from adapters.slack.events.listeners import answer_mention, observe
from adapters.slack.events.mapping import split_session

__all__ = ["CatchUp", "catch_up"]

log = logging.getLogger(__name__)

#: Seconds Slack's clock may be behind this process's (a dispute's opening time is ours; ``ts`` are Slack's).
CLOCK_SKEW = 5.0


@dataclass(slots=True)
class CatchUp:
    """What a catch-up did: messages fed per dispute, and the disputes Slack refused."""

    fed: dict[str, int] = field(default_factory=dict)
    refused: dict[str, str] = field(default_factory=dict)
    tried: set[str] = field(default_factory=set)

    @property
    def total(self) -> int:
        return sum(self.fed.values())

    @property
    def rate_limited(self) -> set[str]:
        """The disputes Slack refused with a rate limit (worth another try in this run)."""
        return {where for where, error in self.refused.items() if error == "ratelimited"}

    def then(self, again: CatchUp) -> CatchUp:
        """This report followed by ``again``, a retry of some of its refused disputes."""
        fed = dict(self.fed)
        for where, n in again.fed.items():
            fed[where] = fed.get(where, 0) + n
        refused = {w: e for w, e in self.refused.items() if w not in again.tried} | again.refused
        return CatchUp(fed, refused, self.tried | again.tried)


async def catch_up(bridge: Bridge, *, now: Callable[[], float] = time.time,
                   only: Collection[str] | None = None) -> CatchUp:
    """Read back every open dispute of the workspaces this deployment serves (see the module doc);
    ``only``: just these (``<tenant>/<session>``, as ``CatchUp.refused`` names them)."""
    report = CatchUp()
    served = set(await bridge.workspaces.tenants())
    for info in await bridge.port.sessions.all_sessions():
        where = f"{info.tenant}/{info.session}"
        if not info.is_open or info.tenant not in served or (only is not None and where not in only):
            continue
        report.tried.add(where)
        try:
            here = await bridge.at(info.tenant)
            channel, thread = split_session(info.session)
            last = await bridge.places.last_seen(info.tenant, info.session)
            # nothing heard since the opening: from a little before it (Slack's clock may be behind ours)
            oldest = last or (f"{info.opened_at.timestamp() - CLOCK_SKEW:.6f}" if info.opened_at else "0")
            threads = await bridge.places.threads(info.tenant, info.session) if thread is None else ()
            found = await since(here.client, channel, thread, oldest, threads)  # waits out a rate limit once
        except NotInstalled:
            continue
        except HistoryRefused as exc:
            report.refused[where] = exc.error
            if exc.error == "missing_scope" and exc.needed:
                await bridge.scopes.missing(here, exc.needed)
            log.warning("catch-up of %s: Slack refused %s; trying again at the next start", where, exc)
            continue
        fed = 0
        try:
            for message in found:  # oldest first: a failure leaves last_seen before what was not fed
                claim = f"msg:{message['client_msg_id']}" if message.get("client_msg_id") else None
                addressed = f"<@{here.bot_user_id}>" in str(message.get("text") or "")
                recent = bridge.port.engine.answers_late(datetime.fromtimestamp(float(message.get("ts") or 0), UTC),
                                                         datetime.fromtimestamp(now(), UTC))
                async with bridge.gate.first(info.tenant, claim) as fresh:
                    if fresh and addressed and recent:
                        await answer_mention(bridge, info.tenant, {**message, "channel": channel})
                        fed += 1
                    elif fresh:  # an older mention is remembered like any message, not answered hours later
                        await observe(bridge, info.tenant, message, info.session)
                        fed += 1
        except Exception as exc:
            report.refused[where] = f"{type(exc).__name__}: {exc}"
            log.exception("catch-up of %s stopped after %d messages; the rest is read at the next start", where, fed)
        if fed:
            report.fed[where] = fed
            log.info("catch-up of %s: %d messages said while Heyan was away", where, fed)
    return report
