"""Writing a session summary: the window and the previous summary in, a new version out.

Used by the summary job and the moderation service. The text carries the previous one forward, so its
authors (``Summary.users``) accumulate: every member whose words it may hold. Erasing a member or
deleting a message rolls summaries back to a version without them and marks them stale; the next run
writes them again from what remains.
"""

from __future__ import annotations

from bot.conversation.log import MessageLog
from bot.guard.poisoning import attempt
from bot.llm.base import MediatorProvider
from bot.text.lang import session_lang
from memory.models import Scope, Summary, Visibility
from memory.service import MemoryService

__all__ = ["summarize_session"]


async def summarize_session(
    window: MessageLog, memory: MemoryService, provider: MediatorProvider, scope: Scope, turn: int | None = None
) -> Summary | None:
    """A new version of the session summary from its window (None when the window is empty or the
    provider has nothing to say). It keeps the session's visibility and names its participants."""
    assert scope.session is not None, "a summary is per session"
    messages = await window.recent(scope)
    names = {m.author_name for m in messages}
    # a message that tries to instruct the bot or speak as someone else is not summarized: a summary
    # is recalled as memory, and such a message must never be recited as one (bot.guard.poisoning)
    heard = [(m.author_name, m.text) for m in messages]
    messages = [m for k, m in enumerate(messages)
                if attempt(m.text, speaker=m.author_name, names=names, addressed=m.mention, heard=heard[:k]) is None]
    if not messages:
        return None
    previous = await memory.summary(scope)
    lang = session_lang([m.text for m in messages])
    text = await provider.summarize([m.utterance() for m in messages], previous, lang)
    if not text.strip():
        return None
    # every author the new text may carry: those read now and those the previous text carried (the
    # store adds the stored version's too, in case another writer changed it meanwhile)
    carried = previous.users if previous is not None else ()
    users = tuple(dict.fromkeys((*carried, *(m.author_id for m in messages))))
    private = any(m.visibility is Visibility.PRIVATE for m in messages)
    return await memory.save_summary(
        Summary(
            tenant=scope.tenant,
            session=scope.session,
            text=text,
            lang=lang,
            turns=turn if turn is not None else await window.turns(scope),
            users=users,
            visibility=Visibility.PRIVATE if private else Visibility.PUBLIC,
            tracked=previous.tracked if previous is not None else True,
        )
    )
