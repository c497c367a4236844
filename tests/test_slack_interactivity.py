"""Block Kit buttons and the Correct modal through bolt's real HTTP handling: Confirm / Correct /
Delete on memory cards, Mark done on commitments, the review queue's pages, and the Home tab.

A button is acked empty at once; its result comes back through the message's ``response_url``
(ephemeral, not replacing the card list) or, on the Home tab, as a notice on the republished tab.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

from memory.models import FactStatus, Kind, utcnow
from tests.slack_standin import ALICE, BOB, CAROL, GENERAL, RESPONSE_URL
from tests.slack_world import (  # noqa: F401  (fixtures)
    World,
    hash_embedder_fixture,
    no_slack_env_fixture,
    slack_world,
    texts,
)


async def seed(w: World) -> dict[str, str]:
    facts = await w.remember(
        w.fact(Kind.DEMAND, BOB, "小波", "wants", "a quiet evening", status=FactStatus.DISPUTED),
        w.fact(Kind.COMMITMENT, BOB, "小波", "buy paint", "buy the paint by Thursday",
               due_at=utcnow() + timedelta(days=1)),
        w.fact(Kind.EVENT, ALICE, "alice", "claims", "bob parks badly", said_by=ALICE, status=FactStatus.UNVERIFIED),
    )
    return {"quiet": facts[0].id, "paint": facts[1].id, "parks": facts[2].id}


async def by_id(w: World, fact_id: str) -> object:
    return {f.id: f for f in await w.facts()}.get(fact_id)


async def test_confirm_and_delete_buttons_are_for_moderators(tmp_path: Path, redis_url: str) -> None:
    async with slack_world(tmp_path, redis_url) as w:
        ids = await seed(w)
        _, refused = await w.click(BOB, "heyan_mem_delete", ids["quiet"])
        refusal = await w.response(refused["response_url"])
        _, confirm = await w.click(CAROL, "heyan_mem_confirm", ids["quiet"])
        confirmed = await w.response(confirm["response_url"])
        after_confirm = await by_id(w, ids["quiet"])
        _, delete = await w.click(CAROL, "heyan_mem_delete", ids["parks"])
        deleted = await w.response(delete["response_url"])
        gone = await by_id(w, ids["parks"])

    assert refusal.params == {"text": refusal.params["text"], "response_type": "ephemeral", "replace_original": False}
    assert refusal.params["text"].startswith("只有管理员可以删除记忆")
    assert confirmed.params["text"] == f"Confirmed the memory `{ids['quiet'][:8]}`: it is now active."
    assert getattr(after_confirm, "status", None) is FactStatus.ACTIVE
    assert deleted.params["text"].startswith(f"Deleted the memory `{ids['parks'][:8]}`") and gone is None


async def test_correct_opens_a_modal_whose_submission_corrects_the_memory(tmp_path: Path, redis_url: str) -> None:
    async with slack_world(tmp_path, redis_url) as w:
        ids = await seed(w)
        _, click = await w.click(BOB, "heyan_mem_correct", ids["quiet"])
        opened = await w.slack.wait_for_call("views.open")
        filled = await w.slack.wait_for_call("views.update")
        modal = filled.response["view"]
        p = w.slack.payloads

        empty = await w.sender.interaction(p.view_submission(
            user=BOB, callback_id="heyan_correct", values={"value": {"value": "  "}}, view=modal))
        saved = await w.sender.interaction(p.view_submission(
            user=BOB, callback_id="heyan_correct", view=modal,
            values={"value": {"value": "quiet after 10pm"}, "reason": {"reason": "I said 10pm"}}))
        told = await w.response(click["response_url"])
        fact = await by_id(w, ids["quiet"])

    loading, view = opened.json_param("view"), filled.json_param("view")
    assert opened.params["trigger_id"] == click["trigger_id"]
    assert "正在查找" in texts(opened) and "a quiet evening" not in texts(opened)  # opened before any lookup
    assert filled.params["view_id"] == opened.response["view"]["id"] and loading["callback_id"] == "heyan_correct"
    assert view["callback_id"] == "heyan_correct" and view["title"]["text"] == "更正记忆"
    assert view["blocks"][1]["element"]["initial_value"] == "a quiet evening"
    assert empty.json() == {"response_action": "errors", "errors": {"value": "请写出这条记忆应有的内容。"}}
    assert (saved.status, saved.text) == (200, "")  # the modal closes; the change is made after the ack
    assert told.params["text"] == f"谢谢——记忆 `{ids['quiet'][:8]}` 已按你写的更正。"
    assert getattr(fact, "value", None) == "quiet after 10pm" and getattr(fact, "version", 0) == 2


async def test_a_slow_lookup_does_not_let_the_correct_buttons_trigger_expire(tmp_path: Path, redis_url: str) -> None:
    """The memory lookup takes longer than the trigger_id lives (the stand-in's clock moves on by
    3.5 s while it runs): the modal was opened before it, and is filled after. Before, the lookup
    came first and Slack answered expired_trigger_id."""
    async with slack_world(tmp_path, redis_url) as w:
        ids = await seed(w)
        show = w.rt.moderation.memory_show

        async def slow_show(*args: Any, **kwargs: Any) -> Any:
            w.slack.advance(3.5)  # a store under load; no sleeping in the test
            return await show(*args, **kwargs)

        w.rt.moderation.memory_show = slow_show  # type: ignore[method-assign]
        await w.click(BOB, "heyan_mem_correct", ids["quiet"])
        filled = await w.slack.wait_for_call("views.update")
        opened = w.slack.calls_to("views.open")

    assert [c.response["ok"] for c in opened] == [True]
    assert filled.response["ok"] and "a quiet evening" in texts(filled)


async def test_a_click_that_reaches_heyan_after_its_trigger_expired_is_told_once(tmp_path: Path, redis_url: str) -> None:
    """Slack answers expired_trigger_id (the click arrived more than 3 s after it was made): the
    presser hears why, once, where they pressed; nothing else happens."""
    async with slack_world(tmp_path, redis_url) as w:
        ids = await seed(w)
        payload = w.slack.payloads.block_actions(user=BOB, action_id="heyan_mem_correct", value=ids["quiet"],
                                                 channel=GENERAL)
        w.slack.advance(3.5)  # the click was held up on its way
        await w.sender.interaction(payload)
        told = await w.response(payload["response_url"])
        opened = w.slack.calls_to("views.open")

    assert [c.response["error"] for c in opened] == ["expired_trigger_id"]
    assert "expired_trigger_id" in told.params["text"] and "views.update" not in w.slack.methods_called()
    assert len(w.slack.calls_to(RESPONSE_URL)) == 1


async def test_a_member_cannot_open_the_modal_for_someone_elses_memory(tmp_path: Path, redis_url: str) -> None:
    async with slack_world(tmp_path, redis_url) as w:
        ids = await seed(w)
        await w.click(BOB, "heyan_mem_correct", ids["parks"])  # alice's claim, about bob by name only
        told = await w.slack.wait_for_call("views.update")

    view = told.json_param("view")
    assert "submit" not in view and "parks badly" not in texts(told)  # nothing to correct, nothing shown
    assert view["blocks"][0]["text"]["text"].startswith("这里没有 id 为")


async def test_mark_done_and_the_review_pages(tmp_path: Path, redis_url: str) -> None:
    async with slack_world(tmp_path, redis_url) as w:
        ids = await seed(w)
        await w.remember(*[w.fact(Kind.EMOTION, CAROL, "carol", f"feels {i}", "tired", status=FactStatus.UNVERIFIED)
                           for i in range(5)])
        _, done = await w.click(BOB, "heyan_commit_done", ids["paint"])
        marked = await w.response(done["response_url"])
        first = await w.command(CAROL, GENERAL, "memory review")
        nav = next(b for b in first.json_param("blocks") if b.get("block_id") == "heyan_review_nav")
        _, nxt = await w.click(CAROL, "heyan_review_next", nav["elements"][0]["value"])
        second = await w.response(nxt["response_url"])
        paint = await by_id(w, ids["paint"])

    assert marked.params["text"] == f"已将 `{ids['paint'][:8]}` 标为完成，不会再发送跟进。"
    assert getattr(paint, "status", None) is FactStatus.DONE
    assert "*Review queue* — 7 to look at · page 1 of 2" in texts(first)
    assert [e["action_id"] for e in nav["elements"]] == ["heyan_review_next"]
    assert second.params["replace_original"] is True
    assert "page 2 of 2" in texts(second)
    assert [e["action_id"] for b in second.json_param("blocks") if b.get("block_id") == "heyan_review_nav"
            for e in b["elements"]] == ["heyan_review_prev"]


async def test_buttons_on_the_home_tab_refresh_it_with_a_notice(tmp_path: Path, redis_url: str) -> None:
    async with slack_world(tmp_path, redis_url) as w:
        ids = await seed(w)
        await w.click(BOB, "heyan_mem_correct", ids["quiet"], home=True)
        opened = await w.slack.wait_for_call("views.open")
        await w.sender.interaction(w.slack.payloads.view_submission(
            user=BOB, callback_id="heyan_correct", view=opened.response["view"],
            values={"value": {"value": "quiet after 11pm"}}))
        published = await w.slack.wait_for_call("views.publish")
        await w.click(BOB, "heyan_mem_delete", ids["quiet"], home=True)
        refused = await w.slack.wait_for_call("views.publish", count=2)

    assert published.params["user_id"] == BOB
    assert "已按你写的更正" in texts(published) and "quiet after 11pm" in texts(published)
    assert "只有管理员可以删除记忆" in texts(refused)
    assert w.slack.calls_to(RESPONSE_URL) == []  # the Home tab has no response_url
