"""`heyan chat --script`: replay a checked script through the engine and print the replies."""

from __future__ import annotations

import json
from collections.abc import Sequence

from rich.console import Console

from adapters.console import ConsoleSender, render_reply
from adapters.runtime import Runtime
from adapters.terminal import shown
from bot.models import Message, Reply
from bot.settings import Settings
from memory.models import Scope

__all__ = ["replay"]


def _emit(console: Console, reply: Reply, as_json: bool) -> None:
    if as_json:
        line = {"session": reply.session, "text": reply.text, "stage": reply.stage.value,
                "memory_ids": list(reply.memory_ids), "summary_id": reply.summary_id}
        print(json.dumps(line, ensure_ascii=False), flush=True)
    else:
        render_reply(console, reply)


async def replay(settings: Settings, messages: Sequence[Message], *, console: Console, as_json: bool) -> int:
    """Feed each message to the engine. The jobs a line caused are finished before the next line, as
    in a live thread where messages come seconds apart (a "done" report is read after the promise it
    closes was stored, not beside it); before a reply the session is flushed too; at the end every
    waiting extraction runs before exit."""
    rt = await Runtime.start(settings, senders=[ConsoleSender(console, as_json=as_json)])
    replies = 0
    try:
        sessions: dict[tuple[str, str], Scope] = {}
        for msg in messages:
            scope = Scope(tenant=msg.scope.tenant, session=msg.session)
            sessions[(scope.tenant, msg.session)] = scope
            if not as_json:
                console.print(f"[dim]{msg.ts:%m-%d %H:%M}[/] [bold]{shown(msg.author_name)}[/]: {shown(msg.text)}")
            if not await rt.engine.observe(msg):
                continue
            if msg.mention:
                await rt.engine.flush(scope)
                await rt.drain()
                _emit(console, await rt.engine.respond(msg), as_json)
                replies += 1
            else:
                await rt.drain()
        for scope in sessions.values():
            await rt.engine.flush(scope)
        await rt.drain()
    finally:
        await rt.stop()
    return replies
