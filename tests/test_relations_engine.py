"""Issue 23 item 5, end to end through the engine with the offline provider: relations are extracted
as members talk, and "who else had a similar problem?" / "what do we know about X?" (and their
Chinese) are answered from them, one hop away from what the question names."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.actors import Actor, Capability
from bot.models import Message
from bot.offline.provider import OfflineProvider
from memory.models import Kind, Scope
from memory.ports import RecordFilter
from tests.jobs_helpers import Start, settings

pytestmark = pytest.mark.usefixtures("hash_embedder")

T = "discord:23"
NOW = datetime.now(UTC) - timedelta(minutes=30)


def said(i: int, user: str, name: str, text: str, *, session: str = "general", mention: bool = False) -> Message:
    return Message(id=f"{session}-{i}", scope=Scope(tenant=T, session=session, user=user), author_name=name,
                   text=text, ts=NOW + timedelta(seconds=i), mention=mention)


async def test_who_else_and_what_do_we_know_in_english(tmp_path: Path, redis_url: str,
                                                       start: Start) -> None:
    rt = await start(settings(tmp_path, redis_url), provider=OfflineProvider())
    lines = [
        ("u-dev", "Dev", "The wiki search belongs to the docs team."),
        ("u-ann", "Ann", "I complained about the wiki search, it never finds anything."),
        ("u-bob", "Bob", "Bob manages the Discord bot."),
        ("u-carol", "Carol", "I have a problem with the wiki search too, it is very slow."),
        ("u-bob", "Bob", "Pizza night is on Friday."),
    ]
    for i, (user, name, text) in enumerate(lines):
        await rt.engine.observe(said(i, user, name, text))
    await rt.engine.flush(Scope(tenant=T, session="general"))
    await rt.drain(60)
    relations = [f for f in await rt.memory.list_facts(Scope(tenant=T)) if f.kind is Kind.RELATION]
    assert {(f.subject, f.attribute, f.target) for f in relations} >= {
        ("wiki search", "belongs to", "docs team"), ("u-ann", "complained about", "wiki search"),
        ("u-carol", "complained about", "wiki search"), ("u-bob", "manages", "discord bot")}

    similar = await rt.engine.respond(said(10, "u-ann", "Ann", "@heyan who else had a similar problem with the wiki "
                                           "search?", session="other", mention=True))
    assert similar.text.startswith("Carol also had a problem with the wiki search:"), similar.text
    assert "it is very slow" in similar.text and "Ann" not in similar.text.split(":", 1)[0]

    about = await rt.engine.respond(said(11, "u-eve", "Eve", "@heyan what do we know about the docs team?",
                                         session="other", mention=True))
    # the docs team → the wiki search (one hop) → the complaints about it
    assert "wiki search belongs to the docs team" in about.text, about.text
    assert "Ann" in about.text and "Carol" in about.text and "Pizza" not in about.text

    unknown = await rt.engine.respond(said(12, "u-eve", "Eve", "@heyan what do we know about the ferry timetable?",
                                           session="other", mention=True))
    assert unknown.text == "I have no record of that."


async def test_who_else_and_what_do_we_know_in_chinese(tmp_path: Path, redis_url: str,
                                                       start: Start) -> None:
    rt = await start(settings(tmp_path, redis_url), provider=OfflineProvider())
    lines = [
        ("u-zs", "张三", "我要投诉产品B，发货慢了一个星期。"),
        ("u-ls", "李四", "产品B属于部门C。"),
        ("u-sq", "孙七", "产品B的包装又破了，我也投诉过。"),
        ("u-ww", "王五", "明天下午三点开周会。"),
    ]
    for i, (user, name, text) in enumerate(lines):
        await rt.engine.observe(said(i, user, name, text))
    await rt.engine.flush(Scope(tenant=T, session="general"))
    await rt.drain(60)

    similar = await rt.engine.respond(said(10, "u-zs", "张三", "@和言 还有谁也遇到过产品B的问题？", session="other",
                                           mention=True))
    assert similar.text.startswith("孙七也遇到过产品B的问题："), similar.text
    assert "张三" not in similar.text

    about = await rt.engine.respond(said(11, "u-ww", "王五", "@和言 关于部门C我们知道什么？", session="other",
                                         mention=True))
    assert "产品B属于部门C" in about.text, about.text
    assert "张三" in about.text and "孙七" in about.text and "周会" not in about.text


async def test_a_moderators_edit_moves_the_relation_and_what_finds_it(tmp_path: Path, redis_url: str,
                                                                      start: Start) -> None:
    rt = await start(settings(tmp_path, redis_url), provider=OfflineProvider())
    await rt.engine.observe(said(0, "u-dev", "Dev", "The wiki search belongs to the docs team."))
    await rt.engine.observe(said(1, "u-ann", "Ann", "Ann and Dev both complained about the wiki search."))
    await rt.engine.observe(said(2, "u-dev", "Dev", "I complained about the wiki search as well."))
    await rt.engine.flush(Scope(tenant=T, session="general"))
    await rt.drain(60)
    relations = [f for f in await rt.memory.list_facts(Scope(tenant=T)) if f.kind is Kind.RELATION]
    # Ann's word on Dev and Dev's own are two statements, each its speaker's: none disputes the other
    dev_complaints = [f for f in relations if f.subject == "u-dev" and f.attribute == "complained about"]
    assert {f.asserted_by for f in dev_complaints} == {"u-ann", "u-dev"}
    assert all(f.status.value == "active" for f in relations)

    [docs] = [f for f in relations if f.attribute == "belongs to"]
    moderator = Actor(tenant=T, user_id="u-mod", capabilities=frozenset({Capability.MODERATE}))
    edited = await rt.moderation.memory_edit(moderator, docs.id, "the search guild", reason="renamed")
    assert (edited.value, edited.target, edited.version) == ("the search guild", "search guild", 2)

    def key(name: str) -> str:
        return rt.codec.subject_key(T, name)

    found, _ = await rt.store.scroll("facts", Scope(tenant=T), RecordFilter(mentions=frozenset({key("search guild")})))
    assert [h.id for h in found] == [docs.id]
    gone, _ = await rt.store.scroll("facts", Scope(tenant=T), RecordFilter(mentions=frozenset({key("docs team")})))
    assert gone == []


async def test_who_else_without_a_name_reads_the_askers_own_problem(tmp_path: Path, redis_url: str,
                                                                     start: Start) -> None:
    rt = await start(settings(tmp_path, redis_url), provider=OfflineProvider())
    lines = [
        ("u-carol", "Carol", "I complained about the wiki search, it never finds my page.", "docs"),
        ("u-dev", "Dev", "The CI pipeline is broken again.", "docs"),
        ("u-bob", "Bob", "Pizza night is on Friday.", "general"),
        ("u-ann", "Ann", "Honestly I complained about the wiki search twice this week.", "general"),
    ]
    for i, (user, name, text, session) in enumerate(lines):
        await rt.engine.observe(said(i, user, name, text, session=session))
    for session in ("docs", "general"):
        await rt.engine.flush(Scope(tenant=T, session=session))
    await rt.drain(60)
    reply = await rt.engine.respond(said(10, "u-ann", "Ann", "@heyan who else had a similar problem?", mention=True))
    assert reply.text.startswith("Carol also had a problem with the wiki search:"), reply.text
    assert "CI pipeline" not in reply.text and "Pizza" not in reply.text
    zh = await rt.engine.respond(said(11, "u-ann", "Ann", "@和言 还有谁也遇到过类似问题？", mention=True))
    assert zh.text.startswith("Carol也遇到过"), zh.text
