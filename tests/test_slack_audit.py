"""A fresh-eyes audit of the Slack stand-in and adapter against Slack's documented behaviour (issue 19).

Each test names the page (and section) of Slack's documentation it checks. The first group checks the
stand-in itself (what a held-out stand-in following the docs would answer); the second drives the
adapter through ``heyan``'s runtime on the points where the corrected stand-in answered differently.

Sources: docs.slack.dev / api.slack.com method and event pages, and the Slack SDKs' own docs
(python-slack-sdk ``docs/english/web.md``; bolt-python ``slack_bolt/adapter/socket_mode/internals.py``).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack.events.history import HistoryRefused, before, replies, since
from bot.delivery.outbox import Post, PostKind
from bot.text.richtext import RichText
from memory.models import FactStatus, Kind, utcnow
from tests.slack_standin import (
    ALICE,
    BOB,
    CAROL,
    GENERAL,
    MODS,
    RESPONSE_URL,
    SlackChannel,
    SlackStandIn,
    SlackUser,
)
from tests.slack_world import (  # noqa: F401  (fixtures)
    World,
    hash_embedder_fixture,
    no_slack_env_fixture,
    slack_world,
    texts,
)

DAN = "U0DAN00001"


@pytest.fixture(name="slack")
async def slack_fixture() -> AsyncIterator[SlackStandIn]:
    async with SlackStandIn() as stand_in:
        yield stand_in


def client_of(slack: SlackStandIn, token: str | None = None) -> AsyncWebClient:
    return AsyncWebClient(token=token or slack.workspace.bot_token, base_url=slack.api_url, retry_handlers=[])


async def refused(call: Any) -> dict[str, Any]:
    with pytest.raises(SlackApiError) as raised:
        await call
    return dict(raised.value.response.data)


async def post_to(url: str, text: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as http, http.post(url, json={"text": text}) as answer:
        return answer.status, await answer.text()


# --------------------------------------------------------------------------------------------------
# The stand-in, against the docs
# --------------------------------------------------------------------------------------------------


async def test_an_uninstalled_apps_bot_token_answers_account_inactive(slack: SlackStandIn) -> None:
    # Every method page's common error table: "account_inactive — Authentication token is for a deleted
    # user or workspace when using a bot token"; "token_revoked — ... or the app has been removed when
    # using a user token". (Also slackapi/bolt-python#1029: a removed app's bot token → account_inactive.)
    event = slack.uninstall(slack.workspace.team_id)
    answer = await refused(client_of(slack).chat_postMessage(channel=GENERAL, text="still there?"))
    assert event["event"]["type"] == "app_uninstalled" and answer["error"] == "account_inactive"


async def test_tokens_revoked_lists_user_ids_by_token_kind(slack: SlackStandIn) -> None:
    # api.slack.com/events/tokens_revoked: {"type": "tokens_revoked", "tokens": {"oauth": ["U…"],
    # "bot": ["U…"]}} — the ids of the users whose tokens went, never the tokens themselves.
    event = slack.payloads.tokens_revoked(bot=[slack.workspace.bot_user_id])
    assert event["type"] == "tokens_revoked"
    assert event["tokens"] == {"oauth": [], "bot": [slack.workspace.bot_user_id]}
    assert not any(str(v).startswith("xox") for v in event["tokens"]["bot"])


async def test_a_response_url_takes_five_messages_within_thirty_minutes(slack: SlackStandIn) -> None:
    # api.slack.com/interactivity/handling#message_responses: "You can use response_url up to 5 times
    # within 30 minutes". (What Slack answers beyond is not documented: the stand-in says 404.)
    used, stale = slack.response_url(), slack.response_url()
    answers = [await post_to(used, f"answer {i}") for i in range(6)]
    slack.advance(30 * 60 + 1)
    late = await post_to(stale, "half an hour later")
    assert [status for status, _ in answers] == [200] * 5 + [404]
    assert answers[-1][1] == "used_url" and late == (404, "expired_url")


async def test_replies_of_a_join_message_is_thread_not_found(slack: SlackStandIn) -> None:
    # docs.slack.dev/reference/methods/conversations.replies (usage info): "The thread_not_found error
    # ... can also apply to the channel_leave and channel_join message subtypes, as these message
    # subtypes cannot be threaded."
    ts = slack.next_ts()
    slack.keep(GENERAL, {"type": "message", "subtype": "channel_join", "user": BOB, "text": "<@bob> has joined",
                         "ts": ts})
    assert (await refused(client_of(slack).conversations_replies(channel=GENERAL, ts=ts)))["error"] == "thread_not_found"


async def test_a_reply_event_names_the_author_of_the_parent(slack: SlackStandIn) -> None:
    # api.slack.com/messaging/retrieving (threads): a reply carries thread_ts and parent_user_id, "the
    # user ID of the author of the parent message" — before, the stand-in put the replier there.
    parent = slack.payloads.message(user=ALICE, channel=GENERAL, text="who parks where?")
    reply = slack.payloads.message(user=BOB, channel=GENERAL, thread_ts=parent["ts"], text="me, by the door")
    assert reply["thread_ts"] == parent["ts"] and reply["parent_user_id"] == ALICE


async def test_a_thread_broadcast_is_one_message_in_the_thread_and_the_channel(slack: SlackStandIn) -> None:
    # api.slack.com/events/message/thread_broadcast: subtype thread_broadcast, thread_ts, root (the
    # parent). conversations.history lists it at top level; conversations.replies in the thread.
    client = client_of(slack)
    parent = slack.payloads.message(user=ALICE, channel=GENERAL, text="the rota")
    cast = slack.payloads.thread_broadcast(user=BOB, channel=GENERAL, thread_ts=parent["ts"], text="I take Mondays")
    top = await client.conversations_history(channel=GENERAL)
    thread = await client.conversations_replies(channel=GENERAL, ts=parent["ts"])
    assert cast["subtype"] == "thread_broadcast" and cast["root"]["ts"] == parent["ts"]
    assert [m["ts"] for m in top["messages"]] == [cast["ts"], parent["ts"]]
    assert [m["ts"] for m in thread["messages"]] == [parent["ts"], cast["ts"]]


async def test_the_adapter_reads_a_long_thread_through_every_cursor_page(slack: SlackStandIn) -> None:
    # docs.slack.dev/reference/methods/conversations.replies (Pagination): "Responses will include a
    # top-level response_metadata attribute containing a next_cursor value"; "the earliest messages
    # in the time range are returned first"; the parent first. 450 replies at the adapter's 200 a page.
    parent = slack.payloads.message(user=ALICE, channel=GENERAL, text="the long thread")["ts"]
    said = [slack.payloads.message(user=BOB, channel=GENERAL, thread_ts=parent, text=f"reply {i}")["ts"]
            for i in range(450)]
    read = await replies(client_of(slack), GENERAL, parent)
    pages = slack.calls_to("conversations.replies")
    assert [m["ts"] for m in read] == [parent, *said]
    assert len(pages) == 3 and all(c.params["limit"] == "200" for c in pages)
    assert [bool(c.response["has_more"]) for c in pages] == [True, True, False]


async def test_catch_up_reads_a_broadcast_once_though_history_and_replies_both_list_it(slack: SlackStandIn) -> None:
    # thread_broadcast (as above) is returned by both conversations.history and conversations.replies:
    # read back after downtime, it is one message.
    before = slack.next_ts()
    parent = slack.payloads.message(user=ALICE, channel=GENERAL, text="the rota")["ts"]
    cast = slack.payloads.thread_broadcast(user=BOB, channel=GENERAL, thread_ts=parent, text="I take Mondays")
    found = await since(client_of(slack), GENERAL, None, before)
    assert [m["ts"] for m in found] == [parent, cast["ts"]]


async def test_a_refused_history_read_carries_slacks_error_and_the_needed_scope(slack: SlackStandIn) -> None:
    # docs.slack.dev/reference/methods/conversations.history (errors): missing_scope (the answer names
    # `needed` and `provided`), not_in_channel, channel_not_found (python-slack-sdk docs/english/web.md:
    # "Your app's bot user needs to be in the channel (otherwise ... not_in_channel or channel_not_found)").
    slack.add_channel(SlackChannel("C0OUTSIDE1", "outside", "public", bot_is_member=False))
    slack.add_channel(SlackChannel("G0SECRET01", "secret", "private", bot_is_member=False))
    errors = []
    for channel in ("C0OUTSIDE1", "G0SECRET01"):
        with pytest.raises(HistoryRefused) as outside:
            await since(client_of(slack), channel, None, "0")
        errors.append(outside.value.error)
    slack.remove_scope("groups:history")
    with pytest.raises(HistoryRefused) as scope:
        await since(client_of(slack), MODS, None, "0")
    assert errors == ["not_in_channel", "channel_not_found"]
    assert scope.value.error == "missing_scope" and scope.value.needed == "groups:history"


async def test_post_limits_and_refusals_as_chat_post_message_documents(slack: SlackStandIn) -> None:
    # docs.slack.dev/reference/methods/chat.postMessage: msg_too_long past 40,000 characters of text,
    # not_in_channel (bot not in a public channel, without chat:write.public), is_archived, and
    # docs.slack.dev/apis/web-api/rate-limits: HTTP 429, error ratelimited, Retry-After in seconds.
    client = client_of(slack)
    slack.add_channel(SlackChannel("C0OUTSIDE1", "outside", "public", bot_is_member=False))
    slack.add_channel(SlackChannel("C0OLD00001", "old", "public", is_archived=True))
    assert (await client.chat_postMessage(channel=GENERAL, text="x" * 40_000))["ok"]
    assert (await refused(client.chat_postMessage(channel=GENERAL, text="x" * 40_001)))["error"] == "msg_too_long"
    assert (await refused(client.chat_postMessage(channel="C0OUTSIDE1", text="hi")))["error"] == "not_in_channel"
    assert (await refused(client.chat_postMessage(channel="C0OLD00001", text="hi")))["error"] == "is_archived"
    slack.rate_limit("chat.postMessage", retry_after=7)
    with pytest.raises(SlackApiError) as limited:
        await client.chat_postMessage(channel=GENERAL, text="hi")
    assert limited.value.response.status_code == 429 and limited.value.response["error"] == "ratelimited"
    assert limited.value.response.headers.get("retry-after", limited.value.response.headers.get("Retry-After")) in (
        "7", ["7"])


# --------------------------------------------------------------------------------------------------
# The adapter, on what the corrected stand-in answers
# --------------------------------------------------------------------------------------------------


async def test_a_post_for_a_workspace_that_uninstalled_mid_job_is_dead_lettered_once(
    tmp_path: Path, redis_url: str
) -> None:
    """The workspace removes Heyan while a follow-up waits (its app_uninstalled event not handled yet):
    Slack answers the bot token account_inactive (the error table, as above); the post fails once,
    permanently, with the reason — not retried, not posted."""
    async with slack_world(tmp_path, redis_url) as w:
        w.slack.uninstall(w.slack.workspace.team_id)  # the event itself is not delivered yet
        await w.rt.outbox.append(Post(id="gone:1", tenant=w.tenant, session=GENERAL,
                                      body=RichText.of("a follow-up"), kind=PostKind.REMINDER))

        async def dead() -> Any:
            record = await w.rt.outbox.get("gone:1")
            return record if record is not None and record.state.value == "dead" else None

        record = await w.until(dead, "the post was never dead-lettered")
        await w.rt.deliver_now()
        attempts = list(w.slack.calls_to("chat.postMessage"))

    assert "account_inactive" in (record.error or "") and "uninstalled" in (record.error or "")
    assert [c.response["error"] for c in attempts] == ["account_inactive"]


async def test_tokens_revoked_as_documented_ends_the_workspace_only_for_the_bot(tmp_path: Path, redis_url: str) -> None:
    # api.slack.com/events/tokens_revoked (shape above): a user-token revocation leaves Heyan installed;
    # its bot user's revocation ends the installation.
    async with slack_world(tmp_path, redis_url) as w:
        users_only = await w.event(w.slack.payloads.tokens_revoked(oauth=[ALICE]))
        first = await w.settle(users_only)
        bot = await w.event(w.slack.payloads.tokens_revoked(bot=[w.slack.workspace.bot_user_id]))
        second = await w.settle(bot)
        marker = await w.rt.redis.get(f"heyan:tenant-left:{w.tenant}")

    assert first == ["ignored"] and second == ["left"] and marker is not None


async def test_a_correction_submitted_after_the_response_url_expired_reaches_the_member(
    tmp_path: Path, redis_url: str
) -> None:
    """The Correct modal keeps its button's response_url; the member submits it 31 minutes later,
    when Slack no longer takes it (interactivity/handling#message_responses: 30 minutes). Before, the
    result was only logged; now it reaches them in their DM with Heyan."""
    async with slack_world(tmp_path, redis_url) as w:
        [fact] = await w.remember(w.fact(Kind.DEMAND, BOB, "小波", "wants", "a quiet evening",
                                         status=FactStatus.DISPUTED, due_at=utcnow() + timedelta(days=1)))
        _, click = await w.click(BOB, "heyan_mem_correct", fact.id)
        modal = (await w.slack.wait_for_call("views.update")).response["view"]
        w.slack.advance(31 * 60)  # the member thinks it over
        await w.sender.interaction(w.slack.payloads.view_submission(
            user=BOB, callback_id="heyan_correct", view=modal,
            values={"value": {"value": "quiet after 10pm"}, "reason": {"reason": "I said 10pm"}}))
        expired = await w.response(click["response_url"])
        told = await w.slack.wait_for_call("chat.postMessage", where=lambda c: c.params.get("channel", "")
                                           .startswith("D"))

    assert expired.status == 404 and expired.response == "expired_url"
    assert told.response["ok"] and told.params["channel"] == w.slack.im_with(BOB).id
    assert f"`{fact.id[:8]}`" in texts(told) and len(w.slack.calls_to(RESPONSE_URL)) == 1


async def test_a_broadcast_reply_in_an_open_dispute_thread_is_remembered_once(tmp_path: Path, redis_url: str) -> None:
    # api.slack.com/events/message/thread_broadcast: the adapter subscribes to it as a person's message.
    async with slack_world(tmp_path, redis_url) as w:
        await w.command(CAROL, GENERAL, f"dispute open <@{ALICE}|alice> <@{BOB}|bob> The parking spots")
        thread = (await w.slack.wait_for_call("chat.postMessage")).response["ts"]
        await w.event(w.slack.payloads.thread_broadcast(user=BOB, channel=GENERAL, thread_ts=thread,
                                                        text="I will buy a parking permit by Friday"))
        await w.drain()
        promised = sorted(f.value for f in await w.facts() if f.kind is Kind.COMMITMENT)

    assert promised == ["buy a parking permit by Friday"]


async def test_a_mention_at_the_end_of_a_long_thread_reads_the_replies_just_before_it(
    tmp_path: Path, redis_url: str
) -> None:
    """conversations.replies returns "the earliest messages in the time range ... first" and "fewer
    than the requested number of items may be returned" (its method page; 15 a page for a
    non-Marketplace app, docs.slack.dev/changelog/2025/05/29/...). In a thread of 120 replies read 15 at
    a time, Dan's promise is the 119th: before, the mention read the first 5 pages (replies 1-75) and
    answered without it."""
    async with slack_world(tmp_path, redis_url) as w:
        w.slack.page_cap = 15
        w.slack.add_user(SlackUser(DAN, "dan", real_name="Dan"))
        parent = w.slack.add_message(GENERAL, "the CI is red again", user=ALICE)
        for i in range(118):
            w.slack.add_message(GENERAL, f"log line {i}", user=BOB, thread_ts=parent)
        w.slack.add_message(GENERAL, "Fine, I'll fix the CI config by Friday.", user=DAN, thread_ts=parent)
        w.slack.add_message(GENERAL, "ok", user=BOB, thread_ts=parent)
        await w.event(w.slack.payloads.app_mention(user=CAROL, channel=GENERAL, thread_ts=parent,
                                                   text="what did Dan promise?"))
        answer = await w.slack.wait_for_call("chat.postMessage")
        reads = w.slack.calls_to("conversations.replies")

    assert "dan promised to fix the CI config" in answer.params["text"]
    assert len(reads) <= 6  # one page, then the replies nearest the mention


async def test_the_mention_reader_reaches_the_end_of_a_thread_longer_than_a_page(slack: SlackStandIn) -> None:
    # conversations.replies (Pagination by time): earliest first; oldest/latest bound the range. 250
    # replies at the adapter's 200 a page: the 50 nearest the mention, without reading on from the start.
    parent = slack.payloads.message(user=ALICE, channel=GENERAL, text="the long thread")["ts"]
    said = [slack.payloads.message(user=BOB, channel=GENERAL, thread_ts=parent, text=f"reply {i}")["ts"]
            for i in range(250)]
    mention = slack.next_ts()
    read = await before(client_of(slack), GENERAL, parent, mention, keep=50)
    calls = slack.calls_to("conversations.replies")
    assert [m["ts"] for m in read] == [parent, *said[-50:]]
    assert len(calls) <= 1 + 5 and all(c.params.get("latest") == mention for c in calls)


async def test_a_429_storm_at_start_delays_the_catch_up_but_loses_nothing(
    tmp_path: Path, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs.slack.dev/apis/web-api/rate-limits: a 429 says to wait Retry-After seconds, then try again.
    Slack rate-limits the history reads of the start-up catch-up four times in a row (more than the
    client's one wait): the dispute is read again later in the same run, not at the next start."""
    monkeypatch.setattr("adapters.slack.platform.CATCHUP_PAUSE", 0.0)  # the pause between rounds
    async with SlackStandIn() as slack:
        async with slack_world(tmp_path, redis_url, slack=slack) as w:
            await w.command(CAROL, GENERAL, f"dispute open <@{ALICE}|alice> <@{BOB}|bob> The parking spots")
            thread = (await slack.wait_for_call("chat.postMessage")).response["ts"]
        slack.payloads.message(user=BOB, channel=GENERAL, thread_ts=thread, text="I will buy a parking permit by Friday")
        slack.rate_limit("conversations.history", retry_after=0, times=4)
        async with slack_world(tmp_path, redis_url, slack=slack) as w:
            await w.platform.catchup_done.wait()
            report = w.platform.catchup
            await w.drain()
            promised = sorted(f.value for f in await w.facts() if f.kind is Kind.COMMITMENT)

    statuses = [c.status for c in slack.calls_to("conversations.history")]
    assert statuses[:4] == [429] * 4 and statuses[-1] == 200
    assert report is not None and report.refused == {} and report.total == 1
    assert promised == ["buy a parking permit by Friday"]


