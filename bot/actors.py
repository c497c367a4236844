"""Who is asking: an ``Actor``, what they may do, and the refusals the moderation service gives.

Every surface turns its caller into an ``Actor`` (tenant, user id, name, the capabilities its platform
grants, language); the service checks capabilities itself, so a platform setting that opens a command
to everyone opens no data. ``ModerationError``s carry English and Chinese: ``error.text(lang)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from memory.errors import HeyanError
from memory.models import Lang

__all__ = [
    "OPERATOR_ID",
    "Actor",
    "Ambiguous",
    "Capability",
    "InvalidRequest",
    "ModerationError",
    "NotFound",
    "PermissionDenied",
]

#: The user id of the local operator (the person at the console of a Heyan machine).
OPERATOR_ID = "operator:local"


class Capability(StrEnum):
    #: Review, correct and delete anyone's memories, see the audit trail, close any dispute.
    MODERATE = "moderate"


@dataclass(frozen=True, slots=True)
class Actor:
    """The caller of a moderation-service method, as the platform vouches for them.

    ``moderator_hint`` says, in the platform's terms, what makes someone a moderator there; a refusal
    quotes it ("ask someone with the Manage Messages permission").
    """

    tenant: str
    user_id: str
    name: str = ""
    capabilities: frozenset[Capability] = field(default_factory=frozenset)
    lang: Lang = "en"
    moderator_hint: str = ""
    #: Not rate limited (the local operator at the console).
    unlimited: bool = False

    @property
    def is_moderator(self) -> bool:
        return Capability.MODERATE in self.capabilities

    @property
    def display(self) -> str:
        return self.name or self.user_id

    @classmethod
    def operator(cls, tenant: str, *, lang: Lang = "en") -> Actor:
        """The local operator: every capability in ``tenant``, no rate limit (console CLI use)."""
        return cls(tenant=tenant, user_id=OPERATOR_ID, name="local operator",
                   capabilities=frozenset(Capability), lang=lang, unlimited=True)


class ModerationError(HeyanError):
    """A request the moderation service refuses; nothing was changed. ``text(lang)`` to show it."""

    def __init__(self, en: str, zh: str | None = None) -> None:
        super().__init__(en)
        self.en = en
        self.zh = zh or en

    def text(self, lang: Lang) -> str:
        return self.zh if lang == "zh" else self.en


class PermissionDenied(ModerationError):
    """The actor lacks the capability, or the record is not theirs."""


class NotFound(ModerationError):
    """No memory, commitment or dispute matches."""


class Ambiguous(ModerationError):
    """An id prefix matches more than one memory."""


class InvalidRequest(ModerationError):
    """The request cannot be done as asked (an empty value, a date in the past, a closed dispute)."""
