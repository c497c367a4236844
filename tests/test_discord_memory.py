"""``/memory`` for moderators, ``/mymemory`` and ``/commitments`` for everyone, on the stand-in with a real
runtime: every subcommand, autocomplete, the review queue's buttons, Correct (menu → modal) and Erase
(with its confirmation), Done buttons — and the service's refusal when a member reaches /memory."""

from __future__ import annotations

import json
from pathlib import Path

from bot.config.settings import LimitSettings
from memory.models import FactStatus, Kind, Scope, Visibility
from tests.discord_harness import Harness, hash_embedder, heyan_on_discord, ids, redis_url
from tests.discord_standin import EPHEMERAL, RoleSpec

__all__ = ["hash_embedder", "redis_url"]


def custom_ids(message: dict[str, object]) -> list[str]:
    rows = message.get("components") or []
    return [c["custom_id"] for row in rows for c in row["components"] if "custom_id" in c]  # type: ignore[index,union-attr]


async def seed_three(h: Harness) -> tuple[str, str, str]:
    parking = h.fact("bob", "wants", "a parking spot on weekdays")
    promise = h.fact("bob", "repaint the fence", "repaint the fence", kind=Kind.COMMITMENT)
    feeling = h.fact("carol", "feels", "ignored by the committee", kind=Kind.EMOTION)
    saved = await h.seed(parking, promise, feeling)
    return saved[0].id, saved[1].id, saved[2].id


async def test_moderator_memory_commands_and_autocomplete(tmp_path: Path, redis_url: str) -> None:
    async with heyan_on_discord(tmp_path, redis_url) as h:
        parking, promise, feeling = await seed_three(h)
        bob = h.discord.user("bob")

        listed = await h.run("memory list", user="alice")
        assert listed["flags"] & EPHEMERAL
        lines = listed["embeds"][0]["description"].splitlines()
        assert len(lines) == 3 and listed["embeds"][0]["title"] == "Memories (3)"
        only = await h.run("memory list", {"member": bob, "kind": "commitment"}, user="alice")
        assert only["embeds"][0]["description"].startswith(f"`{promise[:8]}` **commitment**")
        bad = await h.run("memory list", {"kind": "gossip"}, user="alice")
        assert "Unknown kind gossip" in bad["content"]

        assert ids(await h.autocomplete("memory show", {"id": "fence"}, "id", user="alice")) == [promise]
        assert set(ids(await h.autocomplete("memory show", {"id": ""}, "id", user="alice"))) == {parking, promise, feeling}
        assert ids(await h.autocomplete("memory list", {"kind": "emo"}, "kind", user="alice")) == ["emotion"]

        shown = await h.run("memory show", {"id": parking[:8]}, user="alice")
        assert shown["embeds"][0]["footer"]["text"] == parking
        assert shown["embeds"][0]["description"] == "a parking spot on weekdays"

        edited = await h.run("memory edit", {"id": parking, "value": "a spot on weekdays only", "reason": "typo"},
                             user="alice")
        assert "updated (version 2)" in edited["content"]
        fact = await h.rt.memory.get(Scope(tenant=h.tenant), parking)
        assert fact is not None and fact.value == "a spot on weekdays only"

        await h.rt.memory.set_status(Scope(tenant=h.tenant), parking, FactStatus.DISPUTED)
        confirmed = await h.run("memory confirm", {"id": parking}, user="alice")
        assert "confirmed" in confirmed["content"]
        assert (await h.rt.memory.get(Scope(tenant=h.tenant), parking)).status is FactStatus.ACTIVE  # type: ignore[union-attr]

        deleted = await h.run("memory delete", {"id": feeling, "reason": "asked to"}, user="alice")
        assert "deleted everywhere" in deleted["content"]
        assert await h.rt.memory.get(Scope(tenant=h.tenant), feeling) is None

        payload = await h.command("memory export", {"member": bob}, user="alice")
        exported = await h.answer(payload)
        assert exported["flags"] & EPHEMERAL and "2 memories" in exported["content"]
        upload = next(r for r in h.discord.requests if payload["token"] in r.path and r.files)
        assert upload.files[0].filename == f"heyan-export-{bob.id}.json"
        data = json.loads(upload.files[0].data)
        assert data["user"] == str(bob.id) and {f["id"] for f in data["facts"]} == {parking, promise}

        audit = await h.run("memory audit", user="alice")
        text = audit["embeds"][0]["description"]
        for action in ("memory.edit", "memory.confirm", "memory.delete", "member.export"):
            assert f"`{action}`" in text
        assert "ignored by the committee" not in text  # an erased memory leaves no text behind