async def test_opening_in_a_private_channel_without_heyan_asks_to_invite_it(tmp_path: Path, redis_url: str) -> None:
    # docs.slack.dev/reference/methods/conversations.info: a private channel the bot is not in answers
    # channel_not_found (python-slack-sdk docs/english/web.md: "not_in_channel or channel_not_found");
    # a slash command still arrives from it, with its response_url (interactivity/slash-commands).
    async with slack_world(tmp_path, redis_url) as w:
        w.slack.add_channel(SlackChannel("G0SECRET01", "secret", "private", members=[ALICE, BOB],
                                         bot_is_member=False))
        answer = texts(await w.command(ALICE, "G0SECRET01", f"dispute open <@{BOB}|bob> The fridge"))
        await w.drain()
        info = await w.rt.sessions.get(w.tenant, "G0SECRET01")
        looked = [c.response.get("error") for c in w.slack.calls_to("conversations.info")]
        dead = await w.rt.redis.exists("heyan:outbox:slack:dead", "heyan:outbox:slack:ready")

    assert "Invite @heyan first" in answer and "channel_not_found" in looked
    assert info is None and w.slack.calls_to("chat.postMessage") == [] and dead == 0


async def test_posts_by_integrations_and_other_apps_in_a_dispute_are_not_remembered(
    tmp_path: Path, redis_url: str
) -> None:
    # api.slack.com/events/message/bot_message (subtype bot_message: bot_id, username, no user); an
    # app's chat.postMessage arrives without subtype but with bot_id (api.slack.com/events/message).
    async with slack_world(tmp_path, redis_url) as w:
        await w.command(CAROL, GENERAL, f"dispute open <@{ALICE}|alice> <@{BOB}|bob> The parking spots")
        p = w.slack.payloads
        await w.event(p.bot_message(channel=GENERAL, text="I will deploy the parking app by Friday"))
        other_app = p.message(user="U0OTHERAPP", channel=GENERAL, text="I will email everyone by Monday")
        other_app.update({"bot_id": "B0OTHERAPP", "app_id": "A0OTHERAPP"})
        other_app.pop("client_msg_id")
        await w.event(other_app)
        await w.event(p.message(user=BOB, channel=GENERAL, text="I will buy a parking permit by Friday"))
        await w.drain()
        promised = sorted(f.value for f in await w.facts() if f.kind is Kind.COMMITMENT)

    assert promised == ["buy a parking permit by Friday"]


async def test_an_event_is_acknowledged_before_it_is_handled(tmp_path: Path, redis_url: str) -> None:
    """docs.slack.dev/apis/events-api (Responding to events): answer 200 within 3 seconds, else Slack
    retries (X-Slack-Retry-Num / X-Slack-Retry-Reason: http_timeout). The handling is held (a slow
    model): the HTTP answer comes back while it waits — and without a retry header it is one delivery."""
    async with slack_world(tmp_path, redis_url) as w:
        release = asyncio.Event()
        hear = w.rt.engine.hear

        async def slow(*args: Any, **kwargs: Any) -> Any:
            await release.wait()
            return await hear(*args, **kwargs)

        w.rt.engine.hear = slow  # type: ignore[method-assign]
        reply = await w.sender.event(w.slack.payloads.app_mention(user=CAROL, channel=GENERAL, text="hello?"))
        answered_while_held = w.slack.calls_to("chat.postMessage") == []
        release.set()
        outcome = await w.settle(reply)

    assert (reply.status, reply.text) == (200, "") and answered_while_held
    assert outcome == ["replied"]
