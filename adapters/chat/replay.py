"""`heyan chat --script`: replay a checked script through the engine and print the replies."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from pathlib import Path

from rich.console import Console

from adapters.chat.console import ConsoleSender, ScriptError, parse_script, render_reply
from adapters.cli.cli_common import fail, run
from adapters.cli.terminal import shown
from adapters.runtime.composition import Runtime
from bot.config.settings import Settings
from bot.models import Message, Reply
from memory import clock
from memory.models import Scope

__all__ = ["replay", "replay_file"]


def _emit(console: Console, reply: Reply, as_json: bool) -> None:
    if as_json:
        line = {"session": reply.session, "text": reply.text, "stage": reply.stage.value,
                "memory_ids": list(reply.memory_ids), "summary_id": reply.summary_id}
        print(json.dumps(line, ensure_ascii=False), flush=True)
    else:
        render_reply(console, reply)


def replay_file(script: Path, *, console: Console, as_json: bool, warn: Callable[[str], None]) -> int:
    """``heyan chat --script``: check the whole file first (a bad line ends in one error line, exit 2; a
    repeated id is passed to ``warn``, then dropped), then replay it on a runtime of its own."""
    try:
        messages = parse_script(script, warn=warn)
    except ScriptError as exc:
        raise fail(str(exc)) from None
    return run(lambda s: replay(s, messages, console=console, as_json=as_json))


async def replay(settings: Settings, messages: Sequence[Message], *, console: Console, as_json: bool,
                 after: Callable[[Runtime], Awaitable[object]] | None = None) -> int:
    """Feed each message to the engine. The jobs a line caused are finished before the next line, as
    in a live thread where messages come seconds apart (a "done" report is read after the promise it
    closes was stored, not beside it); before a reply the session is flushed too; at the end every
    waiting extraction runs before exit.

    The replay runs on the script's clock (``memory.clock``): each line is read at the time it was
    said, and a job deferred to a time (a follow-up, an idle watch) runs when the script reaches it,
    as it would have live. After the last line the clock goes on to now (or ``heyan --now``), and
    what came due meanwhile (follow-ups) runs before the replay ends: the same script and ``--now``
    give the same replay on any day. ``after`` runs on the same runtime once the replay ended (``heyan
    bench truth`` lists the memories it left without starting another)."""
    if not messages:
        return 0
    until = clock.now()
    with clock.run_from(messages[0].ts):
        return await _replay(settings, messages, until, console=console, as_json=as_json, after=after)


async def _replay(settings: Settings, messages: Sequence[Message], until: datetime, *, console: Console,
                  as_json: bool, after: Callable[[Runtime], Awaitable[object]] | None) -> int:
    rt = await Runtime.start(settings, senders=[ConsoleSender(console, as_json=as_json)])
    replies = 0
    try:
        sessions: dict[tuple[str, str], Scope] = {}
        for msg in messages:
            if await rt.advance_clock(msg.ts):
                await rt.drain()  # what came due before this line (live, it ran before it was said)
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
        if await rt.advance_clock(until):
            await rt.drain()
        if after is not None:
            await after(rt)
    finally:
        await rt.stop()
    return replies
