"""Heyan's words on Discord, in English and Chinese: slash-command names and descriptions (through
discord.py's ``app_commands.Translator``, applied when the command tree is synced) and every string
the adapter shows a member (``t(lang, key, **values)``).

Command names stay English by default; Discord shows the zh-CN / zh-TW names to members whose client
is in Chinese. Option *names* stay English so the docs and muscle memory work in every client; their
descriptions are translated. Member-facing text follows ``Actor.lang`` (the tenant's ``language``
setting, else the interaction's locale, else the guild's preferred locale).
"""

from __future__ import annotations

import discord
from discord import app_commands

from bot import kinds
from bot.models import Stage
from memory.models import Fact, FactStatus, Kind, Lang

__all__ = ["HeyanTranslator", "kind_label", "permission_label", "stage_label", "status_label", "t"]

# English name -> (zh-CN, zh-TW). Discord calls a thread 子区 in zh-CN and 討論串 in zh-TW.
COMMAND_NAMES: dict[str, tuple[str, str]] = {
    "dispute": ("争议", "爭議"),
    "open": ("开启", "開啟"),
    "status": ("状态", "狀態"),
    "summary": ("总结", "總結"),
    "close": ("结束", "結束"),
    "memory": ("记忆", "記憶"),
    "list": ("列表", "列表"),
    "show": ("查看", "查看"),
    "edit": ("修改", "修改"),
    "delete": ("删除", "刪除"),
    "confirm": ("确认", "確認"),
    "review": ("审核", "審核"),
    "export": ("导出", "匯出"),
    "audit": ("审计", "稽核"),
    "mymemory": ("我的记忆", "我的記憶"),
    "commitments": ("承诺", "承諾"),
}

# English description -> (zh-CN, zh-TW): commands, groups and options.
DESCRIPTIONS: dict[str, tuple[str, str]] = {
    "Open and follow a dispute in a thread": ("在子区中开启和跟进争议", "在討論串中開啟和跟進爭議"),
    "Open a dispute in a new thread with the members it concerns": (
        "新建子区开启争议，并拉入相关成员", "新建討論串開啟爭議，並加入相關成員"),
    "Where this dispute stands": ("这个争议的进展", "這個爭議的進展"),
    "Summarise this dispute so far": ("总结这个争议目前的情况", "總結這個爭議目前的情況"),
    "Close this dispute: write the summary and cancel pending follow-ups": (
        "结束争议：写下总结并取消待发的跟进", "結束爭議：寫下總結並取消待發的跟進"),
    "Review what Heyan remembers (moderators)": ("审核 Heyan 的记忆（管理员）", "審核 Heyan 的記憶（管理員）"),
    "List memories, optionally of one member or kind": ("列出记忆，可按成员或类型筛选", "列出記憶，可依成員或類型篩選"),
    "Show one memory in full": ("查看一条记忆的全部内容", "查看一則記憶的完整內容"),
    "Change what a memory says": ("修改一条记忆", "修改一則記憶"),
    "Delete a memory everywhere it is stored": ("彻底删除一条记忆", "徹底刪除一則記憶"),
    "Confirm a disputed or unverified memory": ("确认有争议或未核实的记忆", "確認有爭議或未核實的記憶"),
    "Review disputed and unverified memories": ("审核有争议和未核实的记忆", "審核有爭議和未核實的記憶"),
    "Export everything Heyan holds about a member (JSON)": (
        "导出 Heyan 关于某成员的全部数据（JSON）", "匯出 Heyan 關於某成員的全部資料（JSON）"),
    "Who changed what in Heyan's memory": ("查看记忆的修改记录", "查看記憶的修改紀錄"),
    "What Heyan remembers about you: see, correct or erase it": (
        "查看、更正或删除 Heyan 关于你的记忆", "查看、更正或刪除 Heyan 關於你的記憶"),
    "Your commitments and this thread's, with a Done button": (
        "你的承诺和本子区的承诺，可标记完成", "你的承諾和本討論串的承諾，可標記完成"),
    "What the dispute is about": ("争议的主题", "爭議的主題"),
    "A member the dispute concerns": ("争议涉及的成员", "爭議涉及的成員"),
    "Why (kept in the audit trail)": ("原因（记入审计记录）", "原因（記入稽核紀錄）"),
    "Only memories about or from this member": ("只看关于该成员或来自该成员的记忆", "只看關於該成員或來自該成員的記憶"),
    "Only this kind of memory": ("只看这一类记忆", "只看這一類記憶"),
    "The memory (type to search)": ("记忆（输入以搜索）", "記憶（輸入以搜尋）"),
    "What the memory should say": ("记忆应有的内容", "記憶應有的內容"),
    "The member to export": ("要导出的成员", "要匯出的成員"),
    "Only changes concerning this member": ("只看涉及该成员的修改", "只看涉及該成員的修改"),
}

