"""Issue 19's "done when", Slack side, end to end: the real ``heyan run`` process (embedded shape) in
HTTP mode against the stand-in sees the thread's earlier promise named in the answer to a mention;
replies in a dispute channel's threads stored; ``/heyan dispute open`` in a channel without the bot
answered with an invitation hint and nothing posted; a promise posted in the open dispute's thread
while the bot was stopped listed after it restarts.
"""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import pytest

from tests.slack_standin import (
    ALICE,
    BOB,
    CAROL,
    GENERAL,
    RESPONSE_URL,
    SlackChannel,
    SlackStandIn,
    SlackUser,
)
from tests.slack_world import SECRET, free_port, no_slack_env_fixture, texts  # noqa: F401  (fixture)
from tests.test_slack_run import WAIT, _env, _heyan, _listening

pytestmark = pytest.mark.slow  # two starts of a real process (~20 s): `make test` runs it, `make test-fast` skips it

DAN = "U0DAN00001"
RANDOM = "C0RANDOM01"


async def _answer(slack: SlackStandIn, fields: dict[str, str]) -> str:
    path = fields["response_url"].removeprefix(slack.base_url)
    call = await slack.wait_for_call(RESPONSE_URL, where=lambda c: c.path == path, timeout=WAIT)
    return texts(call)


class Running:
    """One ``heyan run`` in HTTP mode on ``port``, stopped with SIGTERM on the way out."""

    def __init__(self, tmp_path: Path, slack: SlackStandIn, port: int) -> None:
        self.tmp_path, self.slack, self.port = tmp_path, slack, port
        self.sender = slack.sender(f"http://127.0.0.1:{port}/slack/events", SECRET)
        self.proc: asyncio.subprocess.Process | None = None
        self.err = b""

    async def __aenter__(self) -> Running:
        env = _env(self.tmp_path, self.slack, HEYAN_SLACK_SIGNING_SECRET=SECRET, HEYAN_SLACK_HTTP_PORT=str(self.port))
        self.proc = await asyncio.create_subprocess_exec(*_heyan(), "run", cwd=self.tmp_path, env=env,
                                                         stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        await _listening(self.port)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self.proc is not None
        if self.proc.returncode is None:
            self.proc.send_signal(signal.SIGTERM)
        reading = asyncio.ensure_future(self.proc.communicate())
        done, _ = await asyncio.wait({reading}, timeout=WAIT)
        if not done:  # say what it was doing: kill it, keep what it wrote
            self.proc.kill()
            _, self.err = await reading
            raise AssertionError(f"heyan run did not stop within {WAIT:.0f} s of SIGTERM:\n"
                                 + self.err.decode()[-3000:])
        _, self.err = reading.result()
        assert self.proc.returncode == 0, self.err.decode()[-3000:]

    async def command(self, user: str, channel: str, text: str) -> str:
        fields = self.slack.payloads.slash_command(user=user, channel=channel, text=text)
        assert (await self.sender.command(fields)).status == 200
        return await _answer(self.slack, fields)

    async def listed(self, what: str) -> str:
        """``/heyan commitments`` in #general until it lists ``what`` (extraction runs as a job), asked
        less and less often: a member may run 20 commands a minute (``limits.commands_per_user``), and
        polling faster ran into that limit on a loaded machine, which made Heyan answer "slow down" for
        the rest of the minute."""
        pause = 0.2
        async with asyncio.timeout(WAIT):
            while True:
                answer = await self.command(CAROL, GENERAL, "commitments")
                assert "slow down" not in answer, answer
                if what in answer:
                    return answer
                await asyncio.sleep(pause)
                pause = min(pause * 2, 3.0)


async def test_heyan_run_reads_threads_hears_dispute_threads_and_catches_up(tmp_path: Path) -> None:
    async with SlackStandIn() as slack:
        slack.add_user(SlackUser(DAN, "dan", real_name="Dan"))
        slack.add_channel(SlackChannel(RANDOM, "random", "public", bot_is_member=False))
        p = slack.payloads
        port = free_port()
        async with Running(tmp_path, slack, port) as heyan:
            # a thread never opened as a dispute: the answer reads it
            ci = slack.add_message(GENERAL, "the CI is red again", user=ALICE)
            assert (await heyan.sender.event(p.message(user=DAN, channel=GENERAL, thread_ts=ci,
                                                       text="Fine, I'll fix the CI config by Friday."))).status == 200
            ask = p.app_mention(user=CAROL, channel=GENERAL, thread_ts=ci, text="what did Dan promise?")
            assert (await heyan.sender.event(ask)).status == 200
            answer = await slack.wait_for_call("chat.postMessage", where=lambda c: c.params.get("thread_ts") == ci,
                                               timeout=WAIT)

            # where Heyan is not: an invitation hint, nothing opened, nothing posted
            refused = await heyan.command(ALICE, RANDOM, f"dispute open <@{BOB}|bob> The fridge")

            # a dispute channel: a reply under the opening post is remembered
            await heyan.command(CAROL, GENERAL, f"dispute open <@{ALICE}|alice> <@{BOB}|bob> The parking spots")
            opening = await slack.wait_for_call("chat.postMessage", where=lambda c: "parking" in str(c.params.get("text")),
                                                timeout=WAIT)
            thread = opening.response["ts"]
            assert (await heyan.sender.event(p.message(user=ALICE, channel=GENERAL, thread_ts=thread,
                                                       text="I will move my car by 6pm"))).status == 200
            stored = await heyan.listed("move my car by 6pm")

        # stopped: a promise in the dispute's thread reaches nobody
        p.message(user=BOB, channel=GENERAL, thread_ts=thread, text="I will buy a parking permit by Friday")

        async with Running(tmp_path, slack, port) as heyan:
            after = await heyan.listed("buy a parking permit by Friday")

    assert "dan promised to fix the CI config" in answer.params["text"]
    assert "Invite @heyan first" in refused
    assert [c for c in slack.calls_to("chat.postMessage") if c.params.get("channel") == RANDOM] == []
    assert "move my car by 6pm" in stored
    assert "buy a parking permit by Friday" in after and "move my car by 6pm" in after
