"""The bot process of the fault-injection suite (tests/test_fault_injection.py).

``python -m tests.fault_bot FEED STATE_DIR`` runs a Heyan runtime with no worker of its own (the
suite runs ``heyan worker`` processes beside it) that holds the connection to a recording platform,
and plays the feed: the messages a platform delivers (each possibly several times), mentions to
answer, and an erasure. It is SIGKILLed at random points; on each start it resumes a little before
where it had got to, as a platform redelivers what was not acknowledged.

The recording platform writes one JSON line per accepted post to ``STATE_DIR/platform.jsonl`` (with
fsync) and honours the post id as an idempotency key, as Discord's ``nonce`` does: a post sent again
after a crash between the platform accepting it and Heyan recording that is not shown twice, and
is logged as ``"duplicate": true`` so the suite can count how often that happened.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

from adapters.runtime.composition import Runtime
from adapters.runtime.logs import configure_logging
from bot.actors import Actor
from bot.config.settings import load_settings
from bot.delivery.outbox import Post
from bot.models import Message
from bot.text.richtext import RichText
from memory.models import Scope

log = logging.getLogger("fault_bot")

#: Feed entries replayed before the cursor on every start: the platform's redelivery of what was not
#: acknowledged when the process died.
REDELIVER = 3


class RecordingPlatform:
    """A platform connection that appends what it accepts to a file, idempotent by key."""

    platform = "test"

    def __init__(self, path: Path) -> None:
        self.path = path
        self.accepted: dict[str, str] = {}
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    entry = json.loads(line)
                    if not entry.get("duplicate"):
                        self.accepted[entry["key"]] = entry["message_id"]

    def _write(self, entry: dict[str, Any]) -> None:
        with self.path.open("a", encoding="utf-8") as out:
            out.write(json.dumps(entry, ensure_ascii=False) + "\n")
            out.flush()
            os.fsync(out.fileno())

    def accept(self, key: str, kind: str, tenant: str, session: str, body: RichText) -> str:
        if key in self.accepted:
            self._write({"key": key, "duplicate": True, "message_id": self.accepted[key]})
            return self.accepted[key]
        message_id = f"msg-{len(self.accepted) + 1}"
        self._write({"key": key, "kind": kind, "tenant": tenant, "session": session, "message_id": message_id,
                     "mentions": list(body.mentions), "text": body.plain(), "at": datetime.now().astimezone().isoformat()})
        self.accepted[key] = message_id
        return message_id

    async def send(self, post: Post) -> str:
        return self.accept(post.id, post.kind.value, post.tenant, post.session, post.body)


def _message(entry: dict[str, Any]) -> Message:
    return Message(id=entry["id"], scope=Scope(tenant=entry["tenant"], session=entry["session"], user=entry["user"]),
                   author_name=entry["name"], text=entry["text"], ts=datetime.fromisoformat(entry["ts"]),
                   mention=entry.get("mention", False))


async def _play(rt: Runtime, platform: RecordingPlatform, entry: dict[str, Any]) -> None:
    if entry["type"] == "erase":
        actor = Actor.operator(entry["tenant"])
        ticket = await rt.moderation.request_erasure(actor, entry["user"])
        await rt.moderation.confirm_erasure(actor, ticket.token, entry["user"])
        return
    msg = _message(entry)
    if not msg.mention:
        await rt.engine.observe(msg)
        return
    reply = await rt.engine.handle(msg, confirm=True)
    if reply is not None:
        platform.accept(f"reply:{msg.id}", "reply", msg.scope.tenant, msg.session, reply.body)
        await rt.engine.answered(msg)


async def main(feed: list[dict[str, Any]], state: Path) -> None:
    settings = load_settings()
    configure_logging(settings)
    cursor_file = state / "cursor"
    platform = RecordingPlatform(state / "platform.jsonl")
    rt = await Runtime.start(settings, worker=False, senders=[platform])
    recovery = asyncio.create_task(_answer_orphans(rt, platform))
    try:
        done = int(cursor_file.read_text()) if cursor_file.exists() else -1
        index = max(0, done + 1 - REDELIVER)
        while index < len(feed):
            try:
                await _play(rt, platform, feed[index])
            except Exception as exc:  # Redis restarting, the store busy: the platform delivers it again
                log.warning("entry %d failed (%s: %s); delivering it again", index, type(exc).__name__, exc)
                await asyncio.sleep(0.5)
                continue
            tmp = cursor_file.with_suffix(".tmp")
            tmp.write_text(str(index))
            tmp.replace(cursor_file)
            index += 1
        (state / "fed").write_text("done")
        await asyncio.Event().wait()  # keep delivering follow-ups until stopped
    finally:
        recovery.cancel()
        await rt.stop()


async def _answer_orphans(rt: Runtime, platform: RecordingPlatform) -> None:
    """What a platform adapter does: answer the mentions a dead process left half-answered."""
    while True:
        await asyncio.sleep(1.0)
        try:
            for msg in await rt.engine.unanswered():
                reply = await rt.engine.handle(msg, confirm=True)
                if reply is not None:
                    platform.accept(f"reply:{msg.id}", "reply", msg.scope.tenant, msg.session, reply.body)
                    await rt.engine.answered(msg)
        except Exception as exc:  # Redis restarting: try again on the next round
            log.warning("answering orphaned mentions failed (%s: %s)", type(exc).__name__, exc)


if __name__ == "__main__":
    lines = Path(sys.argv[1]).read_text(encoding="utf-8").splitlines()
    asyncio.run(main([json.loads(line) for line in lines if line.strip()], Path(sys.argv[2])))
