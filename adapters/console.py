"""The console adapter: scripts and interactive chat on the same engine the platforms use.

A script is JSON Lines, one message a line:
``{"tenant", "session", "user_id", "user_name", "text", "ts", "mention"}`` — ``ts`` ISO-8601 with an
offset, ``mention`` optional (true when the line addresses the bot). The whole file is checked
before anything runs, so a malformed line stops the replay with nothing half-written.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from rich.console import Console
from rich.table import Table

from bot.models import Message, Reply
from memory.models import Fact, Scope

__all__ = ["ConsoleNotifier", "ScriptError", "memory_table", "parse_script", "render_reply"]

_REQUIRED = ("tenant", "session", "user_id", "user_name", "text", "ts")


class ScriptError(ValueError):
    """A script line is malformed; the message starts with ``FILE:LINE:``."""


@dataclass(frozen=True, slots=True)
class ScriptLine:
    line: int
    message: Message


def _parse_line(path: Path, number: int, raw: str) -> Message:
    where = f"{path}:{number}"
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ScriptError(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(data, dict):
        raise ScriptError(f"{where}: expected a JSON object, got {type(data).__name__}")
    missing = [k for k in _REQUIRED if k not in data]
    if missing:
        raise ScriptError(f"{where}: missing field(s) {', '.join(missing)}")
    for key in _REQUIRED:
        if not isinstance(data[key], str) or not data[key].strip():
            raise ScriptError(f"{where}: field {key!r} must be a non-empty string")
    try:
        ts = datetime.fromisoformat(data["ts"])
    except ValueError:
        raise ScriptError(f"{where}: ts {data['ts']!r} is not ISO-8601 (e.g. 2026-11-03T10:00:00+08:00)") from None
    if ts.tzinfo is None:
        raise ScriptError(f"{where}: ts {data['ts']!r} has no UTC offset (add e.g. +08:00 or Z)")
    mention = data.get("mention", False)
    if not isinstance(mention, bool):
        raise ScriptError(f"{where}: mention must be true or false")
    message_id = str(data.get("id") or f"{data['session']}:{number}")
    return Message(
        id=message_id,
        scope=Scope(tenant=data["tenant"], session=data["session"], user=data["user_id"]),
        author_name=data["user_name"],
        text=data["text"],
        ts=ts,
        mention=mention,
    )


def parse_script(path: Path) -> list[Message]:
    """Every message of a script, or ScriptError naming the first bad line."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ScriptError(f"{path}: cannot read the script ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise ScriptError(f"{path}: the script is not UTF-8 text") from None
    messages = [_parse_line(path, n, raw) for n, raw in enumerate(lines, 1) if raw.strip()]
    if not messages:
        raise ScriptError(f"{path}: the script has no messages")
    return messages


def render_reply(console: Console, reply: Reply) -> None:
    console.print(f"[bold cyan]和言[/] [dim]({reply.stage.value})[/] {reply.text}")
    if reply.memory_ids:
        console.print(f"[dim]  memories used: {', '.join(i[:8] for i in reply.memory_ids)}[/]")


class ConsoleNotifier:
    """Prints what jobs post (reminders) to the terminal."""

    def __init__(self, console: Console, *, as_json: bool = False) -> None:
        self.console = console
        self.as_json = as_json

    async def post(self, scope: Scope, text: str, *, mention: str | None = None) -> None:
        if self.as_json:
            line = {"type": "notice", "session": scope.session, "mention": mention, "text": text}
            print(json.dumps(line, ensure_ascii=False), flush=True)
        else:
            self.console.print(f"[bold yellow]和言 follow-up[/] [dim]({scope.session})[/] {text}")


def memory_table(facts: list[Fact], title: str) -> Table:
    """A rich table of facts: who, what, status, and who said it when."""
    table = Table(title=title, show_lines=False)
    for col in ("id", "kind", "who", "attribute", "value", "status", "conf", "said"):
        table.add_column(col, overflow="fold")
    for f in facts:
        said = f.sources[0] if f.sources else None
        table.add_row(
            f.id[:8], f.kind.value, f.subject_name or f.subject, f.attribute, f.value, f.status.value,
            f.confidence.value, f"{said.author_name or said.author_id} {said.ts:%m-%d %H:%M}" if said else "",
        )
    return table
