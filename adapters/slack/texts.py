"""Every string the Slack adapter shows people, in English and Chinese.

One table, keyed by a short name, so a translation is never forgotten in a code path and a reviewer
sees both languages side by side. Values substituted into a template are untrusted (names, quotes,
memory values): callers escape them for Slack (``adapters.slack.render.escape``) before passing them
in, because the templates are sent as mrkdwn.
"""

from __future__ import annotations

from typing import Any

from memory.models import Lang

__all__ = ["kind_label", "status_label", "t"]

_T: dict[str, tuple[str, str]] = {
    # --- help ------------------------------------------------------------------------------------
    "help.head": ("*Heyan (和言)* — I help settle disagreements and remember what was said, wanted and "
                  "promised. Mention me in a thread to ask what I remember.",
                  "*和言 Heyan* —— 我帮大家化解分歧，并记住每个人说过什么、想要什么、承诺了什么。"
                  "在话题里 @我 就能问我记得什么。"),
    "help.member": ("*Everyone*\n"
                    "`/heyan dispute open [@members] <title>` open a dispute in this channel\n"
                    "`/heyan dispute status` · `/heyan dispute summary` · `/heyan dispute close [reason]`\n"
                    "`/heyan mymemory` what I remember about you (correct it there)\n"
                    "`/heyan mymemory export` everything I hold about you, as a file\n"
                    "`/heyan commitments [all]` open commitments here and yours\n"
                    "`/heyan help` this help",
                    "*所有人*\n"
                    "`/heyan dispute open [@成员] <标题>` 在本频道开启一个争议\n"
                    "`/heyan dispute status` · `/heyan dispute summary` · `/heyan dispute close [原因]`\n"
                    "`/heyan mymemory` 我记得的关于你的内容（可在其中更正）\n"
                    "`/heyan mymemory export` 导出我保存的关于你的全部内容\n"
                    "`/heyan commitments [all]` 这里和你自己的未完成承诺\n"
                    "`/heyan help` 显示本帮助"),
    "help.moderator": ("*Moderators* ({hint})\n"
                       "`/heyan memory list [@member] [kind] [status] [here]` · `/heyan memory show <id>`\n"
                       "`/heyan memory edit <id> <new value>` · `/heyan memory delete <id> [reason]`\n"
                       "`/heyan memory confirm <id> [reason]` · `/heyan memory review [page]`\n"
                       "`/heyan memory export @member` · `/heyan memory audit [@member]`",
                       "*管理员*（{hint}）\n"
                       "`/heyan memory list [@成员] [类型] [状态] [here]` · `/heyan memory show <id>`\n"
                       "`/heyan memory edit <id> <新内容>` · `/heyan memory delete <id> [原因]`\n"
                       "`/heyan memory confirm <id> [原因]` · `/heyan memory review [页码]`\n"
                       "`/heyan memory export @成员` · `/heyan memory audit [@成员]`"),
    "help.unknown": ("I don't know `/heyan {what}`. Here is what I can do:",
                     "我不认识 `/heyan {what}`。我能做的有："),
    "moderator.hint": ("a workspace admin or owner", "工作区管理员或所有者"),
    "moderator.hint.group": ("a workspace admin or owner, or a member of the user group {group}",
                             "工作区管理员或所有者，或用户组 {group} 的成员"),
    # --- disputes --------------------------------------------------------------------------------
    "dispute.opened": ("Opened the dispute “{title}” in this channel; the opening message is on its way. "
                       "I will remember what is said here, in its threads too.",
                       "已在本频道开启争议“{title}”，开场消息马上发出。这里和其中各话题里说的话我都会记下。"),
    "dispute.opened.thread": ("Opened the dispute “{title}” on this thread; the opening message is on its way "
                              "in the thread, and I will remember what is said there.",
                              "已在这个话题上开启争议“{title}”，开场消息马上发到话题里，话题里说的话我都会记下。"),
    "dispute.invite": ("I'm not in this channel, so I can't hear it. Invite @{bot} first (`/invite @{bot}`), "
                       "then open the dispute again.",
                       "我不在这个频道里，听不到这里的对话。请先邀请 @{bot}（`/invite @{bot}`），再重新开启争议。"),
    "dispute.archived": ("This channel is archived: nothing more can be said here.", "这个频道已归档，不能再在这里讨论了。"),
    "dispute.cannot_check": ("Slack did not tell me whether I'm in this channel ({error}); nothing was opened. "
                             "Try again, or invite @{bot} first.",
                             "Slack 没有告诉我我是否在这个频道里（{error}），争议没有开启。请重试，或先邀请 @{bot}。"),
    "dispute.thread_hint": ("Slack doesn't tell me which thread a slash command was typed in, so this opens the "
                            "dispute for the whole channel. To open it on one thread, use the message menu "
                            "(⋯) → *Open a dispute here* on the thread's first message.",
                            "Slack 不会告诉我斜杠命令是在哪个话题里输入的，所以这会为整个频道开启争议。"
                            "要只在一个话题上开启，请在该话题第一条消息的菜单（⋯）里选 *在这里开启争议*。"),
    "shortcut.no_title": ("(no title)", "（无标题）"),
    "dispute.none": ("No dispute has been opened here.", "这里还没有开启过争议。"),
    "dispute.status": ("*{title}* — {state}, opened by {opener} on {when}\nStage: {stage} · {turns} messages",
                       "*{title}* —— {state}，由 {opener} 于 {when} 开启\n阶段：{stage} · {turns} 条消息"),
    "dispute.state.open": ("open", "进行中"),
    "dispute.state.closed": ("closed", "已结束"),
    "dispute.state.none": ("not a dispute", "不是争议"),
    "dispute.commitments": ("*Open commitments*", "*未完成的承诺*"),
    "dispute.summary": ("*Summary*\n{text}", "*摘要*\n{text}"),
    "dispute.no_summary": ("There is nothing to summarise here yet.", "这里还没有可以总结的内容。"),
    "dispute.closed": ("Closed the dispute “{title}”. {cancelled} pending follow-ups were withdrawn.",
                       "已结束争议“{title}”，撤回了 {cancelled} 条待发的跟进。"),
    "dispute.closed_post": ("The dispute “{title}” was closed by {who}. Thank you all for talking it through.",
                            "争议“{title}”已由 {who} 结束。谢谢大家把话说开。"),
    # --- memories --------------------------------------------------------------------------------
    "memory.count": ("*{n} memories*", "*共 {n} 条记忆*"),
    "memory.count.one": ("*1 memory*", "*共 1 条记忆*"),
    "memory.more": ("…and {n} more. Narrow the list: `/heyan memory list [@member] [kind] [status] [here]`.",
                    "……还有 {n} 条。可以缩小范围：`/heyan memory list [@成员] [类型] [状态] [here]`。"),
    "memory.none": ("No memories match.", "没有符合条件的记忆。"),
    "memory.deleted": ("Deleted the memory `{id}` ({what}).", "已删除记忆 `{id}`（{what}）。"),
    "memory.confirmed": ("Confirmed the memory `{id}`: it is now {status}.", "已确认记忆 `{id}`：现在状态为 {status}。"),
    "memory.edited": ("Updated the memory `{id}` (version {version}).", "已更新记忆 `{id}`（第 {version} 版）。"),
    "memory.corrected": ("Thanks — the memory `{id}` now says what you wrote.", "谢谢——记忆 `{id}` 已按你写的更正。"),
    "memory.contested": ("Thanks — someone else said this about you, so I marked `{id}` as disputed with your "
                         "version beside it; a moderator will settle it.",
                         "谢谢——这是别人对你的说法，所以我把 `{id}` 标为有争议，并附上了你的版本，"
                         "管理员会来处理。"),
    "memory.usage.id": ("Give a memory id: `/heyan memory {sub} <id>`.", "请给出记忆 id：`/heyan memory {sub} <id>`。"),
    "memory.usage.edit": ("Usage: `/heyan memory edit <id> <new value>`.", "用法：`/heyan memory edit <id> <新内容>`。"),
    "memory.export_sent": ("I sent the export ({n} memories) to you in a direct message.",
                           "我已通过私信把导出文件（{n} 条记忆）发给你。"),
    "memory.export_sent.one": ("I sent the export (1 memory) to you in a direct message.",
                               "我已通过私信把导出文件（1 条记忆）发给你。"),
    "memory.export_comment": ("Everything Heyan holds about {who}, as JSON.", "和言保存的关于 {who} 的全部内容（JSON）。"),
    "memory.export_failed": ("I could not send you the file ({error}).", "文件没能发给你（{error}）。"),
    "audit.head": ("*Audit trail* (newest first)", "*审计记录*（最新在前）"),
    "audit.none": ("The audit trail is empty.", "审计记录为空。"),
    "review.head": ("*Review queue* — {total} to look at · page {page} of {pages}",
                    "*待审核* —— 共 {total} 条 · 第 {page}/{pages} 页"),
    "review.empty": ("Nothing waits for review.", "没有待审核的记忆。"),
    "review.prev": ("‹ Previous", "‹ 上一页"),
    "review.next": ("Next ›", "下一页 ›"),
    "mymemory.head": ("*What I remember about you* ({n})", "*我记得的关于你的内容*（{n} 条）"),
    "mymemory.none": ("I don't remember anything about you.", "我没有记下任何关于你的内容。"),
    # --- commitments -----------------------------------------------------------------------------
    "commitments.head": ("*Commitments* ({n})", "*承诺*（{n} 条）"),
    "commitments.none": ("No open commitments.", "没有未完成的承诺。"),
    "commitments.done": ("Marked `{id}` done; no follow-up will be sent.", "已将 `{id}` 标为完成，不会再发送跟进。"),
    "commitment.due": ("due {when}", "截止 {when}"),
    "commitment.no_due": ("no due time", "未约定时间"),
    # --- cards and buttons -----------------------------------------------------------------------
    "card.said": ("said by {who} on {when}: “{quote}”", "{who} 于 {when} 说：“{quote}”"),
    "card.contested": ("other versions: {values}", "其他说法：{values}"),
    "button.confirm": ("Confirm", "确认"),
    "button.correct": ("Correct", "更正"),
    "button.delete": ("Delete", "删除"),
    "button.done": ("Mark done", "标记完成"),
    "delete.title": ("Delete this memory?", "删除这条记忆？"),
    "delete.text": ("It is erased everywhere it is stored. The audit trail keeps only that it existed.",
                    "它会从所有存储中删除，审计记录只保留它曾存在。"),
    "delete.yes": ("Delete", "删除"),
    "delete.no": ("Keep it", "保留"),
    "modal.title": ("Correct a memory", "更正记忆"),
    "modal.submit": ("Save", "保存"),
    "modal.close": ("Cancel", "取消"),
    "modal.current": ("It says now: “{value}”", "目前记为：“{value}”"),
    "modal.value": ("What it should say", "应该记为"),
    "modal.reason": ("Why (optional, kept in the audit trail)", "原因（可选，记入审计）"),
    "modal.empty": ("Write what the memory should say.", "请写出这条记忆应有的内容。"),
    "modal.loading": ("Looking the memory up…", "正在查找这条记忆……"),
    "page.of": ("Page {page} of {pages} · {total} in all", "第 {page}/{pages} 页 · 共 {total} 条"),
    # --- Slack's refusals ------------------------------------------------------------------------
    "history.scope": ("(I could not read this conversation: Heyan lacks the Slack scope `{scope}`. I told whoever "
                      "installed it; this answer is from what I remember.)",
                      "（我读不到这段对话：和言缺少 Slack 权限 `{scope}`，已告知安装者；以上回答只依据我记得的内容。）"),
    "scope.installer": ("Heyan lacks the Slack scope `{scope}`, which it needs for {why}. Add it under OAuth & "
                        "Permissions and reinstall the app (or install it again from your deployment's "
                        "/slack/install page). I will not repeat this for a week.",
                        "和言缺少 Slack 权限 `{scope}`（用于：{why}）。请在 OAuth & Permissions 中添加并重新安装应用"
                        "（或从部署的 /slack/install 页面重新安装）。一周内不再重复提醒。"),
    # --- App Home --------------------------------------------------------------------------------
    "home.title": ("Heyan (和言)", "和言 Heyan"),
    "home.intro": ("What I remember about you in this workspace. Only you see this page. Correct anything "
                   "that is wrong; `/heyan mymemory export` sends you all of it as a file.",
                   "这是我在这个工作区记得的关于你的内容，只有你能看到这个页面。如有不对请更正；"
                   "`/heyan mymemory export` 可以把全部内容以文件发给你。"),
    "home.memories": ("What I remember about you", "我记得的关于你的内容"),
    "home.commitments": ("Your commitments", "你的承诺"),
    "home.more": ("…and {n} more (`/heyan mymemory`).", "……还有 {n} 条（`/heyan mymemory`）。"),
    # --- failures --------------------------------------------------------------------------------
    "slack.failed": ("Slack did not accept that ({error}); please try again.", "Slack 没有接受这个操作（{error}），请重试。"),
    "failed": ("Something went wrong on my side; it has been logged. Please try again later.",
               "我这边出了点问题，已记录下来。请稍后再试。"),
}


