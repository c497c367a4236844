"""A Slack world for the adapter's tests: the Slack stand-in, a real ``Runtime`` and a started
``SlackPlatform`` — HTTP mode served by uvicorn on loopback (real signature checks), or Socket Mode
against the stand-in's socket server.

Fixtures (import ``hash_embedder_fixture`` etc. into a test module; each is registered under its
name without ``_fixture``; ``redis_url`` comes from tests/conftest.py): ``hash_embedder`` swaps the local embedder for a cheap deterministic one, ``no_slack_env`` keeps bolt and slack_sdk
from reading tokens and proxies from the environment.

Waits are event-driven with 30 s ceilings: ``World.settle`` waits for the adapter's record of what
became of a delivery, ``slack.wait_for_call`` for a Web API call, ``World.until`` polls a condition.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar

import pytest

from adapters.runtime.composition import Runtime
from adapters.slack import SlackPlatform
from adapters.slack.bridge import Bridge
from bot.config.settings import LimitSettings, Settings, SlackSettings
from bot.llm.base import MediatorProvider
from bot.offline.provider import OfflineProvider
from memory.models import Fact, FactStatus, Kind, Scope, Source, utcnow
from tests.jobs_helpers import HashEmbedder, settings
from tests.slack_standin import (
    MODERATORS,
    RESPONSE_URL,
    RecordedCall,
    SlackReply,
    SlackSender,
    SlackStandIn,
    SlackWorkspace,
)

SECRET = "heyan-test-signing-secret"
WAIT = 30.0
T = TypeVar("T")

_ENV = ("SLACK_BOT_TOKEN", "SLACK_APP_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_CLIENT_ID", "SLACK_CLIENT_SECRET",
        "HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy")


@pytest.fixture(name="hash_embedder", autouse=True)
def hash_embedder_fixture(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("adapters.runtime.composition.build_embedder", lambda _settings: HashEmbedder())


@pytest.fixture(name="no_slack_env", autouse=True)
def no_slack_env_fixture(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in _ENV:
        monkeypatch.delenv(name, raising=False)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def slack_settings(base: Settings, slack: SlackStandIn, *, mode: Literal["http", "socket"] = "http",
                   **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "bot_token": slack.workspace.bot_token, "api_url": slack.api_url, "http_port": free_port(),
        "moderator_group": MODERATORS,
    }
    if mode == "http":
        values["signing_secret"] = SECRET
    else:
        values["app_token"] = slack.workspace.app_token
    values.update(overrides)
    return base.model_copy(update={"slack": SlackSettings(**values)})


@dataclass
class World:
    slack: SlackStandIn
    rt: Runtime
    platform: SlackPlatform

    @property
    def bridge(self) -> Bridge:
        assert self.platform.bridge is not None
        return self.platform.bridge

    @property
    def tenant(self) -> str:
        ws = self.slack.workspace
        return f"slack:{ws.enterprise_id}:{ws.team_id}" if ws.enterprise_id else f"slack:{ws.team_id}"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.platform.port}/slack/events"

    @property
    def sender(self) -> SlackSender:
        return self.slack.sender(self.url, SECRET)

    async def event(self, event: Mapping[str, Any], **kwargs: Any) -> SlackReply:
        """Send one event (signed, over HTTP) and wait for what the adapter made of it."""
        reply = await self.sender.event(event, **kwargs)
        assert reply.status == 200, (reply.status, reply.text)
        await self.settle(reply)
        return reply

    async def settle(self, reply: SlackReply, count: int = 1) -> list[str]:
        return await self.bridge.outcomes.wait(str(reply.sent["event_id"]), count, timeout=WAIT)

    async def command(self, user: str, channel: str, text: str) -> RecordedCall:
        """Run ``/heyan text``: the ack must be empty and immediate; returns the response_url call."""
        fields = self.slack.payloads.slash_command(user=user, channel=channel, text=text)
        reply = await self.sender.command(fields)
        assert (reply.status, reply.text) == (200, ""), (reply.status, reply.text)
        path = fields["response_url"].removeprefix(self.slack.base_url)
        return await self.slack.wait_for_call(RESPONSE_URL, where=lambda c: c.path == path, timeout=WAIT)

    async def drain(self) -> None:
        """Run every job that is ready, then deliver the outbox. ``Runtime.drain`` counts jobs scored up
        to ``int(now ms)`` while arq scores with ``round(now ms)``: a job enqueued within the last half
        millisecond is missed, so let the clock pass it first."""
        await asyncio.sleep(0.002)
        await self.rt.drain()

    async def click(self, user: str, action_id: str, value: str, *, home: bool = False,
                    channel: str = "C0GENERAL1") -> tuple[SlackReply, dict[str, Any]]:
        """Press a button (on a message in ``channel``, or on the Home tab); returns the HTTP answer
        and the payload sent."""
        view = {"id": "V0HOME0001", "type": "home"} if home else None
        payload = self.slack.payloads.block_actions(user=user, action_id=action_id, value=value,
                                                    channel=None if home else channel, view=view)
        reply = await self.sender.interaction(payload)
        assert (reply.status, reply.text) == (200, ""), (reply.status, reply.text)
        return reply, payload

    async def response(self, response_url: str, count: int = 1) -> RecordedCall:
        """The ``count``-th message sent back through ``response_url``."""
        path = response_url.removeprefix(self.slack.base_url)
        return await self.slack.wait_for_call(RESPONSE_URL, where=lambda c: c.path == path, count=count,
                                              timeout=WAIT)

    async def remember(self, *facts: Fact) -> list[Fact]:
        """Store facts as an extraction would (for tests about reviewing them)."""
        result = await self.rt.memory.remember(list(facts))
        return [o.fact for o in result.outcomes]

    def fact(self, kind: Kind, subject: str, name: str, attribute: str, value: str, *, said_by: str | None = None,
             status: FactStatus = FactStatus.ACTIVE, session: str = "C0GENERAL1", **more: Any) -> Fact:
        """A fact as extraction writes it, said in ``session`` by ``said_by`` (default: the subject)."""
        author = said_by or subject
        source = Source(message_id=f"{session}:{self.slack.next_ts()}", author_id=author, author_name=author.lower(),
                        ts=utcnow(), quote=more.pop("quote", f"{attribute}: {value}"))
        return Fact(tenant=self.tenant, session=session, kind=kind, subject=subject, subject_name=name,
                    attribute=attribute, value=value, sources=(source,), asserted_by=author, status=status,
                    users=tuple(dict.fromkeys((subject, author))), **more)

    async def facts(self, **scope: Any) -> list[Fact]:
        return await self.rt.memory.list_facts(Scope(tenant=self.tenant, **scope))

    async def until(self, probe: Callable[[], Awaitable[T | None]], what: str, timeout: float = WAIT) -> T:
        """Poll ``probe`` (every 50 ms) until it returns something, for at most ``timeout`` seconds."""
        async with asyncio.timeout(timeout):
            while True:
                found = await probe()
                if found is not None and found is not False:
                    return found
                await asyncio.sleep(0.05)
        raise AssertionError(what)  # pragma: no cover - asyncio.timeout raises first


def texts(call: RecordedCall) -> str:
    """Everything a posted message or response shows: its text and every text object of its blocks."""
    parts = [str(call.params.get("text") or "")]

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("text"), str):
                parts.append(node["text"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(call.json_param("blocks"))
    walk(call.json_param("view"))
    return "\n".join(parts)


@contextlib.asynccontextmanager
async def slack_world(
    tmp_path: Path,
    redis_url: str,
    *,
    mode: Literal["http", "socket"] = "http",
    provider: MediatorProvider | None = None,
    workspace: SlackWorkspace | None = None,
    limits: LimitSettings | None = None,
    slack_overrides: Mapping[str, Any] | None = None,
    slack: SlackStandIn | None = None,
    **jobs: Any,
) -> AsyncIterator[World]:
    """The stand-in, a runtime (with its worker) and the Slack platform serving, until the block ends.
    Given ``slack`` (a running stand-in), the world uses it — a second world on the same stand-in,
    data dir and Redis is the same deployment restarted."""
    async with contextlib.AsyncExitStack() as stack:
        if slack is None:
            slack = await stack.enter_async_context(SlackStandIn(workspace=workspace))
        base = settings(tmp_path / "data", redis_url, **jobs).model_copy(
            update={"limits": limits or LimitSettings(enabled=False)})
        s = slack_settings(base, slack, mode=mode, **dict(slack_overrides or {}))
        rt = await Runtime.start(s, provider=provider or OfflineProvider(), worker=True)
        platform = SlackPlatform(s, host="127.0.0.1")
        serving: asyncio.Task[None] | None = None
        try:
            sender = await platform.start(rt)
            rt.connect(sender, poll_seconds=0.1)
            serving = asyncio.create_task(platform.serve())
            yield World(slack, rt, platform)
        finally:
            await platform.stop()
            if serving is not None:
                await serving
            await rt.stop()
