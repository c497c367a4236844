"""Questions addressed to Heyan, answered from the records that match them.

``question`` holds what a question asks (typed); ``records`` finds the stored records that answer it
(owner, recipient, session, topic by hybrid search) with their source lines; ``model`` is the typed
answer the offline provider words in templates (``bot.offline.answers``, ``bot.offline.templates``)
and whose records the LLM provider is given. The why: docs/ARCHITECTURE.md, "Answers from records".
"""

from bot.answering.model import Answer, AnswerItem, ItemKind, ItemStatus
from bot.answering.question import Ask, Question

__all__ = ["Answer", "AnswerItem", "Ask", "ItemKind", "ItemStatus", "Question"]
