"""What the outbox carries: a ``Post`` (one post Heyan makes on its own), where it stands
(``PostRecord``, ``PostState``), a claim on it (``Lease``), what became of an acknowledgement
(``Ack``), and counts per platform (``OutboxStats``). ``bot.delivery.outbox`` keeps them in Redis."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from bot.models import Message, Reply
from bot.privacy.sealing import open_fields, seal_fields
from bot.text.richtext import RichText
from memory.models import Lang, utcnow
from memory.store.crypto import Cipher

__all__ = ["Ack", "Lease", "OutboxStats", "Post", "PostKind", "PostRecord", "PostState", "platform_of", "reply_post"]


def platform_of(tenant: str) -> str:
    """The platform of a tenant id: ``discord:123`` -> ``discord``; a bare id is a console tenant."""
    head, sep, _ = tenant.partition(":")
    return head if sep and head else "console"


class PostKind(StrEnum):
    REMINDER = "reminder"
    DISPUTE_OPENED = "dispute-opened"
    DISPUTE_CLOSED = "dispute-closed"
    REVIEW = "review-notice"
    NOTICE = "notice"
    #: An answer to a mention, posted through the outbox (the direct post failed, or the process that
    #: was answering died): ``ref["reply_to"]`` is the message id it answers.
    REPLY = "reply"


class PostState(StrEnum):
    PENDING = "pending"
    LEASED = "leased"
    SENT = "sent"
    DEAD = "dead"
    CANCELLED = "cancelled"


@dataclass(frozen=True, slots=True)
class Post:
    """One post to make in a session. ``ref`` links it to what it is about (``fact_id``, ``revision``)."""

    id: str
    tenant: str
    session: str
    body: RichText
    kind: PostKind = PostKind.NOTICE
    lang: Lang = "en"
    ref: Mapping[str, str] = field(default_factory=dict)
    created_at: datetime = field(default_factory=utcnow)

    @property
    def platform(self) -> str:
        return platform_of(self.tenant)

    def concerns(self, user: str) -> bool:
        """Does this post mention ``user``, or is it about a record of theirs (``ref["users"]``)?"""
        return user in self.body.mentions or user in self.ref.get("users", "").split(",")

    def piece_key(self, piece: int = 0) -> str:
        """A stable idempotency key for one piece of this post (24 hex characters: Discord's nonce
        takes up to 25). The same post sent again — after a crash, a lost acknowledgement, by
        another process — carries the same keys, so a platform that honours them posts it once."""
        return hashlib.blake2b(f"{self.id}\x1f{piece}".encode(), digest_size=12).hexdigest()

    def to_json(self, cipher: Cipher | None = None) -> str:
        """The stored form; with ``cipher`` the body is sealed, bound to the post id."""
        data = {
            "id": self.id, "tenant": self.tenant, "session": self.session,
            "kind": self.kind.value, "lang": self.lang, "ref": dict(self.ref),
            "created_at": self.created_at.isoformat(),
        }
        return json.dumps(seal_fields(data, {"body": self.body.to_json()}, cipher, f"post/{self.id}"),
                          ensure_ascii=False)

    @classmethod
    def from_json(cls, raw: str | bytes, cipher: Cipher | None = None) -> Post:
        data: dict[str, Any] = json.loads(raw)
        data = open_fields(data, cipher, f"post/{data['id']}")
        return cls(
            id=data["id"], tenant=data["tenant"], session=data["session"],
            body=RichText.from_json(data["body"]), kind=PostKind(data["kind"]),
            lang="zh" if data.get("lang") == "zh" else "en", ref={str(k): str(v) for k, v in data["ref"].items()},
            created_at=datetime.fromisoformat(data["created_at"]),
        )


@dataclass(frozen=True, slots=True)
class PostRecord:
    """A post and where it stands."""

    post: Post
    state: PostState
    attempts: int = 0
    message_id: str | None = None
    sent_at: datetime | None = None
    error: str | None = None
    #: Dead of a permanent error (the thread is gone), not of a platform down for hours.
    permanent: bool = False


@dataclass(frozen=True, slots=True)
class OutboxStats:
    """Posts of one platform: ``ready`` to send now, ``waiting`` for a retry, ``leased`` (being sent),
    ``dead`` (gave up)."""

    platform: str
    ready: int
    waiting: int
    leased: int
    dead: int

    def as_dict(self) -> dict[str, Any]:
        return {"platform": self.platform, "ready": self.ready, "waiting": self.waiting,
                "leased": self.leased, "dead": self.dead}



@dataclass(frozen=True, slots=True)
class Lease:
    """A claimed post and the token that proves the claim is still this holder's."""

    post: Post
    token: str

    @property
    def epoch(self) -> int:
        """How many times the post was claimed, this claim included."""
        return int(self.token.partition(":")[0])


class Ack(StrEnum):
    """What became of an acknowledgement, a failure report, a release or a renewal."""

    OK = "ok"
    #: Another claim holds the post now (this holder's lease ran out and it was claimed again).
    STALE = "stale"
    SENT = "sent"
    CANCELLED = "cancelled"
    DEAD = "dead"
    GONE = "gone"


def reply_post(msg: Message, reply: Reply, *, ref: Mapping[str, str] | None = None) -> Post:
    """A reply to ``msg`` that could not be posted when it was made, as the outbox posts it later: one
    id per answered message, so whichever path queues it (a platform's listener, the runtime's
    answer-again loop) it goes out once; kind REPLY, ``ref["reply_to"]`` the message it answers."""
    return Post(id=f"reply:{msg.scope.tenant}:{msg.id}", tenant=msg.scope.tenant, session=msg.session,
                body=reply.body, kind=PostKind.REPLY, lang=reply.lang, ref={"reply_to": msg.id, **(ref or {})})
