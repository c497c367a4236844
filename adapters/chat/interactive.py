"""`heyan chat`: an interactive thread in the terminal, on the full runtime (jobs and follow-ups included).

Lines are messages in the current thread; slash commands call the moderation service — as the member
you speak as (``/mine``, ``/done``) or as the local operator of this machine (``/memories``,
``/open``, ``/close``) — exactly as a platform would.
"""

from __future__ import annotations

import asyncio
import codecs
import logging
import os
import signal
import sys
import threading
import uuid
from datetime import datetime

from rich.console import Console

from adapters.chat.console import ADDRESSED, ConsoleSender, render_reply
from adapters.cli.terminal import shown
from adapters.cli.views import commitment_view, commitments_table, memory_table
from adapters.runtime.composition import Runtime
from bot.actors import Actor, ModerationError
from bot.config.settings import Settings
from bot.limits import SlowDown
from bot.models import Message
from bot.text.names import TenantNames
from bot.text.zones import offset_name
from memory.models import Scope, Visibility, utcnow

__all__ = ["HELP", "interactive"]

HELP = """commands:
  /as <name>        speak as someone else
  /session <id>     switch to another thread
  /private          make this thread private (what is said here is never recited elsewhere)
  /open <title>     open a dispute in this thread
  /status           the dispute, its stage and open commitments
  /summary          summarise this thread now
  /close [reason]   close the dispute (writes the summary, cancels follow-ups)
  /commitments      your commitments and this thread's
  /done <id>        mark a commitment done
  /mine             what Heyan holds about you
  /memories         everything remembered in this tenant
  /help             this help
  /quit             leave
Start a line with @heyan (or @和言) to address the bot."""

log = logging.getLogger(__name__)



