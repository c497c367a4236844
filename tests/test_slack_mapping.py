"""The Slack adapter's pure parts: ids, readable text, the payload guard, the manifest."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from adapters.slack import REQUIRED_SCOPES
from adapters.slack.app import problem
from adapters.slack.display.blocks import home_view, memory_list_blocks
from adapters.slack.display.render import render
from adapters.slack.events.mapping import (
    MalformedPayload,
    mentioned_users,
    readable,
    session_of,
    split_session,
    tenant_from,
    tenant_of,
)
from bot.actors import Actor, Capability
from bot.text.richtext import Mention, RichText
from memory.models import Fact, FactStatus, HistoryEntry, Kind, Source, utcnow

MANIFEST = Path(__file__).resolve().parents[1] / "adapters" / "slack" / "manifest.yaml"


def test_tenants_sessions_and_message_ids() -> None:
    assert tenant_of("T1") == "slack:T1"
    assert tenant_of("T1", "E1") == "slack:E1:T1"
    assert tenant_from({"team_id": "T1", "enterprise_id": "E1"}, {}) == "slack:E1:T1"
    assert tenant_from({}, {"team": {"id": "T2"}}) == "slack:T2"
    with pytest.raises(MalformedPayload):
        tenant_from({}, {})
    assert session_of("C1") == "C1"
    assert session_of("C1", "1.1", "1.2") == "C1:1.1"  # a reply in a thread
    assert session_of("C1", "1.1", "1.1") == "C1"  # the thread's parent stays in its channel
    assert split_session("C1:1.1") == ("C1", "1.1") and split_session("C1") == ("C1", None)


def test_slack_markup_becomes_readable_text() -> None:
    raw = ("<@UBOT> <!channel> ask <@U1> and <@U2|bob> in <#C1|general> about <https://x.io/a?b=1&amp;c=2|the doc>, "
           "<!subteam^S1|@mods> or <!here>; 3 &lt; 4 &amp; <mailto:a@b.c|a@b.c>")
    text = readable(raw, {"U1": "小波"}, drop=["UBOT"])
    assert text == ("@channel ask @小波 and @bob in #general about the doc (https://x.io/a?b=1&c=2), @mods or @here; "
                    "3 < 4 & a@b.c")
    assert mentioned_users(raw) == ["UBOT", "U1", "U2"]


def test_rendering_lets_only_structured_mentions_ping() -> None:
    body = RichText.of(Mention("U0ALICE001", "alice"), " said “<!channel> <!here> <!subteam^S1|@mods> <@U0BOB00001> & co”")
    assert render(body) == ("<@U0ALICE001> said “&lt;!channel&gt; &lt;!here&gt; &lt;!subteam^S1|@mods&gt; "
                            "&lt;@U0BOB00001&gt; &amp; co”")


def _event(**event: Any) -> dict[str, Any]:
    return {"type": "event_callback", "team_id": "T1", "event_id": "Ev1", "event": event}


@pytest.mark.parametrize(("body", "issue"), [
    ([1, 2], "the payload is not a JSON object"),
    ({"type": "event_callback", "team_id": "T1", "event": "x"}, "event_callback without an event"),
    (_event(type="app_mention", user="U1", ts="1.1", text="hi"), "app_mention without channel"),
    (_event(type="message", channel="C1", ts="soon", user="U1"), "message with a malformed ts"),
    (_event(type="message", subtype="message_changed", channel="C1"), "message_changed without channel or message ts"),
    (_event(type="message", subtype="message_deleted", channel="C1"), "message_deleted without channel or deleted_ts"),
    (_event(type="app_home_opened"), "app_home_opened without user"),
    ({"command": "/heyan", "channel_id": "C1", "team_id": "T1"}, "slash command without user_id"),
    ({"type": "block_actions", "user": {"id": "U1"}, "team": {"id": "T1"}, "actions": []},
     "block_actions without actions"),
    ({"type": "view_submission", "user": {"id": "U1"}, "team": {"id": "T1"}, "view": {}},
     "view_submission without a view"),
])
def test_the_payload_guard_names_what_is_missing(body: Any, issue: str) -> None:
    assert problem(body) == issue


def test_the_payload_guard_passes_what_heyan_reads() -> None:
    assert problem(_event(type="app_mention", user="U1", channel="C1", ts="1.1", text="hi")) is None
    assert problem(_event(type="message", subtype="channel_join", channel="C1")) is None
    assert problem({"type": "url_verification", "challenge": "x"}) is None
    assert problem({"command": "/heyan", "user_id": "U1", "channel_id": "C1", "team_id": "T1"}) is None


def _manifest_list(*path: str) -> list[str]:
    """The items of the YAML list at ``path`` in the manifest (an indentation walk: the manifest is
    plain block YAML, and no YAML parser is a dependency)."""
    lines = [ln for ln in MANIFEST.read_text(encoding="utf-8").splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    depth, i = 0, 0
    for key in path:
        while not re.match(rf"^{' ' * depth}{re.escape(key)}:\s*$", lines[i]):
            i += 1
        depth, i = depth + 2, i + 1
    items = []
    while i < len(lines) and lines[i].startswith(" " * depth + "- "):
        items.append(lines[i].strip()[2:].split("#")[0].strip())
        i += 1
    return items


def test_the_manifest_grants_exactly_the_scopes_heyan_checks_for() -> None:
    assert sorted(_manifest_list("oauth_config", "scopes", "bot")) == sorted(REQUIRED_SCOPES)
    events = _manifest_list("settings", "event_subscriptions", "bot_events")
    assert {"app_mention", "message.channels", "message.groups", "message.im", "message.mpim",
            "app_home_opened", "app_uninstalled", "tokens_revoked", "channel_archive", "channel_deleted",
            "group_archive", "group_deleted"} == set(events)
    assert "callback_id: heyan_open_dispute" in MANIFEST.read_text(encoding="utf-8")
    text = MANIFEST.read_text(encoding="utf-8")
    assert "- command: /heyan" in text and "should_escape: true" in text
    assert re.search(r"interactivity:\n\s+is_enabled: true", text)
    assert "home_tab_enabled: true" in text and "socket_mode_enabled: true" in text


def test_long_lists_stay_within_slacks_block_limits() -> None:
    now = utcnow()
    other = HistoryEntry(version=1, value="no", asserted_by="U2", status=FactStatus.DISPUTED, valid_from=now, valid_to=now)
    facts = [Fact(tenant="slack:T1", session="C1", kind=Kind.COMMITMENT, subject="U1", attribute=f"task {i}",
                  value="x" * 5000, asserted_by="U1", users=("U1",), status=FactStatus.DISPUTED, contested=(other,),
                  sources=(Source(message_id=f"C1:{i}", author_id="U1", ts=now, quote="q" * 5000),), due_at=now)
             for i in range(40)]
    moderator = Actor(tenant="slack:T1", user_id="U1", capabilities=frozenset({Capability.MODERATE}))
    blocks = memory_list_blocks(facts, moderator, "UTC", "*40 memories*")
    home = home_view(facts, facts, moderator, "UTC", notice="careful")
    assert len(blocks) <= 50 and len(home["blocks"]) <= 100
    texts = [b["text"]["text"] for b in [*blocks, *home["blocks"]] if isinstance(b.get("text"), dict)]
    assert all(len(t) <= 3000 for t in texts)


def test_heyan_slack_manifest_prints_the_manifest() -> None:
    from typer.testing import CliRunner

    from adapters.cli.app import app

    result = CliRunner().invoke(app, ["slack", "manifest"])
    assert result.exit_code == 0 and result.output == MANIFEST.read_text(encoding="utf-8")
