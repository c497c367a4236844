"""The agreement card and common ground on the Discord stand-in with a real runtime: ``/dispute close``
posts the card with Confirm / Refuse buttons and closes once every party confirmed; a refusal goes
through its modal and keeps the dispute open; ``/dispute common-ground`` asks each party privately
and posts the statement everyone endorsed; ``/mymemory`` shows the member's own promise record."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

from memory.models import Kind, Scope, utcnow
from tests.discord_harness import WAIT, Harness, hash_embedder, heyan_on_discord, redis_url
from tests.discord_standin import EPHEMERAL, wait_until

__all__ = ["hash_embedder", "redis_url"]


def custom_ids(message: dict[str, Any]) -> list[str]:
    rows = message.get("components") or []
    return [c["custom_id"] for row in rows for c in row["components"] if "custom_id" in c]


async def _dispute(h: Harness) -> str:
    thread = h.discord.guild.channel("existing-thread")
    await h.run("dispute open", {"title": "Garden"}, user="alice", channel=thread)
    return str(thread.id)


async def _post_with(h: Harness, thread: str, needle: str) -> dict[str, Any]:
    """The first message Heyan posted in ``thread`` whose text holds ``needle`` (waits for it)."""
    def found() -> dict[str, Any] | None:
        for r in h.discord.requests:
            if r.method == "POST" and r.path == f"/channels/{thread}/messages" and r.status == 200 \
                    and needle in (r.json.get("content") or ""):
                return h.discord.messages[int(r.response["id"])]
        return None

    await wait_until(lambda: found() is not None, timeout=WAIT, what=f"a post with {needle!r} in {thread}")
    post = found()
    assert post is not None
    return post


async def test_close_posts_the_card_and_closes_when_everyone_confirms(tmp_path: Path, redis_url: str) -> None:
    async with heyan_on_discord(tmp_path, redis_url) as h:
        thread = await _dispute(h)
        due = utcnow() + timedelta(days=3)
        await h.seed(
            h.fact("bob", "agrees to", "mow in turns", kind=Kind.CONSENSUS, session=thread),
            h.fact("bob", "mow the lawn", "mow the lawn on Saturday", kind=Kind.COMMITMENT, session=thread,
                   due_at=due),
            h.fact("alice", "buy seeds", "buy seeds by Friday", kind=Kind.COMMITMENT, session=thread, due_at=due),
        )
        asked = await h.run("dispute close", user="alice", channel=int(thread))
        assert not asked["flags"] & EPHEMERAL and "confirm" in asked["content"].lower()
        card = await _post_with(h, thread, "Agreement card")
        assert "Agreement card" in card["content"] and "bob: mow the lawn" in card["content"]
        ids = custom_ids(card)
        confirm = next(i for i in ids if i.startswith("heyan:card:confirm:"))
        assert any(i.startswith("heyan:card:refuse:") for i in ids)
        assert (await h.rt.sessions.get(h.tenant, thread)).is_open  # type: ignore[union-attr]

        stranger = await h.answer(await h.click(confirm, card, user="carol"))
        assert stranger["flags"] & EPHEMERAL and "only the people the card names" in stranger["content"]
        mine = await h.answer(await h.click(confirm, card, user="bob", locale="en-US"))
        assert mine["flags"] & EPHEMERAL and mine["content"] == "You confirmed the agreement card."
        last = await h.answer(await h.click(confirm, card, user="alice"))
        assert "everyone has now" in last["content"]
        assert not (await h.rt.sessions.get(h.tenant, thread)).is_open  # type: ignore[union-attr]
        stored = [f for f in await h.facts() if f.slot.startswith("card:")]
        assert len(stored) == 1 and set(stored[0].users) == {h.user_id("alice"), h.user_id("bob")}


async def test_refusing_asks_why_and_keeps_the_dispute_open(tmp_path: Path, redis_url: str) -> None:
    async with heyan_on_discord(tmp_path, redis_url) as h:
        thread = await _dispute(h)
        await h.seed(h.fact("bob", "agrees to", "mow in turns", kind=Kind.CONSENSUS, session=thread))
        await h.run("dispute close", user="alice", channel=int(thread))
        card = await _post_with(h, thread, "Agreement card")
        refuse = next(i for i in custom_ids(card) if i.startswith("heyan:card:refuse:"))
        modal = await h.callback(await h.click(refuse, card, user="bob"))
        assert modal.json["type"] == 9
        submit = h.discord.modal_submit_payload(modal.json["data"]["custom_id"], {"reason": "not every week"},
                                                modal=modal.json["data"], user="bob", channel=int(thread),
                                                locale="en-US")
        await h.discord.dispatch("INTERACTION_CREATE", submit)
        done = await h.answer(submit)
        assert done["flags"] & EPHEMERAL and "stays open" in done["content"]
        notice = await _post_with(h, thread, "did not confirm")
        assert "did not confirm" in notice["content"] and "not every week" in notice["content"]
        assert (await h.rt.sessions.get(h.tenant, thread)).is_open  # type: ignore[union-attr]


async def test_common_ground_is_asked_privately_and_posted_when_everyone_endorses(
        tmp_path: Path, redis_url: str) -> None:
    async with heyan_on_discord(tmp_path, redis_url) as h:
        thread = await _dispute(h)
        await h.seed(h.fact("alice", "wants", "a tidy shed", session=thread),
                     h.fact("bob", "wants", "space for his bike", session=thread),
                     h.fact("bob", "feels", "frustrated", kind=Kind.EMOTION, session=thread))
        asked = await h.run("dispute common-ground", user="alice", channel=int(thread))
        assert asked["flags"] & EPHEMERAL and "privately" in asked["content"]
        prompt = await _post_with(h, thread, "statements of common ground")
        [opener] = custom_ids(prompt)
        assert opener.startswith("heyan:ground:open:") and "tidy shed" not in prompt["content"]
        choices = {}
        for who in ("alice", "bob"):
            private = await h.answer(await h.click(opener, prompt, user=who))
            assert private["flags"] & EPHEMERAL and "tidy shed" in private["content"]
            [pick] = custom_ids(private)
            choices[who] = (pick, private)
        statement = (await h.rt.moderation.common_ground_view(_member(h, "alice"), thread)).statements[0].id
        for who in ("alice", "bob"):
            pick, private = choices[who]
            click = await h.click(pick, private, user=who, component_type=3, values=[statement])
            await h.message_after_click(click)
        posted = await _post_with(h, thread, "Everyone here endorses")
        assert "Everyone here endorses" in posted["content"] and "tidy shed" in posted["content"]
        assert [f for f in await h.rt.memory.list_facts(Scope(tenant=h.tenant)) if f.slot.startswith("ground:")]


def _member(h: Harness, name: str) -> Any:
    from bot.actors import Actor

    return Actor(tenant=h.tenant, user_id=h.user_id(name), name=name)


async def test_mymemory_shows_the_members_own_promise_record(tmp_path: Path, redis_url: str) -> None:
    async with heyan_on_discord(tmp_path, redis_url) as h:
        await h.seed(h.fact("bob", "fix the gate", "fix the gate", kind=Kind.COMMITMENT,
                            due_at=utcnow() - timedelta(days=2)))
        mine = await h.run("mymemory", user="bob", locale="en-US")
        assert mine["flags"] & EPHEMERAL and "1 overdue" in mine["content"]
        theirs = await h.run("mymemory", user="carol", locale="en-US")
        assert "overdue" not in theirs["content"] and "fix the gate" not in theirs["content"]


async def test_digest_settings_and_show_are_for_moderators(tmp_path: Path, redis_url: str) -> None:
    async with heyan_on_discord(tmp_path, redis_url) as h:
        await h.seed(h.fact("bob", "fix the gate", "fix the gate", kind=Kind.COMMITMENT,
                            due_at=utcnow() - timedelta(days=2)))
        refused = await h.run("digest show", user="bob", locale="en-US")
        assert refused["flags"] & EPHEMERAL and "only moderators" in refused["content"]
        mods = h.discord.guild.channel("general")
        set_ = await h.run("digest settings", {"channel": mods, "schedule": "weekly"}, user="alice", locale="en-US")
        assert f"<#{mods.id}>" in set_["content"] and "weekly" in set_["content"]
        assert (await h.rt.tenants.get(h.tenant)).digest_channel == str(mods.id)
        shown = await h.run("digest show", user="alice", locale="en-US")
        assert shown["flags"] & EPHEMERAL and "fix the gate" in shown["content"] and "Overdue commitments (1)" in \
            shown["content"]