async def test_a_member_reaching_memory_commands_is_refused_by_the_service(tmp_path: Path, redis_url: str) -> None:
    """The stand-in does not enforce default_permissions: as if an admin opened /memory to everyone."""
    async with heyan_on_discord(tmp_path, redis_url) as h:
        parking, _, _ = await seed_three(h)
        listed = await h.run("memory list", user="carol")
        assert listed["flags"] & EPHEMERAL
        assert listed["content"] == ("only moderators can list memories; this needs the moderator capability "
                                     "(on Discord: the Manage Messages permission)")
        deleted = await h.run("memory delete", {"id": parking}, user="carol")
        assert "only moderators can delete memories" in deleted["content"]
        assert await h.rt.memory.get(Scope(tenant=h.tenant), parking) is not None
        assert await h.autocomplete("memory show", {"id": ""}, "id", user="carol") == []
        chinese = await h.run("memory review", user="bob")  # bob's client is in Chinese
        assert chinese["content"].startswith("只有管理员可以审核记忆") and "管理消息" in chinese["content"]


async def test_too_many_commands_get_a_slow_down_in_the_callers_language(tmp_path: Path, redis_url: str) -> None:
    tight = LimitSettings(commands_per_user="2/minute")
    async with heyan_on_discord(tmp_path, redis_url, limits=tight) as h:
        for _ in range(2):
            assert (await h.run("mymemory", user="bob"))["content"] == "Heyan 在这里没有关于你的记忆。"
        slow = await h.run("mymemory", user="bob")
        assert slow["flags"] & EPHEMERAL and slow["content"].startswith("请慢一点：你发送命令的速度太快了")
        other = await h.run("mymemory", user="carol")  # a per-member limit
        assert other["content"] == "Heyan holds nothing about you here."


async def test_a_servers_language_setting_overrides_each_members_locale(tmp_path: Path, redis_url: str) -> None:
    async with heyan_on_discord(tmp_path, redis_url) as h:
        assert (await h.run("mymemory", user="carol"))["content"] == "Heyan holds nothing about you here."
        await h.rt.tenants.set(h.tenant, language="zh")  # heyan tenant set-language discord:<id> zh
        assert (await h.run("mymemory", user="carol"))["content"] == "Heyan 在这里没有关于你的记忆。"
        await h.rt.tenants.set(h.tenant, language="en")
        assert (await h.run("mymemory", user="bob"))["content"] == "Heyan holds nothing about you here."
        await h.rt.tenants.set(h.tenant, language="auto")
        assert (await h.run("mymemory", user="carol", locale="fr", guild_locale="zh-CN"))["content"] == (
            "Heyan 在这里没有关于你的记忆。")  # neither Chinese nor English: the server's preferred locale


async def test_the_moderator_role_setting_makes_moderators(tmp_path: Path, redis_url: str) -> None:
    async with heyan_on_discord(tmp_path, redis_url, moderator_role="Mediators") as h:
        guild = h.discord.guild
        role = RoleSpec(h.discord.ids.next(), "Mediators", 0, position=1)
        guild.roles.append(role)
        guild.member("carol").roles.append(role.id)
        await h.discord.dispatch("GUILD_ROLE_CREATE", {"guild_id": str(guild.id), "role": role.payload()})
        await seed_three(h)
        listed = await h.run("memory list", user="carol")
        assert listed["embeds"][0]["title"] == "Memories (3)"
        refused = await h.run("memory list", user="bob", locale="en-US")
        assert "the Manage Messages permission or the “Mediators” role" in refused["content"]


async def test_the_review_queue_pages_and_its_buttons_act(tmp_path: Path, redis_url: str) -> None:
    async with heyan_on_discord(tmp_path, redis_url) as h:
        facts = [h.fact("bob", f"claim {i}", f"value {i}", status=FactStatus.DISPUTED, said_by="carol")
                 for i in range(5)]
        await h.seed(*facts)
        page = await h.run("memory review", user="alice")
        assert page["flags"] & EPHEMERAL and page["content"] == "Review queue: 1–4 of 5"
        assert len(page["embeds"]) == 4
        buttons = custom_ids(page)
        assert len(buttons) == 10 and buttons[-2:] == ["heyan:review:page:0", "heyan:review:page:4"]
        first = page["embeds"][0]["footer"]["text"]
        assert buttons[0] == f"heyan:review:confirm:{first}:0"

        following = await h.message_after_click(await h.click("heyan:review:page:4", page, user="alice"))
        assert following["content"] == "Review queue: 5–5 of 5" and len(following["embeds"]) == 1
        back = await h.message_after_click(await h.click("heyan:review:page:0", following, user="alice"))
        assert back["content"] == "Review queue: 1–4 of 5"
        page = back

        click = await h.click(buttons[0], page, user="alice")
        redrawn = await h.message_after_click(click)
        assert redrawn["content"] == "Review queue: 1–4 of 4"
        assert (await h.rt.memory.get(Scope(tenant=h.tenant), first)).status is FactStatus.ACTIVE  # type: ignore[union-attr]

        second = redrawn["embeds"][0]["footer"]["text"]
        click = await h.click(f"heyan:review:reject:{second}:0", redrawn, user="carol")  # not a moderator
        refused = await h.message_after_click(click)
        assert refused["flags"] & EPHEMERAL and "only moderators can reject memories" in refused["content"]
        assert (await h.rt.memory.get(Scope(tenant=h.tenant), second)).status is FactStatus.DISPUTED  # type: ignore[union-attr]


