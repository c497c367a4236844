"""Slack Web API clients: one per bot token, for posting (which waits out a rate limit once) and
for reading history (which does not: a refused read is answered from memory at once rather than
after a ``Retry-After`` of up to a minute on the reply path)."""

from __future__ import annotations

from slack_sdk.http_retry.async_handler import AsyncRetryHandler
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
)
from slack_sdk.web.async_client import AsyncWebClient

__all__ = ["DEFAULT_API_URL", "make_client"]

#: Slack's Web API (``HEYAN_SLACK_API_URL`` replaces it for proxies and tests).
DEFAULT_API_URL = "https://slack.com/api/"


def make_client(token: str | None, api_url: str | None = None, *, wait_rate_limit: bool = True) -> AsyncWebClient:
    """A Web API client. ``retry_handlers`` replaces slack_sdk's defaults, so the connection-error
    handler is listed again beside the rate-limit one (which waits ``Retry-After`` once)."""
    handlers: list[AsyncRetryHandler] = [AsyncConnectionErrorRetryHandler()]
    if wait_rate_limit:
        handlers.append(AsyncRateLimitErrorRetryHandler(max_retry_count=1))
    return AsyncWebClient(token=token, base_url=api_url or DEFAULT_API_URL, timeout=30, retry_handlers=handlers)
