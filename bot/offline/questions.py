"""Reading a question about the record: what it asks, whom it names, which words are its topic.

``read_question`` decides whether a turn asks about the record and, if so, its intent (fixed order:
the first match wins), the people it names (by any name; two members fitting one name:
``Question.unclear``), whether the asker is the one promised to ("… promise me?"), and its topic words
(English stems, Chinese character pairs; ``GLOSSARY`` bridges the two languages).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from bot.answering.question import Ask, Question
from bot.offline import lexicon as lx
from bot.text.names import NameBook
from bot.text.zones import named_zone
from memory.normalize import normalize

__all__ = ["CJK_RUN", "EN_WORD", "GLOSSARY", "PROMISE_WORD", "Ask", "Question", "read_question", "stem"]


def _re(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


#: Checked in this order: the first that matches is the question's intent.
_INTENTS: tuple[tuple[Ask, re.Pattern[str]], ...] = (
    # ("who else said yes to …?", "还有谁同意？" ask who agreed, not who had the same problem)
    (Ask.SIMILAR, _re(r"\b(?:who|anyone|anybody|someone|somebody)\s+else\b(?!\s+(?:has\s+|have\s+)?(?:said\s+yes|agreed|voted|signed"
                      r"|backed|accepted|is\s+in\b|was\s+in\b|supports?|supported|approved|is\s+on\s+board|went\s+along))|\b(?:similar|same)\s+(?:problem|issue|trouble)s?\b"
                      r"|还有谁(?!.{0,4}(?:同意|赞成|答应|点头|举手|投))|还有别人|其他人.{0,4}(?:也|遇到)|别人.{0,4}(?:也|遇到)|类似的?问题|同样的问题")),
    (Ask.ABOUT, _re(r"\bwhat\s+do\s+(?:we|you)\s+know\s+about\b|\btell\s+(?:me|us)\s+(?:about|what\s+you\s+know\s+about)\b"
                    r"|关于.{1,24}?(?:我们|你)?(?:知道|了解|掌握)(?:些)?什么|关于.{1,24}?有(?:什么|哪些)(?:记录|信息|情况)")),
    (Ask.SAID, _re(r"\b(?:say|said|mention(?:ed)?|tell|told)\b.{0,40}\b(?:about|on|regarding)\b|\bwhat\s+(?:did|has|have)"
                   r"\s+\w+(?:\s\w+)?\s+(?:said|say)\b|说了什么|说过什么|怎么说|提到了?什么|讲了什么|关于.{1,12}说")),
    (Ask.OVERDUE, _re(r"\boverdue\b|\blate\b|\bmissed\b|\bpast\s+due\b|逾期|过期|超时|拖了|迟了|晚了|没按时")),
    (Ask.OPEN, _re(r"\bstill\s+open\b|\boutstanding\b|\bpending\b|\bnot\s+(?:yet\s+)?done\b|\bleft\s+to\s+do\b|\bunfinished\b"
                   r"|\b(?:has|have|is|are)(?:n't|\s+not)\s+(?:yet\s+)?(?:been\s+)?(?:finished|done|delivered|completed|kept|honou?red"
                   r"|fulfill?ed|happened)\b|\bnot\s+(?:yet\s+)?(?:been\s+)?(?:finished|completed|delivered|kept|honou?red|fulfill?ed)\b"
                   r"|\bnever\s+(?:got\s+|been\s+|was\s+|were\s+)?(?:kept|honou?red|fulfill?ed|delivered|finished)\b|\bwho\s+still\b|\bstill\s+(?:owes?|to\s+do)\b"
                   r"|\bopen\s+(?:items|promises|commitments)\b|\bremaining\b|\bto-?dos?\b|\bhow\s+(?:is|are|'s)\s+\w+\s+going\b"
                   r"|\bany\s+(?:news|update|progress)\b|\bprogress\b|没完成|未完成|还没|待办|还剩|剩下|进展|怎么样了|进度|情况如何"
                   r"|没(?:做|办|交|发|弄)完|还欠|没落实|没搞定|没弄好|没处理|没解决|没办完|没兑现|未兑现|还挂着|手上还|没了结|未了结|悬着|没着落")),
    (Ask.PROMISES, _re(r"\bpromis|\bcommit|\bpledg|\bwho\s+(?:will|is\s+going\s+to|'ll|said\s+they'?d|is\s+(?:handling|doing|taking))"
                       r"|\bon\s+the\s+hook\b|\b(?:hangs?|hinges?|depends?|riding|rides?|waiting|waits)\s+on\b"
                       r"|\bdoes\s+(?:it|that|this|(?:his|her|their)\s+(?:word|promise|yes))\s+count\b"
                       r"|\bwhen\s+(?:will|is|are|does|do|did|was)\b|\bdue\b|\bdeadline|\bby\s+when\b|\bsupposed\s+to\b|\bowes?\b"
                       r"|\bwhen\s+(?:am|will|do|shall)\s+(?:i|we)\s+(?:be\s+)?(?:get|getting|see|seeing|receive|receiving|have)\b"
                       r"|\bwho'?s\s+(?:doing|handling|taking|paying)|\b(?:has|have|needs?)\s+to\s+do\b|\bwhat\s+(?:is|are)\s+\w+(?:\s\w+)?\s+doing\b"
                       # "whats tunde gonna do if tyler says yes", "what's Mia going to do about it"
                       r"|\bwhat(?:'?s|\s+is|\s+are|'?re)\s+\w+(?:\s\w+)?\s+(?:gonna|going\s+to)\s+do\b"
                       r"|\b(?:did|has|have)\s+\w+(?:\s\w+)?\s+(?:done|finished|delivered|kept)\b"
                       r"|\bsaid\s+(?:i|i'd|i'll|i\s+would|i\s+will|they'd|he'd|she'd|we'd)\b|\bwhat\s+n\s+when\b|\bforgett?ing\b"
                       r"|答应|承诺|保证|谁(?:会|来|负责|去|管)|什么时候|几点|期限|截止|该谁|应该做|要做什么|该做|负责什么|办了吗|做了吗"
                       r"|完成了吗|弄好了吗|搞定了吗|作数|算数|算不算数|还算不算"
                       r"|谁欠|欠(?:谁|我们?|你们?|他们?|她们?|大家)?(?:了|着)?(?:什么|多少)")),
    (Ask.AGREED, _re(r"\bagree|\bagreement|\bdeal\b|\bsettled\b|\bconsensus\b|\bdecided\b|\bdecision|\bsettle[ds]?\s+on\b"
                     r"|\bwhat\s+(?:was|were|is|are)\s+the\s+(?:rules?|plan|outcome)\b|同意|共识|达成|说好|约定|决定|商定|谈妥|定的|定了|定下|敲定"
                     r"|规定|怎么定|结论"
                     # who voted for it: "which rules got a yes, and from whom?", "谁投了赞成？", "都有谁点了头？"
                     r"|\b(?:said|say|says|got\s+a|gave\s+a|voted)\s+yes\b|\bvoted\s+for\b|\bin\s+favou?r\b|\bsigned\s+off\b"
                     r"|\bsigned\s+(?:up\s+)?(?:to|for|on)\b|\bbacked\b|\bon\s+board\s+with\b|\bwent\s+along\s+with\b"
                     r"|赞成|投了?(?:赞成|同意|支持)|点了?头|举了?手|表了?态|签了?字|通过了|都认|全认|认了|不认|没认|没全认|\bturn(?:ed)?\s+down\b"
                     # who said no to it, or to a part: "did anybody refuse a bit of …?", "谁反对？反对的是哪一条"
                     r"|\brefus(?:e|ed|al)\b|\bsaid\s+no\b|\bsay\s+no\b|\bobject(?:ed|ion)?\b|\bvoted\s+against\b|反对|不同意|没同意")),
    (Ask.WANTS, _re(r"\bwants?\b|\bneeds?\b|\bask(?:ing|ed)?\s+for\b|\bdemand|\bposition|\bstand\b|\bexpect|\beach\s+side"
                    r"|诉求|要求|想要|希望|立场|各方|双方.{0,6}(?:想|要)|需要什么")),
    (Ask.FEELINGS, _re(r"\bfeel|\bfeeling|\bmood\b|\bupset\b|\bangry\b|感受|心情|情绪|感觉|生气|难过")),
    (Ask.OVERVIEW, _re(r"\bsummar|\brecap\b|\boverview\b|\bwhere\s+(?:are|do)\s+we\b|\bcatch\s+me\s+up\b|\bwhat'?s\s+going\s+on\b"
                       r"|\bstatus\b|\bsum\s+up\b|\bsituation\b|\bwhat\s+do\s+you\s+(?:know|remember)\b|\beverything\b"
                       r"|总结|概括|理一下|梳理|情况|回顾|汇总|记得什么|怎么回事")),
)

#: The intents a question may ask about the record first ("what did we agree about being late?" asks
#: about an agreement, "who is late on what they agreed?" about what is overdue): the earliest match wins.
_RECORD_INTENTS = frozenset({Ask.OVERDUE, Ask.OPEN, Ask.PROMISES, Ask.AGREED})


#: Colloquial question words read as the plain ones ("欠我啥" as "欠我什么", "咋样" as "怎么样").
_COLLOQUIAL_AS = {"啥": "什么", "咋": "怎么", "哪天": "什么时候", "几号": "什么时候", "哪一天": "什么时候"}
_COLLOQUIAL = re.compile("|".join(sorted(_COLLOQUIAL_AS, key=len, reverse=True)))


_AGREE_WORD = re.compile(r"同意|\bagree(?:d|ment)?\b|决定|定了|定的|\bdecided?\b|\b(?:said|say|got\s+a|voted)\s+yes\b"
                         r"|赞成|点了?头|举了?手|都认|全认|认了|不认", re.IGNORECASE)
#: Words that name a promise in a question ("what did Tom promise", "答应", "owes").
PROMISE_WORD = re.compile(r"答应|承诺|保证|\bpromis|\bowes?\b|欠|\bcommit", re.IGNORECASE)


#: Asking when something is due ("哪天交", "几点", "when is … due"); and a question about "us" (an agreement's time).
_WHEN_DUE = re.compile(r"什么时候|几点|\bwhen\b|\bdue\b|\bdeadline\b", re.IGNORECASE)
_WE = re.compile(r"\b(?:we|us)\b|我们|咱们|大家", re.IGNORECASE)
#: Words that ask whether people agreed, not what was settled ("大家都同意了没", "did everyone agree").
_AGREE_STRONG = re.compile(r"同意|赞成|点了?头|举了?手|认|\bagree|\bvoted|\bsaid\s+yes", re.IGNORECASE)


def _intent(body: str) -> Ask | None:
    """The question's intent: the specific ones (similar, about, said) in their order; then, of the
    intents about promises and agreements, the one asked first; then wants, feelings, overview."""
    found = [(m.start(), i, ask) for i, (ask, pattern) in enumerate(_INTENTS) if (m := pattern.search(body))]
    if not found:
        return None
    first = min(found, key=lambda f: f[1])
    if first[2] not in _RECORD_INTENTS:
        return first[2]
    asks = {f[2] for f in found}
    if {Ask.AGREED, Ask.PROMISES} <= asks and _WHEN_DUE.search(body) and not _WE.search(body) and not _AGREE_STRONG.search(body):
        return Ask.PROMISES  # "小秋那版混音，现在说好哪天交？": when a deed is due, whatever was "说好"/"定的"
    if {Ask.OPEN, Ask.PROMISES} <= asks and not _WHEN_DUE.search(body) and Ask.AGREED not in asks:
        return Ask.OPEN  # "群里答应过的事还剩哪几件没兑现？", "which promises are still open?": what is left, whatever was promised
    if Ask.AGREED in asks and _AGREE_WORD.search(body) and not PROMISE_WORD.search(body):
        return Ask.AGREED  # "豆豆到底改成哪天飞 大家都同意了没": asked whether it was agreed, whatever "when" came first
    return min((f for f in found if f[2] in _RECORD_INTENTS), key=lambda f: (f[0], f[1]))[2]


#: Asking for advice or an opinion ("what should we do?", "你觉得呢？"): mediation, not the record.
_ADVICE = re.compile(
    r"\b(?:what|how)\s+(?:should|would|could|can|do)\s+(?:we|i|you)\s+(?:do|handle|fix|solve|split|proceed|suggest|think)\b"
    r"|\bshould\s+(?:we|i)\b|\bwhat\s+do\s+you\s+(?:think|suggest|recommend)\b|\b(?:can|could|would)\s+you\s+(?:help|mediate)\b"
    r"|\bis\s+(?:that|this|it)\s+(?:fair|ok|okay|reasonable)\b|\bany\s+(?:advice|ideas?|suggestions?)\b|\bhelp\s+us\b"
    r"|\bwhat\s+now\b|\bwho\s+is\s+right\b|怎么办|该怎么|怎么处理|怎么解决|你觉得|你怎么看|公平吗|合理吗|建议|帮帮|出个?主意|谁对"
    r"|行不行|好不好|可不可以|对不对|能不能帮|要不要",
    re.IGNORECASE,
)
#: A member's name followed by their saying something: "老陈说…", "老陈当时讲…", "Leo said …" (not "说好", agreed).
_SPOKE = re.compile(r"(?:(?:当时|之前|上次|那天|在群里|自己)?(?:说|讲|提)(?![好定])|\s+(?:said|says|told|mentioned)\b)", re.IGNORECASE)
#: The asker named beside someone else ("what's open from Marcus or me?", "阿杰和我的"): asked about too.
_ASKER_TOO = re.compile(r"\b(?:or|and|&)\s+(?:me|mine|myself)\b|\b(?:me|mine|myself)\s+(?:or|and|&)\b|\bfrom\s+me\b"
                        r"|[和跟或]我(?:的|自己)?|我(?:这边|自己)(?:的)?(?:也|事)", re.IGNORECASE)

_ADDRESS = re.compile(r"^\s*(?:@\S+|heyan\b|和言)[\s,，:：!！]*", re.IGNORECASE)
#: Fillers before the question proper: "so what's the rule now", "ok 那", "hey, who …".
_LEAD = (r"^(?:(?:so|ok|okay|hey|hi|um+|uh+|and|but|also|btw|quick\s+(?:q(?:uestion)?|one)|real\s+quick|one\s+more(?:\s+thing)?"
         r"|(?:two|2|three|3|a\s+few|couple(?:\s+of)?)\s+(?:things|questions|qs)|question|sorry|那|那个|所以|还有|对了|请问)[\s,，:：!！—–-]+)*")
#: A question put after its topic: "that georgian page dilani's doing, when's it landing now".
_TOPIC_FIRST = r"|[,，—–:]\s*(?:so\s+)?(?:when|what|who|where|which|how)(?:'s|’s|\s+(?:is|was|are|will|did|does|do|has)\b)"
#: A Chinese question word or particle, anywhere ("拖到哪天了", "桐桐欠我啥来着", "500到底转没转").
_ZH_ASKS = r"什么|啥|哪(?:天|个|些|里|儿)|几(?:点|号|月|天|时|个)|多少|怎么|咋|谁|吗|来着|有没有|是不是|列(?:一下|出来)|(\w)[没不]\1|了没有?\s*$"
#: A question to the record, as people type it (often with no question mark): a mark anywhere, a
#: question word first (after fillers), "remind me"/"anything I …", or a Chinese question word or
#: particle anywhere ("拖到哪天了", "桐桐欠我啥来着", "500到底转没转").
_ASKS = re.compile(
    r"[?？]|" + _LEAD + r"(?:what|who|when|where|which|why|how|did|does|do|is|are|was|were|has|have|can|could|will"
    r"|would|should|any|anything|anyone|tell|remind|list|show|recap|summari[sz]e|give\s+me|catch\s+me|please\s+(?:tell|list|show|recap)"
    r"|whats|whos|whens|hows|wheres)\b"
    r"|\b(?:remind\s+me|tell\s+me|what\s+n\s+when|by\s+when|when\s+(?:is|was)\s+it|still\s+(?:on|open|due))\b"
    # a topic first, then the question after a comma: "karim's word about the 20%, does it count yet or …"
    r"|[,，]\s*(?:does|do|did|is|are|was|has|have|can|will)\s+(?:it|that|this|he|she|they|the\s+\w+)\s+\w+"
    + _TOPIC_FIRST +
    r"|^(?:帮我|帮忙|请你?|告诉|说说|讲讲|列|总结|回顾|梳理|理一下|谁|什么|哪|几|怎么|为什么|现在|目前|上次|大家|还有谁|有没有人|关于)"
    r"|" + _ZH_ASKS,
    re.IGNORECASE,
)
# A question proper (not an order such as "tell Bob to …"): a question mark, a question word first, a
# Chinese question word or particle, or "remind me / anything I …" (``_ASKS`` also takes orders to list).
_REAL_QUESTION = re.compile(
    r"[?？]|" + _LEAD + r"(?:what|who|when|which|did|does|do|is|are|has|have|whats|whos|whens|anything|any)\b"
    r"|\b(?:remind\s+me|what\s+n\s+when|by\s+when)\b"
    + _TOPIC_FIRST + r"|" + _ZH_ASKS,
    re.IGNORECASE,
)
# The asker as the one promised to: "what did Lina promise me?", "李娜答应我什么？".
_TO_ASKER = re.compile(r"\b(?:promised?|owes?|told|give|send)\s+(?:me|us)\b|\bto\s+(?:me|us)\b|\b(?:do|make|bring|fix)\s+for\s+(?:me|us)\b"
                       r"|\bwhen\s+(?:am|will|do|shall)\s+(?:i|we)\s+(?:be\s+)?(?:get|getting|see|seeing|receive|receiving)\b"
                       r"|(?:答应|承诺|保证|欠|给|退|还|转|寄|发)我们?(?![说讲])",
                       re.IGNORECASE)
# A promise verb just before a name: "promise Kaimana", "owe Tom", "答应阿宁".
_TO_NAMED = re.compile(r"\b(?:promised?|owes?|owed|told|give|gave|send|sent)\s+(?:to\s+)?@?$|(?:答应|承诺|保证|欠|给)(?:了|过)?@?$", re.IGNORECASE)
#: A question asking who made a promise: "who has promised Pema something", "有谁答应过老舒什么", "谁欠阿瑶钱".
_WHO_OWES = re.compile(r"\b(?:who|anyone|anybody|someone|somebody)\b|谁", re.IGNORECASE)
_SELF = re.compile(r"\b(?:did|have|has|will|do)\s+i\b|\bi\s+(?:still\s+)?(?:promised|agreed|said|owe)\b|\bmy\s+(?:promises?|commitments?)\b"
                   r"|\b(?:am\s+i|i'?m|i\s+am)\s+on\s+the\s+hook\b|\bon\s+my\s+plate\b|\bmy\s+to-?do\b|我自己"
                   # "我自己答应过什么", "我之前到底是怎么说的", "我当时说的"
                   r"|我(?:自己|本人)?(?:在[^，,。？?]{1,6}?)?(?:之前|以前|当时|刚才|上次)?(?:到底)?(?:是)?(?:怎么)?(?:答应|承诺|保证|说|欠|要做)"
                   r"|我(?:手上|身上|这儿|这边)还|我(?:自己|本人)?还?欠着?", re.IGNORECASE)
# "what did I promise …": the asker as the owner, even where "me" follows
_SELF_AS_OWNER = re.compile(r"\b(?:did|have|will)\s+i\b|\b(?:am\s+i|i'?m|i\s+am)\s+on\s+the\s+hook\b"
                            r"|我(?:自己|本人)?(?:在[^，,。？?]{1,6}?)?(?:之前|以前|当时)?(?:答应|承诺|保证)", re.IGNORECASE)
EN_WORD = re.compile(r"[a-z][a-z-]+|\d+")
_CONTRACTION = re.compile(r"['’](?:s|re|ll|ve|d|m|t)\b")
CJK_RUN = re.compile(r"[\u3400-\u9fff]+")
#: Words that only ask about a promise's standing: "Karim's word about …", "does it count yet".
#: Where the question looks: the thread it is asked in ("in this group", "on this server").
_SCOPE = re.compile(r"\b(?:in|on|of|from|across|throughout)\s+(?:this|the|our|here|all\s+this)\s+"
                    r"(?:group|thread|chat|channel|server|conversation|discussion|room|community)\b", re.IGNORECASE)
_ASKING_WORDS = re.compile(r"(?:'s|’s)\s+word\b|\bdoes\s+(?:it|that|this)\s+count\b", re.IGNORECASE)
_GENERIC_EN_WORDS = (
    "promise promised promises commit committed commitment commitments agree agreed agreement deal settled want wants "
    "yet "
    "need needs say said says tell told mention mentioned feel feels feeling still open outstanding pending overdue "
    "late due deadline done left everyone anyone someone everybody anybody so far last time week today now ever "
    "exactly again heyan recap summary summarize summarise list show remind please thing things anything everything "
    "stuff each side other both us going news update progress status situation know remember happened supposed "
    "consensus decided expect ask asking asked position stand mood upset angry whole current currently yet "
    "owe owes owed owing finish finished finishing complete completed hasn haven isn supposed doing does "
    "has have had did yet still what who when which made make decision decide rule rules plan outcome end "
    "whats whos whens hows wheres dont didnt doesnt hasnt havent isnt arent wasnt something somebody anyone "
    "actually exactly really here there part parts losing lose track remind tell forget forgetting forgot "
    "people folks guys gonna wanna gotta two three few couple quick one hook hang hangs hanging riding ride rides rid "
    "depend depends depending hinge hinges plate thread todo to-do moment point points clock time happen happened "
    "wait waiting all right now kept keep keeps keeping honoured honored fulfilled every single never got gets "
    "date dates hour hours arrive arrived arrives reach reached received"
)
_GENERIC_EN = frozenset(_GENERIC_EN_WORDS.split())
_GENERIC_ZH = re.compile(
    r"答应|承诺|保证|同意|共识|达成|说好|约定|决定|诉求|要求|想要|希望|立场|感受|心情|情绪|什么时候|什么|怎么样|怎么|"
    r"现在|目前|上次|之前|大家|各方|双方|各自|分别|各位|自己|具体|到底|都是|谁|哪些|哪个|还有|还没|完成|进展|情况|总结|回顾|梳理|"
    r"帮我们?|告诉|一下|说了|说过|如何|怎样|有没有|是不是|为什么|哪里|事情|东西|一些|所有|全部|到现在|为止|目前为止|"
    r"提到|关于|过期|逾期|期限|和言|我们|你们|他们|她们|应该|负责|之前|以前|办了|做了|定的|定了|"
    r"来着|哪天|几点|几号|啥|最后|到底|那事儿?|事儿|列一下|有人|现在是|有什么|什么|哪几?件|哪几?样|"
    # pointers and the question's own verbs ("鱼丸那三条", "二刷那件事", "拖到哪天才挂", "截止是哪天")
    r"[那这哪](?:个|件|条|些|几条|[一二两三四五六七八九十]条)|[一二两三四五六七八九十]条|件事|截止|到期|拖到|挂着|落地|赞成|反对|不认|兑现|欠着|还清|还完|结清|才|"
    # the asker's clock and the thread itself ("换成我耶路撒冷这边的时间", "这个群里", "改完以后")
    r"换成|这边|那边|时间|群里|这里|以后|之后|了结|作数|算数|全认|都认|认了|哪一?条|里头|还得|得看|要看|看别人|别人|取决于?|还剩|剩下|一条不落|一条不少|不落|整套|卡在|"
    r"[我你他她它的了吗呢吧啊都也是有没会要在把给说过欠做办定该]"
)


#: Common dispute words in English (stemmed as ``_stem`` does) and Chinese, so a question in one
#: language finds what was said in the other ("what did 张伟 say about the draft?" → 草稿).
GLOSSARY: dict[str, tuple[str, ...]] = {
    "draft": ("草稿", "稿"), "design": ("设计",), "logo": ("logo", "标志"), "file": ("文件",),
    "deposit": ("押金",), "rent": ("房租", "租金"), "bill": ("账单", "费"), "money": ("钱", "款"),
    "refund": ("退款", "退钱"), "electricity": ("电费",), "water": ("水费",), "internet": ("网费",),
    "kitchen": ("厨房",), "bathroom": ("卫生间", "厕所"), "clean": ("打扫", "清理", "收拾"),
    "music": ("音乐",), "noise": ("噪音", "吵"), "key": ("钥匙",), "car": ("车",), "bike": ("自行车", "单车"),
    "trash": ("垃圾",), "garbage": ("垃圾",), "bin": ("垃圾",), "dish": ("碗",), "laundry": ("衣服", "洗衣"),
    "contract": ("合同",), "report": ("报告",), "invoice": ("发票",), "receipt": ("收据",),
    "apology": ("道歉",), "apologise": ("道歉",), "apologize": ("道歉",), "pay": ("付", "转", "还"),
    "landlord": ("房东",), "meeting": ("会议", "开会"), "schedule": ("时间表", "日程"), "raid": ("副本",),
    "loot": ("装备", "战利品"), "server": ("服务器",), "guild": ("公会",), "delay": ("延期", "推迟"),
}


#: A clock named in a question: "in Laayoune time", "on Havana time", "按巴库时间", "换成我马那瓜的时间".
_CLOCK_EN = re.compile(r"(?:\b(?:in|on|by|at)\s+)?\b(?P<name>[A-Za-z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*){0,2})\s+time\b", re.IGNORECASE)
_CLOCK_ZH = re.compile(r"(?:按|以|换成|换算成)?(?:我)?(?P<name>[\u4e00-\u9fff]{2,6}?)(?:这边|那边)?的?时间")


def _without_clocks(text: str) -> str:
    """``text`` without the clocks it names by place (a question asks on the asker's clock; the place is no topic)."""
    text = _CLOCK_EN.sub(lambda m: " " if named_zone(f"{m.group('name')} time") else m.group(), text)
    return _CLOCK_ZH.sub(lambda m: " " if named_zone(f"{m.group('name')}时间") else m.group(), text)


def stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def read_question(text: str, asker: str, names: NameBook | Mapping[str, Sequence[str]], *,
                  compound: bool = False, then: Ask | None = None) -> Question | None:
    """The question ``text`` asks about the record, or None when it asks nothing the record answers.

    ``names``: who the question may name (a ``NameBook``, or user id → names). ``compound``: keep the
    questions a compound one asks in ``parts`` (where it is answered, not where a line is only told apart
    from a question); ``then``: the intent of a question with no intent word of
    its own, read as the next part of a compound one. Question and names are
    read normalized (``memory.normalize``): a zero-width space or a bidi override typed into "what did
    Sam pro\u200bmise" changes nothing."""
    body = normalize(text)
    while m := _ADDRESS.match(body):
        if not m.group():
            break
        body = body[m.end() :]
    body = body.strip()
    if not body or not _ASKS.search(body):
        return None
    ask = _intent(_COLLOQUIAL.sub(lambda m: _COLLOQUIAL_AS[m.group()], body))
    book = names if isinstance(names, NameBook) else _book(names)
    hits = [h for h in book.find(body) if normalize(h.said).casefold() not in ("heyan", "和言")]
    if ask is None and then is not None and _REAL_QUESTION.search(body):
        ask = then  # a compound question's next part with no intent word asks as the one before it
    if ask is None:
        # a question in words no intent knows: about a member ("what has Priya got on her plate?",
        # "李娜接下来要干什么？"), what they took on; else whatever records its words find. Asking for
        # advice or an opinion is left to mediation.
        # ("老陈说押金怎么处理？" asks what a member said, in the words of advice)
        spoke = any((at := body.find(h.said)) >= 0 and _SPOKE.match(body, at + len(h.said)) for h in hits)
        if not _REAL_QUESTION.search(body) or (_ADVICE.search(body) and not spoke):
            return None
        ask = Ask.SAID if spoke and _ADVICE.search(body) else Ask.PROMISES if hits else Ask.RECORDS
    people = tuple(dict.fromkeys(h.users[0] for h in hits if not h.ambiguous))
    unclear = tuple((h.said, h.users) for h in hits if h.ambiguous)
    about_asker = bool(_SELF.search(body)) or (bool(hits) and bool(_ASKER_TOO.search(body)))
    if about_asker and asker not in people:
        people = (asker, *people)
    named = {w.casefold() for h in hits for w in h.said.split()}
    rest = body
    for hit in hits:  # names out first: "Maëlle's back cover" leaves no "lle" to look for
        rest = rest.replace(hit.said, " ")
    rest = _ASKING_WORDS.sub(" ", rest)  # "…'s word about the 20%, does it count": the asking, not the topic
    rest = _SCOPE.sub(" ", rest)  # "what promises in this group are still open": where, not what
    rest = _without_clocks(rest)  # "…, in Laayoune time", "按巴库时间": the asker's clock, not what
    topic = tuple(dict.fromkeys(
        stem(w) for w in EN_WORD.findall(_CONTRACTION.sub("", rest.casefold()))
        if w not in lx.STOPWORDS_EN and w not in _GENERIC_EN and w not in named and (len(w) > 2 or (w.isdigit() and len(w) == 2))
    ))
    zh_runs = [r for run in CJK_RUN.findall(rest) for r in _GENERIC_ZH.split(run) if len(r) >= 2]
    zh_topic = tuple(dict.fromkeys(run[i : i + 2] for run in zh_runs for i in range(len(run) - 1)))
    recipient = asker if _TO_ASKER.search(body) and not about_asker else None
    if recipient is None:
        # "what did I promise Kaimana?", "阿杰答应阿宁什么了？": the one named after the promise is whom it was made to
        to = next((h.users[0] for h in hits if not h.ambiguous and (at := body.find(h.said)) > 0
                   and _TO_NAMED.search(body[:at])), None)
        # (also with no owner named: "who has promised Pema something?", "有谁答应过老舒什么？")
        if to is not None and (len(people) > 1 or _WHO_OWES.search(body)):
            recipient, people = to, tuple(p for p in people if p != to)
    entity = _entity(body) if ask in (Ask.SIMILAR, Ask.ABOUT) else ""
    if recipient is not None and recipient in people and not _SELF_AS_OWNER.search(body):
        people = tuple(p for p in people if p != recipient)
    if ask is Ask.RECORDS and not (topic or zh_topic or people or recipient):
        return None  # "are you there?" asks about nothing the record holds: it is talk
    return Question(ask, people, topic, about_asker, zh_topic, recipient, entity, unclear, body,
                    _parts(body, asker, book) if compound else ())


#: Where a compound question starts its next question: after a question mark, a semicolon, or a comma or
#: "and" before a question word ("…, and when is my gallery due now?", "鱼丸那三条谁赞成了？阿鹿不认的是哪条？").
_NEXT_QUESTION = re.compile(
    r"[?？]+\s*(?=\S)|(?:\s*[;；]\s*|\s*[,，]\s*(?:and\s+|also\s+|plus\s+)?|\s+and\s+(?:also\s+)?)"
    r"(?=(?:what|who|when|where|which|how|whose|did|does|do|is|are|has|have|was|were|will|can)\b|\S*?(?:" + _ZH_ASKS + r"))",
    re.IGNORECASE,
)
#: A question that points back at the one before ("… and is any of it late?", "截止是哪天？"): part of it.
_POINTS_BACK = re.compile(r"\b(?:it|that|those|them|this|these|they)\b|[它其这那](?:些|个|件)?", re.IGNORECASE)


def _parts(body: str, asker: str, book: NameBook) -> tuple[Question, ...]:
    """The questions of a compound question, when it asks two or more things of its own: a piece that
    names no one and no topic, or only points back, belongs to the question before it."""
    cuts = [m.span() for m in _NEXT_QUESTION.finditer(body) if m.start() > 0 and m.end() < len(body)]
    if not cuts:
        return ()
    starts, ends = [0, *(end for _, end in cuts)], [*(start for start, _ in cuts), len(body)]
    pieces = [body[a:b] + ("?" if body[b:b + 1] in "?？" and b < len(body) else "") for a, b in zip(starts, ends, strict=True)]
    merged: list[str] = []
    for piece in pieces:
        q = read_question(piece, asker, book) if piece else None
        own = q is not None and (q.narrowed or q.about_asker) and not (
            _POINTS_BACK.search(piece) and not (q.people or q.recipient or q.about_asker))
        if own or not merged:
            merged.append(piece)
        else:
            merged[-1] = f"{merged[-1]} {piece}"
    if len(merged) < 2:
        return ()
    parts: list[Question] = []
    for piece in merged:
        q = read_question(piece, asker, book, then=parts[-1].ask if parts else None)
        if q is not None:
            parts.append(q)
    return tuple(parts) if len(parts) >= 2 else ()


def _book(aliases: Mapping[str, Sequence[str]]) -> NameBook:
    book = NameBook()
    for uid, said in aliases.items():
        for name in said:
            book.add(uid, normalize(name))
    return book


# What a SIMILAR or ABOUT question names: after "about"/"with", or between 关于/遇到过 and the rest.
_ENTITY = (
    re.compile(r"\b(?:know\s+about|tell\s+(?:me|us)\s+(?:about|what\s+you\s+know\s+about))\s+(?P<e>[^?？.!]+)", re.I),
    re.compile(r"\b(?:problem|issue|trouble)s?\s+(?:with|about|like\s+mine\s+with)\s+(?P<e>[^?？.!]+)", re.I),
    re.compile(r"关于(?P<e>.{1,24}?)(?:我们|你)?(?:知道|了解|掌握|有(?:什么|哪些))"),
    re.compile(r"(?:遇到过?|碰到过?)(?P<e>[^，,。？?！!]{1,24}?)的(?:类似)?问题"),
)


def _entity(body: str) -> str:
    for pattern in _ENTITY:
        if (m := pattern.search(body)) and (found := m.group("e").strip(" ，,。")) not in ("类似", "同样", "这种"):
            return found
    return ""