def answer_ctrl_c() -> None:
    """Let Ctrl-C end the chat even when whatever started it ignored or blocked SIGINT: both are inherited
    across exec, and Python then never turns Ctrl-C into KeyboardInterrupt (nor does ``asyncio.run`` cancel
    the chat), so the chat waited on until stdin closed and ended as if the member had typed /quit."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


class _Stdin:
    """Lines from standard input, read by a daemon thread with ``os.read``.

    Two things kept Ctrl-C from ending the chat: ``asyncio.to_thread(input)`` runs on the loop's
    default executor, which ``asyncio.run`` joins on the way out (so it waited for one more Enter);
    and a daemon thread blocked in ``input()`` holds the stdin buffer's lock, on which the
    interpreter aborts at exit. ``os.read`` on the descriptor takes no such lock, and a daemon thread
    is never joined: Ctrl-C cancels the awaiting task and the process ends at once. The terminal's
    own line editing (erase, kill) still applies; readline's history does not.
    """

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._pending = ""

    def _line(self) -> str:
        fd = sys.stdin.fileno()
        while "\n" not in self._pending:
            chunk = os.read(fd, 4096)
            if not chunk:
                if self._pending:
                    line, self._pending = self._pending, ""
                    return line
                raise EOFError
            self._pending += self._decoder.decode(chunk)
        line, _, self._pending = self._pending.partition("\n")
        return line

    async def read_line(self, prompt: str) -> str:
        """The next line (without its newline) after showing ``prompt``; EOFError at the end."""
        print(prompt, end="", flush=True)
        loop = asyncio.get_running_loop()
        done: asyncio.Future[str] = loop.create_future()

        def deliver(result: str | BaseException) -> None:
            if done.cancelled():
                return
            if isinstance(result, BaseException):
                done.set_exception(result)
            else:
                done.set_result(result)

        def worker() -> None:
            try:
                line: str | BaseException = self._line()
            except (EOFError, OSError) as exc:
                line = exc if isinstance(exc, EOFError) else EOFError(str(exc))
            try:
                loop.call_soon_threadsafe(deliver, line)
            except RuntimeError:  # the loop closed while we waited (Ctrl-C): nobody wants this line
                log.debug("chat input arrived after the chat ended; dropped")

        threading.Thread(target=worker, name="heyan-chat-input", daemon=True).start()
        return await done


class _Chat:
    def __init__(self, rt: Runtime, console: Console, tenant: str, session: str, name: str) -> None:
        self.rt, self.console, self.tenant, self.session, self.name = rt, console, tenant, session, name
        self.private: set[str] = set()

    @property
    def member(self) -> Actor:
        return Actor(tenant=self.tenant, user_id=f"console:{self.name}", name=self.name)

    @property
    def operator(self) -> Actor:
        return Actor.operator(self.tenant)

    async def command(self, cmd: str, arg: str) -> None:
        mod, console = self.rt.moderation, self.console
        if cmd == "/as" and arg:
            self.name = arg
        elif cmd == "/session" and arg:
            await self.rt.engine.flush(Scope(tenant=self.tenant, session=self.session))
            self.session = arg
        elif cmd == "/private":
            self.private.add(self.session)
            console.print(f"thread {self.session} is private now", markup=False)
        elif cmd == "/open" and arg:
            info = await mod.dispute_open(self.operator, self.session, title=arg, visibility=self._visibility())
            console.print(f"dispute open in {info.session}: {info.title}", markup=False)
            await self.rt.deliver_now()
        elif cmd == "/status":
            st = await mod.dispute_status(self.operator, self.session)
            title = st.info.title if st.info and st.info.title else "(no dispute opened)"
            state = st.info.state.value if st.info else "none"
            console.print(f"{title} — {state}, stage {st.stage}, {st.turns} messages", markup=False)
            names = TenantNames(await mod.memory_list(self.operator))
            console.print(commitments_table([commitment_view(f, names) for f in st.open_commitments]))
        elif cmd == "/summary":
            summary = await mod.dispute_summary(self.operator, self.session)
            console.print(summary.text if summary else "nothing to summarise yet", markup=False)
        elif cmd == "/close":
            closed = await mod.dispute_close(self.operator, self.session, arg)
            console.print(f"closed; {closed.cancelled_followups} follow-ups cancelled", markup=False)
            if closed.summary:
                console.print(closed.summary.text, markup=False)
        elif cmd == "/commitments":
            facts = await mod.commitments(self.member, session=self.session)
            names = TenantNames(await mod.memory_list(self.operator))
            console.print(commitments_table([commitment_view(f, names) for f in facts]))
        elif cmd == "/done" and arg:
            fact = await mod.commitment_done(self.operator, arg)
            console.print(f"done: {fact.subject_name or fact.subject} — {fact.value}", markup=False)
        elif cmd == "/mine":
            facts = await mod.my_memories(self.member)
            names = TenantNames(await mod.memory_list(self.operator))
            console.print(memory_table(facts, f"{len(facts)} memories about {self.name}", names))
        elif cmd == "/memories":
            facts = await mod.memory_list(self.operator)
            console.print(memory_table(facts, f"{len(facts)} memories in {self.tenant}"))
        else:
            if cmd != "/help":
                console.print(f"unknown command {cmd}", markup=False)
            console.print(HELP, markup=False)

    def _visibility(self) -> Visibility:
        return Visibility.PRIVATE if self.session in self.private else Visibility.PUBLIC

    async def say(self, line: str) -> None:
        mention = bool(ADDRESSED.match(line))
        msg = Message(
            id=uuid.uuid4().hex,
            scope=Scope(tenant=self.tenant, session=self.session, user=f"console:{self.name}"),
            author_name=self.name,
            text=ADDRESSED.sub("", line) if mention else line,
            ts=utcnow(),
            mention=mention,
            visibility=self._visibility(),
            speaker_zone=offset_name(datetime.now().astimezone()),  # this terminal's clock
        )
        if mention:
            # what earlier lines said is being extracted in the background; a question asked right
            # after them (pasted lines, a quick typist) waits for that, as a script replay does
            await self.rt.drain(timeout=10)
        reply = await self.rt.engine.handle(msg)
        if reply is not None:
            render_reply(self.console, reply)


async def interactive(settings: Settings, *, console: Console, tenant: str, session: str, name: str) -> None:
    rt = await Runtime.start(settings, senders=[ConsoleSender(console)])
    chat = _Chat(rt, console, tenant, session, name)
    console.print(f"[bold]和言 Heyan[/] — tenant {tenant}, thread {session}. /help for commands.")
    stdin = _Stdin()
    try:
        while True:
            try:
                line = await stdin.read_line(f"{chat.name}> ")
            except EOFError:
                break
            line = line.strip()
            if not line:
                continue
            if line.startswith("/"):
                cmd, _, arg = line.partition(" ")
                if cmd == "/quit":
                    break
                try:
                    await chat.command(cmd, arg.strip())
                except (ModerationError, SlowDown) as exc:
                    console.print(f"[red]{shown(str(exc))}[/]", highlight=False)
                continue
            await chat.say(line)
        await rt.engine.flush(Scope(tenant=chat.tenant, session=chat.session))
        await rt.drain()
    finally:
        await rt.stop()
