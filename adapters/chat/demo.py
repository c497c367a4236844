"""`heyan demo`: the main job on embedded defaults, offline.

Session 1: a design-review dispute in Chinese and English; memories form in the background.
The runtime then stops, and a fresh one starts from the data on disk. Session 2, days later: the bot
recalls what was promised in session 1, with who said it and when.
"""

from __future__ import annotations

import shutil
import sys
import uuid
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from rich.console import Console
from rich.rule import Rule

from adapters.chat.console import ConsoleSender, render_reply
from adapters.cli.terminal import shown
from adapters.cli.views import memory_table
from adapters.runtime.composition import Runtime
from bot.actors import Actor
from bot.config.settings import Settings
from bot.delivery.outbox import Post
from bot.models import Message
from memory.models import Scope, utcnow

__all__ = ["DEMO_TENANT", "run_demo"]

DEMO_TENANT = "console:demo"
DEMO_ZONE = "Asia/Shanghai"

# (session, user id, name, text, mention)
SESSION_1 = [
    ("design-review", "u-zhang", "张伟", "李娜，你上周又没把设计稿发给我，我已经等了三天了，我很生气。", False),
    ("design-review", "u-li", "李娜", "这周项目太多了，不是故意的。我保证明天下午三点前把草稿发给你。", False),
    ("design-review", "u-zhang", "张伟", "我希望以后延期能提前在群里说一声。", False),
    ("design-review", "u-mike", "Mike", "I want the final logo files before the launch. I'm worried we'll miss it.", False),
    # the same member, under the English display name she uses with Mike: one person to Heyan
    ("design-review", "u-li", "Lina", "I'll send Mike the logo files by next Monday.", False),
    ("design-review", "u-li", "李娜", "好的，我也同意以后有延期先在群里说。", False),
    ("design-review", "u-zhang", "张伟", "和言，帮我们理一下现在的情况。", True),
]
SESSION_2 = [
    ("design-review-2", "u-li", "李娜", "草稿我还在改，今天会再看一遍。", False),
    ("design-review-2", "u-zhang", "张伟", "和言，上次李娜答应了什么？", True),
    ("design-review-2", "u-mike", "Mike", "Heyan, what did Lina promise me last time?", True),
    ("design-review-2", "u-zhang", "张伟", "和言，大家各自的诉求是什么？", True),
    ("design-review-2", "u-li", "李娜", "@heyan I'll send the draft tonight, sorry for the delay.", True),
]


def _messages(lines: list[tuple[str, str, str, str, bool]], start: datetime, run: str) -> list[Message]:
    return [
        Message(
            id=f"{run}-{session}-{i}",
            scope=Scope(tenant=DEMO_TENANT, session=session, user=user),
            author_name=name,
            text=text,
            ts=start + timedelta(minutes=2 * i),
            mention=mention,
        )
        for i, (session, user, name, text, mention) in enumerate(lines)
    ]


async def _reset(rt: Runtime) -> None:
    """Forget an earlier demo run, so the demo always tells the same story."""
    scope = Scope(tenant=DEMO_TENANT)
    await rt.store.delete("facts", scope)
    await rt.store.delete("summaries", scope)
    # Windows and counters, and arq's records of the last run's jobs (their ids would block this run's).
    for pattern in (f"heyan:*:{DEMO_TENANT}:*", f"arq:*:*{DEMO_TENANT}:*"):
        keys = [k async for k in rt.redis.scan_iter(match=pattern)]
        if keys:
            await rt.redis.delete(*keys)


async def _play(rt: Runtime, console: Console, messages: list[Message]) -> None:
    for msg in messages:
        console.print(f"[dim]{msg.ts:%m-%d %H:%M}[/] [bold]{shown(msg.author_name)}[/]: {shown(msg.text)}")
        await rt.engine.observe(msg)
        if msg.mention:
            await rt.engine.flush(Scope(tenant=DEMO_TENANT, session=msg.session))
            await rt.drain()
            render_reply(console, await rt.engine.respond(msg))
    await rt.engine.flush(Scope(tenant=DEMO_TENANT, session=messages[-1].session))
    await rt.drain()


class _HeldSender(ConsoleSender):
    """The console as a platform, holding Heyan's own posts until the story reaches them.

    Session 1 is played two days in the past, so 李娜's "tomorrow 3 pm" has passed before session 1
    ends and its follow-up is delivered at once; printed there it would sit between the messages
    of a conversation that has not reached its due time. The demo shows it after session 1 instead,
    where it belongs in the story. Delivery itself is real: each post is recorded as sent.
    """

    def __init__(self, console: Console) -> None:
        super().__init__(console)
        self.held: list[Post] = []

    async def send(self, post: Post) -> str:
        self.held.append(post)
        return f"demo-{len(self.held)}"

    async def show(self) -> None:
        for post in self.held:
            await ConsoleSender.send(self, post)
        self.held.clear()


async def run_demo(settings: Settings, *, console: Console) -> None:
    settings = settings.model_copy(update={"timezone": DEMO_ZONE})
    zone = ZoneInfo(DEMO_ZONE)
    now = utcnow().astimezone(zone).replace(second=0, microsecond=0)
    run = uuid.uuid4().hex[:8]
    sender = _HeldSender(console)

    console.print(Rule("Session 1 — a dispute about a late design draft"))
    rt = await Runtime.start(settings, senders=[sender])
    try:
        await _reset(rt)
        await _play(rt, console, _messages(SESSION_1, now - timedelta(days=2, hours=3), run))
        facts = await rt.moderation.memory_list(Actor.operator(DEMO_TENANT))
        console.print(memory_table(facts, f"What Heyan remembers after session 1 ({len(facts)} memories)"))
        if sender.held:
            console.print(Rule("The due time passes: Heyan follows up on its own"))
            await sender.show()
    finally:
        await rt.stop()

    console.print(Rule("The bot stops. A fresh runtime starts from the data on disk."))
    rt = await Runtime.start(settings, senders=[sender])
    try:
        console.print(Rule("Session 2 — two days later, in a new thread"))
        await _play(rt, console, _messages(SESSION_2, now, run))
    finally:
        await rt.stop()
    console.print(Rule("Done"))
    heyan = _command()
    console.print(
        f"Try: [bold]{heyan} memory list --tenant console:demo[/], [bold]{heyan} commitments list[/], "
        f"[bold]{heyan} chat --script examples/dispute_en.jsonl[/]."
    )


def _command() -> str:
    """How the user can type ``heyan`` from here: the bare name when it is the one on PATH, else the
    path they ran (``.venv/bin/heyan`` after ``make demo``)."""
    ran = Path(sys.argv[0]).resolve() if sys.argv and sys.argv[0] else None
    found = shutil.which("heyan")
    if ran is None or ran.name != "heyan" or (found is not None and Path(found).resolve() == ran):
        return "heyan"
    try:
        return str(ran.relative_to(Path.cwd()))
    except ValueError:
        return str(ran)
