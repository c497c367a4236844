"""``/heyan settings`` (issue 19): a workspace's moderators set its timezone, language, moderator
user groups, who opens disputes where and retention from Slack itself, through the moderation
service (checked, validated, audited); members of the configured user groups moderate."""

from __future__ import annotations

from pathlib import Path

from tests.slack_standin import ALICE, BOB, CAROL, GENERAL, SlackUserGroup
from tests.slack_world import (  # noqa: F401  (fixtures)
    hash_embedder_fixture,
    no_slack_env_fixture,
    slack_world,
    texts,
)

HELPERS = "S0HELPERS1"


async def test_moderators_change_the_workspaces_settings_from_slack(tmp_path: Path, redis_url: str) -> None:
    async with slack_world(tmp_path, redis_url, slack_overrides={"moderator_group": None}) as w:
        w.slack.add_group(SlackUserGroup(HELPERS, "helpers", [BOB]))
        refused = texts(await w.command(ALICE, GENERAL, "settings timezone Asia/Shanghai"))
        bad = texts(await w.command(CAROL, GENERAL, "settings timezone Mars/Base"))
        zone = texts(await w.command(CAROL, GENERAL, "settings timezone Asia/Shanghai"))
        bob_before = texts(await w.command(BOB, GENERAL, "memory list"))
        groups = texts(await w.command(CAROL, GENERAL, f"settings moderators <!subteam^{HELPERS}|@helpers>"))
        bob_after = texts(await w.command(BOB, GENERAL, "memory list"))
        openers = texts(await w.command(CAROL, GENERAL, "settings openers moderators"))
        alice_opens = texts(await w.command(ALICE, GENERAL, "dispute open The fridge"))
        shown = texts(await w.command(CAROL, GENERAL, "settings"))
        settings = await w.rt.tenants.get(w.tenant)
        audit = [e.action for e in await w.rt.audit.entries(w.tenant)]

    assert "moderator" in refused.lower() and settings.timezone == "Asia/Shanghai"
    assert "Area/City" in bad
    assert "Asia/Shanghai" in zone
    assert "只有管理员" in bob_before and "只有管理员" not in bob_after  # the helpers group now moderates
    assert "@helpers" in groups and "<!subteam" not in groups  # shown, never pinged
    assert settings.moderator_roles == [HELPERS] and settings.dispute_openers == "moderators"
    assert "moderators" in openers and "only moderators open disputes" in alice_opens
    assert "Asia/Shanghai" in shown and "@helpers" in shown
    assert audit.count("settings.update") == 3
