"""Starting the Slack platform: one-line start-up errors naming the token, scope or setting to fix,
``heyan run``'s view of the platform, and Socket Mode end to end (an envelope reaches the engine and
is acked; a command and a malformed envelope over the socket).
"""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from adapters.runtime.composition import Runtime, StartupError
from adapters.runtime.platforms import configured_platforms
from adapters.slack import SlackPlatform
from bot.offline.provider import OfflineProvider
from memory.models import Scope
from tests.jobs_helpers import settings
from tests.slack_standin import ALICE, BOB, GENERAL, RESPONSE_URL, SlackStandIn
from tests.slack_world import (  # noqa: F401  (fixtures)
    hash_embedder_fixture,
    no_slack_env_fixture,
    slack_settings,
    slack_world,
)


@pytest.fixture
async def runtime(tmp_path: Path, redis_url: str) -> AsyncIterator[Runtime]:
    rt = await Runtime.start(settings(tmp_path / "data", redis_url), provider=OfflineProvider(), worker=False)
    try:
        yield rt
    finally:
        await rt.stop()


async def start_error(rt: Runtime, slack: SlackStandIn, **overrides: Any) -> str:
    mode = "socket" if "app_token" in overrides else "http"
    platform = SlackPlatform(slack_settings(rt.settings, slack, mode=mode, **overrides), host="127.0.0.1")
    try:
        with pytest.raises(StartupError) as raised:
            await platform.start(rt)
    finally:
        await platform.stop()
    message = str(raised.value)
    assert "\n" not in message
    return message


async def test_a_missing_scope_is_named_in_one_line(runtime: Runtime) -> None:
    async with SlackStandIn() as slack:
        slack.remove_scope("usergroups:read")
        one = await start_error(runtime, slack)
        slack.remove_scope("files:write")
        two = await start_error(runtime, slack)
    assert one.startswith("the Slack bot token lacks the scope usergroups:read: add it under OAuth & Permissions")
    assert two.startswith("the Slack bot token lacks the scopes files:write, usergroups:read:")


async def test_a_bad_token_or_missing_mode_is_named_in_one_line(runtime: Runtime) -> None:
    async with SlackStandIn() as slack:
        bad_bot = await start_error(runtime, slack, bot_token="xoxb-not-this-one")
        no_mode = await start_error(runtime, slack, signing_secret=None)
        bad_app = await start_error(runtime, slack, app_token="xapp-1-not-this-one")
        user_kind = await start_error(runtime, slack, app_token="xoxb-1-wrong-kind")
    assert bad_bot.startswith("Slack refused HEYAN_SLACK_BOT_TOKEN (invalid_auth)")
    assert no_mode.startswith("set HEYAN_SLACK_APP_TOKEN (Socket Mode) or HEYAN_SLACK_SIGNING_SECRET (HTTP mode)")
    assert bad_app.startswith("Slack refused HEYAN_SLACK_APP_TOKEN (invalid_auth)")
    assert user_kind.startswith("HEYAN_SLACK_APP_TOKEN is not an app-level token (xapp-…)")


async def test_a_busy_port_is_named_in_one_line(runtime: Runtime) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        async with SlackStandIn() as slack:
            message = await start_error(runtime, slack, http_port=busy.getsockname()[1])
    assert message.startswith("cannot listen on 127.0.0.1:") and "HEYAN_SLACK_HTTP_PORT" in message


async def test_heyan_run_finds_the_slack_platform(runtime: Runtime) -> None:
    async with SlackStandIn() as slack:
        s = slack_settings(runtime.settings, slack)
    [platform] = configured_platforms(s)
    assert isinstance(platform, SlackPlatform) and platform.name == "slack"
    assert configured_platforms(runtime.settings) == []  # no bot token: Slack is not configured
    await platform.stop()  # safe before start


async def test_socket_mode_envelopes_reach_the_engine_and_are_acked(tmp_path: Path, redis_url: str) -> None:
    async with slack_world(tmp_path, redis_url, mode="socket") as w:
        slack = w.slack
        await slack.wait_for_socket(timeout=30)
        mention = slack.payloads.event_callback(slack.payloads.app_mention(user=ALICE, channel=GENERAL, text="hi"))
        ack = await slack.wait_for_ack(await slack.socket_event(mention), timeout=30)
        outcomes = await w.bridge.outcomes.wait(mention["event_id"], timeout=30)
        post = await slack.wait_for_call("chat.postMessage", timeout=30)
        retry = await slack.wait_for_ack(await slack.socket_event(mention, retry_attempt=1, retry_reason="timeout"))
        again = await w.bridge.outcomes.wait(mention["event_id"], 2, timeout=30)

        fields = slack.payloads.slash_command(user=BOB, channel=GENERAL, text="help")
        command_ack = await slack.wait_for_ack(await slack.socket_command(fields), timeout=30)
        answer = await slack.wait_for_call(RESPONSE_URL, timeout=30)

        broken = {**slack.payloads.event_callback(slack.payloads.app_mention(user=ALICE, channel=GENERAL, text="x"))}
        del broken["event"]["channel"]
        dropped = await slack.wait_for_ack(await slack.socket_event(broken), timeout=30)
        window = await w.rt.window.recent(Scope(tenant=w.tenant, session=f"{GENERAL}:{mention['event']['ts']}"))

    assert set(ack) == {"envelope_id"} and set(retry) == {"envelope_id"}  # empty acks
    assert outcomes == ["replied"] and again == ["replied", "duplicate"]
    assert post.params["thread_ts"] == mention["event"]["ts"]
    assert set(command_ack) == {"envelope_id"}  # acked empty, answered on the response_url
    assert "所有人" in answer.params["text"]
    assert set(dropped) == {"envelope_id"}  # a malformed envelope is acked (not resent) and dropped
    assert [m.text for m in window] == ["hi"]
    assert len(slack.calls_to("apps.connections.open")) == 1  # the start-up check's URL is the one used
