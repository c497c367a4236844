"""Mention safety: Heyan pings only the users a post means to mention. A member named ``@everyone``
and a quote holding ``<!channel>``, ``@here`` or role markup ping nobody on Discord or Slack: untrusted
text is escaped, and Discord's ``allowed_mentions`` lets through only the structured mentions."""

from __future__ import annotations

from datetime import UTC, datetime

from adapters.discord.display.render import render as discord_render
from adapters.discord.display.render import split_message
from adapters.slack.display.render import render as slack_render
from bot.delivery.reminders import reminder_post
from bot.text.richtext import Mention, RichText
from memory.models import Fact, Kind, Source

T0 = datetime(2026, 11, 20, 9, tzinfo=UTC)
QUOTE = "I'll tell <!channel> and @here and <@&123456789012345678> and <!subteam^S1|mods> by Friday"


def promise(user: str, name: str) -> Fact:
    return Fact(tenant="discord:1", session="555", kind=Kind.COMMITMENT, subject=user, subject_name=name,
                attribute="tell everyone", value="tell everyone by Friday", asserted_by=user, due_at=T0,
                sources=(Source(message_id="m1", author_id=user, author_name=name, ts=T0, quote=QUOTE),))


def test_a_member_named_everyone_and_a_hostile_quote_ping_nobody_on_discord() -> None:
    post = reminder_post(promise("123456789012345678", "@everyone"), "UTC")
    assert post.body.mentions == ("123456789012345678",)
    content, allowed = discord_render(post.body)
    assert content.startswith("<@123456789012345678>")
    assert "@everyone" not in content and "@here" not in content  # escaped with a zero-width space
    assert "<@&" not in content
    assert allowed.to_dict() == {"parse": [], "users": [123456789012345678]}  # no everyone, no roles


def test_the_same_on_slack() -> None:
    post = reminder_post(promise("U0ANN", "<!everyone>"), "UTC")
    text = slack_render(post.body)
    assert text.startswith("<@U0ANN>")
    markup = [part.split(">")[0] for part in text.split("<")[1:]]
    assert markup == ["@U0ANN"]  # the only Slack markup left is the owner's mention
    assert "&lt;!channel&gt;" in text and "&lt;!subteam^S1|mods&gt;" in text


def test_names_without_a_platform_id_are_text_not_pings() -> None:
    body = RichText.of(Mention("console:@here", "@here"), " thanks")
    content, allowed = discord_render(body)
    assert "@here" not in content and allowed.to_dict()["users"] == []


def test_replies_carry_no_mentions_and_long_ones_split_on_lines() -> None:
    text = "\n".join(f"line {i}: @everyone <@1> said something long enough" for i in range(120))
    body = RichText.of(text)  # a reply (LLM output, quotes, names) is plain text
    content, allowed = discord_render(body)
    assert allowed.to_dict() == {"parse": [], "users": []}
    pieces = split_message(content)
    assert len(pieces) > 1 and all(len(p) <= 2000 for p in pieces)
    assert "\n".join(pieces) == content  # cut at line ends: nothing lost
