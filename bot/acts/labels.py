"""The label set of dialogue acts: what a line of a conversation does."""

from __future__ import annotations

from enum import StrEnum

__all__ = ["ACTS", "Act"]


class Act(StrEnum):
    """What one line does in the conversation.

    ``ACCEPT`` takes on a request or a counter-offer (with or without a time of its own: the time is
    a slot, read by ``bot.text.duetime``); ``AGREE`` accepts a proposal put to everyone; ``COUNTER`` turns a
    request down and offers something else ("not tonight, tomorrow I can"); ``CONDITION`` is a promise
    that holds only if something happens ("if …, I'll …", "如果…我就…"); ``RESCHEDULE`` moves the time of a
    promise already made; ``QUESTION`` is a question addressed to Heyan.
    """

    REQUEST = "request"
    OFFER = "offer"
    ACCEPT = "accept"
    COUNTER = "counter"
    REFUSE = "refuse"
    CONDITION = "condition"
    RESCHEDULE = "reschedule"
    DONE = "done"
    PROPOSE = "propose"
    AGREE = "agree"
    QUESTION = "question"
    OTHER = "other"


#: The acts in the model's column order (never reorder without retraining).
ACTS: tuple[Act, ...] = tuple(Act)
