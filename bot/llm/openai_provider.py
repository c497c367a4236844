"""The mediator on any OpenAI-compatible chat endpoint (OpenAI, Azure-compatible gateways, vLLM, Ollama).

``model`` writes replies, ``fast_model`` everything else. Structured tasks use strict JSON schemas
(``bot.llm.schemas``; ``json_object`` plus the schema in the prompt where unsupported), with one repair
round. Retries are ours (``max_retries=0``), with backoff honouring ``Retry-After``; one call stops
after ``total_timeout``: keep it below ``HEYAN_JOBS_JOB_TIMEOUT`` so the engine falls back offline
before arq cancels the job. The only ``bot`` module that imports ``openai``.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import json
import logging
import re
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, TypeVar

import openai
from openai.types.chat import ChatCompletion, ChatCompletionMessageParam
from openai.types.chat.completion_create_params import ResponseFormat
from pydantic import BaseModel, ValidationError

import prompts
from bot.delivery.backoff import backoff
from bot.extraction.candidates import CandidateFact, ExtractionRequest, Utterance
from bot.llm.base import Classification, ProviderError, ReplyRequest
from bot.llm.rendering import fact_line, reply_messages, utterance_line
from bot.llm.schemas import (
    MAX_QUERIES,
    ClassificationOut,
    CommonGroundOut,
    ContradictionOut,
    ExtractionOut,
    RewriteOut,
    SummaryOut,
    strict_schema,
)
from memory.models import Fact, Lang, Summary

__all__ = ["OpenAIProvider", "TaskUsage"]

log = logging.getLogger(__name__)

M = TypeVar("M", bound=BaseModel)
Structured = Literal["json_schema", "json_object"]

#: Statuses worth another attempt: request timeout, conflict, rate limit and server errors.
_RETRY_STATUS = frozenset({408, 409, 429})
#: A validation error longer than this is cut before it is sent back for repair.
_REPAIR_ERROR_CHARS = 1500
_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$")


@dataclass
class TaskUsage:
    """Tokens spent on one task (extract, rewrite, classify, reply, summarize, compare)."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass(frozen=True, slots=True)
class _Done:
    content: str | None
    request_id: str | None


class _Rejected(ProviderError):
    """A non-retryable HTTP error (4xx other than 408/409/429)."""

    def __init__(self, message: str, *, status: int, request_id: str | None) -> None:
        super().__init__(message, request_id=request_id)
        self.status = status