_NAME_LOCATIONS = frozenset({app_commands.TranslationContextLocation.command_name,
                             app_commands.TranslationContextLocation.group_name})
_DESCRIPTION_LOCATIONS = frozenset({app_commands.TranslationContextLocation.command_description,
                                    app_commands.TranslationContextLocation.group_description,
                                    app_commands.TranslationContextLocation.parameter_description})


class HeyanTranslator(app_commands.Translator):
    """Chinese names and descriptions for the slash commands; None (Discord shows the English
    default) for every other locale and for strings without a translation."""

    async def translate(
        self, string: app_commands.locale_str, locale: discord.Locale, context: app_commands.TranslationContextTypes
    ) -> str | None:
        if locale is discord.Locale.chinese:
            column = 0
        elif locale is discord.Locale.taiwan_chinese:
            column = 1
        else:
            return None
        if context.location in _NAME_LOCATIONS:
            found = COMMAND_NAMES.get(string.message)
        elif context.location in _DESCRIPTION_LOCATIONS:
            found = DESCRIPTIONS.get(string.message)
        else:
            found = None
        return found[column] if found else None


# --- member-facing text ---------------------------------------------------------------------------

MESSAGES: dict[str, tuple[str, str]] = {
    # refusals and errors
    "guild_only": ("This command works in a server, not in direct messages.",
                   "这个命令只能在服务器里使用，不能在私信中使用。"),
    "text_channel_only": ("Use /dispute open in a text channel (or inside an existing thread).",
                          "请在文字频道（或已有的子区）中使用 /dispute open。"),
    "missing_permission": ("I can't do that here: I'm missing the **{perm}** permission in this channel. "
                           "Ask a server admin to grant it to Heyan's role.",
                           "我在这个频道缺少“{perm}”权限，无法完成。请服务器管理员为 Heyan 的身份组授予该权限。"),
    "forbidden": ("Discord refused: I'm missing a permission in this channel ({detail}). "
                  "Ask a server admin to check Heyan's role.",
                  "Discord 拒绝了操作：我在这个频道缺少权限（{detail}）。请服务器管理员检查 Heyan 的身份组。"),
    "discord_busy": ("Discord is limiting how fast Heyan may act here; try again in {seconds} s.",
                     "Discord 正在限制 Heyan 在这里的操作速度，请 {seconds} 秒后再试。"),
    "unexpected": ("Something went wrong on my side; it has been logged. Please try again.",
                   "我这边出了点问题，已记录下来。请稍后再试。"),
    "bad_kind": ("Unknown kind {kind}; use one of: {kinds}.", "未知的类型 {kind}；可用的类型：{kinds}。"),
    "bad_option": ("I can't use “{value}” there; pick one from the list Discord offers.",
                   "无法使用“{value}”；请从 Discord 提供的列表中选择。"),
    "expired": ("This message is out of date; run the command again.", "这条消息已过时，请重新运行命令。"),
    # disputes
    "dispute.opened": ("Dispute opened in {thread}; the opening message will appear there.",
                       "已在 {thread} 开启争议，开场消息稍后会出现在那里。"),
    "dispute.opened_private": ("Dispute opened in the private thread {thread} (only its members and "
                               "moderators can see it); the opening message will appear there.",
                               "已在私密子区 {thread} 开启争议（只有成员和管理员能看到），开场消息稍后会出现在那里。"),
    "dispute.public_why": ("It is a public thread: a private one needs the **{perm}** permission, so that Heyan "
                           "can remove it again if opening fails.",
                           "这是一个公开子区：私密子区需要 **{perm}** 权限，以便开启失败时 Heyan 能把它删除。"),
    "dispute.mentions_only": ("Note: Heyan reads only the messages there that mention {me} (or reply to it with "
                              "the ping on) — the Message Content intent is off. Mention {me} in what you want "
                              "on record, or ask the server's admin to enable the intent (docs/DISCORD.md).",
                              "注意：Message Content 权限未开启，Heyan 只能读取其中 @{me}（或开启提醒回复它）的消息。"
                              "需要记录的内容请 @{me}，或请服务器管理员开启该权限（见 docs/DISCORD.md）。"),
    "dispute.none": ("No dispute has been opened here.", "这里还没有开启过争议。"),
    "dispute.no_summary": ("Nothing to summarise here yet.", "这里还没有可以总结的内容。"),
    "dispute.closed": ("{who} closed this dispute.", "{who} 结束了这个争议。"),
    "dispute.closed_reason": ("Reason: {reason}", "原因：{reason}"),
    "dispute.cancelled": ("{count} pending follow-up(s) cancelled.", "已取消 {count} 条待发的跟进。"),
    "status.title": ("Dispute: {title}", "争议：{title}"),
    "status.session": ("This thread", "本子区"),
    "status.state": ("State", "状态"),
    "status.open": ("open", "进行中"),
    "status.closed": ("closed", "已结束"),
    "status.never": ("not a dispute", "不是争议"),
    "status.opened_by": ("Opened by", "发起人"),
    "status.members": ("Members", "成员"),
    "status.stage": ("Stage", "阶段"),
    "status.turns": ("Messages", "消息数"),
    "status.commitments": ("Open commitments", "未完成的承诺"),
    "status.summary": ("Summary", "总结"),
    "summary.title": ("Summary (version {version})", "总结（第 {version} 版）"),
    # memory review
    "memory.none": ("No memories match.", "没有匹配的记忆。"),
    "memory.title": ("Memories ({count})", "记忆（{count} 条）"),
    "memory.more": ("Showing {shown} of {total}; narrow it down with member or kind.",
                    "显示 {total} 条中的 {shown} 条；可按成员或类型缩小范围。"),
    "memory.edited": ("Memory `{id}` updated (version {version}).", "记忆 `{id}` 已更新（第 {version} 版）。"),
    "memory.deleted": ("Memory `{id}` deleted everywhere it was stored.", "记忆 `{id}` 已从所有存储中删除。"),
    "memory.confirmed": ("Memory `{id}` confirmed: it is active now.", "记忆 `{id}` 已确认，现在有效。"),
    "memory.rejected": ("Memory `{id}` rejected: kept for the record, never recalled.",
                        "记忆 `{id}` 已驳回：保留备查，不再被引用。"),
    "fact.value": ("Value", "内容"),
    "fact.status": ("Status", "状态"),
    "fact.confidence": ("Confidence", "可信度"),
    "fact.said_by": ("Said by", "陈述人"),
    "fact.where": ("Where", "位置"),
    "fact.sources": ("Sources", "来源"),
    "fact.due": ("Due", "截止"),
    "fact.version": ("Version", "版本"),
    "fact.contested": ("Competing accounts", "不同说法"),
    "fact.private": ("private", "私密"),
    "fact.public": ("public", "公开"),
    "history.refused": ("I could not read the earlier messages here (missing **{perm}**), so I answered from "
                        "what I remember; a moderator can grant it to Heyan's role.",
                        "我无法读取这里之前的消息（缺少 **{perm}** 权限），所以只根据记忆回答；管理员可以给 Heyan 的身份组"
                        "授予该权限。"),
    "cannot_post": ("You asked me something in {where}, but I can't post there (missing **{perm}**). A moderator "
                    "can grant it to Heyan's role; until then, ask me somewhere else.",
                    "你在 {where} 问了我问题，但我无法在那里发言（缺少 **{perm}** 权限）。管理员可以给 Heyan 的身份组"
                    "授予该权限；在此之前，请在其他地方问我。"),
    "hint.ping": ("I can't read replies to me with the ping turned off. Turn **@ON** on the reply, or mention "
                  "{me}.", "关闭提醒的回复我读不到。回复时请保持 **@开启**，或直接 @{me}。"),
    "hint.role": ("That mentioned my role, not me, so Discord didn't show me your message. Mention {me} (the "
                  "member, not the role).", "你提到的是我的身份组而不是我，所以 Discord 没有把消息给我。请 @{me}（成员，而不是身份组）。"),
    "settings.title": ("Heyan settings for this server", "本服务器的 Heyan 设置"),
    "settings.timezone": ("Timezone", "时区"),
    "settings.language": ("Language", "语言"),
    "settings.openers": ("Who opens disputes", "谁可以发起争议"),
    "settings.openers.members": ("any member", "任何成员"),
    "settings.openers.moderators": ("moderators only", "仅管理员"),
    "settings.moderator_roles": ("Moderator roles (besides Manage Messages)", "管理员身份组（“管理消息”权限之外）"),
    "settings.no_roles": ("none", "无"),
    "settings.channels": ("Channels for disputes", "可发起争议的频道"),
    "settings.anywhere": ("anywhere Heyan is", "Heyan 所在的任何频道"),
    "settings.retention": ("Memories kept", "记忆保留时间"),
    "settings.defaults": ("the defaults", "默认值"),
    "settings.closed": ("A closed dispute's conversation kept", "已结束争议的对话保留时间"),
    "settings.keep": ("until erased", "直到被删除"),
    "settings.days": ("{days} days", "{days} 天"),
    "settings.updated": ("Updated.", "已更新。"),
    "settings.reset": ("Back to the defaults.", "已恢复默认值。"),
    "settings.bad_days": ("“{days}” is not a number of days: give a number above 0 and up to {most}, such as 30, "
                          "or keep.", "“{days}”不是有效的天数：请填写大于 0、不超过 {most} 的数（如 30），或 keep。"),
    "page.footer": ("Page {page} of {pages} · {total} in all", "第 {page}/{pages} 页 · 共 {total} 条"),
    "page.previous": ("Previous", "上一页"),
    "page.next": ("Next", "下一页"),
    "late": ("I finished what you asked in {where}, but Discord's 15 minutes for answering it had passed, so "
             "the answer could not be shown there. Run the command again to see the result.",
             "你在 {where} 请求的操作已经完成，但超过了 Discord 允许回复的 15 分钟，结果无法在那里显示。"
             "请重新运行命令查看结果。"),
    "review.empty": ("Nothing waits for review.", "没有待审核的记忆。"),
    "review.title": ("Review queue: {start}–{end} of {total}", "待审核：第 {start}–{end} 条，共 {total} 条"),
    "review.confirm": ("Confirm {n}", "确认 {n}"),
    "review.reject": ("Reject {n}", "驳回 {n}"),
    "review.previous": ("Previous", "上一页"),
    "review.next": ("Next", "下一页"),
    "export.done": ("Everything Heyan holds about {who}: {facts} memories, {summaries} summaries.",
                    "Heyan 关于 {who} 的全部数据：{facts} 条记忆，{summaries} 份总结。"),
    "audit.none": ("No audit entries.", "没有审计记录。"),
    "audit.title": ("Audit trail (latest {count})", "审计记录（最近 {count} 条）"),
    # member self-service
    "mymemory.none": ("Heyan holds nothing about you here.", "Heyan 在这里没有关于你的记忆。"),
    "mymemory.title": ("What Heyan remembers about you ({count})", "Heyan 关于你的记忆（{count} 条）"),
    "mymemory.pick": ("Pick a memory to correct…", "选择要更正的记忆…"),
    "mymemory.erase": ("Erase everything about me", "删除关于我的全部记忆"),
    "erase.ask": ("This erases {facts} memories and {summaries} summaries about or from you here. "
                  "It cannot be undone. Are you sure?",
                  "这将删除这里关于你或来自你的 {facts} 条记忆和 {summaries} 份总结，且无法恢复。确定吗？"),
    "erase.confirm": ("Yes, erase it", "确定删除"),
    "erase.cancel": ("Cancel", "取消"),
    "erase.done": ("Erased {count} records: Heyan no longer holds anything about you here.",
                   "已删除 {count} 条记录：Heyan 在这里不再保存任何关于你的内容。"),
    "erase.cancelled": ("Nothing was erased.", "没有删除任何内容。"),
    "correct.title": ("Correct a memory", "更正记忆"),
    "correct.value": ("What it should say", "正确的内容"),
    "correct.reason": ("Why (optional)", "原因（可选）"),
    "correct.done": ("Corrected: {value}", "已更正：{value}"),
    "correct.contested": ("Noted: your version is recorded beside the other account, for a moderator to settle.",
                          "已记录：你的说法和另一方的说法并列保存，由管理员裁定。"),
    "commitments.none": ("No open commitments here.", "这里没有未完成的承诺。"),
    "commitments.title": ("Open commitments ({count})", "未完成的承诺（{count} 条）"),
    "commitments.done": ("Done {n}", "完成 {n}"),
    "commitments.marked": ("Marked done: {what}", "已标记完成：{what}"),
    "due": ("due {when}", "截止 {when}"),
}

