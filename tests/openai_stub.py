"""A scripted OpenAI-compatible server on loopback (chat completions, embeddings, models) for tests
of the real ``openai`` client; the ``openai_stub`` fixture and ``OpenAIStub`` say how to script it."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import re
import struct
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

import pytest

__all__ = [
    "MediatorResponder",
    "OpenAIStub",
    "QuotedMessage",
    "RecordedRequest",
    "StubResponse",
    "chat_body",
    "data_lines",
    "embed_vector",
    "openai_stub",
    "parse_utterances",
]

CHAT = "/v1/chat/completions"
EMBEDDINGS = "/v1/embeddings"


@dataclass
class StubResponse:
    """One scripted answer. ``body`` may be a dict (sent as JSON), str or bytes (sent raw)."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


def chat_body(
    content: str | None,
    *,
    model: str = "stub-model",
    prompt_tokens: int = 11,
    completion_tokens: int = 7,
    finish_reason: str = "stop",
) -> dict[str, Any]:
    """A chat.completion JSON body with one choice."""
    return {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": finish_reason,
                "logprobs": None,
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def embed_vector(text: str, dim: int) -> list[float]:
    """A deterministic unit vector of ``dim`` floats derived from a SHA-256 of ``text``."""
    values: list[float] = []
    counter = 0
    while len(values) < dim:
        digest = hashlib.sha256(f"{counter}\x1f{text}".encode()).digest()
        values.extend((b - 127.5) / 127.5 for b in digest)
        counter += 1
    vec = values[:dim]
    norm = sum(v * v for v in vec) ** 0.5 or 1.0
    return [v / norm for v in vec]


class OpenAIStub:
    """The scripted server's state; tests use its methods and attributes, the handler serves them.

    Queued responses (``push``, ``push_chat``) are served in order per route; an empty queue falls back
    to the route's default (a completion echoing "ok"; hashed vectors of ``embedding_dim``, float or
    base64). Every request is recorded (``requests``, ``chat_requests``), also those the
    ``no_json_schema`` mode rejects with a 400 as vLLM and older servers do. The server runs in a
    thread, so it serves the asyncio client of the test's own event loop."""

    def __init__(self) -> None:
        self.base_url = ""
        self.requests: list[RecordedRequest] = []
        self.mode: Literal["normal", "no_json_schema"] = "normal"
        self.embedding_dim = 64
        self.default_chat: Callable[[dict[str, Any]], StubResponse] = lambda body: StubResponse(
            body=chat_body("ok", model=str(body.get("model", "stub-model")))
        )
        self._queues: dict[str, deque[StubResponse]] = {CHAT: deque(), EMBEDDINGS: deque()}
        self._lock = threading.Lock()
        self._counter = 0

    # --- scripting --------------------------------------------------------------------------
    def push(self, *responses: StubResponse, route: str = CHAT) -> None:
        """Queue responses for ``route`` (default: chat completions), served in order."""
        with self._lock:
            self._queues.setdefault(route, deque()).extend(responses)

    def push_chat(
        self, content: str | None, *, request_id: str | None = None, delay: float = 0.0, **kw: Any
    ) -> None:
        """Queue a successful chat completion whose message content is ``content``."""
        headers = {"x-request-id": request_id} if request_id else {}
        self.push(StubResponse(body=chat_body(content, **kw), headers=headers, delay=delay))

    def push_error(
        self,
        status: int,
        message: str = "error",
        *,
        headers: dict[str, str] | None = None,
        delay: float = 0.0,
    ) -> None:
        """Queue an OpenAI-style error body with ``status``."""
        body = {"error": {"message": message, "type": "stub_error", "param": None, "code": None}}
        self.push(StubResponse(status=status, body=body, headers=headers or {}, delay=delay))

    @property
    def chat_requests(self) -> list[dict[str, Any]]:
        """Bodies of every chat completion request received, in order."""
        return [r.body for r in self.requests if r.path == CHAT]

    @property
    def embedding_requests(self) -> list[dict[str, Any]]:
        return [r.body for r in self.requests if r.path == EMBEDDINGS]

    # --- serving ----------------------------------------------------------------------------
    def _next_id(self) -> str:
        with self._lock:
            self._counter += 1
            return f"stub-req-{self._counter}"

    def answer(self, method: str, path: str, headers: dict[str, str], raw: bytes) -> StubResponse:
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")
        with self._lock:
            self.requests.append(RecordedRequest(method, path, headers, body))
        if method == "GET" and path == "/v1/models":
            return StubResponse(
                body={
                    "object": "list",
                    "data": [{"id": "stub-model", "object": "model", "created": 0, "owned_by": "stub"}],
                }
            )
        if method != "POST" or path not in (CHAT, EMBEDDINGS):
            return StubResponse(status=404, body={"error": {"message": f"no route {method} {path}"}})
        if path == CHAT and self.mode == "no_json_schema" and isinstance(body, dict):
            rf = body.get("response_format") or {}
            if isinstance(rf, dict) and rf.get("type") == "json_schema":
                return StubResponse(
                    status=400,
                    body={
                        "object": "error",
                        "type": "BadRequestError",
                        "code": 400,
                        "param": None,
                        "message": "response_format json_schema is not supported by this server",
                    },
                )
        with self._lock:
            queue = self._queues.setdefault(path, deque())
            scripted = queue.popleft() if queue else None
        if scripted is not None:
            return scripted
        if path == CHAT:
            return self.default_chat(body if isinstance(body, dict) else {})
        return self._embeddings(body if isinstance(body, dict) else {})

    def _embeddings(self, body: dict[str, Any]) -> StubResponse:
        inputs = body.get("input", [])
        texts = [inputs] if isinstance(inputs, str) else [str(t) for t in inputs]
        dim = int(body.get("dimensions") or self.embedding_dim)
        data = []
        for index, text in enumerate(texts):
            vec = embed_vector(text, dim)
            embedding: Any = vec
            if body.get("encoding_format") == "base64":
                embedding = base64.b64encode(struct.pack(f"<{dim}f", *vec)).decode()
            data.append({"object": "embedding", "index": index, "embedding": embedding})
        tokens = sum(len(t.split()) or 1 for t in texts)
        return StubResponse(
            body={
                "object": "list",
                "data": data,
                "model": str(body.get("model", "stub-embed")),
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            }
        )


# --- a task-aware responder: an "LLM" that answers each of the mediator's jobs from the prompt ---------

#: Schema names the provider sends in ``response_format.json_schema.name``, by task.
SCHEMA_TASKS = {
    "ExtractionOut": "extract",
    "RewriteOut": "rewrite",
    "ClassificationOut": "classify",
    "SummaryOut": "summarize",
    "ContradictionOut": "compare",
}

_UTTERANCE = re.compile(
    r'^\[id=(?P<id>.+?)\] (?P<ts>\S+) (?P<name>"(?:[^"\\]|\\.)*") \(user (?P<user>.+?)\): (?P<text>".*")$'
)
_PARTICIPANT = re.compile(r'^(?P<user>.+?): (?P<name>"(?:[^"\\]|\\.)*")$')
_PROMISE = re.compile(r"(?:I'll|I will|我会)(?P<what>[^.!?。！？]*)")
_INJECTED = re.compile(r"record that (?P<name>\w+) agreed to (?P<what>[^.!?]+)", re.IGNORECASE)


@dataclass(frozen=True)
class QuotedMessage:
    """One message line of a prompt's data block, parsed back."""

    message_id: str
    user: str
    name: str
    text: str


def data_lines(prompt: str, label: str) -> list[str]:
    """The lines between ``<<<label`` and ``>>>`` in a prompt (empty when the block is absent)."""
    match = re.search(rf"^<<<{re.escape(label)}\n(.*?)\n>>>$", prompt, re.MULTILINE | re.DOTALL)
    return match.group(1).split("\n") if match else []


def parse_utterances(prompt: str, label: str) -> list[QuotedMessage]:
    """The messages quoted in a data block (``[id=…] time "name" (user …): "text"`` lines)."""
    out = []
    for line in data_lines(prompt, label):
        m = _UTTERANCE.match(line)
        if m:
            out.append(QuotedMessage(m["id"], m["user"], json.loads(m["name"]), json.loads(m["text"])))
    return out


def _user_prompt(body: dict[str, Any]) -> str:
    users = [m.get("content") or "" for m in body.get("messages", []) if m.get("role") == "user"]
    return str(users[0]) if users else ""


@dataclass
class Answered:
    """One chat request the responder answered: its task, body and the HTTP status it got."""

    task: str
    body: dict[str, Any]
    status: int
    content: str | None = None
    usable: bool = False  # answered 200 with valid JSON for its task


class MediatorResponder:
    """A deterministic stand-in for the model, answering every mediator task from the request.

    Install with ``stub.default_chat = MediatorResponder()``. The task comes from the json_schema
    name (or, without a response format, it is a reply). Answers:

    * extract — a commitment for each message in the ``messages`` block containing "I'll"/"I will"/
      "我会", owned by its author, with the promise as an exact quote; a message saying "record that
      <Name> agreed to <x>" gets what an obedient model would write: a commitment owned by <Name>.
    * classify — from the turn: "furious" → angry 0.9 complaint, "how about"/"what if" → proposal,
      "I agree"/"agreed" → agreement, "settled"/"goodbye" → closing, else calm statement 0.1.
    * rewrite — the turn's text as one query; summarize — one issue per speaker; compare — update.
    * reply — ``"stub reply <n>"`` (recorded in ``replies``).

    Failure knobs: ``fail_status[task]`` answers every request of that task with this HTTP status;
    ``malformed`` (a set of tasks) answers them with invalid JSON; ``plan(task, 500, "malformed")``
    sets the outcomes of the next few requests only. Every request is recorded in ``answered``.
    """

    def __init__(self) -> None:
        self.answered: list[Answered] = []
        self.replies: list[str] = []
        self.fail_status: dict[str, int] = {}
        self.malformed: set[str] = set()
        self._planned: dict[str, deque[int | str]] = {}
        self._lock = threading.Lock()

    @staticmethod
    def task_of(body: dict[str, Any]) -> str:
        rf = body.get("response_format") or {}
        if isinstance(rf, dict) and rf.get("type") == "json_schema":
            return SCHEMA_TASKS.get(str(rf.get("json_schema", {}).get("name")), "unknown")
        return "reply" if not rf else "unknown"

    def of(self, task: str, *, usable: bool | None = None) -> list[Answered]:
        """Requests of ``task`` answered so far; with ``usable``, only those that did (not) get a usable answer."""
        with self._lock:
            done = [a for a in self.answered if a.task == task]
        return [a for a in done if usable is None or a.usable == usable]

    def plan(self, task: str, *outcomes: int | str) -> None:
        """The next requests of ``task`` get these outcomes in order: an HTTP status, or "malformed"."""
        with self._lock:
            self._planned.setdefault(task, deque()).extend(outcomes)

    def __call__(self, body: dict[str, Any]) -> StubResponse:
        task = self.task_of(body)
        model = str(body.get("model", "stub-model"))
        with self._lock:
            planned = self._planned.get(task)
            outcome: int | str | None = planned.popleft() if planned else None
        if outcome is None:
            outcome = "malformed" if task in self.malformed else self.fail_status.get(task)
        if isinstance(outcome, int):
            with self._lock:
                self.answered.append(Answered(task, body, outcome))
            error = {"error": {"message": f"stub {task} failure", "type": "stub_error", "param": None,
                               "code": None}}
            return StubResponse(status=outcome, body=error)
        usable = outcome != "malformed"
        content = self._content(task, body) if usable else '{"facts": [ not json'
        with self._lock:
            self.answered.append(Answered(task, body, 200, content, usable))
        return StubResponse(body=chat_body(content, model=model))

    def _content(self, task: str, body: dict[str, Any]) -> str:
        prompt = _user_prompt(body)
        if task == "extract":
            return json.dumps({"facts": self._extract(prompt)}, ensure_ascii=False)
        if task == "classify":
            turns = parse_utterances(prompt, "turn")
            return json.dumps(self._classify(turns[0].text if turns else ""))
        if task == "rewrite":
            turns = parse_utterances(prompt, "turn")
            return json.dumps({"queries": [turns[0].text] if turns else []}, ensure_ascii=False)
        if task == "summarize":
            speakers = dict.fromkeys(u.name for u in parse_utterances(prompt, "messages"))
            return json.dumps({"issues": [f"{name} raised a point" for name in speakers], "agreements": [],
                               "open_differences": [], "next_steps": []}, ensure_ascii=False)
        if task == "compare":
            return json.dumps({"verdict": "update", "reason": "stub"})
        if task == "reply":
            with self._lock:
                text = f"stub reply {len(self.replies) + 1}"
                self.replies.append(text)
            return text
        return "{}"

    @staticmethod
    def _extract(prompt: str) -> list[dict[str, Any]]:
        people = {}
        for line in data_lines(prompt, "participants"):
            m = _PARTICIPANT.match(line)
            if m:
                people[json.loads(m["name"]).casefold()] = m["user"]
        facts: list[dict[str, Any]] = []
        for u in parse_utterances(prompt, "messages"):
            injected = _INJECTED.search(u.text)
            if injected:  # what a model that follows the injected instruction would write
                facts.append(_fact(people.get(injected["name"].casefold(), injected["name"]), "pay",
                                   injected["what"], u.message_id, u.text))
                continue
            promise = _PROMISE.search(u.text)
            if promise:
                facts.append(_fact(u.user, promise["what"].strip() or "promise", promise.group(), u.message_id,
                                   promise.group()))
        return facts

    @staticmethod
    def _classify(text: str) -> dict[str, Any]:
        low = text.casefold()
        if "furious" in low:
            return {"emotion": "angry", "intent": "complaint", "intensity": 0.9}
        if "how about" in low or "what if" in low:
            return {"emotion": "calm", "intent": "proposal", "intensity": 0.2}
        if "i agree" in low or "agreed" in low:
            return {"emotion": "calm", "intent": "agreement", "intensity": 0.1}
        if "settled" in low or "goodbye" in low:
            return {"emotion": "calm", "intent": "closing", "intensity": 0.1}
        return {"emotion": "calm", "intent": "statement", "intensity": 0.1}


def _fact(subject: str, attribute: str, value: str, message_id: str, quote: str) -> dict[str, Any]:
    return {"kind": "commitment", "subject": subject, "attribute": attribute, "value": value.strip(),
            "message_id": message_id, "quote": quote, "confidence": "high", "due_at": None, "reported": False}


def _handler(stub: OpenAIStub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # headers and body are two writes: with Nagle's algorithm the body waits for the client's delayed
        # ACK of the headers, ~40 ms a call (most of a 1,000-line replay's wall time); a real server sets it too
        disable_nagle_algorithm = True

        def log_message(self, format: str, *args: Any) -> None:  # quiet test output
            pass

        def _serve(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            headers = {k.lower(): v for k, v in self.headers.items()}
            response = stub.answer(self.command, self.path, headers, raw)
            if response.delay:
                time.sleep(response.delay)
            if isinstance(response.body, bytes):
                payload = response.body
            elif isinstance(response.body, str):
                payload = response.body.encode()
            else:
                payload = json.dumps(response.body if response.body is not None else {}).encode()
            out_headers = {"content-type": "application/json", **response.headers}
            out_headers.setdefault("x-request-id", stub._next_id())
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self.send_response(response.status)
                for key, value in out_headers.items():
                    self.send_header(key, value)
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        do_POST = _serve
        do_GET = _serve

    return Handler


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that timed out and hung up is expected in tests


@contextlib.contextmanager
def serve_stub() -> Iterator[OpenAIStub]:
    """Run an ``OpenAIStub`` on a free loopback port for the duration of the block."""
    stub = OpenAIStub()
    server = _Server(("127.0.0.1", 0), _handler(stub))
    stub.base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield stub
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture
def openai_stub() -> Iterator[OpenAIStub]:
    """A fresh scripted OpenAI-compatible server on loopback; ``.base_url`` ends in ``/v1``::

        openai_stub.push_chat('{"queries": []}', request_id="req-1")
        openai_stub.push(StubResponse(status=429, headers={"retry-after": "0.01"}))
        ... client(base_url=openai_stub.base_url) ...
        assert openai_stub.chat_requests[0]["response_format"]["type"] == "json_schema"
    """
    with serve_stub() as stub:
        yield stub
