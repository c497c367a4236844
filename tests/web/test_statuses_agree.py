"""One status everywhere, read from the clock where it is shown: CLI commands, the digest, the member
record and the web console call a replayed promise overdue, open or done alike; a confirmed agreement card
stays confirmed while due times pass."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from adapters.cli.app import app
from adapters.runtime.composition import Runtime
from bot.agreements.card_votes import CardState
from bot.offline.provider import OfflineProvider
from bot.text.richtext import Mention
from jobs.cron import reconcile
from memory.models import Kind
from tests.jobs_helpers import Start, ctx, settings
from tests.records_helpers import ANN, BOB, CAT, MOD, T0, S, said
from tests.web.test_console_end_to_end import HEYAN, ROOT, serving

pytestmark = pytest.mark.dated  # fixed dates, every command told the time: `make any-day` runs it years ahead

TENANT = "console:agree"
SCRIPT = [
    ("u-ann", "Ann", "Bob, the kitchen is a mess again and the invoice is still unpaid.", "2026-11-02T09:00:00+00:00"),
    ("u-bob", "Bob", "Sorry Ann. I'll clean the kitchen by Wednesday.", "2026-11-02T09:01:00+00:00"),
    ("u-ann", "Ann", "Thanks. I'll pay the invoice by Friday.", "2026-11-02T09:02:00+00:00"),
    ("u-cat", "Cat", "I'll buy a new kettle by December 20.", "2026-11-02T09:03:00+00:00"),
    ("u-bob", "Bob", "I'll also take out the recycling tomorrow.", "2026-11-02T09:04:00+00:00"),
]
#: After the kitchen (Wed 4 Nov), the invoice (Fri 6 Nov) and the recycling (Tue 3 Nov) were due; the
#: kettle (20 Dec) was not.
NOW = "2026-11-10T12:00:00+00:00"
OUTCOME = {"overdue": "overdue", "open": "open", "kept_on_time": "done", "kept_late": "done"}


def _invoke(env: dict[str, str], *args: str) -> tuple[int, str, str]:
    """``heyan --now NOW ARGS`` in this process, with exactly ``env``'s HEYAN_ variables (the worker's
    own are unset for the call): exit status, stdout, stderr."""
    unset: dict[str, str | None] = {k: None for k in os.environ if k.startswith("HEYAN_") and k not in env}
    done = CliRunner().invoke(app, ["--now", NOW, *args], env={**unset, **env}, catch_exceptions=False)
    return done.exit_code, done.stdout, done.stderr


def _child(env: dict[str, str], *args: str) -> str:
    done = subprocess.run([*HEYAN, "--now", NOW, *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, (args, done.stderr)
    return done.stdout


def _heyan(env: dict[str, str], *args: str) -> str:
    code, out, err = _invoke(env, *args)
    assert code == 0, (args, err)
    return out


@pytest.mark.slow  # a replay, ten commands (one in a child) and a `heyan web` child (~12 s on a busy 2-core machine)
async def test_a_replay_then_every_surface_agrees_on_every_status(tmp_path: Path) -> None:
    script = tmp_path / "kitchen.jsonl"
    script.write_text("".join(json.dumps({"tenant": TENANT, "session": "kitchen", "user_id": u, "user_name": n,
                                          "text": text, "ts": ts}) + "\n" for u, n, text, ts in SCRIPT))
    env = {"HEYAN_DATA_DIR": str(tmp_path / "data"), "HEYAN_TIMEZONE": "Europe/Berlin",
            "HEYAN_ENCRYPTION_KEYS": os.environ["HEYAN_ENCRYPTION_KEYS"], "HEYAN_LIMITS_ENABLED": "false"}
    await asyncio.to_thread(_heyan, env, "chat", "--script", str(script))

    listed = json.loads(await asyncio.to_thread(_heyan, env, "commitments", "list", "--json"))
    by_action = {v["action"]: v["id"] for v in listed}
    assert set(by_action) == {"clean the kitchen", "pay the invoice", "buy a new kettle", "take out the recycling"}
    kitchen = next(v for v in listed if v["id"] == by_action["clean the kitchen"])
    assert (kitchen["owner_name"], kitchen["recipient_name"]) == ("Bob", "Ann")  # owner → recipient
    assert kitchen["timezone"] == "Europe/Berlin" and kitchen["due"].endswith("(Europe/Berlin)")
    await asyncio.to_thread(_heyan, env, "commitments", "done", by_action["take out the recycling"][:8],
                            "--tenant", TENANT)
    expected = {by_action["clean the kitchen"]: "overdue", by_action["pay the invoice"]: "overdue",
                by_action["buy a new kettle"]: "open", by_action["take out the recycling"]: "done"}

    listed = json.loads(await asyncio.to_thread(_heyan, env, "commitments", "list", "--json"))
    assert {v["id"]: v["status"] for v in listed} == expected
    child = {k: v for k, v in os.environ.items() if not k.startswith("HEYAN_")} | env
    # one command through a `heyan` child as well: the entry point, the process's own settings and loop
    only = json.loads(await asyncio.to_thread(_child, child, "commitments", "list", "--status", "overdue", "--json"))
    assert {v["id"] for v in only} == {i for i, s in expected.items() if s == "overdue"}

    digest = json.loads(await asyncio.to_thread(_heyan, env, "digest", "--tenant", TENANT, "--json"))
    assert {c["id"] for c in digest["overdue"]} == {i for i, s in expected.items() if s == "overdue"}
    assert next(c for c in digest["overdue"] if c["id"] == by_action["clean the kitchen"])["recipient_name"] == "Ann"

    records: dict[str, str] = {}
    for name in ("Bob", "ann", "Cat"):  # by name, as a moderator types it
        record = json.loads(await asyncio.to_thread(_heyan, env, "member", "record", "--tenant", TENANT, "--user",
                                                    name, "--json"))
        records |= {line["id"]: OUTCOME[line["outcome"]] for line in record["commitments"]}
    assert records == expected
    # a mistyped community or member is an error naming the closest, never a list of zeros
    for args, words in ((("memory", "list", "--tenant", "console:agre"), "did you mean console:agree?"),
                        (("commitments", "list", "--tenant", "console:agre"), "did you mean console:agree?"),
                        (("member", "record", "--tenant", TENANT, "--user", "Bbo"), "did you mean Bob (u-bob)?")):
        code, _, err = await asyncio.to_thread(_invoke, env, *args)
        assert code == 2 and words in err, (args, err)

    with serving(child, tmp_path / "web.log", "--local", now=NOW) as base:
        async with httpx.AsyncClient(base_url=base, timeout=30) as client:
            board = (await client.get(f"/api/v1/tenants/{TENANT}/commitments")).json()
            web = {m["id"]: name for name in ("open", "overdue", "done") for m in board[name]}
            assert web == expected
            assert {m["id"]: m["commitment"]["status"] for name in ("open", "overdue", "done")
                    for m in board[name]} == expected
            memories = (await client.get(f"/api/v1/tenants/{TENANT}/memories", params={"kind": "commitment"})).json()
            shown = {m["id"]: m["commitment"]["status"] for m in memories["items"]}
            assert shown == expected
            bob = (await client.get(f"/api/v1/tenants/{TENANT}/members/Bob")).json()  # by name
            assert {m["id"]: m["commitment"]["status"] for m in bob["memories"] if m["commitment"]} == {
                i: s for i, s in expected.items() if i in (by_action["clean the kitchen"],
                                                           by_action["take out the recycling"])}
            page = (await client.get(f"/t/{TENANT}/commitments")).text
            for fact_id, status in expected.items():
                card = re.search(rf'id="c-{fact_id}">(.*?)</li>', page, re.S)
                assert card is not None and f'badge s-{status}"' in card.group(1), (fact_id, status)
            assert "Bob → <a" in page or "Bob</a> → <a" in page  # owner → recipient on the cards


@pytest.fixture
async def rt(tmp_path: Path, redis_url: str, start: Start, hash_embedder: None) -> Runtime:
    return await start(settings(tmp_path, redis_url), provider=OfflineProvider(), worker=False)


async def test_a_card_confirmed_by_everyone_stays_confirmed_while_due_times_pass(
        rt: Runtime, clock_at: Callable[[datetime], None]) -> None:
    clock_at(T0 + timedelta(hours=2))
    await rt.memory.remember([
        said(Kind.DEMAND, "u-bob", "wants", "a cleaning rota", minutes=1),
        said(Kind.CONSENSUS, "u-ann", "agrees to", "we alternate weeks", minutes=5),
        said(Kind.COMMITMENT, "u-bob", "write the rota", "write the rota by Sunday", minutes=7,
             due=T0 + timedelta(days=2)),
        said(Kind.COMMITMENT, "u-cat", "fix the dishwasher", "fix the dishwasher by Monday", minutes=9,
             due=T0 + timedelta(days=3)),
    ])
    await rt.moderation.dispute_open(MOD, S, title="Kitchen", members=[Mention("u-ann", "Ann"), Mention("u-bob", "Bob")],
                                     announce=False)
    asked = await rt.moderation.dispute_close_card(MOD, S)
    assert asked.votes is not None and set(asked.votes.pending) == {"u-ann", "u-bob", "u-cat"}
    first = await rt.moderation.card_confirm(ANN, S, asked.card.id)

    # Bob's due time passes, the reconcile pass runs: nothing stored changes, the card is the same one
    clock_at(T0 + timedelta(days=2, hours=6))
    await reconcile(ctx(rt))
    second = await rt.moderation.card_confirm(BOB, S, asked.card.id)
    assert not second.changed and second.card.id == asked.card.id == first.card.id
    assert second.votes is not None and set(second.votes.confirmed_by) == {"u-ann", "u-bob"}

    # and Cat's too, before Cat confirms
    clock_at(T0 + timedelta(days=3, hours=6))
    await reconcile(ctx(rt))
    done = await rt.moderation.card_confirm(CAT, S, asked.card.id)
    assert not done.changed and done.closed is not None and done.votes is not None
    assert done.votes.state is CardState.CONFIRMED

    # long after every due time, the confirmed card still says so, with everyone's confirmation
    clock_at(T0 + timedelta(days=30))
    await reconcile(ctx(rt))
    later = (await rt.moderation.dispute_heat(MOD, S)).card
    assert later is not None and later.state is CardState.CONFIRMED
    assert set(later.confirmed_by) == {"u-ann", "u-bob", "u-cat"} and not later.pending
