"""Between typed records and store payloads: the one place that knows the payload layout.

Filter fields (tenant, session, kind, subject, status, users, due_ts, expires_ts) stay plain so the
store can index them; free-text fields (value, quotes, summaries) pass through here, which is where
encryption at rest will be added.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from memory.models import Fact, Summary

__all__ = ["fact_from_payload", "fact_to_payload", "summary_from_payload", "summary_to_payload"]


def _epoch(value: datetime | None) -> float | None:
    return value.timestamp() if value is not None else None


def fact_to_payload(fact: Fact) -> dict[str, Any]:
    """The payload stored for a fact: every model field (JSON) plus epoch copies of dates to filter on."""
    payload = fact.model_dump(mode="json")
    payload["due_ts"] = _epoch(fact.due_at)
    payload["expires_ts"] = _epoch(fact.expires_at)
    payload["text"] = fact.embed_text()
    return payload


def fact_from_payload(payload: dict[str, Any]) -> Fact:
    data = {k: v for k, v in payload.items() if k in Fact.model_fields}
    return Fact.model_validate(data)


def summary_to_payload(summary: Summary) -> dict[str, Any]:
    payload = summary.model_dump(mode="json")
    payload["kind"] = "summary"
    payload["status"] = "active"
    return payload


def summary_from_payload(payload: dict[str, Any]) -> Summary:
    data = {k: v for k, v in payload.items() if k in Summary.model_fields}
    return Summary.model_validate(data)