PERMISSIONS: dict[str, tuple[str, str]] = {
    "view_channel": ("View Channels", "查看频道"),
    "send_messages": ("Send Messages", "发送消息"),
    "send_messages_in_threads": ("Send Messages in Threads", "在子区中发送消息"),
    "create_public_threads": ("Create Public Threads", "创建公开子区"),
    "create_private_threads": ("Create Private Threads", "创建私密子区"),
    "manage_threads": ("Manage Threads", "管理子区"),
    "embed_links": ("Embed Links", "嵌入链接"),
    "attach_files": ("Attach Files", "附加文件"),
    "read_message_history": ("Read Message History", "读取消息历史"),
}

_STATUS_ZH = {
    FactStatus.ACTIVE: "有效", FactStatus.SUPERSEDED: "已更新", FactStatus.DISPUTED: "有争议",
    FactStatus.UNVERIFIED: "未核实", FactStatus.DONE: "已完成", FactStatus.CANCELLED: "已取消",
    FactStatus.EXPIRED: "已过期", FactStatus.OVERDUE: "已逾期", FactStatus.REJECTED: "已驳回",
    FactStatus.FLAGGED: "已标记",
}
_KIND_ZH = {Kind.PERSON: "人物", Kind.EVENT: "事件", Kind.DEMAND: "诉求", Kind.EMOTION: "情绪",
            Kind.COMMITMENT: "承诺", Kind.CONSENSUS: "共识", Kind.RELATION: "关系"}
