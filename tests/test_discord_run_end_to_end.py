"""Issue 19's "done when", Discord side, end to end: a fresh stand-in driving ``heyan run``
(``adapters.runtime.platforms.run_platforms``, at the URLs in the settings, offline provider, in-process
worker), as an operator would run it:

1. the thread's earlier promise is named in the answer to a mention (a thread never opened as a
   dispute);
2. ``/memory list`` with 25+ memories of ~125 characters is answered within Discord's limits;
3. a promise posted in an open dispute thread while ``heyan run`` was stopped is listed after it
   restarts.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from adapters.runtime.platforms import run_platforms
from bot.config.settings import Settings
from tests.discord_harness import WAIT, Harness, discord_settings, hash_embedder, redis_url
from tests.discord_standin import DiscordStandIn, MemberSpec, UserSpec, wait_until
from tests.discord_standin_limits import message_errors

__all__ = ["hash_embedder", "redis_url"]

pytestmark = pytest.mark.slow  # two starts of heyan run and 27 extractions: ~10 s on a busy machine


@contextlib.asynccontextmanager
async def heyan_run(settings: Settings, standin: DiscordStandIn) -> AsyncIterator[asyncio.Task[None]]:
    """``heyan run`` in a task, until its connection is ready; stopped (as by a signal) on exit."""
    identified = len(standin.identify_payloads)
    running = asyncio.create_task(run_platforms(settings, worker=True))
    try:
        await wait_until(lambda: len(standin.identify_payloads) > identified or running.done(), timeout=WAIT,
                         what="IDENTIFY")
        if running.done():
            running.result()
        await wait_until(lambda: any(s.identified for s in standin.sessions) or running.done(), timeout=WAIT,
                         what="the gateway session")
        if running.done():
            running.result()
        yield running
    finally:
        running.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await running


async def answered(h: Harness, command: str, options: dict[str, Any] | None = None, **kw: Any) -> dict[str, Any]:
    """Run a command as soon as the connection answers commands (READY may still be settling)."""
    deadline = asyncio.get_running_loop().time() + WAIT
    while True:
        payload = await h.command(command, options, **kw)
        try:
            return await asyncio.wait_for(h.answer(payload), 5)
        except TimeoutError:
            assert asyncio.get_running_loop().time() < deadline, f"/{command} never answered"


async def test_console_end_to_end_on_discord(tmp_path: Path, redis_url: str) -> None:
    async with DiscordStandIn() as standin:
        dan = UserSpec(standin.ids.next(), "dan", global_name="Dan")
        standin.guild.members.append(MemberSpec(dan))
        settings = discord_settings(tmp_path / "data", redis_url, standin, message_content=True)
        h = Harness(standin, None, None, None, settings)  # type: ignore[arg-type]  # only its stand-in helpers

        async with heyan_run(settings, standin):
            # 1. context: a thread never opened with /dispute
            ci = standin.add_thread("general", "ci", owner="carol")
            await standin.dispatch("THREAD_CREATE", standin.thread_create_payload(ci))
            await answered(h, "mymemory", user="carol")  # the connection is ready and answering
            await h.say("Fine, I'll fix the CI config by Friday.", author="dan", channel=ci)
            since = len(standin.requests)
            await h.say("{bot} what did Dan promise?", author="carol", channel=ci)
            reply = (await h.bot_posts(ci.id, since))[0]
            assert "CI config" in reply.json["content"], reply.json["content"]

            # 2. 27 promises of ~125 characters in an open dispute: remembered, listed within the limits
            dispute = standin.guild.channel("existing-thread")
            opened = await answered(h, "dispute open", {"title": "The build"}, user="alice", channel=dispute)
            assert "Dispute opened" in opened["content"]
            for i in range(27):
                await h.say(f"I'll fix the build_matrix step {i:02d} and the ci_config.yml for the staging_env_vars "
                            f"job by Friday, see the *notes*.", author="bob", channel=dispute)

            async def listed() -> dict[str, Any]:
                return await answered(h, "memory list", user="alice")

            deadline = asyncio.get_running_loop().time() + WAIT * 2
            while "27 in all" not in ((first := await listed()).get("embeds") or [{}])[0].get("footer", {}).get(
                    "text", ""):
                assert asyncio.get_running_loop().time() < deadline, first
                await asyncio.sleep(0.5)
            assert message_errors(first) is None and "went wrong" not in (first.get("content") or "")
            assert first["components"], "more pages, with Previous / Next"

        # 3. stopped; a promise is made in the open dispute; started again: it is listed
        standin.post_offline(standin.message_payload("Fine, I'll write the release notes by Monday.",
                                                     author="dan", channel=dispute))
        async with heyan_run(settings, standin):
            deadline = asyncio.get_running_loop().time() + WAIT * 2
            while True:
                his = await answered(h, "memory list", {"member": dan}, user="alice")
                text = "\n".join(e.get("description") or "" for e in his.get("embeds") or [])
                if "release notes" in text:
                    break
                assert asyncio.get_running_loop().time() < deadline, (text, his.get("content"))
                await asyncio.sleep(0.5)
