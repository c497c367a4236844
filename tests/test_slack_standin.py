"""Proof that ``tests/slack_standin.py`` drives the real slack-bolt ``AsyncApp`` offline.

Each test serves a real ``AsyncApp`` (uvicorn + bolt's ASGI adapter, or bolt's aiohttp Socket Mode
handler), sends it signed requests or Socket Mode envelopes shaped like Slack's, and reads what the app
did from the stand-in's record of Web API / ``response_url`` calls. No Heyan code is involved: these
tests pin down the bolt and slack_sdk behaviours the Slack adapter will rely on.

Waits are event-driven with 30 s ceilings (``wait_for_call``, ``wait_for_ack``, queues), so a busy
machine slows them down without failing them.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlparse

import pytest
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_bolt.async_app import AsyncApp
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.async_handler import AsyncRetryHandler
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
)
from slack_sdk.web.async_client import AsyncWebClient

from tests.slack_standin import (
    ALICE,
    BOB,
    CAROL,
    DM_ALICE,
    FILE_UPLOAD,
    GENERAL,
    GROUP_DM,
    MODERATORS,
    MODS,
    RESPONSE_URL,
    SlackChannel,
    SlackStandIn,
    SlackWorkspace,
    Tamper,
    serve_bolt_app,
)

SECRET = "standin-signing-secret"
WAIT = 30.0

_ENV = (
    "SLACK_BOT_TOKEN",
    "SLACK_APP_TOKEN",
    "SLACK_SIGNING_SECRET",
    "SLACK_CLIENT_ID",
    "SLACK_CLIENT_SECRET",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "http_proxy",
    "https_proxy",
)


@pytest.fixture(autouse=True)
def _no_slack_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """bolt and slack_sdk read tokens, OAuth settings and proxies from the environment."""
    for name in _ENV:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
async def slack() -> AsyncIterator[SlackStandIn]:
    async with SlackStandIn() as stand_in:
        yield stand_in


def web_client(slack: SlackStandIn, retry_handlers: list[AsyncRetryHandler] | None = None) -> AsyncWebClient:
    return AsyncWebClient(
        token=slack.workspace.bot_token, base_url=slack.api_url, retry_handlers=retry_handlers
    )


def make_app(slack: SlackStandIn, **kwargs: Any) -> AsyncApp:
    retry_handlers = kwargs.pop("retry_handlers", None)
    return AsyncApp(signing_secret=SECRET, client=web_client(slack, retry_handlers), **kwargs)


async def next_item(queue: asyncio.Queue[Any]) -> Any:
    return await asyncio.wait_for(queue.get(), WAIT)


# -- (a) an app_mention answered in its thread -----------------------------------------------------------


async def test_app_mention_is_answered_in_the_thread(slack: SlackStandIn) -> None:
    app = make_app(slack)

    @app.event("app_mention")
    async def on_mention(event: dict[str, Any], say: Any) -> None:
        await say(text="noted", thread_ts=event.get("thread_ts") or event["ts"])

    parent = slack.add_message(GENERAL, "a thread about the schedule", user=BOB)
    async with serve_bolt_app(app) as served:
        sender = slack.sender(served.events_url, SECRET)
        mention = slack.payloads.app_mention(user=ALICE, channel=GENERAL, text="summarize", thread_ts=parent)
        reply = await sender.event(mention)
        assert (reply.status, reply.text) == (200, "")  # the ack: bolt answers before the listener finishes
        call = await slack.wait_for_call("chat.postMessage", timeout=WAIT)

    assert call.params["channel"] == GENERAL
    assert call.params["thread_ts"] == parent
    assert call.params["text"] == "noted"
    assert call.token == slack.workspace.bot_token
    assert call.params["team_id"] == slack.workspace.team_id  # bolt's per-request client adds it
    assert slack.methods_called() == ["auth.test", "chat.postMessage"]  # auth.test on the first request
    thread = await web_client(slack).conversations_replies(channel=GENERAL, ts=parent)
    # the mention is a message of the thread too (Slack keeps what its events are about)
    assert [m["text"] for m in thread["messages"]] == ["a thread about the schedule", mention["text"], "noted"]


async def test_process_before_response_runs_the_listener_before_answering(slack: SlackStandIn) -> None:
    app = make_app(slack, process_before_response=True)

    @app.event("app_mention")
    async def on_mention(event: dict[str, Any], say: Any) -> None:
        await say(text="done", thread_ts=event["ts"])

    async with serve_bolt_app(app) as served:
        reply = await slack.sender(served.events_url, SECRET).event(
            slack.payloads.app_mention(user=ALICE, channel=GENERAL, text="now")
        )
    assert reply.status == 200
    assert len(slack.calls_to("chat.postMessage")) == 1  # already there when the HTTP answer came back


# -- (b) forged and stale requests ------------------------------------------------------------------------


@pytest.mark.parametrize("tamper", ["bad_signature", "stale_timestamp", "unsigned"])
async def test_unverifiable_requests_get_401_and_reach_nothing(slack: SlackStandIn, tamper: Tamper) -> None:
    app = make_app(slack)
    reached: list[str] = []

    @app.event("app_mention")
    async def on_mention(event: dict[str, Any]) -> None:
        reached.append(event["ts"])

    @app.command("/heyan")
    async def on_command(ack: Any) -> None:
        reached.append("command")
        await ack()

    async with serve_bolt_app(app) as served:
        sender = slack.sender(served.events_url, SECRET)
        event_reply = await sender.event(
            slack.payloads.app_mention(user=ALICE, channel=GENERAL, text="hi"), tamper=tamper
        )
        command_reply = await sender.command(
            slack.payloads.slash_command(user=ALICE, channel=GENERAL, text="hi"), tamper=tamper
        )

    assert (event_reply.status, event_reply.json()) == (401, {"error": "invalid request"})
    assert command_reply.status == 401
    assert reached == []
    assert slack.calls == []  # verification comes before authorization: not even auth.test


# -- (c) Slack's retries reach the listener every time --------------------------------------------------


async def test_each_retry_of_an_event_reaches_the_listener(slack: SlackStandIn) -> None:
    app = make_app(slack)
    deliveries: asyncio.Queue[tuple[str, str | None, str | None]] = asyncio.Queue()

    @app.event("app_mention")
    async def on_mention(body: dict[str, Any], request: Any) -> None:
        retry_num = request.headers.get("x-slack-retry-num", [None])[0]
        retry_reason = request.headers.get("x-slack-retry-reason", [None])[0]
        deliveries.put_nowait((body["event_id"], retry_num, retry_reason))

    async with serve_bolt_app(app) as served:
        sender = slack.sender(served.events_url, SECRET)
        first = await sender.event(slack.payloads.app_mention(user=ALICE, channel=GENERAL, text="once"))
        replies = [first]
        for n in (1, 2, 3):  # Slack resends the same envelope when not acked within 3 s
            replies.append(await sender.event(first.sent, retry_num=n, retry_reason="http_timeout"))
        seen = [await next_item(deliveries) for _ in range(4)]

    event_id = first.sent["event_id"]
    assert [r.status for r in replies] == [200, 200, 200, 200]
    assert sorted(seen, key=lambda d: d[1] or "0") == [
        (event_id, None, None),
        (event_id, "1", "http_timeout"),
        (event_id, "2", "http_timeout"),
        (event_id, "3", "http_timeout"),
    ]
    assert len(slack.calls_to("auth.test")) == 1  # the single-team auth.test result is cached


# -- (d) slash command: ack in the HTTP answer, then respond() on the response_url -----------------------


async def test_slash_command_is_acked_in_the_request_and_responds_on_the_response_url(
    slack: SlackStandIn,
) -> None:
    app = make_app(slack)

    @app.command("/heyan")
    async def on_command(ack: Any, respond: Any, command: dict[str, str]) -> None:
        await ack(f"Working on “{command['text']}”…")
        await respond(text="Here is the summary.")  # no response_type: Slack shows it ephemeral
        await respond(text="Posted for everyone.", response_type="in_channel")

    async with serve_bolt_app(app) as served:
        sender = slack.sender(served.events_url, SECRET)
        reply = await sender.command(
            slack.payloads.slash_command(user=ALICE, channel=GENERAL, text="the vote")
        )
        second = await slack.wait_for_call(RESPONSE_URL, count=2, timeout=WAIT)

    assert reply.status == 200
    assert reply.text == "Working on “the vote”…"
    assert reply.headers["content-type"].startswith("text/plain")
    first = slack.calls_to(RESPONSE_URL)[0]
    assert first.path == second.path == urlparse(reply.sent["response_url"]).path
    assert first.params == {"text": "Here is the summary."}
    assert second.params == {"text": "Posted for everyone.", "response_type": "in_channel"}
    assert first.token is None  # response_url needs no token
    assert "chat.postEphemeral" not in slack.methods_called()


# -- (e) block_actions opens a modal; its view_submission reaches the view listener ----------------------


NOTE_MODAL = {
    "type": "modal",
    "callback_id": "heyan_note",
    "title": {"type": "plain_text", "text": "Add a note"},
    "submit": {"type": "plain_text", "text": "Save"},
    "blocks": [
        {
            "type": "input",
            "block_id": "note",
            "label": {"type": "plain_text", "text": "Note"},
            "element": {"type": "plain_text_input", "action_id": "text"},
        }
    ],
}


async def test_block_actions_and_view_submission_reach_their_listeners(slack: SlackStandIn) -> None:
    app = make_app(slack)
    submitted: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    @app.action("heyan_add_note")
    async def on_button(ack: Any, body: dict[str, Any], client: AsyncWebClient) -> None:
        await ack()
        await client.views_open(trigger_id=body["trigger_id"], view=NOTE_MODAL)

    @app.view("heyan_note")
    async def on_submit(ack: Any, view: dict[str, Any]) -> None:
        note = view["state"]["values"]["note"]["text"]["value"]
        if not note.strip():
            await ack(response_action="errors", errors={"note": "Say something"})
            return
        await ack()
        submitted.put_nowait(view)

    async with serve_bolt_app(app) as served:
        sender = slack.sender(served.events_url, SECRET)
        click = slack.payloads.block_actions(user=CAROL, action_id="heyan_add_note", channel=GENERAL)
        clicked = await sender.interaction(click)
        opened = await slack.wait_for_call("views.open", timeout=WAIT)
        modal = opened.response["view"]

        empty = slack.payloads.view_submission(
            user=CAROL, callback_id="heyan_note", values={"note": {"text": " "}}, view=modal
        )
        refused = await sender.interaction(empty)
        note = slack.payloads.view_submission(
            user=CAROL, callback_id="heyan_note", values={"note": {"text": "calm down"}}, view=modal
        )
        accepted = await sender.interaction(note)
        view = await next_item(submitted)

    assert clicked.status == 200
    assert opened.params["trigger_id"] == click["trigger_id"]
    assert opened.json_param("view")["callback_id"] == "heyan_note"
    assert refused.status == 200
    assert refused.json() == {"response_action": "errors", "errors": {"note": "Say something"}}
    assert (accepted.status, accepted.text) == (200, "")
    assert view["id"] == modal["id"]
    assert view["state"]["values"]["note"]["text"]["value"] == "calm down"


# -- (f) rate limits --------------------------------------------------------------------------------------


async def test_a_429_is_retried_when_a_rate_limit_handler_is_installed(slack: SlackStandIn) -> None:
    handlers: list[AsyncRetryHandler] = [
        AsyncConnectionErrorRetryHandler(),  # the default, kept: retry_handlers= replaces the list
        AsyncRateLimitErrorRetryHandler(max_retry_count=2),
    ]
    app = make_app(slack, retry_handlers=handlers)
    posted: asyncio.Queue[str] = asyncio.Queue()

    @app.event("app_mention")
    async def on_mention(event: dict[str, Any], say: Any) -> None:
        response = await say(text="after the wait", thread_ts=event["ts"])
        posted.put_nowait(response["ts"])

    slack.rate_limit("chat.postMessage", retry_after=0)
    async with serve_bolt_app(app) as served:
        await slack.sender(served.events_url, SECRET).event(
            slack.payloads.app_mention(user=ALICE, channel=GENERAL, text="quick")
        )
        ts = await next_item(posted)

    attempts = slack.calls_to("chat.postMessage")
    assert [c.status for c in attempts] == [429, 200]
    assert attempts[1].response["ts"] == ts


async def test_without_a_rate_limit_handler_a_429_raises(slack: SlackStandIn) -> None:
    slack.rate_limit("chat.postMessage", retry_after=7)
    with pytest.raises(SlackApiError) as raised:
        await web_client(slack).chat_postMessage(channel=GENERAL, text="too fast")
    assert raised.value.response.status_code == 429
    assert raised.value.response["error"] == "ratelimited"
    assert raised.value.response.headers["Retry-After"] == "7"
    assert len(slack.calls_to("chat.postMessage")) == 1


# -- (g) granted scopes -----------------------------------------------------------------------------------


async def test_granted_scopes_are_readable_from_auth_test(slack: SlackStandIn) -> None:
    slack.remove_scope("users:read")
    app = make_app(slack)
    scopes: asyncio.Queue[list[str]] = asyncio.Queue()

    @app.event("app_mention")
    async def on_mention(context: Any) -> None:
        # bolt keeps auth.test's x-oauth-scopes header as the authorize result's bot_scopes
        scopes.put_nowait(list(context.authorize_result.bot_scopes))

    async with serve_bolt_app(app) as served:
        await slack.sender(served.events_url, SECRET).event(
            slack.payloads.app_mention(user=ALICE, channel=GENERAL, text="scopes?")
        )
        bolt_scopes = await next_item(scopes)

    client = web_client(slack)
    response = await client.auth_test()
    header = response.headers["X-OAuth-Scopes"]  # AsyncSlackResponse.headers: case-insensitive
    assert header.split(",") == bolt_scopes == slack.workspace.scopes
    assert "users:read" not in bolt_scopes and "chat:write" in bolt_scopes
    with pytest.raises(SlackApiError) as raised:
        await client.users_info(user=ALICE)
    assert raised.value.response["error"] == "missing_scope"
    assert raised.value.response["needed"] == "users:read"
    assert raised.value.response["provided"] == header


# -- (h) url_verification ---------------------------------------------------------------------------------


async def test_url_verification_answers_the_challenge(slack: SlackStandIn) -> None:
    app = make_app(slack)
    async with serve_bolt_app(app) as served:
        reply = await slack.sender(served.events_url, SECRET).url_verification(
            "3eZbrw1aBm2rZgRNFdxV2595E9CY3g"
        )
    assert reply.status == 200
    assert reply.json() == {"challenge": "3eZbrw1aBm2rZgRNFdxV2595E9CY3g"}
    assert slack.calls == []


# -- (i) Socket Mode --------------------------------------------------------------------------------------


async def test_socket_mode_envelopes_reach_the_app_and_are_acked(slack: SlackStandIn) -> None:
    app = AsyncApp(client=web_client(slack))  # no signing secret: Socket Mode requests are not signed
    retries: asyncio.Queue[str | None] = asyncio.Queue()

    @app.event("app_mention")
    async def on_mention(event: dict[str, Any], say: Any, request: Any) -> None:
        retries.put_nowait(request.headers.get("x-slack-retry-num", [None])[0])
        await say(text="over the socket", thread_ts=event["ts"])

    @app.command("/heyan")
    async def on_command(ack: Any) -> None:
        await ack("pong")

    handler = AsyncSocketModeHandler(app, app_token=slack.workspace.app_token)
    try:
        await handler.connect_async()
        await slack.wait_for_socket(timeout=WAIT)
        mention = slack.payloads.event_callback(
            slack.payloads.app_mention(user=ALICE, channel=GENERAL, text="hi")
        )
        event_ack = await slack.wait_for_ack(await slack.socket_event(mention), timeout=WAIT)
        posted = await slack.wait_for_call("chat.postMessage", timeout=WAIT)
        retry_ack = await slack.wait_for_ack(
            await slack.socket_event(mention, retry_attempt=1, retry_reason="timeout"), timeout=WAIT
        )
        command_id = await slack.socket_command(slack.payloads.slash_command(user=ALICE, channel=GENERAL))
        command_ack = await slack.wait_for_ack(command_id, timeout=WAIT)
        first_retry, second_retry = await next_item(retries), await next_item(retries)

        await slack.socket_disconnect()  # Slack asks for a reconnection every few hours
        await slack.wait_for_socket(connections=2, timeout=WAIT)
        after_reconnect = await slack.wait_for_ack(await slack.socket_event(mention), timeout=WAIT)
    finally:
        await handler.close_async()

    opened = slack.calls_to("apps.connections.open")
    assert len(opened) == 2 and opened[0].token == slack.workspace.app_token
    assert set(event_ack) == {"envelope_id"}  # an empty ack
    assert posted.params["thread_ts"] == mention["event"]["ts"]
    assert set(retry_ack) == {"envelope_id"}
    # retry_attempt surfaces as x-slack-retry-num, "0" on a first delivery (HTTP mode: no header at all)
    assert (first_retry, second_retry) == ("0", "1")
    assert command_ack == {"envelope_id": command_id, "payload": {"text": "pong"}}
    assert set(after_reconnect) == {"envelope_id"}


# -- the stand-in's own Web API ---------------------------------------------------------------------------


async def test_users_groups_and_conversations(slack: SlackStandIn) -> None:
    client = web_client(slack)
    bob = (await client.users_info(user=BOB, include_locale=True))["user"]
    assert (bob["tz"], bob["tz_offset"], bob["locale"]) == ("Asia/Shanghai", 8 * 3600, "zh-CN")
    assert bob["profile"]["display_name"] == "小波"
    carol = (await client.users_info(user=CAROL))["user"]
    assert carol["is_admin"] and carol["is_owner"] and "locale" not in carol
    assert (await client.usergroups_users_list(usergroup=MODERATORS))["users"] == [CAROL, ALICE]

    kinds = {}
    for channel in (GENERAL, MODS, DM_ALICE, GROUP_DM):
        info = (await client.conversations_info(channel=channel))["channel"]
        kinds[channel] = (info["is_channel"], info["is_private"], info["is_im"], info["is_mpim"])
    assert kinds == {
        GENERAL: (True, False, False, False),
        MODS: (True, True, False, False),
        DM_ALICE: (False, True, True, False),
        GROUP_DM: (False, True, False, True),
    }

    with pytest.raises(SlackApiError) as raised:
        await client.users_info(user="U0NOBODY01")
    assert raised.value.response["error"] == "user_not_found"


async def test_messages_views_and_ephemeral(slack: SlackStandIn) -> None:
    client = web_client(slack)
    posted = await client.chat_postMessage(channel=GENERAL, text="first", blocks=[{"type": "divider"}])
    assert posted["channel"] == GENERAL and posted["message"]["bot_id"] == slack.workspace.bot_id
    updated = await client.chat_update(channel=GENERAL, ts=posted["ts"], text="edited")
    assert updated["message"]["text"] == "edited"
    await client.chat_delete(channel=GENERAL, ts=posted["ts"])
    assert slack.messages[GENERAL] == []

    dm = await client.chat_postMessage(channel=BOB, text="just between us")  # a user id opens the DM
    assert slack.channels[dm["channel"]].kind == "im"
    assert (await client.chat_postEphemeral(channel=MODS, user=ALICE, text="psst"))["message_ts"]
    with pytest.raises(SlackApiError) as raised:
        await client.chat_postEphemeral(channel=MODS, user=BOB, text="psst")
    assert raised.value.response["error"] == "user_not_in_channel"

    home = await client.views_publish(user_id=ALICE, view={"type": "home", "blocks": []})
    modal = await client.views_open(trigger_id=slack.payloads.trigger_id(), view=NOTE_MODAL)
    again = await client.views_update(
        view_id=modal["view"]["id"], view={**NOTE_MODAL, "private_metadata": "x"}
    )
    assert home["view"]["type"] == "home" and again["view"]["private_metadata"] == "x"
    assert [c.method for c in slack.calls][-3:] == ["views.publish", "views.open", "views.update"]


async def test_injected_faults_and_channel_errors(slack: SlackStandIn) -> None:
    client = web_client(slack)
    slack.add_channel(SlackChannel("C0ARCHIVE1", "old", "public", is_archived=True))
    slack.add_channel(SlackChannel("C0OUTSIDE1", "elsewhere", "public", bot_is_member=False))
    slack.add_channel(SlackChannel("C0SECRET01", "secret", "private", bot_is_member=False))

    async def error_of(**kwargs: Any) -> str:
        with pytest.raises(SlackApiError) as raised:
            await client.chat_postMessage(text="hi", **kwargs)
        return str(raised.value.response["error"])

    assert await error_of(channel="C0ARCHIVE1") == "is_archived"
    assert await error_of(channel="C0OUTSIDE1") == "not_in_channel"
    assert await error_of(channel="C0SECRET01") == "channel_not_found"  # private: Slack does not tell
    assert await error_of(channel="C0NOWHERE1") == "channel_not_found"

    slack.fail("chat.postMessage", "not_in_channel")
    assert await error_of(channel=GENERAL) == "not_in_channel"
    assert (await client.chat_postMessage(channel=GENERAL, text="hi"))["ok"]  # times=1: consumed

    slack.fail("conversations.replies", "missing_scope", needed="channels:history")
    with pytest.raises(SlackApiError) as raised:
        await client.conversations_replies(channel=GENERAL, ts="1.0")
    assert raised.value.response["needed"] == "channels:history"
    assert "chat:write" in raised.value.response["provided"]

    bad = AsyncWebClient(token="xoxb-not-ours", base_url=slack.api_url)
    with pytest.raises(SlackApiError) as raised:
        await bad.auth_test()
    assert raised.value.response["error"] == "invalid_auth"


async def test_files_upload_v2(slack: SlackStandIn) -> None:
    client = web_client(slack)
    done = await client.files_upload_v2(
        channel=GENERAL, content="a,b\n1,2\n", filename="votes.csv", title="Votes", thread_ts="1.0"
    )
    assert slack.methods_called() == [
        "files.getUploadURLExternal",
        FILE_UPLOAD,
        "files.completeUploadExternal",
    ]
    upload = slack.calls_to(FILE_UPLOAD)[0]
    assert upload.body == b"a,b\n1,2\n"
    complete = slack.calls_to("files.completeUploadExternal")[0]
    assert complete.params["channel_id"] == GENERAL and complete.params["thread_ts"] == "1.0"
    assert done["file"]["title"] == "Votes" and done["file"]["size"] == 8


# -- message events, their subtypes, the Home tab, the bot's own echo, an Enterprise Grid team -----------


async def test_message_subtypes_home_tab_and_self_events() -> None:
    async with SlackStandIn(workspace=SlackWorkspace(enterprise_id="E0HEYAN001")) as slack:
        # process_before_response: each listener has run when the HTTP answer arrives, so "nothing ran"
        # can be asserted without waiting
        app = make_app(slack, process_before_response=True)
        seen: list[tuple[str, Any, Any]] = []

        @app.message()  # messages without subtype (and bot_message, thread_broadcast, file_share)
        async def on_message(message: dict[str, Any], context: Any) -> None:
            seen.append(
                ("message", message.get("thread_ts"), (message["channel_type"], context.enterprise_id))
            )

        @app.event({"type": "message", "subtype": "message_changed"})
        async def on_changed(event: dict[str, Any]) -> None:
            seen.append(("changed", event["message"]["ts"], event["message"]["text"]))

        @app.event({"type": "message", "subtype": "message_deleted"})
        async def on_deleted(event: dict[str, Any]) -> None:
            seen.append(("deleted", event["deleted_ts"], event["previous_message"]["text"]))

        @app.event("app_home_opened")
        async def on_home(event: dict[str, Any], client: AsyncWebClient) -> None:
            await client.views_publish(user_id=event["user"], view={"type": "home", "blocks": []})

        parent = slack.add_message(GROUP_DM, "lunch?", user=ALICE)
        p = slack.payloads
        async with serve_bolt_app(app) as served:
            sender = slack.sender(served.events_url, SECRET)
            echo = await sender.event(
                p.message(user=slack.workspace.bot_user_id, channel=GENERAL, text="mine")
            )
            assert (echo.status, seen) == (200, [])  # bolt drops the bot's own messages (IgnoringSelfEvents)

            said = await sender.event(p.message(user=BOB, channel=GROUP_DM, text="sure", thread_ts=parent))
            ts = said.sent["event"]["ts"]
            await sender.event(
                p.message_changed(user=BOB, channel=GROUP_DM, ts=ts, text="sure!", old_text="sure")
            )
            await sender.event(p.message_deleted(user=BOB, channel=GROUP_DM, ts=ts, text="sure!"))
            await sender.event(p.app_home_opened(user=ALICE))

    assert said.sent["enterprise_id"] == "E0HEYAN001"
    assert said.sent["authorizations"][0]["user_id"] == slack.workspace.bot_user_id
    assert seen == [
        ("message", parent, ("mpim", "E0HEYAN001")),
        ("changed", ts, "sure!"),
        ("deleted", ts, "sure!"),
    ]
    assert slack.calls_to("views.publish")[0].params["user_id"] == ALICE


# -- what the stand-in enforces as Slack documents it (issue 19) -------------------------------------


async def _refused(call: Any) -> dict[str, Any]:
    with pytest.raises(SlackApiError) as raised:
        await call
    return dict(raised.value.response.data)


async def test_history_and_replies_page_and_bound_as_slack_documents(slack: SlackStandIn) -> None:
    client = web_client(slack)
    p = slack.payloads
    top = [p.message(user=ALICE, channel=GENERAL, text=f"top {i}")["ts"] for i in range(5)]
    replies = [p.message(user=BOB, channel=GENERAL, thread_ts=top[1], text=f"reply {i}")["ts"] for i in range(4)]

    first = await client.conversations_history(channel=GENERAL, limit=2)
    assert [m["text"] for m in first["messages"]] == ["top 4", "top 3"]  # newest first
    assert first["has_more"] and first["response_metadata"]["next_cursor"]
    rest = await client.conversations_history(channel=GENERAL, cursor=first["response_metadata"]["next_cursor"])
    assert [m["text"] for m in rest["messages"]] == ["top 2", "top 1", "top 0"] and not rest["has_more"]
    parent = next(m for m in rest["messages"] if m["ts"] == top[1])
    assert parent["reply_count"] == 4 and parent["latest_reply"] == replies[-1]
    bounded = await client.conversations_history(channel=GENERAL, oldest=top[1], latest=top[3], inclusive=True)
    assert [m["text"] for m in bounded["messages"]] == ["top 3", "top 2", "top 1"]

    thread = await client.conversations_replies(channel=GENERAL, ts=replies[2])  # any message of the thread
    assert [m["text"] for m in thread["messages"]] == ["top 1", "reply 0", "reply 1", "reply 2", "reply 3"]
    later = await client.conversations_replies(channel=GENERAL, ts=top[1], oldest=replies[1])
    assert [m["text"] for m in later["messages"]] == ["top 1", "reply 2", "reply 3"]  # the parent always first
    assert (await _refused(client.conversations_replies(channel=GENERAL, ts="1.000001")))["error"] == "thread_not_found"


async def test_history_needs_the_bot_in_the_channel_and_the_scope(slack: SlackStandIn) -> None:
    client = web_client(slack)
    slack.add_channel(SlackChannel("C0OUTSIDE1", "outside", "public", bot_is_member=False))
    slack.add_channel(SlackChannel("G0SECRET01", "secret", "private", bot_is_member=False))
    assert (await _refused(client.conversations_history(channel="C0OUTSIDE1")))["error"] == "not_in_channel"
    assert (await _refused(client.conversations_history(channel="G0SECRET01")))["error"] == "channel_not_found"
    info = await client.conversations_info(channel="C0OUTSIDE1")
    assert info["channel"]["is_member"] is False
    slack.remove_scope("groups:history")
    refused = await _refused(client.conversations_history(channel=MODS))
    assert refused["error"] == "missing_scope" and refused["needed"] == "groups:history"
    assert "groups:history" not in refused["provided"].split(",")


async def test_a_deleted_thread_parent_stays_as_a_tombstone(slack: SlackStandIn) -> None:
    client = web_client(slack)
    p = slack.payloads
    parent = p.message(user=ALICE, channel=GENERAL, text="the plan")["ts"]
    p.message(user=BOB, channel=GENERAL, thread_ts=parent, text="agreed")
    lonely = p.message(user=ALICE, channel=GENERAL, text="nobody answered")["ts"]
    changed = p.tombstone(channel=GENERAL, ts=parent, user=ALICE, text="the plan")
    p.message_deleted(channel=GENERAL, ts=lonely, user=ALICE)

    assert changed["subtype"] == "message_changed" and changed["message"]["subtype"] == "tombstone"
    assert changed["message"]["text"] == "This message was deleted." and changed["message"]["hidden"] is True
    history = await client.conversations_history(channel=GENERAL)
    assert [m.get("subtype") for m in history["messages"]] == ["tombstone"]  # the lonely one is gone
    thread = await client.conversations_replies(channel=GENERAL, ts=parent)
    assert [m["text"] for m in thread["messages"]] == ["This message was deleted.", "agreed"]


async def test_trigger_ids_expire_after_three_seconds_of_the_stand_ins_clock_and_work_once(
    slack: SlackStandIn,
) -> None:
    client = web_client(slack)
    fresh, stale = slack.payloads.trigger_id(), slack.payloads.trigger_id()
    assert (await client.views_open(trigger_id=fresh, view=NOTE_MODAL))["ok"]
    assert (await _refused(client.views_open(trigger_id=fresh, view=NOTE_MODAL)))["error"] == "exchanged_trigger_id"
    slack.advance(3.1)
    assert (await _refused(client.views_open(trigger_id=stale, view=NOTE_MODAL)))["error"] == "expired_trigger_id"
    assert (await _refused(client.views_open(trigger_id="9.9.nope", view=NOTE_MODAL)))["error"] == "invalid_trigger_id"


async def test_block_kit_limits_are_answered_as_slack_does(slack: SlackStandIn) -> None:
    client = web_client(slack)
    long = [{"type": "section", "text": {"type": "mrkdwn", "text": "x" * 3001}}]
    refused = await _refused(client.chat_postMessage(channel=GENERAL, text="t", blocks=long))
    assert refused["error"] == "invalid_blocks"
    assert refused["response_metadata"]["messages"] == [
        "[ERROR] must be less than 3001 characters [json-pointer:/blocks/0/text/text]"]
    fifty_one = [{"type": "divider"}] * 51
    assert (await _refused(client.chat_postMessage(channel=GENERAL, text="t", blocks=fifty_one)))["error"] == \
        "invalid_blocks"
    button = [{"type": "actions", "elements": [{"type": "button", "action_id": "a" * 256,
                                                 "text": {"type": "plain_text", "text": "b" * 76}}]}]
    errors = (await _refused(client.chat_postMessage(channel=GENERAL, text="t", blocks=button)))["errors"]
    assert any("/elements/0/action_id" in e for e in errors) and any("/elements/0/text/text" in e for e in errors)
    assert (await _refused(client.chat_postMessage(channel=GENERAL, text="x" * 40_001)))["error"] == "msg_too_long"
    view = {"type": "home", "blocks": [{"type": "divider"}] * 101}
    refused = await _refused(client.views_publish(user_id=ALICE, view=view))
    assert refused["error"] == "invalid_arguments"
    assert "no more than 100 items allowed [json-pointer:/view/blocks]" in refused["response_metadata"]["messages"][0]
    assert (await client.chat_postMessage(channel=GENERAL, text="t", blocks=[{"type": "divider"}] * 50))["ok"]


async def test_oauth_v2_access_and_uninstall(slack: SlackStandIn) -> None:
    client = web_client(slack)
    other = SlackWorkspace(team_id="T0OTHER001", bot_user_id="U0HEYAN009", bot_id="B0HEYAN009",
                           bot_token="xoxb-9-other")
    url = f"https://slack.com/oauth/v2/authorize?client_id={slack.client_id}&scope=chat:write,commands&state=s1"
    slack.redirect_uri = "https://heyan.example/slack/oauth_redirect"
    back = slack.approve(url, other, ALICE)
    code = back.split("code=")[1].split("&")[0]
    assert back.startswith(slack.redirect_uri) and back.endswith("state=s1")
    wrong = await _refused(client.oauth_v2_access(client_id=slack.client_id, client_secret="nope", code=code))
    assert wrong["error"] == "bad_client_secret"
    granted = await client.oauth_v2_access(client_id=slack.client_id, client_secret=slack.client_secret, code=code)
    assert granted["access_token"] == "xoxb-9-other" and granted["token_type"] == "bot"
    assert granted["team"] == {"id": "T0OTHER001", "name": other.team_name} and granted["scope"] == "chat:write,commands"
    assert granted["authed_user"]["id"] == ALICE and granted["bot_user_id"] == "U0HEYAN009"
    again = await _refused(client.oauth_v2_access(client_id=slack.client_id, client_secret=slack.client_secret,
                                                   code=code))
    assert again["error"] == "invalid_code"
    assert (await web_client_with(slack, "xoxb-9-other").auth_test())["team_id"] == "T0OTHER001"
    event = slack.uninstall("T0OTHER001")
    assert event["event"]["type"] == "app_uninstalled" and event["team_id"] == "T0OTHER001"
    revoked = await _refused(web_client_with(slack, "xoxb-9-other").auth_test())
    assert revoked["error"] == "account_inactive"  # a bot token of an uninstalled app


def web_client_with(slack: SlackStandIn, token: str) -> AsyncWebClient:
    return AsyncWebClient(token=token, base_url=slack.api_url)