async def test_mymemory_correct_and_erase(tmp_path: Path, redis_url: str) -> None:
    async with heyan_on_discord(tmp_path, redis_url) as h:
        parking, _, _ = await seed_three(h)
        # carol's account of the meeting, which names bob: his correction stands beside it, for a moderator
        account = h.fact("carol", "meeting", "bob shouted at the meeting", kind=Kind.EVENT).model_copy(
            update={"subject": "the-meeting", "subject_name": "the meeting",
                    "users": (h.user_id("carol"), h.user_id("bob"))})
        claim = (await h.seed(account))[0].id
        mine = await h.run("mymemory", user="bob", locale="en-US")
        assert mine["flags"] & EPHEMERAL and mine["embeds"][0]["title"] == "What Heyan remembers about you (3)"
        assert custom_ids(mine) == ["heyan:mymem:correct", "heyan:mymem:erase"]

        pick = await h.click("heyan:mymem:correct", mine, user="bob", component_type=3, values=[parking])
        modal = await h.callback(pick)
        assert modal.json["type"] == 9 and modal.json["data"]["custom_id"] == f"heyan:correct:{parking}"
        submit = h.discord.modal_submit_payload(f"heyan:correct:{parking}", {"value": "a spot on Mondays",
                                                                              "reason": "I said Mondays"},
                                                modal=modal.json["data"], user="bob", locale="en-US")
        await h.discord.dispatch("INTERACTION_CREATE", submit)
        done = await h.answer(submit)
        assert done["flags"] & EPHEMERAL and done["content"] == "Corrected: a spot on Mondays"
        assert (await h.rt.memory.get(Scope(tenant=h.tenant), parking)).value == "a spot on Mondays"  # type: ignore[union-attr]

        submit = h.discord.modal_submit_payload(f"heyan:correct:{claim}", {"value": "I spoke up, calmly"},
                                                user="bob", locale="en-US")
        await h.discord.dispatch("INTERACTION_CREATE", submit)
        contested = await h.answer(submit)
        assert "for a moderator to settle" in contested["content"]
        held = await h.rt.memory.get(Scope(tenant=h.tenant), claim)
        assert held is not None and held.status is FactStatus.DISPUTED and held.value == "bob shouted at the meeting"

        ask = await h.click("heyan:mymem:erase", mine, user="bob", locale="en-US")
        confirm = await h.message_after_click(ask)
        assert "This erases 3 memories" in confirm["content"]
        yes = next(c for c in custom_ids(confirm) if c.startswith("heyan:erase:"))
        stranger = await h.click(yes, confirm, user="carol")  # someone else's token is no use
        assert "expired or does not match" in (await h.message_after_click(stranger))["content"]

        erase = await h.click(yes, confirm, user="bob", locale="en-US")
        erased = await h.message_after_click(erase)
        assert erased["content"].startswith("Erased 3 records") and not erased.get("components")
        assert await h.rt.memory.list_facts(Scope(tenant=h.tenant, user=h.user_id("bob"))) == []
        assert [f.subject for f in await h.facts()] == [h.user_id("carol")]  # carol's own memory stays


async def test_commitments_with_done_buttons(tmp_path: Path, redis_url: str) -> None:
    async with heyan_on_discord(tmp_path, redis_url) as h:
        thread = h.discord.guild.channel("existing-thread")
        here = str(thread.id)
        bobs = h.fact("bob", "repaint the fence", "repaint the fence", kind=Kind.COMMITMENT, session=here)
        carols = h.fact("carol", "return the ladder", "return the ladder", kind=Kind.COMMITMENT, session=here)
        elsewhere = h.fact("carol", "call the council", "call the council", kind=Kind.COMMITMENT, session="999",
                           ).model_copy(update={"visibility": Visibility.PRIVATE})  # a private thread's: not here
        bob_id, carol_id, _ = (f.id for f in await h.seed(bobs, carols, elsewhere))

        listed = await h.run("commitments", user="bob", channel=thread, locale="en-US")
        assert listed["flags"] & EPHEMERAL and listed["embeds"][0]["title"] == "Open commitments (2)"
        assert custom_ids(listed) == [f"heyan:done:{bob_id}:0"]  # only his own can be closed by him (page 0)

        click = await h.click(f"heyan:done:{bob_id}:0", listed, user="bob", locale="en-US")
        after = await h.message_after_click(click)
        assert after["content"] == "Marked done: repaint the fence: repaint the fence"
        assert after["embeds"][0]["title"] == "Open commitments (1)"
        assert (await h.rt.memory.get(Scope(tenant=h.tenant), bob_id)).status is FactStatus.DONE  # type: ignore[union-attr]

        moderator = await h.run("commitments", user="alice", channel=thread)
        assert custom_ids(moderator) == [f"heyan:done:{carol_id}:0"]
        # a replayed click on someone else's button: the service decides, not the button
        click = await h.click(f"heyan:done:{carol_id}:0", moderator, user="bob", locale="en-US")
        refused = await h.message_after_click(click)
        assert refused["flags"] & EPHEMERAL and refused["content"].startswith("no commitment with id")
