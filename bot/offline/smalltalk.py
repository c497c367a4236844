"""Small talk and questions Heyan is not for: a short, friendly answer that says what it can do.

``small_talk`` recognises a greeting alone, a question about Heyan, or a topic it does not keep
(weather, jokes, news) — a mediation line there reads as not listening — and answers in the asker's
language with a greeting or "I can't help with that", then what Heyan does and how to ask.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from memory.models import Lang

__all__ = ["small_talk"]

_I = re.IGNORECASE
_ADDRESS = re.compile(r"^\s*(?:@\S+|heyan\b|和言)[\s,，:：!！]*", _I)
_GREETING = re.compile(
    r"^(?:hi|hello|hey|hiya|yo|howdy|good\s+(?:morning|afternoon|evening)|what'?s\s+up|sup|你好|您好|嗨|哈喽|hello呀"
    r"|早上好|早安|上午好|下午好|晚上好|在吗|在不在|大家好)(?:\s+(?:there|heyan|和言|everyone|all))?[\s!！.。~～?？]*$",
    _I,
)
_ABOUT_HEYAN = re.compile(
    r"^(?:who\s+are\s+you|what\s+are\s+you|what\s+(?:can|do)\s+you\s+do|how\s+do\s+(?:you|i\s+use\s+you)\s+work"
    r"|what\s+is\s+heyan|help|how\s+does\s+this\s+work|你是谁|你是什么|你能做什么|你会什么|你可以做什么|怎么用你?|帮助|你有什么用)"
    r"[\s!！.。?？]*$",
    _I,
)
_OUT_OF_SCOPE = re.compile(
    r"\b(?:weather|forecast|temperature|rain(?:ing)?|joke|funny|news|stock|bitcoin|crypto|score|football|soccer"
    r"|recipe|cook(?:ing)?|movie|song|music\s+recommend|poem|translate|what\s+time\s+is\s+it|what'?s\s+the\s+time"
    r"|what\s+day\s+is\s+it|meaning\s+of\s+life|sing)\b"
    r"|天气|气温|下雨|笑话|段子|新闻|股票|比特币|比分|足球|菜谱|做饭|电影|唱歌|唱首|写首诗|翻译|几点了|现在几点|今天几号|星期几|人生的意义",
    _I,
)
_DISPUTE_WORDS = re.compile(r"\b(?:promis|agree|commit|owe|deadline|due)\w*|答应|承诺|同意|欠|期限|截止", _I)

_CAN_DO: dict[Lang, str] = {
    "en": ("I'm Heyan: I keep track of who promised what by when and what you agreed, and I follow up when "
           "something is due. Ask me “what did {other} promise?” or “what did we agree?”, or type "
           "/commitments (Slack: /heyan commitments)."),
    "zh": ("我是和言：我会记下谁答应了什么、什么时候完成、大家同意了什么，到期时提醒。可以问我“{other}答应了什么？”"
           "或“我们达成了什么共识？”，也可以输入 /commitments（Slack 上是 /heyan commitments）。"),
}
_HELLO: dict[Lang, str] = {"en": "Hi {name}! ", "zh": "你好，{name}！"}
_NOT_MINE: dict[Lang, str] = {"en": "I can't help with that, {name}. ", "zh": "这个我帮不上忙，{name}。"}


def small_talk(text: str, name: str, participants: Mapping[str, str], asker: str, lang: Lang) -> str | None:
    """The reply to a greeting, a question about Heyan, or an out-of-scope question; None for
    anything else (a question about the record, a mediation turn)."""
    body = text
    while (m := _ADDRESS.match(body)) and m.group():
        body = body[m.end() :]
    body = body.strip()
    other = next((n for uid, n in participants.items() if uid != asker and n), "Sam" if lang == "en" else "张伟")
    can_do = _CAN_DO[lang].format(other=other)
    if not body or _GREETING.match(body) or _ABOUT_HEYAN.match(body):
        return _HELLO[lang].format(name=name) + can_do
    if _OUT_OF_SCOPE.search(body) and not _DISPUTE_WORDS.search(body):
        return _NOT_MINE[lang].format(name=name) + can_do
    return None
