"""The console's own words in English and Chinese, and choosing between them for a request: the
``?lang=`` switch (remembered in a cookie), else the browser's ``Accept-Language``, else English.
Refusals from the moderation service carry their own two languages (``error.text(lang)``)."""

from __future__ import annotations

from collections.abc import Mapping

from bot import kinds
from memory.models import Fact, Lang

__all__ = ["LANG_COOKIE", "fact_kind", "kind_label", "pick_lang", "stage_label", "status_label", "t"]

LANG_COOKIE = "heyan_lang"

_TEXTS: dict[str, tuple[str, str]] = {
    "app.title": ("Heyan console", "和言控制台"),
    "nav.communities": ("Communities", "社区"),
    "nav.memories": ("Memories", "记忆"),
    "nav.review": ("Review", "审核"),
    "nav.commitments": ("Commitments", "承诺"),
    "nav.disputes": ("Disputes", "争议"),
    "nav.audit": ("Audit log", "审计记录"),
    "nav.settings": ("Settings", "设置"),
    "nav.members": ("Members", "成员"),
    "nav.skip": ("Skip to content", "跳到正文"),
    "nav.signout": ("Sign out", "退出登录"),
    "nav.signed_in": ("Signed in as {name}", "已登录：{name}"),
    "lang.switch": ("中文", "English"),
    "login.title": ("Sign in", "登录"),
    "login.intro": ("Sign in with the platform you moderate.", "请用你管理的平台账号登录。"),
    "login.discord": ("Sign in with Discord", "用 Discord 登录"),
    "login.slack": ("Sign in with Slack", "用 Slack 登录"),
    "login.none": ("No sign-in is configured here: set HEYAN_WEB_DISCORD_CLIENT_ID / _SECRET or "
                   "HEYAN_WEB_SLACK_CLIENT_ID / _SECRET and HEYAN_WEB_BASE_URL, or use an API token.",
                   "这里没有配置登录方式：请设置 HEYAN_WEB_DISCORD_CLIENT_ID / _SECRET 或 "
                   "HEYAN_WEB_SLACK_CLIENT_ID / _SECRET 以及 HEYAN_WEB_BASE_URL，或使用 API 令牌。"),
    "communities.title": ("Communities you moderate", "你管理的社区"),
    "communities.none": ("No community you moderate has anything in Heyan's memory yet.",
                         "你管理的社区在和言里还没有任何记忆。"),
    "memories.title": ("Memories", "记忆"),
    "memories.count": ("{n} memories", "{n} 条记忆"),
    "memories.none": ("No memories match.", "没有符合条件的记忆。"),
    "filter.q": ("Search", "搜索"),
    "filter.kind": ("Kind", "类型"),
    "filter.status": ("Status", "状态"),
    "filter.user": ("Member (name or id)", "成员（名字或 id）"),
    "filter.session": ("Thread id", "话题 id"),
    "filter.any": ("any", "全部"),
    "filter.apply": ("Filter", "筛选"),
    "col.kind": ("Kind", "类型"),
    "col.name": ("Name", "名字"),
    "col.also": ("Also went by", "曾用名"),
    "col.records": ("Records", "记录"),
    "col.open": ("Open promises", "未完成的承诺"),
    "col.last_seen": ("Last heard", "最近发言"),
    "col.promise": ("Promise", "承诺"),
    "col.who": ("About", "关于"),
    "col.what": ("What", "内容"),
    "col.status": ("Status", "状态"),
    "col.updated": ("Updated", "更新于"),
    "col.due": ("Due", "截止"),
    "col.when": ("When", "时间"),
    "col.actor": ("Who", "操作人"),
    "col.action": ("Action", "操作"),
    "col.target": ("Target", "对象"),
    "col.reason": ("Reason", "原因"),
    "fact.sources": ("Sources", "来源"),
    "fact.open_message": ("open the message", "打开原消息"),
    "fact.versions": ("Versions", "版本"),
    "fact.contested": ("Other accounts", "其他说法"),
    "fact.audit": ("Changes", "修改记录"),
    "fact.no_versions": ("No earlier versions.", "没有更早的版本。"),
    "fact.said_by": ("said by {name}", "{name} 说"),
    "fact.version": ("version {n}", "第 {n} 版"),
    "action.confirm": ("Confirm", "确认"),
    "action.reject": ("Reject", "驳回"),
    "action.correct": ("Correct", "更正"),
    "action.delete": ("Delete", "删除"),
    "action.done": ("Mark done", "标记完成"),
    "action.snooze": ("Snooze", "推迟"),
    "action.reason": ("Reason (kept in the audit log)", "原因（记入审计记录）"),
    "action.value": ("What it should say", "应有的内容"),
    "action.save": ("Save", "保存"),
    "action.export": ("Export (JSON)", "导出（JSON）"),
    "action.erase": ("Erase this member's data…", "删除这位成员的数据…"),
    "action.erase_confirm": ("Erase everything now", "立即全部删除"),
    "action.cancel": ("Cancel", "取消"),
    "snooze.days": ("{n} days", "{n} 天"),
    "snooze.day": ("1 day", "1 天"),
    "help.confirm": ("Confirm: it is right — it becomes active and Heyan recalls it; other accounts are set aside.",
                     "确认：内容无误——它生效并会被和言引用；其他说法被搁置。"),
    "help.confirm_flagged": ("Confirm: it was an ordinary message — Heyan reads it again and remembers what it says; "
                             "the flag is retired.", "确认：这是一条普通消息——和言会重新读取并记住其中的内容；标记随之撤销。"),
    "help.reject": ("Reject: it is wrong — kept for the record, never recalled again.",
                    "驳回：内容有误——保留作记录，但不再被引用。"),
    "help.correct": ("Correct: write what it should say; the old words stay in its versions.",
                     "更正：写出应有的内容；原来的内容保留在版本记录里。"),
    "help.delete": ("Delete: erase it everywhere it is stored; the audit log keeps that it existed, not its words.",
                    "删除：在所有存储位置抹去它；审计记录只保留它存在过，不保留内容。"),
    "help.done": ("Mark done: the promise was kept; no follow-up will be sent.", "标记完成：承诺已兑现；不会再发送跟进提醒。"),
    "help.snooze": ("Snooze: move the due time later; the follow-up moves with it.", "推迟：把截止时间往后移；跟进提醒随之移动。"),
    "help.export": ("Export: everything Heyan holds about or from this member, as a JSON file (recorded in the audit log).",
                    "导出：和言所保存的关于或来自这位成员的全部内容，JSON 文件（记入审计记录）。"),
    "help.erase": ("Erase: asks first, then removes their records and their words everywhere in this community.",
                   "删除：先确认，再在本社区的所有位置移除其记录和言论。"),
    "why.title": ("Why it is here", "为什么在这里"),
    "why.flagged": ("Flagged: {rule}.", "已标记：{rule}。"),
    "why.rule_words": ("The rule's words: “{detail}”. Heyan does not recall or repeat a flagged message.",
                       "规则原文：“{detail}”。和言不会引用或复述被标记的消息。"),
    "why.rule.instruction": ("the message gives Heyan an instruction (what to remember or how to behave) instead of "
                             "talking to the others", "这条消息是在给和言下指令（要记住什么或该怎么做），而不是在和其他人交流"),
    "why.rule.impersonation": ("the message is written as if another member had said it",
                               "这条消息以另一位成员的口吻写成"),
    "why.rule.fake marker": ("the message poses as the system, a moderator or an admin and rules on people",
                             "这条消息冒充系统、管理员，并对他人作出裁定"),
    "why.rule.encoded instruction": ("the message hides an instruction in encoded text", "这条消息把指令藏在编码文本里"),
    "why.rule.other": ("a rule against writing memory instead of talking fired", "触发了“借消息写入记忆”的规则"),
    "why.disputed": ("Disputed: two accounts of this contradict each other; the other one is listed below. Confirm "
                     "keeps this one, Reject drops it.", "有争议：关于此事有两种相互矛盾的说法，另一种列在下方。确认则保留这一条，驳回则弃用。"),
    "why.unverified": ("Unverified: one member's account of another member, which nobody has confirmed.",
                       "未核实：这是一位成员对另一位成员的说法，尚无人确认。"),
    "why.low": ("Low confidence: Heyan was not sure it read this right.", "低置信度：和言不确定是否理解正确。"),
    "memory.member_note": ("Only moderators confirm, reject or delete a memory. If this one is wrong, tell a moderator, "
                           "or correct what you said yourself in the chat.",
                           "只有管理员可以确认、驳回或删除记忆。如有错误，请告诉管理员，或在聊天中更正你自己说过的话。"),
    "commitment.if": ("if {condition}", "条件：{condition}"),
    "commitment.due": ("due {due}", "{due}到期"),
    "commitment.no_due": ("no due time", "没有截止时间"),
    "members.title": ("Members", "成员"),
    "members.intro": ("Everyone Heyan holds records about or from in this community, by the name they used last. "
                      "Open a member to see their records, export them or erase them.",
                      "和言在本社区保存了记录的每一位成员（按最近使用的名字）。打开成员页面可查看、导出或删除其记录。"),
    "members.search": ("Name or id", "名字或 id"),
    "members.count": ("{n} members", "{n} 位成员"),
    "members.none": ("Nobody matches.", "没有匹配的成员。"),
    "review.title": ("Review queue", "审核队列"),
    "review.none": ("Nothing waits for review.", "没有待审核的记忆。"),
    "review.count": ("{n} waiting", "{n} 条待审核"),
    "commitments.title": ("Commitments", "承诺"),
    "commitments.open": ("Open", "进行中"),
    "commitments.overdue": ("Overdue", "已逾期"),
    "commitments.done": ("Kept", "已完成"),
    "commitments.chart": ("Kept and overdue commitments by week due", "按截止周统计的已完成与逾期承诺"),
    "commitments.none": ("None.", "无。"),
    "disputes.title": ("Disputes", "争议"),
    "disputes.intro": ("Each thread's temperature is the early-escalation signal (pace, repetition, accusations, "
                       "absolutes, insults, emotion); an alert goes to the moderators when it reaches {threshold}.",
                       "每个话题的温度来自早期升级信号（节奏、重复、指责、绝对化、辱骂、情绪）；达到 {threshold} 时会提醒管理员。"),
    "disputes.open": ("Open disputes", "进行中的争议"),
    "disputes.hot": ("Threads that ran hot (not opened as a dispute)", "升温过的话题（未发起争议）"),
    "disputes.closed": ("Closed in the last {days} days", "最近 {days} 天内结束的争议"),
    "disputes.none": ("None.", "无。"),
    "disputes.latest": ("Latest activity", "最近动态"),
    "disputes.temperature": ("now {now} · peak {peak}", "当前 {now} · 最高 {peak}"),
    "disputes.spark": ("Temperature of {title}: {n} messages, now {now}, peak {peak}, alert at {threshold}",
                       "{title} 的温度：{n} 条消息，当前 {now}，最高 {peak}，提醒阈值 {threshold}"),
    "disputes.points": ("{n} messages measured, {hot} at or above the threshold", "已测量 {n} 条消息，{hot} 条达到阈值"),
    "dispute.chart": ("Temperature of {title} over time", "{title} 的温度变化"),
    "dispute.desc": ("{n} messages from {first} to {last}; alert threshold {threshold}; {above} at or above it: "
                     "{who}. Now {now}, peak {peak}.",
                     "从 {first} 到 {last} 共 {n} 条消息；提醒阈值 {threshold}；{above} 条达到或超过阈值：{who}。"
                     "当前 {now}，最高 {peak}。"),
    "dispute.threshold": ("alert threshold", "提醒阈值"),
    "dispute.summary": ("Now {now} · peak {peak} · alert threshold {threshold}",
                        "当前 {now} · 最高 {peak} · 提醒阈值 {threshold}"),
    "dispute.no_points": ("No message of this thread was measured yet (or its timeline expired).",
                          "这个话题还没有测量过消息（或时间线已过期）。"),
    "dispute.timeline": ("Messages, newest first", "消息（最新在前）"),
    "dispute.state.open": ("open", "进行中"),
    "dispute.state.closed": ("closed", "已结束"),
    "dispute.state.none": ("not opened as a dispute", "未发起争议"),
    "dispute.private": ("private thread", "私密话题"),
    "dispute.opened": ("Opened", "发起"),
    "dispute.closed_at": ("Closed", "结束"),
    "dispute.members": ("Members", "成员"),
    "dispute.stage": ("Stage", "阶段"),
    "dispute.commitments": ("Open commitments", "未完成的承诺"),
    "dispute.card": ("Agreement card", "协议卡"),
    "dispute.card.none": ("No card proposed yet.", "还没有提出协议卡。"),
    "dispute.card.proposed": ("proposed, waiting for confirmations", "已提出，等待确认"),
    "dispute.card.confirmed": ("confirmed by everyone", "各方均已确认"),
    "dispute.card.refused": ("refused", "被拒绝"),
    "dispute.card.confirmed_by": ("Confirmed by", "已确认"),
    "dispute.card.pending": ("Waiting for", "等待确认"),
    "dispute.card.refused_by": ("Refused by", "拒绝"),
    "col.author": ("Who", "发言人"),
    "col.temperature": ("Temperature", "温度"),
    "col.signals": ("Signals", "信号"),
    "col.message": ("Message", "消息"),
    "col.thread": ("Thread", "话题"),
    "member.title": ("Member {name}", "成员 {name}"),
    "member.records": ("{facts} memories, {summaries} summaries", "{facts} 条记忆，{summaries} 份摘要"),
    "member.lookup": ("Open a member's page", "打开成员页面"),
    "member.open": ("Open", "打开"),
    "erase.title": ("Erase {name}'s data?", "删除 {name} 的数据？"),
    "erase.what": ("This erases {facts} memories and {summaries} summaries about or from {name}, everywhere "
                   "they are stored. It cannot be undone. The confirmation is valid for 10 minutes.",
                   "这会在所有存储位置删除关于 {name} 或来自 {name} 的 {facts} 条记忆和 {summaries} 份摘要，"
                   "且无法撤销。确认在 10 分钟内有效。"),
    "erase.done": ("Erased {n} records of {name}.", "已删除 {name} 的 {n} 条记录。"),
    "settings.forget_after": ("Days after a dispute closes before its little-used records are forgotten (empty: never)",
                              "争议结束后多少天遗忘其少用的记录（留空：永不）"),
    "settings.forget_below": ("Weight (0–1) under which such a record is forgotten", "低于此权重（0–1）的记录会被遗忘"),
    "settings.digest_channel": ("Moderators' channel for the digest and alerts (a channel id; empty: none)",
                                "管理员摘要和预警发送的频道（频道 id；留空：不发送）"),
    "settings.digest_schedule": ("How often the digest is posted", "摘要发送频率"),
    "settings.schedule.off": ("off", "不发送"),
    "settings.schedule.daily": ("daily", "每天"),
    "settings.schedule.weekly": ("weekly (Mondays)", "每周（周一）"),
    "audit.title": ("Audit log", "审计记录"),
    "audit.none": ("No changes recorded yet.", "还没有修改记录。"),
    "settings.title": ("Settings", "设置"),
    "settings.timezone": ("Timezone (IANA, e.g. Asia/Shanghai)", "时区（IANA 名称，如 Asia/Shanghai）"),
    "settings.language": ("Language Heyan answers in", "和言回复的语言"),
    "settings.purge": ("Days after a dispute closes before it is purged", "争议结束后多少天清除"),
    "settings.retention": ("Days each kind is kept (empty: the default; keep: until erased)",
                           "每类记忆保留天数（留空：默认；keep：一直保留到删除）"),
    "settings.moderator_roles": ("Moderator roles (Discord role ids / Slack user-group ids, comma-separated)",
                                 "管理员身份组（Discord 身份组 id / Slack 用户组 id，以逗号分隔）"),
    "settings.dispute_openers": ("Who may open a dispute", "谁可以发起争议"),
    "settings.openers.members": ("members", "所有成员"),
    "settings.openers.moderators": ("moderators only", "仅管理员"),
    "settings.dispute_channels": ("Channels where disputes may be opened (ids, comma-separated; empty: anywhere)",
                                  "可以发起争议的频道（id，以逗号分隔；留空：任意频道）"),
    "settings.saved": ("Settings saved.", "设置已保存。"),
    "error.title": ("Something is not right", "出了点问题"),
    "error.back": ("Back to the communities", "返回社区列表"),
    "error.not_found": ("there is nothing at this address; check the link, or start again from the communities",
                        "这个地址下没有内容；请检查链接，或从社区列表重新开始"),
    "error.internal": ("Heyan could not answer this request (its log says why); try again, and tell the operator "
                       "if it keeps happening", "和言无法处理这个请求（原因见日志）；请重试，如果一直出现请告诉运维人员"),
    "dispute.axis_y": ("temperature (escalation score)", "温度（升级分数）"),
    "dispute.axis_x": ("messages in order; times in {zone}", "按顺序的消息；时间为 {zone}"),
    "commitments.axis_y": ("commitments", "承诺数"),
    "commitments.axis_x": ("week due (from Monday)", "截止周（周一起）"),
    "auth.signin": ("sign in first (GET /login), or send an API token as Authorization: Bearer heyan_…",
                    "请先登录（GET /login），或以 Authorization: Bearer heyan_… 发送 API 令牌"),
    "auth.expired": ("your session has expired or was signed out; sign in again",
                     "你的登录已过期或已退出；请重新登录"),
    "auth.token": ("the API token is unknown or revoked; create one with `heyan web token create --tenant T`",
                   "API 令牌无效或已吊销；请用 `heyan web token create --tenant T` 创建"),
    "auth.csrf": ("the form's security token is missing or does not match (a forged or stale request); "
                  "reload the page and try again", "表单的安全令牌缺失或不匹配（伪造或过期的请求）；请刷新页面后重试"),
    "auth.cross_site": ("refused: a request from another site may not change anything here",
                        "已拒绝：来自其他网站的请求不能修改这里的内容"),
    "auth.read_only": ("this API token is read-only; create a token without --read-only to change things",
                       "这个 API 令牌只读；要修改内容请创建不带 --read-only 的令牌"),
    "auth.state": ("the sign-in was started elsewhere or took too long; sign in again",
                   "登录请求来自别处或已超时；请重新登录"),
    "auth.denied": ("the sign-in was cancelled at the platform", "登录已在平台上被取消"),
    "auth.unavailable": ("cannot ask {platform} who moderates what right now ({detail}); try again in a moment",
                         "暂时无法向 {platform} 确认管理权限（{detail}）；请稍后再试"),
    "auth.not_configured": ("sign-in with {platform} is not configured here", "这里没有配置 {platform} 登录"),
}

