"""The console adapter: scripts and interactive chat on the same engine the platforms use.

A script is JSON Lines, one message a line: ``tenant``, ``session``, ``user_id``, ``user_name``,
``text``, ``ts`` (ISO-8601 with the speaker's offset), optional ``mention``, ``id`` (a repeated id is a
redelivery: reported and dropped), ``private`` and ``tz`` (overrides the offset). The whole file is
checked first, so a malformed line stops the replay with nothing half-written.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from rich.console import Console
from rich.markup import escape as escape_markup

from bot.delivery.outbox import Post, PostKind
from bot.models import Message, Reply
from bot.text.zones import is_zone, offset_name
from memory.errors import HeyanError
from memory.models import Scope, Visibility
from memory.normalize import escape_controls

__all__ = ["ADDRESSED", "ConsoleSender", "ScriptError", "parse_script", "render_reply"]

#: A line that starts by addressing the bot: "@heyan …", "@和言，…" (the console has no mention markup).
ADDRESSED = re.compile(r"^\s*@(heyan|和言)\b[\s,，:：]*", re.IGNORECASE)

_REQUIRED = ("tenant", "session", "user_id", "user_name", "text", "ts")


class ScriptError(HeyanError, ValueError):
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
    # without a "mention" field, a line that starts with @heyan / @和言 addresses the bot, as in chat
    mention = data.get("mention", bool(ADDRESSED.match(data["text"])))
    if not isinstance(mention, bool):
        raise ScriptError(f"{where}: mention must be true or false")
    private = data.get("private", False)
    if not isinstance(private, bool):
        raise ScriptError(f"{where}: private must be true or false")
    zone = data.get("tz")
    if zone is not None and (not isinstance(zone, str) or not is_zone(zone)):
        raise ScriptError(f"{where}: tz {zone!r} is not a timezone (an IANA name such as Asia/Shanghai, or +08:00)")
    message_id = str(data.get("id") or f"{data['session']}:{number}")
    return Message(
        id=message_id,
        scope=Scope(tenant=data["tenant"], session=data["session"], user=data["user_id"]),
        author_name=data["user_name"],
        text=data["text"],
        ts=ts,
        mention=mention,
        visibility=Visibility.PRIVATE if private else Visibility.PUBLIC,
        # the speaker's clock: their own zone when given, else the offset they wrote ts with
        speaker_zone=zone or offset_name(ts),
    )


def parse_script(path: Path, warn: Callable[[str], None] | None = None) -> list[Message]:
    """Every message of a script, or ScriptError naming the first bad line.

    A line whose ``id`` repeats an earlier line's is a redelivery of that message: it is dropped,
    and ``warn`` hears one line naming both line numbers (the platforms drop redeliveries the same
    way, but a script author usually meant two messages)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ScriptError(f"{path}: cannot read the script ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise ScriptError(f"{path}: the script is not UTF-8 text") from None
    messages: list[Message] = []
    first_line: dict[str, int] = {}
    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        message = _parse_line(path, number, raw)
        if message.id in first_line:
            if warn is not None:
                warn(f"{path}:{number}: id {message.id!r} repeats line {first_line[message.id]}; "
                     f"line {number} is taken as a redelivery and skipped")
            continue
        first_line[message.id] = number
        messages.append(message)
    if not messages:
        raise ScriptError(f"{path}: the script has no messages")
    return messages


def render_reply(console: Console, reply: Reply) -> None:
    """A reply, then the ids of the facts it drew on (each one ``heyan memory show`` shows) and,
    apart, the session summary's. The reply may repeat members' names and words: control characters
    are shown as escapes, never sent to the terminal."""
    console.print(f"[bold cyan]和言[/] [dim]({reply.stage.value})[/] ", end="")
    console.print(escape_controls(reply.text), markup=False, highlight=False)
    used = []
    if reply.memory_ids:
        used.append(f"memories used: {', '.join(i[:8] for i in reply.memory_ids)}")
    if reply.summary_id:
        used.append(f"session summary: {reply.summary_id[:8]}")
    if used:
        console.print(f"[dim]  {'; '.join(used)}[/]")


_LABELS = {PostKind.REMINDER: "follow-up", PostKind.DISPUTE_OPENED: "dispute opened",
           PostKind.DISPUTE_CLOSED: "dispute closed", PostKind.REVIEW: "review"}


class ConsoleSender:
    """The console as a platform: prints the posts of the ``console`` outbox (follow-ups, notices).

    Console tenants are ``console:<name>``; the message id it returns is a counter, so a post is
    recorded as sent only after it was printed.
    """

    platform = "console"

    def __init__(self, console: Console, *, as_json: bool = False) -> None:
        self.console = console
        self.as_json = as_json
        self._sent = 0

    async def send(self, post: Post) -> str:
        self._sent += 1
        if self.as_json:
            line = {"type": "notice", "kind": post.kind.value, "session": post.session,
                    "mentions": list(post.body.mentions), "text": post.body.plain()}
            print(json.dumps(line, ensure_ascii=False), flush=True)
        else:
            label = _LABELS.get(post.kind, "notice")
            self.console.print(f"[bold yellow]和言 {label}[/] [dim]({escape_markup(post.session)})[/] ", end="")
            self.console.print(escape_controls(post.body.plain()), markup=False, highlight=False)
        return f"console-{self._sent}"