_STAGE_ZH = {Stage.GATHERING: "了解情况", Stage.DE_ESCALATING: "缓和情绪", Stage.EXPLORING: "探讨方案",
             Stage.CONFIRMING: "确认共识", Stage.CLOSED: "已结束"}


def t(lang: Lang, key: str, **values: object) -> str:
    """The member-facing string ``key`` in ``lang``, with ``values`` filled in."""
    en, zh = MESSAGES[key]
    return (zh if lang == "zh" else en).format(**values)


def permission_label(name: str, lang: Lang) -> str:
    """A Discord permission as the client names it (``send_messages_in_threads`` -> "Send Messages in Threads")."""
    en, zh = PERMISSIONS.get(name, (name.replace("_", " ").title(), name))
    return zh if lang == "zh" else en


def kind_label(kind: Kind | Fact | str, lang: Lang) -> str:
    """A record's kind as every surface names it (``bot.kinds``): a Fact gives agreement/refusal/claim."""
    if isinstance(kind, Fact):
        return kinds.label_in(kinds.label(kind), lang)
    if isinstance(kind, Kind):
        return _KIND_ZH[kind] if lang == "zh" else kind.value
    return kinds.label_in(kind, lang)


def status_label(status: FactStatus, lang: Lang) -> str:
    return _STATUS_ZH[status] if lang == "zh" else status.value


def stage_label(stage: str, lang: Lang) -> str:
    try:
        known = Stage(stage)
    except ValueError:
        return stage
    return _STAGE_ZH[known] if lang == "zh" else known.value