def t(key: str, lang: Lang, **values: Any) -> str:
    """The string ``key`` in ``lang`` with ``values`` filled in (``key.one`` when ``n`` is 1 and exists)."""
    if values.get("n") == 1 and f"{key}.one" in _T:
        key = f"{key}.one"
    en, zh = _T[key]
    template = zh if lang == "zh" else en
    return template.format(**values) if values else template


_KIND_ZH = {"person": "人物", "event": "事件", "demand": "诉求", "emotion": "情绪", "commitment": "承诺",
            "consensus": "共识", "agreement": "同意", "refusal": "拒绝", "claim": "说法", "relation": "关系"}
_STATUS_ZH = {"active": "有效", "superseded": "已取代", "disputed": "有争议", "unverified": "未核实",
              "done": "已完成", "cancelled": "已取消", "expired": "已过期", "overdue": "已逾期", "rejected": "已驳回",
              "flagged": "已标记"}


def kind_label(kind: str, lang: Lang) -> str:
    """A fact kind as shown to people: a label of ``bot.kinds`` ("agreement") or a store kind."""
    return _KIND_ZH.get(kind, kind) if lang == "zh" else kind


def status_label(status: str, lang: Lang) -> str:
    """A fact status (``disputed``) as shown to people."""
    return _STATUS_ZH.get(status, status) if lang == "zh" else status