class OpenAIProvider:
    """``MediatorProvider`` over an OpenAI-compatible endpoint. See the module docstring."""

    name = "openai"

    def __init__(
        self,
        base_url: str | None,
        api_key: str | None,
        model: str,
        fast_model: str | None = None,
        timeout: float = 20.0,
        max_attempts: int = 3,
        structured: Structured = "json_schema",
        *,
        total_timeout: float = 60.0,
        backoff_base: float = 0.5,
        backoff_max: float = 8.0,
        retry_after_max: float = 20.0,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        """Connect to ``base_url`` (ending in ``/v1``; None: api.openai.com).

        ``model`` writes replies, ``fast_model`` (default: ``model``) does everything else.
        ``timeout`` bounds one HTTP request; ``total_timeout`` one provider call with its retries,
        backoff and repair round, and must stay below the job timeout. ``max_attempts`` counts
        requests per round (3: one try, two retries). Backoff before retry n is drawn from
        ``[c/2, c]`` with ``c = min(backoff_max, backoff_base * 2**(n-1))``; a ``Retry-After`` from
        the server replaces it, capped at ``retry_after_max``. ``structured="json_object"`` skips
        json_schema for servers known not to support it. ``sleep`` is a test seam.
        """
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        self.model = model
        self.fast_model = fast_model or model
        self.timeout = timeout
        self.max_attempts = max_attempts
        self.structured: Structured = structured
        self.total_timeout = total_timeout
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.retry_after_max = retry_after_max
        self.usage: dict[str, TaskUsage] = {}
        self._sleep = sleep
        # Local servers (Ollama, vLLM) ignore the key but the SDK insists on one.
        self._client = openai.AsyncOpenAI(
            base_url=base_url, api_key=api_key or "no-key", timeout=timeout, max_retries=0
        )

    def __repr__(self) -> str:
        return (
            f"OpenAIProvider(base_url={str(self._client.base_url)!r}, model={self.model!r}, "
            f"fast_model={self.fast_model!r}, timeout={self.timeout}, max_attempts={self.max_attempts}, "
            f"structured={self.structured!r})"
        )

    async def aclose(self) -> None:
        await self._client.close()

    # --- the five jobs ----------------------------------------------------------------------
    async def extract(self, request: ExtractionRequest) -> list[CandidateFact]:
        """Typed candidate facts; any whose message or quote does not check out is dropped."""
        people = _participants([*request.context, *request.turns])
        tz = request.timezone
        user = prompts.render(
            "extract",
            request.lang,
            timezone=tz,
            participants=prompts.data_block(
                "participants", prompts.format_participants(people), request.lang
            ),
            context=prompts.data_block("context", [utterance_line(u, tz) for u in request.context], request.lang),
            messages=prompts.data_block("messages", [utterance_line(u, tz) for u in request.turns], request.lang),
        )
        out = await self._structured("extract", ExtractionOut, user, request.lang)
        return out.candidates(request)

    async def rewrite(self, turn: Utterance, window: Sequence[Utterance], lang: Lang) -> list[str]:
        """The turn itself plus up to three retrieval queries."""
        user = prompts.render("rewrite", lang, **_window_and_turn(turn, window, lang))
        out = await self._structured("rewrite", RewriteOut, user, lang)
        queries = [turn.text]
        for query in out.queries:
            query = query.strip()
            if query and query not in queries:
                queries.append(query)
        return queries[: 1 + MAX_QUERIES]

    async def classify(self, turn: Utterance, window: Sequence[Utterance], lang: Lang) -> Classification:
        user = prompts.render("classify", lang, **_window_and_turn(turn, window, lang))
        out = await self._structured("classify", ClassificationOut, user, lang)
        return Classification(emotion=out.emotion, intent=out.intent, intensity=out.intensity)

    async def reply(self, request: ReplyRequest) -> str:
        system, user = reply_messages(request)  # the same rendering the engine budgets
        messages: list[ChatCompletionMessageParam] = [
            {"role": "system", "content": system},
            {"role": "user", "content": user},
        ]
        done = await self._complete("reply", self.model, messages, None, self._deadline())
        text = (done.content or "").strip()
        if not text:
            raise ProviderError("reply: the model returned no text", request_id=done.request_id)
        return text

    async def summarize(self, turns: Sequence[Utterance], previous: Summary | None, lang: Lang) -> str:
        """The session summary as text (issues, agreements, open differences, next steps)."""
        return (await self.summarize_parts(turns, previous, lang)).to_text(lang)

    async def summarize_parts(
        self, turns: Sequence[Utterance], previous: Summary | None, lang: Lang, timezone: str = "UTC"
    ) -> SummaryOut:
        """The session summary as its four lists."""
        user = prompts.render(
            "summarize",
            lang,
            previous=prompts.data_block("previous_summary", previous.text if previous else "", lang),
            messages=prompts.data_block("messages", [utterance_line(u, timezone) for u in turns], lang),
        )
        return await self._structured("summarize", SummaryOut, user, lang)

    async def compare(self, new: Fact, stored: Fact, lang: Lang, timezone: str = "UTC") -> ContradictionOut:
        """Whether ``new`` restates, updates or contradicts ``stored`` (the same slot)."""
        user = prompts.render(
            "contradiction",
            lang,
            stored=prompts.data_block("stored_fact", fact_line(stored, timezone, {}), lang),
            new=prompts.data_block("new_fact", fact_line(new, timezone, {}), lang),
        )
        return await self._structured("compare", ContradictionOut, user, lang)

    async def common_ground(self, sides: Sequence[str], agreed: Sequence[str], lang: Lang) -> list[str]:
        """Candidate statements of common ground from each side's lines (``bot.agreements.common_ground`` checks them)."""
        user = prompts.render(
            "common_ground", lang,
            sides=prompts.data_block("sides", sides, lang), agreed=prompts.data_block("agreed", agreed, lang))
        return list((await self._structured("common_ground", CommonGroundOut, user, lang)).statements)

    # --- structured outputs -----------------------------------------------------------------
    def _messages(self, schema: type[BaseModel], user: str, lang: Lang) -> list[ChatCompletionMessageParam]:
        messages: list[ChatCompletionMessageParam] = []
        if self.structured == "json_object":
            text = prompts.render(
                "json_object", lang, schema=json.dumps(strict_schema(schema), ensure_ascii=False)
            )
            messages.append({"role": "system", "content": text})
        messages.append({"role": "user", "content": user})
        return messages

    def _response_format(self, schema: type[BaseModel]) -> ResponseFormat:
        if self.structured == "json_object":
            return {"type": "json_object"}
        return {
            "type": "json_schema",
            "json_schema": {"name": schema.__name__, "schema": strict_schema(schema), "strict": True},
        }

    async def _structured(self, task: str, schema: type[M], user: str, lang: Lang) -> M:
        deadline = self._deadline()
        messages = self._messages(schema, user, lang)
        try:
            done = await self._complete(
                task, self.fast_model, messages, self._response_format(schema), deadline
            )
        except _Rejected as exc:
            if self.structured != "json_schema" or not _about_json_schema(exc):
                raise
            log.warning(
                "llm %s: server rejected json_schema (request %s); using json_object from now on",
                task,
                exc.request_id,
            )
            self.structured = "json_object"
            messages = self._messages(schema, user, lang)
            done = await self._complete(
                task, self.fast_model, messages, self._response_format(schema), deadline
            )
        try:
            return _parse(schema, done.content)
        except ValidationError as exc:
            error = str(exc)[:_REPAIR_ERROR_CHARS]  # for the model to repair: it quotes the output
            log.warning(  # the output quotes members: logged are where and what was wrong, not the values
                "llm %s: invalid output of %d characters (request %s), one repair attempt: %s",
                task, len(done.content or ""), done.request_id, without_input(exc),
            )
        messages = [
            *messages,
            {"role": "assistant", "content": done.content or ""},
            {"role": "user", "content": prompts.render("repair", lang, error=error)},
        ]
        done = await self._complete(task, self.fast_model, messages, self._response_format(schema), deadline)
        try:
            return _parse(schema, done.content)
        except ValidationError as exc:
            problem = f"{task}: output still invalid after one repair (request {done.request_id}): {without_input(exc)}"
            log.warning("llm %s", problem)  # where and what, never the output: the job logs only the error's type
            raise ProviderError(problem, request_id=done.request_id) from None

    # --- one request with retries -------------------------------------------------------------
    def _deadline(self) -> float:
        return time.monotonic() + self.total_timeout

    async def _complete(
        self,
        task: str,
        model: str,
        messages: list[ChatCompletionMessageParam],
        response_format: ResponseFormat | None,
        deadline: float,
    ) -> _Done:
        request_id: str | None = None
        problem = "no attempt made"
        for attempt in range(1, self.max_attempts + 1):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                problem = f"total timeout {self.total_timeout}s reached"
                break
            retry_after: float | None = None
            try:
                response = await self._client.chat.completions.create(
                    model=model,
                    messages=messages,
                    response_format=response_format if response_format is not None else openai.omit,
                    timeout=min(self.timeout, remaining),
                )
            except openai.APIStatusError as exc:
                request_id = exc.request_id
                problem = f"HTTP {exc.status_code}: {exc.message}"
                if exc.status_code not in _RETRY_STATUS and exc.status_code < 500:
                    raise _Rejected(
                        f"{task}: {problem} (request {request_id})",
                        status=exc.status_code,
                        request_id=request_id,
                    ) from None
                retry_after = _retry_after(exc.response.headers)
            except openai.APITimeoutError:
                problem = f"timed out after {min(self.timeout, remaining):.3g}s"
            except openai.APIConnectionError as exc:
                problem = f"connection error: {exc.message}"
            else:
                return self._record(task, model, attempt, response)
            log.warning(
                "llm %s: attempt %d/%d failed: %s (request %s)",
                task,
                attempt,
                self.max_attempts,
                problem,
                request_id,
            )
            if attempt == self.max_attempts:
                break
            delay = self._delay(attempt, retry_after)
            if time.monotonic() + delay >= deadline:
                problem += f"; total timeout {self.total_timeout}s would pass before the next attempt"
                break
            await self._sleep(delay)
        raise ProviderError(f"{task}: gave up after {attempt} attempt(s): {problem}", request_id=request_id)

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.retry_after_max)
        return backoff(attempt, base=self.backoff_base, cap=self.backoff_max, jitter=True)

    def _record(self, task: str, model: str, attempt: int, response: ChatCompletion) -> _Done:
        request_id = response._request_id
        usage = self.usage.setdefault(task, TaskUsage())
        usage.calls += 1
        prompt_tokens = response.usage.prompt_tokens if response.usage else 0
        completion_tokens = response.usage.completion_tokens if response.usage else 0
        usage.prompt_tokens += prompt_tokens
        usage.completion_tokens += completion_tokens
        log.info(
            "llm %s model=%s request=%s attempt=%d prompt_tokens=%d completion_tokens=%d prompts=v%s",
            task,
            model,
            request_id,
            attempt,
            prompt_tokens,
            completion_tokens,
            prompts.VERSION,
        )
        if not response.choices:
            raise ProviderError(f"{task}: the response has no choices", request_id=request_id)
        message = response.choices[0].message
        if message.refusal:
            raise ProviderError(f"{task}: the model refused: {message.refusal}", request_id=request_id)
        return _Done(content=message.content, request_id=request_id)


