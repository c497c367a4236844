"""A recording stand-in for an OpenAI-compatible chat endpoint, for ``heyan bench cost``.

Serves ``POST /v1/chat/completions`` on 127.0.0.1 from a thread, answering each task (by its
json_schema name) with a small valid answer built from the prompt, and records each request's task,
model and prompt size (``bot.tokens.estimate_tokens``). Like ``tests/openai_stub.py``, kept here so the
bench runs without the tests package. Not a model.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from bot.tokens import estimate_tokens

__all__ = ["LLMRecord", "RecordingLLM", "serve_recording_llm"]

#: Task of each structured request, by the schema name the provider sends.
SCHEMA_TASKS = {"ExtractionOut": "extract", "RewriteOut": "rewrite", "ClassificationOut": "classify",
                "SummaryOut": "summarize", "ContradictionOut": "compare"}

_UTTERANCE = re.compile(r'^\[id=(?P<id>.+?)\] \S+ (?P<name>"(?:[^"\\]|\\.)*") \(user (?P<user>.+?)\): (?P<text>".*")$')
_PROMISE = re.compile(r"(?:I'll|I will|I promise|我会|我保证|我答应)[^.!?。！？]*")
_DEMAND = re.compile(r"(?:I want|I expect|我希望|我要求)[^.!?。！？]*")


@dataclass(frozen=True)
class LLMRecord:
    """One chat request: its task, model, estimated prompt tokens, the bench's message index when it
    arrived, and (extraction) the ids of the messages in its batch."""

    task: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    at_message: int
    message_ids: tuple[str, ...] = ()


@dataclass
class RecordingLLM:
    """The stand-in's state: ``records`` in arrival order; set ``at_message`` as the thread goes on."""

    base_url: str = ""
    at_message: int = 0
    records: list[LLMRecord] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def of(self, task: str) -> list[LLMRecord]:
        with self._lock:
            return [r for r in self.records if r.task == task]

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        rf = body.get("response_format") or {}
        schema = rf.get("json_schema", {}).get("name") if isinstance(rf, dict) else None
        task = SCHEMA_TASKS.get(str(schema), "unknown") if rf else "reply"
        messages = body.get("messages", [])
        user = next((str(m.get("content") or "") for m in messages if m.get("role") == "user"), "")
        quoted = _quoted(user, "messages")
        content = self._content(task, user, quoted)
        record = LLMRecord(task, str(body.get("model", "")), sum(estimate_tokens(str(m.get("content") or ""))
                                                                 for m in messages),
                           estimate_tokens(content), self.at_message,
                           tuple(q["id"] for q in quoted) if task == "extract" else ())
        with self._lock:
            self.records.append(record)
        return {
            "id": f"bench-{len(self.records)}", "object": "chat.completion", "created": int(time.time()),
            "model": record.model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                         "finish_reason": "stop", "logprobs": None}],
            "usage": {"prompt_tokens": record.prompt_tokens, "completion_tokens": record.completion_tokens,
                      "total_tokens": record.prompt_tokens + record.completion_tokens},
        }

    @staticmethod
    def _content(task: str, user: str, quoted: list[dict[str, str]]) -> str:
        if task == "extract":
            return json.dumps({"facts": _extract(quoted)}, ensure_ascii=False)
        if task == "rewrite":
            turn = _quoted(user, "turn")
            return json.dumps({"queries": [turn[0]["text"]] if turn else []}, ensure_ascii=False)
        if task == "classify":
            return json.dumps({"emotion": "calm", "intent": "statement", "intensity": 0.1})
        if task == "summarize":
            names = dict.fromkeys(q["name"] for q in quoted)
            return json.dumps({"issues": [f"{n} raised a point" for n in names], "agreements": [],
                               "open_differences": [], "next_steps": []}, ensure_ascii=False)
        if task == "compare":
            return json.dumps({"verdict": "update", "reason": "bench"})
        return "Thanks, both of you. Here is what I remember and a next step."


def _quoted(prompt: str, label: str) -> list[dict[str, str]]:
    match = re.search(rf"^<<<{re.escape(label)}\n(.*?)\n>>>$", prompt, re.MULTILINE | re.DOTALL)
    out: list[dict[str, str]] = []
    for line in match.group(1).split("\n") if match else []:
        m = _UTTERANCE.match(line)
        if m:
            out.append({"id": m["id"], "user": m["user"], "name": json.loads(m["name"]), "text": json.loads(m["text"])})
    return out


def _extract(quoted: list[dict[str, str]]) -> list[dict[str, Any]]:
    facts: list[dict[str, Any]] = []
    for q in quoted:
        for kind, pattern in (("commitment", _PROMISE), ("demand", _DEMAND)):
            found = pattern.search(q["text"])
            if found:
                quote = found.group().strip()
                facts.append({"kind": kind, "subject": q["user"], "attribute": quote[:40], "value": quote,
                              "message_id": q["id"], "quote": quote, "confidence": "high", "due_at": None,
                              "reported": False})
    return facts


def _handler(llm: RecordingLLM) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return  # the bench prints its own report; a line per request would bury it

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("content-length") or 0))
            if self.path != "/v1/chat/completions":
                status, payload = 404, {"error": {"message": f"no route {self.path}"}}
            else:
                try:
                    status, payload = 200, llm.answer(json.loads(raw))
                except (ValueError, AttributeError) as exc:
                    status, payload = 400, {"error": {"message": f"bad request: {exc}"}}
            data = json.dumps(payload, ensure_ascii=False).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


class _Server(ThreadingHTTPServer):
    daemon_threads = True


@contextlib.contextmanager
def serve_recording_llm() -> Iterator[RecordingLLM]:
    """Run a ``RecordingLLM`` on a free loopback port for the duration of the block."""
    llm = RecordingLLM()
    server = _Server(("127.0.0.1", 0), _handler(llm))
    llm.base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield llm
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
