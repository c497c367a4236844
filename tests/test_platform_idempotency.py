"""What each platform does with a post sent twice (a retry after the platform accepted it but the
acknowledgement was lost): Discord returns the message it already created for the piece's nonce
(``enforce_nonce``), so the thread shows every piece once; Slack has no idempotency key for
chat.postMessage, so Heyan carries the post id in the message's metadata (docs/RELIABILITY.md)."""

from __future__ import annotations

import json
from pathlib import Path

from adapters.discord.connection.sender import DiscordSender
from bot.delivery.outbox import Post, PostKind, PostState
from bot.text.richtext import Mention, RichText
from tests.discord_harness import heyan_on_discord
from tests.slack_standin import ALICE, GENERAL
from tests.slack_world import hash_embedder_fixture, no_slack_env_fixture, slack_world  # noqa: F401


async def test_discord_drops_a_repeated_post_by_its_nonce(tmp_path: Path, redis_url: str) -> None:
    async with heyan_on_discord(tmp_path, redis_url) as h:
        general = h.discord.guild.channel("general")
        deliverer = h.rt.deliverer("discord")
        assert deliverer is not None and isinstance(deliverer.sender, DiscordSender)
        lines = [f"line {i}: " + "x" * 880 for i in range(3)]  # two pieces
        post = Post(id="twice", tenant=h.tenant, session=str(general.id), kind=PostKind.REMINDER,
                    body=RichText.of(Mention(h.user_id("carol"), "Carol"), "\n".join(lines)))
        first = await deliverer.sender.send(post)
        again = await deliverer.sender.send(post)  # the same post, as a retry after a lost acknowledgement
        assert again == first
        created = [r for r in h.discord.find_requests("POST", rf"/channels/{general.id}/messages") if r.status == 200]
        nonces = [r.json["nonce"] for r in created]
        assert nonces == [post.piece_key(0), post.piece_key(1)] * 2 and all(r.json["enforce_nonce"] for r in created)
        assert len({r.response["id"] for r in created}) == 2  # two messages, not four
        assert h.discord.nonce_repeats == 2


async def test_a_slack_post_carries_its_id_in_the_message_metadata(tmp_path: Path, redis_url: str) -> None:
    async with slack_world(tmp_path, redis_url) as w:
        post = Post(id=f"remind:{w.tenant}:fact-1:1", tenant=w.tenant, session=GENERAL, kind=PostKind.REMINDER,
                    body=RichText.of(Mention(ALICE, "Alice"), " how is it going?"))
        await w.rt.outbox.append(post)
        call = await w.slack.wait_for_call("chat.postMessage", timeout=30)
        record = await w.until(lambda: _sent(w, post.id), "the post recorded as sent")
    metadata = call.params["metadata"]
    metadata = json.loads(metadata) if isinstance(metadata, str) else metadata
    assert metadata == {"event_type": "heyan_post", "event_payload": {"post_id": post.id}}
    assert record


async def _sent(w: object, post_id: str) -> bool:
    record = await w.rt.outbox.get(post_id)  # type: ignore[attr-defined]
    return record is not None and record.state is PostState.SENT