_KIND_ZH = {"person": "人物", "event": "事件", "demand": "诉求", "emotion": "情绪", "commitment": "承诺",
            "consensus": "共识", "relation": "关系"}
_STAGE_ZH = {"gathering": "收集情况", "de-escalating": "降温", "exploring options": "探讨方案",
             "confirming agreement": "确认协议", "closed": "已结束"}
_STATUS_ZH = {"open": "进行中", "active": "有效", "superseded": "已取代", "disputed": "有争议", "unverified": "未核实", "done": "已完成",
              "cancelled": "已取消", "expired": "已过期", "overdue": "已逾期", "rejected": "已驳回", "flagged": "已标记"}


def t(lang: Lang, key: str, **values: object) -> str:
    """The text ``key`` in ``lang`` with ``values`` filled in (the key itself when unknown)."""
    en, zh = _TEXTS.get(key, (key, key))
    return (zh if lang == "zh" else en).format(**values)


def kind_label(kind: str, lang: Lang) -> str:
    """A kind by its name (a store kind, or a label of ``bot.kinds``) in ``lang``."""
    return kinds.label_in(kind, lang) if kind in kinds.LABELS else (_KIND_ZH.get(kind, kind) if lang == "zh" else kind)


def fact_kind(fact: Fact, lang: Lang) -> str:
    """A record's kind as every surface names it (``bot.kinds``: "claim", "agreement", …)."""
    return kinds.label_in(kinds.label(fact), lang)


def status_label(status: str, lang: Lang) -> str:
    return _STATUS_ZH.get(status, status) if lang == "zh" else status


def stage_label(stage: str, lang: Lang) -> str:
    return _STAGE_ZH.get(stage, stage) if lang == "zh" else stage


def pick_lang(query: str | None, cookie: str | None, accept: str | None) -> Lang:
    """The switch, else the cookie, else the browser's first Chinese or English preference by weight."""
    for value in (query, cookie):
        if value in ("zh", "en"):
            return "zh" if value == "zh" else "en"
    ranked: list[tuple[float, int, Lang]] = []
    for i, part in enumerate((accept or "")[:500].split(",")):
        tag, _, params = part.strip().partition(";")
        weight = 1.0
        params_map: Mapping[str, str] = dict(p.strip().partition("=")[::2] for p in params.split(";") if "=" in p)
        try:
            weight = float(params_map.get("q", "1"))
        except ValueError:
            weight = 0.0
        low = tag.strip().lower()
        if low.startswith("zh"):
            ranked.append((weight, -i, "zh"))
        elif low.startswith("en"):
            ranked.append((weight, -i, "en"))
    return max(ranked)[2] if ranked else "en"
