"""Between typed records and store payloads: the one place that knows the payload layout. A payload keeps
in the clear only what the store filters on (ids, times, enums, ``users``, ``messages``, a relation's
keyed ``mentions``); every free-text field goes into one sealed value bound to ``<layer>/<tenant>/<id>``
(the full table: docs/DEPLOY.md, "Encryption at rest"). Payloads written before encryption are read as
they are; ``for_merge`` clears their clear copy on the next change. The plain codec is for tests."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from memory.errors import DecryptionError
from memory.models import Fact, Kind, Summary
from memory.ports import Layer
from memory.recall.relations import mention_names
from memory.store.crypto import Cipher

__all__ = [
    "PLAIN",
    "SEALED",
    "PayloadCodec",
    "cited_messages",
    "fact_from_payload",
    "fact_to_payload",
    "summary_from_payload",
    "summary_to_payload",
]

#: The payload key holding the sealed free-text fields.
SEALED = "sealed"
#: A fact's free-text fields: sealed, never in the clear.
_FACT_SECRET = ("value", "attribute", "subject", "subject_name", "sources", "history", "contested", "slot",
                "recipient_name", "target", "condition")
#: Keys a sealed fact payload sets to None, clearing a clear copy written before encryption
#: (``subject`` is overwritten with the id or pseudonym instead).
_FACT_CLEARED = ("value", "attribute", "subject_name", "sources", "history", "contested", "slot", "text",
                 "recipient_name", "target", "condition")
_SUMMARY_SECRET = ("text", "history")


def _epoch(value: datetime | None) -> float | None:
    return value.timestamp() if value is not None else None


def cited_messages(fact: Fact) -> list[str]:
    """Every message id a fact cites — its sources, its history's and its competing values' — kept in
    the clear (an id, like the other filter fields) so taking back one message finds its records
    through an index instead of opening every record of the session."""
    entries = (*fact.history, *fact.contested)
    return sorted({s.message_id for s in fact.sources} | {s.message_id for e in entries for s in e.sources})


def context(layer: Layer, tenant: str, record_id: str) -> str:
    """The associated data a record's sealed fields are bound to."""
    return f"{layer}/{tenant}/{record_id}"


