"""`heyan chat`: an interactive thread in the terminal, on the full runtime (jobs included)."""

from __future__ import annotations

import asyncio
import re
import uuid

from rich.console import Console

from adapters.console import ConsoleNotifier, memory_table, render_reply
from bot.commands import MemoryQuery, list_memories
from bot.models import Message
from bot.runtime import Runtime
from bot.settings import Settings
from memory.models import Scope, utcnow

__all__ = ["HELP", "interactive"]

HELP = """commands:
  /as <name>       speak as someone else
  /session <id>    switch to another thread
  /memories        show what is remembered in this tenant
  /help            this help
  /quit            leave
Start a line with @heyan (or @和言) to address the bot."""

_MENTION = re.compile(r"^\s*@(heyan|和言)\b[\s,，:：]*", re.IGNORECASE)


async def interactive(settings: Settings, *, console: Console, tenant: str, session: str, name: str) -> None:
    rt = await Runtime.start(settings, notifier=ConsoleNotifier(console))
    console.print(f"[bold]和言 Heyan[/] — tenant {tenant}, thread {session}. /help for commands.")
    try:
        while True:
            try:
                line = await asyncio.to_thread(input, f"{name}> ")
            except EOFError:
                break
            line = line.strip()
            if not line:
                continue
            if line.startswith("/"):
                cmd, _, arg = line.partition(" ")
                arg = arg.strip()
                if cmd == "/quit":
                    break
                if cmd == "/as" and arg:
                    name = arg
                elif cmd == "/session" and arg:
                    await rt.engine.flush(Scope(tenant=tenant, session=session))
                    session = arg
                elif cmd == "/memories":
                    facts = await list_memories(rt.memory, MemoryQuery(tenant))
                    console.print(memory_table(facts, f"{len(facts)} memories in {tenant}"))
                else:
                    if cmd != "/help":
                        console.print(f"unknown command {cmd}")
                    console.print(HELP)
                continue
            mention = bool(_MENTION.match(line))
            msg = Message(
                id=uuid.uuid4().hex,
                scope=Scope(tenant=tenant, session=session, user=f"console:{name}"),
                author_name=name,
                text=_MENTION.sub("", line) if mention else line,
                ts=utcnow(),
                mention=mention,
            )
            reply = await rt.engine.handle(msg)
            if reply is not None:
                render_reply(console, reply)
        await rt.engine.flush(Scope(tenant=tenant, session=session))
        await rt.drain()
    finally:
        await rt.stop()