# --- helpers ------------------------------------------------------------------------------------
def without_input(exc: ValidationError) -> str:
    """A validation error of the model's output, without the output (it quotes members): where and
    what was wrong, for logs and errors."""
    problems = exc.errors(include_input=False, include_url=False, include_context=False)
    return "; ".join(f"{'.'.join(map(str, e['loc'])) or 'output'}: {e['msg']}"
                     for e in problems)[:_REPAIR_ERROR_CHARS]


def _about_json_schema(exc: _Rejected) -> bool:
    text = str(exc).lower()
    return exc.status == 400 and ("json_schema" in text or "response_format" in text)


def _retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds from ``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date), if present."""
    raw_ms, raw = headers.get("retry-after-ms"), headers.get("retry-after")
    with contextlib.suppress(ValueError):
        if raw_ms is not None:
            return float(raw_ms) / 1000
        if raw is not None:
            return float(raw)
    if raw:
        with contextlib.suppress(TypeError, ValueError, IndexError):
            return max(0.0, email.utils.parsedate_to_datetime(raw).timestamp() - time.time())
    return None


def _parse(schema: type[M], content: str | None) -> M:
    text = _FENCE.sub("", (content or "").strip())
    return schema.model_validate_json(text or '""')


def _participants(utterances: Sequence[Utterance]) -> dict[str, str]:
    return {u.author_id: u.author_name for u in utterances}


def _window_and_turn(turn: Utterance, window: Sequence[Utterance], lang: Lang) -> dict[str, str]:
    earlier = [u for u in window if u.message_id != turn.message_id]
    return {
        "window": prompts.data_block("window", [utterance_line(u, "UTC") for u in earlier], lang),
        "turn": prompts.data_block("turn", utterance_line(turn, "UTC"), lang),
    }