class PayloadCodec:
    """Models to payloads and back; with a ``cipher``, free text is sealed (see the module docstring)."""

    __slots__ = ("cipher",)

    def __init__(self, cipher: Cipher | None = None) -> None:
        self.cipher = cipher

    def __repr__(self) -> str:
        return f"PayloadCodec(cipher={self.cipher!r})"

    # --- facts ---------------------------------------------------------------------------------

    def fact_to_payload(self, fact: Fact) -> dict[str, Any]:
        """The payload stored for a fact: model fields (JSON), epoch copies of dates to filter on,
        and with a cipher the free text sealed."""
        payload = fact.model_dump(mode="json")
        payload["due_ts"] = _epoch(fact.due_at)
        payload["expires_ts"] = _epoch(fact.expires_at)
        payload["messages"] = cited_messages(fact)
        if fact.kind is Kind.RELATION:
            payload["mentions"] = self.mentions(fact)
        if self.cipher is None:
            payload["text"] = fact.embed_text()
            return payload
        if not fact.id:
            raise ValueError("a fact needs its id (Fact.with_id) before it is sealed: the id is its context")
        secret = {key: payload.pop(key) for key in _FACT_SECRET}
        payload["subject"] = fact.subject if fact.subject in fact.users else self.cipher.pseudonym(
            f"{fact.tenant}\x1f{fact.subject}")
        payload[SEALED] = self.cipher.seal_json(secret, context("facts", fact.tenant, fact.id))
        return payload

    def subject_key(self, tenant: str, name: str) -> str:
        """The payload ``subject`` of a fact whose subject is the entity ``name`` (not a member id):
        the name itself in plain payloads, its keyed pseudonym in sealed ones. Lets a search match
        names in a query against stored subjects without decrypting anything."""
        return name if self.cipher is None else self.cipher.pseudonym(f"{tenant}\x1f{name}")

    def mentions(self, fact: Fact) -> list[str]:
        """What a relation is found by (payload ``mentions``, clear): the member ids it names and
        the keys (``subject_key``) of the names of its subject and object (``memory.recall.relations``)."""
        ids = [m for m in (fact.subject, fact.target) if m and m in fact.users]
        return list(dict.fromkeys([*ids, *(self.subject_key(fact.tenant, n) for n in mention_names(fact))]))

    def fact_from_payload(self, payload: dict[str, Any]) -> Fact:
        data = self._open("facts", payload, Fact.model_fields, _FACT_SECRET)
        return Fact.model_validate(data)

    # --- summaries -----------------------------------------------------------------------------

    def summary_to_payload(self, summary: Summary) -> dict[str, Any]:
        payload = summary.model_dump(mode="json")
        payload["kind"] = "summary"
        payload["status"] = "active"
        if self.cipher is None:
            return payload
        if not summary.id:
            raise ValueError("a summary needs its id (Summary.with_id) before it is sealed")
        secret = {key: payload.pop(key) for key in _SUMMARY_SECRET}
        payload[SEALED] = self.cipher.seal_json(secret, context("summaries", summary.tenant, summary.id))
        return payload

    def summary_from_payload(self, payload: dict[str, Any]) -> Summary:
        data = self._open("summaries", payload, Summary.model_fields, _SUMMARY_SECRET)
        return Summary.model_validate(data)

    # --- either layer --------------------------------------------------------------------------

    def decode(self, layer: Layer, payload: dict[str, Any]) -> Fact | Summary:
        return self.fact_from_payload(payload) if layer == "facts" else self.summary_from_payload(payload)

    def encode(self, layer: Layer, record: Fact | Summary) -> dict[str, Any]:
        if isinstance(record, Fact):
            return self.fact_to_payload(record)
        return self.summary_to_payload(record)

    def for_merge(self, layer: Layer, payload: dict[str, Any]) -> dict[str, Any]:
        """``payload`` to be written with ``set_payload`` (which merges keys): a sealed one also sets
        every free-text key to None, wiping the clear copy of a record from before encryption."""
        if SEALED not in payload:
            return payload
        cleared = _FACT_CLEARED if layer == "facts" else _SUMMARY_SECRET
        return {**dict.fromkeys(cleared), **payload}

    def sealed_with(self, payload: dict[str, Any]) -> str | None:
        """The id of the key that sealed ``payload``; None when it is in the clear."""
        token = payload.get(SEALED)
        return Cipher.sealed_with(token) if isinstance(token, str) else None

    def is_current(self, payload: dict[str, Any]) -> bool:
        """True when nothing is left to rotate: sealed with the first key (the plain codec: always)."""
        return self.cipher is None or self.cipher.is_current(payload.get(SEALED) or "")

    def reseal(self, layer: Layer, point_id: str, payload: dict[str, Any]) -> dict[str, Any] | None:
        """The payload to ``set_payload`` so the record is sealed with the first key, or None when it
        already is. A record written before encryption (no id in its payload) takes the point's id."""
        if self.is_current(payload):
            return None
        record = self.decode(layer, payload)
        if record.id != point_id:
            record = record.model_copy(update={"id": point_id})
        return self.for_merge(layer, self.encode(layer, record))

    def _open(
        self, layer: Layer, payload: dict[str, Any], fields: dict[str, Any], secret: tuple[str, ...]
    ) -> dict[str, Any]:
        data = {k: v for k, v in payload.items() if k in fields}
        token = payload.get(SEALED)
        if token is None:
            return data  # written before encryption: the payload is the record
        if self.cipher is None:
            raise DecryptionError(
                f"record {payload.get('id')} in {layer} is encrypted, but no keys are configured "
                f"(HEYAN_ENCRYPTION_KEYS)"
            )
        opened = self.cipher.open_json(token, context(layer, str(payload.get("tenant")), str(payload.get("id"))))
        data.update({k: v for k, v in opened.items() if k in secret})
        return data


#: The plain codec: payloads in the clear (tests, benches, stores from before encryption).
PLAIN = PayloadCodec()

fact_to_payload = PLAIN.fact_to_payload
fact_from_payload = PLAIN.fact_from_payload
summary_to_payload = PLAIN.summary_to_payload
summary_from_payload = PLAIN.summary_from_payload
