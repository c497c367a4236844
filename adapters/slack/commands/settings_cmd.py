"""``/heyan settings``: a workspace's own settings, for its moderators.

Subcommands (timezone, language, moderators, openers, channels, retention, closed-purge, reset) go
through ``ModerationService``'s community settings (moderators only, audited, validated together);
usage: docs/SLACK.md. Groups and channels arrive as ids and are stored so; shown as text, they ping
nobody.
"""

from __future__ import annotations

import re
from typing import Any

from adapters.slack.commands.invocation import Answer, Invocation
from adapters.slack.display.blocks import section
from adapters.slack.display.render import escape
from bot.actors import InvalidRequest
from bot.config.tenants import MAX_DAYS, TenantSettingError, TenantSettings, parse_days
from memory.models import Kind

__all__ = ["settings"]

_GROUP = re.compile(r"<!subteam\^(S[A-Z0-9]+)(?:\|[^<>]*)?>")
_CHANNEL = re.compile(r"<#([CG][A-Z0-9]+)(?:\|[^<>]*)?>")
_NAMES = {"timezone": "timezone", "language": "language", "moderators": "moderator_roles",
          "openers": "dispute_openers", "channels": "dispute_channels", "retention": "retention_days",
          "closed-purge": "closed_purge_days"}


def _usage() -> InvalidRequest:
    en = ("Usage: `/heyan settings [timezone <zone> | language auto|zh|en | moderators @group…|none | "
          "openers members|moderators | channels #channel…|anywhere | retention <kind> <days>|keep | "
          "closed-purge <days> | reset [setting]]`")
    zh = ("用法：`/heyan settings [timezone <时区> | language auto|zh|en | moderators @用户组…|none | "
          "openers members|moderators | channels #频道…|anywhere | retention <类型> <天数>|keep | "
          "closed-purge <天数> | reset [设置]]`")
    return InvalidRequest(en, zh)


async def _show(inv: Invocation, s: TenantSettings, head: str) -> Answer:
    zh = inv.lang == "zh"
    handles = await inv.here.people.directory.group_handles()
    groups = ", ".join(escape(f"@{handles[g]}" if g in handles else g) for g in s.moderator_roles)
    channels = " ".join(f"<#{c}>" for c in s.dispute_channels)
    retention = ", ".join(f"{k}: {'keep' if v is None else f'{v:g}d'}" for k, v in sorted(s.retention_days.items()))
    rows = [
        ("时区" if zh else "Timezone", escape(s.timezone)),
        ("语言" if zh else "Language", s.language),
        ("管理员用户组" if zh else "Moderator groups", groups or ("（仅工作区管理员）" if zh else "(workspace admins only)")),
        ("谁可以发起争议" if zh else "Who opens disputes", s.dispute_openers),
        ("可发起争议的频道" if zh else "Where disputes open", channels or ("任何频道" if zh else "anywhere")),
        ("保留期限" if zh else "Retention", escape(retention) or ("默认" if zh else "defaults")),
        ("争议结束后清除" if zh else "Purge after close", f"{s.closed_purge_days:g}d"),
    ]
    text = head + "\n" + "\n".join(f"*{k}*: {v}" for k, v in rows)
    return Answer(text, [section(text)])


def _values(inv: Invocation, name: str, args: list[str], current: TenantSettings) -> dict[str, Any]:
    raw = " ".join(args)
    if name in ("timezone", "language", "openers"):
        if len(args) != 1:
            raise _usage()
        return {_NAMES[name]: args[0]}
    if name == "moderators":
        groups = _GROUP.findall(raw)
        if not groups and raw.strip().lower() != "none":
            raise InvalidRequest("name the user groups as @mentions (e.g. @moderators), or none",
                                 "请用 @提及 指定用户组（如 @moderators），或 none")
        return {"moderator_roles": list(dict.fromkeys(groups))}
    if name == "channels":
        channels = _CHANNEL.findall(raw)
        if not channels and raw.strip().lower() != "anywhere":
            raise InvalidRequest("name the channels as #mentions (e.g. #disputes), or anywhere",
                                 "请用 #提及 指定频道（如 #disputes），或 anywhere")
        return {"dispute_channels": list(dict.fromkeys(channels))}
    if name == "retention":
        kinds = ", ".join(k.value for k in Kind)
        if len(args) != 2 or args[0] not in {k.value for k in Kind}:
            raise InvalidRequest(f"give a kind ({kinds}) and a number of days or keep",
                                 f"请给出类型（{kinds}）和天数或 keep")
        return {"retention_days": {**current.retention_days, args[0]: _days(args[1], keep=True)}}
    if name == "closed-purge":
        if len(args) != 1:
            raise InvalidRequest(f"give a number of days from 0 to {MAX_DAYS:g}", f"请给出 0 到 {MAX_DAYS:g} 之间的天数")
        return {"closed_purge_days": _days(args[0], keep=False)}
    raise _usage()


def _days(text: str, *, keep: bool) -> float | None:
    """A number of days as every surface reads it (``bot.config.tenants.parse_days``): finite, within range;
    "nan", "inf" and "1e999" are refused with what is accepted."""
    try:
        return parse_days(text, "days", keep=("keep",) if keep else (), zero=not keep)
    except TenantSettingError:
        span = f"above 0, up to {MAX_DAYS:g}" if keep else f"from 0 to {MAX_DAYS:g}"
        span_zh = f"大于 0、不超过 {MAX_DAYS:g}" if keep else f"0 到 {MAX_DAYS:g} 之间"
        raise InvalidRequest(f"“{text[:20]}” is not a number of days: give one {span}" + (", or keep" if keep else ""),
                             f"“{text[:20]}”不是有效的天数：请给出{span_zh}的数" + ("，或 keep" if keep else "")) from None


async def settings(inv: Invocation) -> Answer:
    """Show or change the workspace's settings (moderators only; the service checks and audits)."""
    service = inv.bridge.port.moderation
    words = inv.words()
    zh = inv.lang == "zh"
    if not words:
        current = await service.community_settings(inv.actor)
        return await _show(inv, current, "*本工作区的设置*" if zh else "*This workspace's settings*")
    name, args = words[0].lower(), words[1:]
    if name == "reset":
        unknown = [a for a in args if a not in _NAMES]
        if unknown:
            raise _usage()
        updated = await service.reset_community_settings(inv.actor, *[_NAMES[a] for a in args])
        return await _show(inv, updated, "*已恢复默认*" if zh else "*Back to the defaults*")
    if name not in _NAMES:
        raise _usage()
    current = await service.community_settings(inv.actor)
    updated = await service.update_community_settings(inv.actor, **_values(inv, name, args, current))
    return await _show(inv, updated, "*已更新*" if zh else "*Updated*")
