"""Records from the act sequence: what the rules miss or misread in a conversation. ``derive`` changes
the rules' candidates only where the sequence of acts decides; slots (times, names) stay with the rules,
and a flagged message is left as the rules made it."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from datetime import datetime

from bot.acts.labels import Act
from bot.extraction.candidates import CandidateFact, ExtractionRequest, Utterance
from bot.guard.poisoning import attempt
from bot.offline.actions import split_due, strip_head
from bot.offline.clauses import MAX_CLAUSE_CHARS, clean
from bot.offline.indirect import ZH_ACTION_VERBS
from bot.offline.lexicon import HEDGE, MONEY, PAST, YES_EN, ZH_TO_ME
from bot.offline.proposals import plan_of, proposal_of, shares_content, stated
from bot.offline.requests import asks_deed, moves_only, requested_action, takes_it_on
from bot.offline.reschedule import (
    asks_for_time,
    asks_to_move,
    asks_to_wait,
    moves_time,
    only_moves,
    takes_time_asked,
)
from bot.offline.rules import ATTRIBUTES
from bot.offline.sentence import joking, sarcastic
from bot.offline.slots import slot_of
from bot.offline.votes import Vote, parts, read_vote
from bot.text.clock import aware
from bot.text.duetime import counts_from_now, find_due_span, names_a_day, only_time, resolve_due, turned_down
from bot.text.lang import cjk_count
from bot.text.names import NameBook
from bot.text.zones import is_zone, named_zone, speaker_zone, without_clock_words, without_zh_clock_asides
from memory.models import Kind
from memory.normalize import normalize

__all__ = ["SURE", "condition_of", "derive", "puts_a_plan"]

_I = re.IGNORECASE
#: The probability an act needs to overrule the rules' agreement ("I accept the apology." read as a
#: refusal at 0.23, "算了，我同意，平摊就平摊" at 0.54, stay agreements).
SURE = 0.6
#: How far back (lines of the thread) an acceptance looks for the request or counter-offer it takes,
#: and an agreement for the proposal it agrees to.
_ASK_BACK = 3
#: Lines back a promise with no recipient looks for the member who asked its speaker for it by name.
_ASKED_FOR_BACK = 6
#: The speaker's own deed in a counter-offer: "I'll pay half, $21, Wednesday the 3rd", "我出一半450，…".
#: What a counter-offer offers: "I'll refund the $55 instead", "what I'll do: write a one-shot …", "我出一半".
_OWN_DEED = re.compile(r"\bi(?:'ll|’ll|\s+will|\s+can)\s+(?:do(?:\s+(?:something\s+else|this|the\s+following))?(?:,?\s*(?:instead|though|then))?\s*(?::|\bis\b|—|–)\s*)?(?P<deed>[^.?!]{4,200})"
                       # a plan of the speaker's own put in its place: "Here's my offer. I go through all fourteen
                       # by hand …", "Next best thing: I email HQ …", "我这么办：给组委会写信…", "我的方案：明天把…"
                       r"|(?:here(?:'?s|\s+is)\s+(?:my\s+(?:offer|plan)|what(?:'?s|\s+is)\s+(?:realistic|doable|possible)|what\s+i\s+can\s+(?:do|offer))"
                       r"|next\s+best\s+thing|what\s+i\s+can\s+do\s+is"
                       # what is the speaker's to do instead, before a colon: "Something else, then, that doesn't wait on
                       # PayPal: …", "Mine to do: …", "What's in my hands: …"
                       r"|something\s+else(?:,?\s+then)?[^.:?!]{0,60}(?=:)|mine\s+to\s+do|what(?:'s|\s+is)\s+(?:mine|in\s+my\s+hands|up\s+to\s+me)"
                       r"|the\s+part\s+(?:i\s+can\s+do|that'?s\s+mine)"
                       # what the speaker can make good instead: "Money is the part I can fix.", "Where I can put things
                       # right is the money.", "Your share of the fee is within reach, though."
                       r"|[\w$€£' ]{0,30}?\bis\s+the\s+part\s+i\s+can\s+(?:fix|do|make\s+good)"
                       r"|where\s+i\s+can\s+(?:put\s+(?:things|it)\s+right|make\s+(?:it|things)\s+good)\s+is\s+(?:the\s+)?[\w$€£]+"
                       r"|[\w$€£' ]{0,40}?\bis\s+within\s+(?:my\s+)?reach(?:,?\s+though)?"
                       # "The $3,000 is in my power.", "What is in my power: …"
                       r"|[\w$€£,' ]{0,40}?\bis\s+in\s+my\s+power|what(?:'s|\s+is)\s+in\s+my\s+power)"
                       r"\s*[:.,—–-]?\s*(?:i\s+)?(?P<plan>[a-z$€£\d][^.?!]{4,200})"
                       # "我这么办：…", "另一件我现在就能答应：…", "能办的是署名：…", "钱是我能马上定的：…"
                       # "补得上的是钱：…", "钱这头我先弄清楚：…"
                       r"|(?:我(?:这么|这样)办|我的方案|我能做的是|(?:能办|能补|补得上|补得了)的是[^：:。，,]{0,8}|另一件[^：:。，,]{0,10}|换一件[^：:。，,]{0,10}"
                       r"|[^：:。，,]{0,4}这头我先?(?:弄清楚|说清楚|定下来)"
                       r"|[^：:。，,]{0,6}是我能[^：:。，,]{0,6}的"
                       # "钱我能定：…", "钱这件事我现在就能拍板：…", "钱我现在能动：…"
                       r"|[^：:。，,]{0,6}我(?:现在|马上)?(?:就)?能(?:定|动|拍板|做主|管|给))\s*[:：，,]\s*(?P<zhplan>[^。？?!！]{2,80})"
                       # "但我可以去邮局开一张证明，下周一前拍给你看": what the speaker can do instead
                       r"|(?:但|不过|可是)我(?:可以|能)(?P<zhcan>[^。？?!！]{2,60})"
                       r"|(?<![让叫要])我(?P<zh>出|付|来付|承担|(?:先|就)?(?:退|还|转|补|赔)(?:给)?(?:你|您))(?!不)[^，,。？?]{0,20}", _I)  # not "让我出不太合理"
#: A line that opens by turning the ask down: "I won't …", "can't do that, …", "不行，…", "双倍不可能，…".
_REFUSES_FIRST = re.compile(r"^\W*(?:(?:no|nope|sorry)[\s,.!]+)?(?:i\s+(?:won'?t|can'?t|cannot|will\s+not)|can'?t|won'?t)\b"
                            r"|^\W*[\u4e00-\u9fff]{0,6}?(?:不行|不可能|没法|做不到)", _I)
#: Lines back a change of time may counter the request put to its speaker, past a digression.
_COUNTER_BACK = 6
#: Words that move a time already given ("scratch Saturday —", "instead", "改到"): a move, never a counter.
_MOVES = re.compile(r"\b(?:scratch|instead|move[ds]?|push(?:ed|ing)?|change[ds]?|swap|rather|actually|no\s+longer)\b"
                    r"|改|推迟|延后|挪|换到|提前|不行了", re.IGNORECASE)
#: How far back a yes that names its asker ("@Harriet yup, will do") looks for that member's request.
_NAMED_BACK = 12
#: What a yes that names its asker says after the name: "yup, will do", "sure", "I'll …", "好的", "收到".
#: An English yes a named yes may say after what it answers ("the licence: reasonable"), and "both, " before it.
_YES_WORD_EN = r"yes|yep|sure|ok(?:ay)?|reasonable|fair(?:\s+enough)?|of\s+course|certainly|absolutely"
_BOTH = r"(?:(?:both|all(?:\s+of\s+(?:it|them)|\s+\w+)?)\s*,?\s*)?"
_TAKES_ON = re.compile(r"(?:" + _YES_WORD_EN + r"|yup|yeah|will\s+do|on\s+it|got\s+it|i'?ll|i\s+will|no\s+problem)\b"
                       r"|好|行|可以|没问题|没毛病|莫得问题|欧了|收到|我来|妥|得嘞|包在我身上|交给我|放心|安排(?=[\s!！。~👌]*$)"
                       # "成，归我了", "这活儿算我的", "我接了"
                       r"|^成(?=[\s,，!！。~]|$)|归我|算我的|我接了|我领了", _I)
#: A yes said after what it answers, before a colon or a full stop: "on the contract: yes", "你要的合同：行", "合同可以给你看：".
_YES_ABOUT = re.compile(r"(?:(?:(?:on|about|re|as\s+for)\s+[^:.!?]{1,40}?[:,]|[^:.!?,\n]{1,40}?:)"  # "Lanternfly's contract: yes"
                        # "the licence and the invoice: both, yes, in your inbox by 9"
                        r"\s*(?P<yes>" + _BOTH + r"[^.!?,]{1,12})(?=[.!?,])"
                        r"|(?P<zh>[^：:。！？!?]{1,14})[：:。]\s*(?P<zhyes>(?:行|好|可以|没问题|成|可|给)[的吧啊呀]?(?=[。，,！!\s]))?)", _I)
#: Something handed to the one spoken to, said without a tense: "（小麦，）合同发你，连同银行回单" (not "发你了").
_ZH_SENDS_YOU = re.compile(r"[^，,。：:！!？?\s]{1,14}?(?:发|给|传|寄|转)(?:给)?你(?![了过])(?=[，,。：:！!\s]|$)")
#: A yes after what it answers, in the line's first sentence: the named yes ``_YES_ABOUT`` reads, found anywhere.
_YES_ABOUT_NAMED = re.compile(r"^[^.!?。！？]{0,60}?(?:[:：]\s*" + _BOTH + r"(?:" + _YES_WORD_EN
                              + r"|行|好|可以|没问题|成)\b|(?:可以|行|好)[^：:。]{0,6}[:：])", _I)
#: A plan of the speaker's own said in Chinese without a tense ("书林那份合同我一页一页拍下来，…放到群文件里").
_ZH_MY_PLAN = re.compile(rf"我(?!们)[^，,。；;！!？?的]{{0,6}}?(?:{ZH_ACTION_VERBS}|拍|放)")  # not "我跟茶屿的聊天记录截图"
#: "please" said beside a name: "Today, please, Ruth:", "Ruth, please,", "please Ruth".
_PLEASE_NAME = (re.compile(r"\b(?:please|pls)\s*,?\s*(?P<name>[A-Z][\w.'-]{1,20})\s*[,:—–!]"),
                re.compile(r"(?P<name>[A-Z][\w.'-]{1,20})\s*,\s*(?:please|pls)\b"))
#: A line opening with a member's name or mention: "@Harriet yup", "Harriet, sure", "阿青，好的".
_OPENS_WITH_NAME = re.compile(r"^\s*@?(?P<name>[^\W\d_][\w.-]{0,23}?)[\s,，:：]+(?=\S)")
_PROPOSAL_BACK = 8
#: Acts that are never an agreement. ("other" is not among them: a "yes, $300 max" the classifier
#: does not know stays the rules' agreement.)
_NOT_AGREEING = frozenset({Act.REQUEST, Act.COUNTER, Act.CONDITION, Act.RESCHEDULE, Act.REFUSE, Act.QUESTION,
                           Act.DONE})
_COND_EN = re.compile(r"(?:^|(?<=[.!?;:]\s))(?:should|were\s+(?=[^,;.!?]+?\bto\s))\s*[^,;.!?]+?(?=,)"  # "Should Coralline order …,", "Were Papyra to reorder, …"
                      r"|\b(?:if|unless|as\s+long\s+as|provided(?:\s+that)?|assuming(?:\s+that)?|supposing(?:\s+that)?"
                      r"|in\s+the\s+event(?:\s+that)?|contingent\s+(?:on|upon)|on\s+(?:the\s+)?condition(?:\s+that)?|in\s+case(?!\s+(?:anyone|anybody|someone|somebody|you|people|it\s+helps)\b)|only\s+if|only\s+(?:after|once|when)|once"
                      r"|as\s+soon\s+as)\b"
                      r"[^,;.!?]+?(?=\s+(?:i'?ll|i’ll|i\s+will|we['’]ll|i\s+can|then)\b|[,;.!?]|$)", _I)  # not "as well"
_ZH_IF_WORDS = r"(?:如果|只要|要是|假如|假若|假设|假使|倘若|倘使|若是|如若|设若|若然|一旦|除非|万一)"
_COND_ZH = re.compile(r"(?:(?:^|(?<=[，,。；;！!？?]))[^，,。；;！!？?@\s]{1,8}?(?=" + _ZH_IF_WORDS + r"))?"  # "场地押金要是退回来": its topic
                      r"(?:" + _ZH_IF_WORDS + r"|^等(?!等|一下|会|了|着|到时)"
                      # "第二批真要下单，…": the topic said before the cue is the condition's
                      r"|^[^，,。；;！!？?]{1,8}?真(?:的)?要)[^，,。；;！!？?]+?(?:的话)?"
                      r"(?=[，,。；;！!？?]|我就|就(?![有是在])|那就|$)")  # "出发前就有的感染" is still the condition
#: A condition contrary to fact, or what one would do: a wish, not a promise ("if I had a free weekend I'd
#: rewrite it", "if only I could", "要是我有钱，我就…了"); "I'd be happy to" still offers.
_COUNTERFACTUAL = re.compile(r"\bif\s+(?:i|we)\s+(?:had|were|was|could|did|didn'?t|weren'?t)\b|\bif\s+only\b"
                            r"|\b(?:i'?d|i\s+would|we'?d|we\s+would)\s+(?!be\s+(?:happy|glad)|love\s+to)", _I)
#: A wish, not an undertaking: a condition on the speaker's own windfall ("if I win the lottery", "等我发财了") or a
#: consequence that multiplies what is owed ("I'll pay you back double", "双倍还你").
_WISH = re.compile(r"\bif\s+(?:i|we)\s+(?:win|hit)\s+the\s+(?:lottery|jackpot)\b|\bif\s+(?:i|we)\s+(?:get|am|'m)\s+rich\b"
                   r"|\b(?:back\s+)?(?:double|triple|tenfold)\s*[.!]*$|\btwice\s+over\b|中了?彩票|发了?财|暴富|[双加]倍(?:还|给|奉还)", _I)
#: A no to one part of a plan: "3, no", "no to 3", "not rule 2" ("2, no problem" is a yes).
_PART_NO = re.compile(r"\b(?:(?:rule|point|part|item|number|#)\s*)?\d+\s*[,:—–-]?\s*(?:no|nope|nah)\b(?!\s+(?:problem|prob|worries|doubt|way))"
                      r"|\bno\s+(?:to|on)\s+(?:(?:rule|point|part|item|number|#)\s*)?\d+\b|\bnot\s+(?:rule|point|part|item|number|#)\s*\d+\b"
                      # "其二不行", "第三条我不同意", "B条不认", "A我不同意": a no to one clause, in Chinese
                      r"|(?:(?:其|第)(?:[一二三四五六七八九十]|\d+)(?:条|点|项)?|(?:[一二三四五六七八九十]|\d+)(?:条|点|项)"
                      r"|(?<![A-Za-z])[A-Ha-h](?:条|项)?(?=[我不，,\s])"  # not "下周六不行"
                      # a clause's number alone at the start of a sentence: "二我不认", "叁我不签"
                      r"|(?:^|(?<=[。.!！?？;；：:，,\s]))(?:[一二三四五六七八九十壹贰叁肆伍陆柒捌玖拾]|\d+)(?=我?不))[，,\s]*(?:我)?"
                      r"(?:不行|不同意|不认|不赞成|反对|不可以|没法同意|做不到|不签|不接受)", _I)
#: An English consequence that binds its speaker: "I'll …", "we can …", "happy to …".
_EN_FUTURE = re.compile(r"\b(?:i|we)(?:'ll|’ll|\s+will|\s+can|'d|’d|\s+would|\s+shall|\s+am\s+going\s+to|'m\s+going\s+to"
                        r"|'m\s+gonna|\s+promise)\b|\b(?:happy|glad)\s+to\b|\bcount\s+(?:me|us)\s+in\b|\bon\s+me\b", _I)
#: A consequence that asks the listener to speak up: "lmk if anything's missing", "链接要是打不开跟我说".
_TELL_ME = re.compile(r"\b(?:lmk|let\s+me\s+know|tell\s+me|ping\s+me|give\s+me\s+a\s+shout|shout)\b"
                      r"|(?:跟|和|告诉)我(?:说|讲)?(?:一声|一下)?|找我|喊我|叫我|私信我|@我", _I)
#: What opens a promise's consequence: "…, I'll", "…，我就".
#: A question that calls someone to account, asking why, not for a deed: "谁让你订的？", "凭什么…", "why did you …?".
_CALLS_TO_ACCOUNT = re.compile(r"谁(?:让|叫|允许)(?:你|您)|凭什么|为什么(?:你|您)|(?:你|您)(?:凭什么|怎么能|怎么可以)"
                               r"|\bwho\s+(?:told|asked|allowed)\s+you\b|\bwhy\s+(?:did|would|do)\s+you\b|\bhow\s+could\s+you\b", _I)
_SPOKEN_TO = re.compile(r"\s*@?[^\s,，:：。.!！?？]{1,16}\s*[,，:：]\s*")
_THEN = re.compile(r"^[\s,，]*(?:then\s+|那么?\s*)?(?:i'?ll|i\s+will|i\s+can|we'?ll|我就|我们就|就|我会|我)\s*", _I)
#: A proposal's cue before its content: "proposal:", "我提个方案：", "suggestion so we stop fighting:".
_CUE = re.compile(r"^[^:：]{0,64}(?<!\d)[:：](?!\d)\s*")


def puts_a_plan(text: str) -> bool:
    """Does ``text`` put a plan to everyone ("proposal: …", "so we agree: the launch moves to the 9th",
    "我提个方案：…")? Such a line moves no promise of its speaker's, whatever time it names."""
    return bool(_PROPOSAL_CUE.search(text)) or stated(text)


#: A condition on the listener's own conduct, again: an ultimatum ("你要是再这样", "if you do that again").
_ULTIMATUM = re.compile(r"(?:你|您)(?:要是|如果|再|敢)[^，,。]{0,6}?(?:这样|那样|这么|那么|敢)|(?:要是|如果)(?:你|您)再"
                        r"|\bif\s+you\s+(?:ever\s+)?(?:do\s+(?:that|this|it)\s+again|keep\s+(?:doing|this|that|\w+ing)|\w+\s+"
                        r"(?:that|this|it|me)\s+again)\b", _I)


def condition_of(text: str) -> tuple[str, str] | None:
    """(the condition as said, the rest of the line) when ``text`` sets one ("if the landlord agrees",
    "如果房东同意换成峰谷电价"), else None."""
    m = _COND_ZH.search(text) or _COND_EN.search(text)
    if m is None:
        return None
    before = text[: m.start()]
    # "大刘，要是…": a name spoken to before the condition is no part of what is promised
    rest = (before + " " + text[m.end():]) if before and not _SPOKEN_TO.fullmatch(before) else text[m.end():]
    rest = re.sub(r"[\s,，]*\b(?:but|and|so|then)$|[\s,，]*(?:但是?|不过|然后)$", "", rest.strip(" ,，"), flags=_I)
    return clean(m.group()), clean(_THEN.sub("", rest))


# A plan put to everyone, not a request to one person: "要不我们各退一步", "let's split it", "大家…".
_FOR_ALL = re.compile(r"\b(?:we|let'?s|us|everyone|everybody)\b|我们|咱们?|大家|各位", _I)
#: Words before a proposal's cue that change nothing: "ok proposal: …", "那我提个方案：…".
_OPENER = r"(?:(?:ok(?:ay)?|so|alright|right|fine|then|well|好|好吧|那|那就|行)[\s,，:：]*)*"
_PROPOSING = re.compile(r"^\s*" + _OPENER + r"(?:proposal|suggestion|idea|how\s+about|what\s+if|i\s+propose|i\s+suggest|let'?s)\b"
                        r"|^\s*" + _OPENER + r"(?:我?提(?:个|一个)?(?:议|方案|建议)|提议|方案|建议|要不)", _I)
#: An explicit proposal, at the start of the line or of any sentence in it ("ok point 3. proposal: …",
#: "ignore that. proposal for ep 8 onwards: …", "那我正式提议：…", "票价我提个方案：…").
_PROPOSAL_CUE = re.compile(r"(?:^|(?<=[.!?。！？]))\s*" + _OPENER
                           + r"(?:(?:my\s+)?(?:proposal|suggestion)(?:\s+for\s+[^:：.!?]{1,60})?\s*(?=[:：])|(?:my\s+)?(?:proposal|suggestion)\b"
                           r"|i\s+(?:propose|suggest)\b"
                           # rules put to all before their list: "rules from now on, and I'm writing them down:"
                           r"|(?:[\w'-]+\s+){0,4}?(?:new\s+|house\s+|the\s+)?rules?\b(?:\s+(?:from\s+now\s+on|going\s+forward))?"
                           r"[^:：.!?\n]{0,50}(?=[:：]))"
                           r"|(?:^|(?<=[.!?。！？]))\s*" + _OPENER
                           + r"(?:[^，,。！？!?:：]{0,8}?我?(?:正式)?提(?:个|一个)?(?:议|方案|建议)|我的?(?:建议|方案)是?[:：])"
                           # rules set down before a colon, after a lead-in too: "趁这次，以后拼班定三条规矩："
                           r"|(?:^|(?<=[.!?。！？，,]))\s*" + _OPENER
                           + r"[^，,。！？!?:：]{0,8}?(?:定|立)(?:个|一个|几条|[一二两三四五六七八九十\d]条)?(?:规矩|规则)[^:：。！？]{0,8}(?=[:：])"
                           # points put before a colon: "明细大家都看过了，我提三条，以后印务照这个来：…"
                           r"|(?:^|(?<=[.!?。！？，,]))\s*" + _OPENER
                           + r"我?提(?:几|[一二两三四五六七八九十\d])(?:条|点)[^:：。！？]{0,16}(?=[:：])",
                           _I)
#: A plan put to everyone for a yes: "…, agreed?", "everyone ok with that?", "大家同意吗？", "同意的扣1".
_PUT_TO_ALL = re.compile(r"\b(?:agreed|all\s+agreed|everyone\s+(?:ok|okay|good|fine|agree)(?:\s+with\s+(?:that|this))?"
                         r"|(?:are\s+)?we\s+(?:all\s+)?(?:agreed|good\s+with\s+(?:that|this)))\s*[?？]\s*$"
                         r"|(?:大家|各位)?(?:都)?(?:同意吗|同意不|没意见吧|觉得(?:呢|可以吗|行吗))\s*[?？]?\s*$|同意的(?:扣|回|打)1", _I)
#: A yes and nothing else: an emoji, "+1", "1", "扣1".
_ASSENT_ONLY = re.compile(r"^\s*(?:[+＋]1|1|扣1|(?:👍|✅|👌|🙌|💯|🙋|☑️|✔️|🤝|🫡|🆗|\U0001F44D[\U0001F3FB-\U0001F3FF])+)"
                          r"(?:\s*(?:[+＋]1|👍|✅|👌|🙌|💯))*\s*$")
#: A plan put as a question: "what about saturday 23:00 UTC?", "why don't we rotate?", "要不我们轮流？".
_PROPOSAL_QUESTION = re.compile(
    r"^\s*" + _OPENER + r"(?:(?:what|how)\s+about\s+(?!(?:you|me|him|her|them|it|that|this|us)\b)\S"
    r"|why\s+don'?t\s+we\b|shall\s+we\b|(?:要不|不如|要不然)(?:我们|咱们|大家)?\S)", _I)
#: A short yes that may restate what it agrees to: "sat 23 UTC fine", "8am I can survive ☕", "ok fine, works",
#: "周六晚上可以". Not a question, and no "no" in it.
_YES_WORDS = re.compile(rf"\b(?:{YES_EN}|works|agreed|agree|deal|good|perfect|great"
                        r"|i'?m\s+in|count\s+me\s+in|can\s+(?:live\s+with|survive|do)|no\s+objections?)\b"
                        r"|👍|✅|👌|🙌|🫡|🆗|可以|行|同意|没问题|没意见|赞成|好的|好啊|好呀|ok", _I)
#: (not the no of "no sweat", "no worries", "no problem": a yes)
_NO_WORDS = re.compile(r"\b(?:no(?!\s+(?:problem|prob|probs|worries|worry|sweat|biggie|bother|stress|doubt)\b)|not|never|can'?t|won'?t"
                       r"|don'?t|doesn'?t|isn'?t|but)\b|不|没法|别|[?？]", _I)
#: A clause that only says yes, grudging or not: "fine", "ok. grudgingly", "I'll take it", "行吧", "我没意见",
#: "勉强接受", "2张就2张" — a line holding one agrees, whatever else it says ("…but fine", "我没意见。那我明天…").
_YES_CLAUSE = re.compile(
    # ("yes from Almaty", "aye from the back row": a yes and where it comes from)
    r"(?:(?:ok(?:ay)?|fine|good)(?:\s+(?:by|with)\s+me)?|(?:yes|aye)(?:\s+please|\s+from\s+[^,.;!?]{1,30})?|yeah|yep|yea|sure|agreed?|deal"
    r"|grudgingly|in|count\s+me\s+in(?:\s+(?:on|for)\s+[^,.;!?]{1,30})?|(?:举双手|双手)?赞成"
    # "yes to the lot", "yes to all three", "三条我都举手", "唉，行，我认"
    r"|yes\s+to\s+(?:the\s+lot|everything|both|all(?:\s+(?:three|four|five|of\s+(?:it|them)))?|[\d\s,&]+(?:and\s+\d+)?)"
    r"|[^，,。.\s]{0,4}?(?:都|全)?举(?:双)?手|我认|认了|算我一个"
    r"|i'?ll\s+take\s+it|i\s+can\s+live\s+with\s+(?:it|that)|[+＋]1|扣1"
    r"|works(?:\s+for\s+me)?|i'?m\s+in(?:\s+on\s+(?:the\s+lot|all(?:\s+of\s+(?:it|them))?|everything|both|[\d\s,&]+(?:and\s+\d+)?))?|no\s+objections?|行吧|行|好吧|好|可以(?:可以)?|(?:那就|那|就|也|先)?同意|没意见|我没意见|没问题|勉强(?:接受|同意)|接受"
    r"|那就这样(?:吧)?|就这么定(?:了|吧)?|(?P<x>[^，,。.\s]{1,6})就(?P=x))"
    r"[\s!！~～。.…👍🙏😅🥲🙄😂吧]*", _I)
_CLAUSES = re.compile(r"[,，.。;；…!！]+|\s+(?:but|though|although)\s+|虽然|不过|但是|但", _I)
#: Words that turn the proposal down, whatever yes they hold.
_TURNED_DOWN = re.compile(r"\b(?:not\s+signing|no\s+way|i\s+(?:don'?t|do\s+not)\s+agree|disagree|against\s+it|not\s+ok(?:ay)?"
                          r"|(?:is\s+|'s\s+|’s\s+)?no\s+good|(?:doesn'?t|won'?t|does\s+not|will\s+not)\s+work"
                          r"|not\s+(?:for|with)\s+me|count\s+me\s+out|nay)\b|不同意|没法答应|不能答应|不接受|反对|不行|不可以|我不干", _I)
#: An action that only points at what was asked: "do it tomorrow after work", "send it tonight", "弄这个".
_ONLY_POINTS = re.compile(r"^\s*(?:(?:yup|yep|yes|yeah|sure|ok(?:ay)?|will\s+do|on\s+it|got\s+it|包在我身上|交给我|放心(?:吧)?"
                          r"|i\s+(?:will|shall|can)(?:\s+do(?:\s+(?:it|that))?)?"  # "I will. Thursday the 14th, …"
                          r"|安排(?:上)?)[\s.!,！。~👌]*$|"
                          r"(?:do|handle|send|fix|get|take|sort|finish|post|move|write|check|bring|pay|book|make|have|put"
                          r"|ship|push|land|add|submit|upload|deliver)"
                          r"(?:\s+(?:it|that|this|them|those))(?:\s+(?:up|out|over|done|in|off))?|弄|搞|做|发|改|交|办)"
                          r"(?:\s|[,，.。!！]|$|(?=[\u4e00-\u9fff]{0,2}(?:今|明|后|周|下|这|晚|早|上午|下午)))", _I)
#: Lines after a proposal its quick yeses may follow.
_YES_RUN = 6
_ASKS = re.compile(r"[?？]|[吗呢][\s。.!！~]*$|^\W*(?:who|what|when|where|why|how|which|did|does|is|are)\b|谁|什么|哪|几", _I)
#: Words to Heyan: its name, or "bot"/"机器人" spoken to ("bot, …", "note to the bot", "问机器人") — not "the
#: welcome bot message", "扫地机器人".
#: A thank-you, in the languages members mix in ("Obrigada Nuno ❤️", "Gracias Chidi 🙏", "merci").
_THANKS = re.compile(r"谢谢|多谢|感谢|辛苦|\b(?:thanks|thank\s+you|thx|ty|cheers|obrigad[oa]|gracias|merci|danke|grazie|arigato)\b", _I)
_TO_BOT = re.compile(r"\bheyan\b|和言|@bot\b|(?:^|[.!?。！？]\s*)(?:(?:hey|hi|ok(?:ay)?|yo|dear)\s+)?(?:the\s+)?bot\b(?!['’]s)"  # (not "The bot's dashboard …")
                     r"|\bbot\s*[,，:：]|\b(?:to|for|tell|ask|asking)\s+(?:the\s+)?bot\b|(?:^|[。！？]\s*)机器人"
                     r"|机器人\s*[,，:：]|(?:给|问|让|告诉|请|叫)机器人", _I)
#: Material pasted in a fenced block (a log, a tool's output, a file's tail): its lines are nobody's act here.
_PASTED = re.compile(r"```")
_TO_YOU = re.compile(r"\b(?:you|u)\b|你(?!们)|您", _I)


#: A line said to someone by name or title first ("队长，能不能…", "coach, can you …"), not to the group.
_VOCATIVE = re.compile(r"^\s*@?(?!(?:大家|各位|所有人|everyone|everybody|all|guys|folks|team|ok|okay|so|well)\b)"
                       r"(?!大家|各位|所有人)[^\s,，:：]{1,10}[,，:：]\s*", _I)
#: Where a deed goes, said before or after a member's name: "发给阿麦", "转给", "to Mele", "for Ji-woo", "into Ji-woo's
#: DMs", "Mele can grab".
_TO_WHOM_BEFORE = re.compile(r"(?:发|转|寄|交|递|传|送|拿|给)给?\s*$|\b(?:to|for|into|with)\s+(?:@)?$"
                             r"|\b(?:send|give|pass|forward|email|e-mail|mail|show|hand|bring)\s+(?:@)?$", _I)  # "send Yusuf the export"
#: Handed to the member named next: "send Yusuf", "give it to Mele", "发给阿麦" (not "with Mele's new bars").
_HANDED_TO = re.compile(r"\b(?:send|give|pass|forward|email|e-mail|mail|show|hand|bring)\s+(?:@)?$|\bto\s+(?:@)?$|(?:发|转|寄|交|递|传|送)给\s*$", _I)
_TO_WHOM_AFTER = re.compile(r"['’]s\s+(?:dms?|inbox|mailbox|email|hands?)\b|\s+can\s+(?:grab|get|find|see|use)\b|(?:的)?(?:邮箱|手上|手里)", _I)
#: Words before a deed told to the last speaker: "Then put …", "ok so just send …".
_TOLD_LEAD = re.compile(r"^\W*(?:(?:(?:then|so|ok(?:ay)?|alright|right|fine|well|and|now|just|also|plus|today|tonight)\b"
                        r"|还有|另外|再就是|而且)[\s,，]*)+", _I)
#: "Aliaksei, you write to Grayhollow today": a deed told with its "you".
_YOU_FIRST = re.compile(r"you\s+(?=[a-z])", _I)
#: A plan for the speaker and the listeners together: "can we …", "我们能不能…".
_TO_US = re.compile(r"\b(?:we|let'?s|us)\b|我们|咱们?|大家|各位", _I)
#: A deed told to someone: "post the full DM thread", "please send me the json" (a "re…" verb as told: "resend",
#: "re-upload", not "Reading all this …", "Really, …").
_IMPERATIVE = re.compile(r"(?:please\s+|pls\s+|just\s+)?(?:post|send|fix|write|put|bring|pay|call|check|push|upload|share|add"
                         r"|give|move|update|email|text|book|return|finish|review|merge|print|order|buy|pick\s+up|drop|clean"
                         r"|record|redo|re-?\w+(?<!ing)(?<!ed)(?<!ly)|forward|sign|file|submit|ship|mail|transfer|refund|delete|remove|pull|swap|change|replace"
                         r"|credit|correct|rename|cancel|stop|tell|hand|unpublish|restore|revert|withdraw|retract|take\s+(?:it|that|this|them)?\s*(?:down|off)"
                         # "Then ring Patchwork Post and get the pattern out …", "Then get Coralline to pull the cans today."
                         r"|ring|phone|contact|get\s+(?:\w+\s+){0,3}?(?:to|out|back|off|down|changed|fixed|removed|taken)\b)\b"
                         # "（晓雯，）今天就跟青禾说，…", "（梅姐，）我就一个要求：今天就让乐华把课件下架"
                         r"|(?:[^，,。？?]{0,10}[:：])?(?:那?你)?(?:今天|今晚|现在|马上|立刻|赶紧|明天|这周)就?(?:(?:跟|和|给|让|叫|去)[^，,。？?！!]{1,8}?(?:说|讲|谈|打电话|把|发|写信|写邮件|联系)|联系|通知)", _I)
#: What the speaker wants of the one named: "I want to read what you signed", "I want the licence agreement", "我要看全文".
_WANTS = re.compile(r"\b(?:i|we)\s+(?:want|need|would\s+like|'d\s+like|’d\s+like)\s+(?:to\s+(?:see|read|have|get)\b|the\b|a\s+copy\b|every\b|all\b)"
                    r"|我(?:们)?(?:要|想|得)(?:看|要|拿到|过目)(?!不)|(?:发|给|拿|传)(?:给)?我(?:看看|看一?下|瞧瞧|过目|一份)", _I)
#: Something told handed back to the speaker: "（娜娜，）那40块押金退给我，今天就退", "（阿程，）钱还我".
_ZH_GIVE_ME = re.compile(r"(?:那|把)?[^，,。？?!！]{0,12}?(?:交给我|给(?:我|大家)(?:看看|看一?下|瞧瞧|过目)|拿出来|" + ZH_TO_ME.pattern + ")")
#: A deed told to "you" in Chinese, after the name: "（小庄，）你今晚就把奖改回去", "（老郑，）你明天给我回个话".
_ZH_YOU_DO = re.compile(r"(?:那)?你[^，,。？?！!吗]{0,6}?(?:把|给我)(?![^，,。？?！!]*[吗呢]\s*[？?]?$)")
#: What the classifier may call a plan put to all ("all donations go to X this time. agreed?").
_MAY_PROPOSE = frozenset({Act.OFFER, Act.OTHER, Act.REQUEST, Act.QUESTION, Act.PROPOSE})


def _words(text: str) -> float:
    """How many words ``text`` holds, two Chinese characters counting as one."""
    return len(re.findall(r"[A-Za-z0-9']+", text)) + len(re.findall(r"[\u4e00-\u9fff]", text)) / 2


def _short_yes(text: str) -> bool:
    """A yes in a few words, without a no or a question ("sat 23 UTC fine", "8am I can survive ☕")."""
    return _words(text) <= 8 and bool(_YES_WORDS.search(text)) and not _NO_WORDS.search(text)


#: A condition on the speaker's own ability is a hedge, no condition: "let me see if I can find the receipt".
_OWN_ABILITY = re.compile(r"^\s*(?:if|whether)\s+i\s+(?:can|could|have\s+(?:the\s+)?time|get\s+(?:a|the)\s+chance|manage)\b"
                          r"|^\s*(?:看|看看)?我?(?:能不能|有没有空|有没有时间)", _I)


def _own_plan(text: str) -> bool:
    """Does ``text`` put a plan of its speaker's own ("Here's my offer. I …", "我的方案：…")?"""
    own = _OWN_DEED.search(text)
    return own is not None and bool(own.group("plan") or own.group("zhplan"))


#: A few words that answer nothing: a laugh, a pause, a sound ("lol", "hmm", "wait", "one sec", "啊这", "？").
_NO_ANSWER = re.compile(r"^\W*(?:lol|lmao|haha\w*|hah|heh|hmm+|hm|um+|uh+|huh|wait|what|omg|oh|ah|brb|one\s+sec|sec|wow|yikes|oof|ugh"
                        r"|哈+|呵+|嗯\?|啊这|额|呃|等等|等下|什么|啥)\W*$", _I)


def _bare(text: str) -> bool:
    """A line of a few words with no no and no question in it ("Roger, wilco.", "中！", "righto")."""
    return _words(text) <= 4 and not _NO_WORDS.search(text) and not HEDGE.search(text)  # not "再说吧", "maybe"


def _yes_clause(text: str) -> bool:
    """Does a clause of ``text`` only say yes ("…that basically kills voice input but fine. I'll take it",
    "行吧，虽然我觉得应该店家出"), with nothing turning the proposal down?"""
    if _TURNED_DOWN.search(text) or "?" in text or "？" in text:
        return False
    return any(_YES_CLAUSE.fullmatch(c.strip()) for c in _CLAUSES.split(text) if c and c.strip())


#: A request's verb that says only that something is to be done ("can you do the label?"): its object is the deed.
_LIGHT_VERB = re.compile(r"^(?:do|make|get|handle|sort(?:\s+out)?|take\s+care\s+of|deal\s+with|look\s+after|see\s+to)\s+(?=\S)", _I)
_IT = re.compile(r"\b(?:it|them)\b", _I)
_VERB_OBJ = re.compile(r"^[a-z]+(?:\s+(?:you|me|him|her|them|us))?\s+(?=(?:the|your|my|our|his|her|their|those|these)\s)", _I)
#: A verb and its bare object: "re-check rows 30–45 …" (the thing: "rows 30–45 …"), never a verb and its preposition.
_VERB_BARE_OBJ = re.compile(r"^[a-z][a-z-]*\s+(?=(?!(?:to|for|with|at|in|on|up|out|over|back|down|off|by|it|them)\b)[a-z0-9])", _I)


def _it_is(promise: CandidateFact, asked: str) -> CandidateFact:
    """A promise taking a request on that calls its object "it" ("can you do the label for the back?" — "I'll
    embroider it this weekend") names the object: "embroider the label for the back this weekend"."""
    base = split_due(asked)[0]
    thing = _LIGHT_VERB.sub("", base).strip()
    if thing == base.strip():  # "send you your raw field sheets" — "I'll scan them": the thing, not the deed
        thing = _VERB_OBJ.sub("", base, count=1).strip()
    if thing == base.strip():  # "re-check rows 30–45 of the chart" — "I'll sit down with them Sunday"
        thing = _VERB_BARE_OBJ.sub("", base, count=1).strip()
    if thing == base.strip() or not thing or not _IT.search(promise.value):
        return promise
    return dataclasses.replace(promise, value=_IT.sub(thing, promise.value, count=1),
                               attribute=_IT.sub(thing, promise.attribute, count=1))


#: "I can", "我能": taking something on in words of one's own.
_I_CAN = re.compile(r"\bi\s+(?:can|could)\b|\bi'?d\b|我(?:会|能|去)", _I)


def _moves_asked(thread: _Thread, message_id: str) -> bool:
    """Is the line ``message_id`` of the thread a request to move a promise's time ("can the label be Wednesday
    instead?"), not a plan put to all ("let's move the meeting to Thursday", which a yes agrees to)?"""
    said = next((u for u in thread.lines if u.message_id == message_id), None) if message_id else None
    return said is not None and asks_to_move(said.text) and asks_for_time(said.text) and not _FOR_ALL.search(said.text)


#: A question about what the listener did ("did you pay the postage yourself?", "have you sent it?", "你付了吗？"),
#: with no deed asked beside it ("…? if not, can you …"): its yes reports, it takes nothing on.
_PAST_Q = re.compile(r"\b(?:did|have|had)\s+(?:you|u|ya)\s+(?!got\b)|(?:你|您)[\u4e00-\u9fff]{0,6}?(?:了|过)(?:吗|没有?)\s*[?？]", _I)
_ASKS_TOO = re.compile(r"\b(?:can|could|would|will)\s+(?:you|u)\b|\bplease\b|\bpls\b|能不能|可以|能否|麻烦|帮(?:我|忙)", _I)


def _asks_past(text: str) -> bool:
    """Does a request ask only what its listener already did ("did you pay …?"), not for a deed?"""
    return bool(_PAST_Q.search(text)) and not _ASKS_TOO.search(text)


def _takes_up(text: str) -> bool:
    """Does an answer to a request say anything that takes it on — a yes, "I can", a time — rather than
    argue past it ("precedent, for those who joined late: …")?"""
    return bool(_TAKES_ON.search(text) or _ASSENT_ONLY.match(text) or _short_yes(text) or _I_CAN.search(text)
                or find_due_span(text))


def _yes_first(text: str, *, last: bool = False) -> bool:
    """Does ``text`` open (``last``: end) with a clause that only says yes ("扣1，早该这样了", "ok by me. I'd
    need a bag"; "…算了，先同意"), with no question and nothing turning the proposal down?"""
    if _TURNED_DOWN.search(text) or "?" in text or "？" in text:
        return False
    clauses = [c.strip() for c in _CLAUSES.split(text) if c and c.strip()]
    first = (clauses[-1] if last else clauses[0]) if clauses else ""
    return bool(_YES_CLAUSE.fullmatch(first) or _ASSENT_ONLY.match(first))


#: The acts by which a member takes a promise on.
_TAKES_ON_ACTS = frozenset({Act.ACCEPT, Act.OFFER, Act.COUNTER, Act.CONDITION})


#: A Chinese deed of one verb, perhaps with where it goes: "问", "弄完", "发群里", "给你" (its time taken off).
_ZH_ONE_VERB = re.compile(r"^(?:[\u4e00-\u9fff]{1,2}(?:之前|以前|前))?(?:我|就|会|来|先|再|全|都|一起|一并)*"
                          # a first doing without its object ("找出来发你", "拍好发你", "整理完发群里")
                          r"(?:[\u4e00-\u9fff]{1,2}(?:出来|好|完|齐)(?:就|再|了)?)?"
                          r"(?:[\u4e00-\u9fff](?:一下|完|好|了)?(?:到|在|给)?(?:群里|群|你|他|她|过来|过去)?"  # "(下班前)问"
                          # a verb of two with where it goes ("全打包给你"), never a noun alone ("房租")
                          r"|[\u4e00-\u9fff]{2}(?:一下|完|好|了)?(?:到|在|给)(?:群里|群|你|他|她|过来|过去))$")


#: Words of when the speaker will get to it that leave the deed as it was: "回头", "晚点" (their clock: zh_clock_asides).
_ZH_LATER = re.compile(r"^(?:回头|晚点|等下|等会儿?|待会儿?|马上|立刻|立马|现在就|这就)")


#: Thanks to someone before what is asked of another: "Thank you Rustam.", "thanks Ivo,", "谢谢阿敏。".
_THANKED = re.compile(r"\b(?:thank\s+you|thanks|thx|ty|cheers)\s*,?\s*@?[^\W\d_][\w'-]{0,20}\s*[.!,;]|谢谢@?[\u4e00-\u9fff]{1,4}[，,。！!]", _I)
_OPEN_AND = re.compile(r"^\s*(?:and|so|also|then|ok(?:ay)?|oh|还有|另外|那)[\s,，]*", _I)
#: A thing, a colon, and only a time: "The post office receipt: tomorrow, before 10 in the morning my time."
_TOPIC_COLON = re.compile(r"^\s*(?P<what>[^:：.!?。！？\n]{3,40}?)\s*[:：]\s*(?P<when>[^.!?。！？\n]{2,80})")


def _topic_time(text: str) -> str:
    """The thing of a "thing: time" line, when what follows its colon starts with a time ("第七条原文：后天夜里十点前，
    …一起贴出来"); else ""."""
    m = _TOPIC_COLON.match(text)
    span = find_due_span(m.group("when")) if m is not None else None
    # (a thing, not a report: "recut is in the team drive: 2:58 total, …")
    return m.group("what") if m is not None and span is not None and span[0] <= 3 and not _CLAUSE_VERB.search(m.group("what")) else ""


_CLAUSE_VERB = re.compile(r"\b(?:is|are|was|were|has|have|had|will|did|does|went|got)\b|['’]s\s+(?:in|on|at|up|done|here)\b|了|在|是|已经", _I)


def _vote_only(value: str) -> bool:
    """A "promise" read in a vote that is only its yes ("都签🎻", "Put you down for all four")."""
    words = clean(re.sub(r"[^\w\s]", " ", value))
    return cjk_count(words) <= 4 if cjk_count(words) else len(words.split()) <= 6


def _answered_about(text: str) -> str:
    """What a named yes answers and then offers, in its words ("Jacques, on the contract: yes. All 11 pages, in your
    inbox by 9 tomorrow" → "the contract: All 11 pages, in your inbox by 9 tomorrow"; "麦芽，你要的合同：行。后天下午
    三点以前，…一起发群里" → "你要的合同：后天下午三点以前，…一起发群里"); "" when it is no such yes."""
    opens = _OPENS_WITH_NAME.match(text)
    topic = _YES_ABOUT.match(text, opens.end()) if opens is not None else None
    if topic is None and opens is not None and _ZH_SENDS_YOU.match(text, opens.end()):
        # "周老师，合同给你，连同弈趣的打款截图，巴库时间明天晚上九点以前发你。": what is handed over, without its time
        said = re.split(r"[。！？!?\n]", text[opens.end():], maxsplit=1)[0]
        return clean(without_clock_words(split_due(without_clock_words(said, inside=True))[0], inside=True))
    if topic is None:
        return ""
    what = re.sub(r"^(?:on|about|re|as\s+for)\s+", "", (topic.group() if topic.group("zh") is None else topic.group("zh")),
                  flags=_I).split(":")[0].split(",")[0].strip()
    what = re.sub(r"(?:可以|行|好)[^：:]*$", "", what) or what  # "合同可以给你看" → "合同"
    rest = text[topic.end() :].lstrip(" .。!！,，")
    deed = re.split(r"(?<=[.!?。！？])\s*", rest, maxsplit=1)[0].strip()
    return clean(f"{what}：{deed}" if cjk_count(what) else f"{what}: {deed}") if len(clean(deed)) >= 4 else clean(what)


def _my_plan(text: str) -> bool:
    """Does a Chinese line say what its speaker will do, with no yes and no sign it was done ("阿琳，书林那份合同我一页一页
    拍下来，加上他们的转账回单，放到群文件「书林」里")?"""
    return bool(cjk_count(text)) and _ZH_MY_PLAN.search(text) is not None and PAST.search(text) is None \
        and not _ASKS.search(text) and condition_of(text) is None  # ("要是…，兽医费我自己出": a condition's promise)


def _vague(value: str) -> bool:
    """A deed of a word or two that names no thing ("我去翻", "I'll look"): the request says what it is."""
    words = re.sub(r"^(?:我们?|i(?:'ll|’ll|\s+will)?)\s*(?:[去来先]|go\s+and\s+|have\s+a\s+)?", "", clean(value), flags=_I)
    return cjk_count(words) <= 1 if cjk_count(words) else len(words.split()) <= 1


def _points_only(value: str) -> bool:
    """Does a promise's value only point at what was asked ("do it tomorrow", "周五下班前问", "周日晚上9点前发群里",
    "回头我发你", "雅典这边明早9点前发你")?"""
    plain = without_zh_clock_asides(value)  # "杭州这边周三晚上前发你": a side before a time is its clock
    bare = _ZH_LATER.sub("", without_clock_words(split_due(plain)[0] or plain, inside=True).strip(" ，,。"))
    return bool(_ONLY_POINTS.match(value) or _ZH_ONE_VERB.match(bare.strip(" ，,。"))
                or not re.search(r"\w", bare)  # "— Friday arvo, before 4": a time and nothing else
                or _ZH_ONE_VERB.match(_zh_without_times(value)))


def _zh_without_times(value: str) -> str:
    """A Chinese answer with every time, clock and "给我到…" taken off: "给我到周二，德黑兰这边夜里十点，全打包给你" →
    "全打包给你" (one clause left), else ""."""
    if value.isascii():
        return ""
    rest = value
    while (span := find_due_span(rest)) is not None:
        rest = rest[: span[0]] + "，" + rest[span[1]:]
    rest = without_zh_clock_asides(re.sub(r"^给我到?", "", rest))
    parts = [x.strip() for x in re.split(r"[，,。；;！!]", rest) if x.strip()]
    return parts[0] if len(parts) == 1 else ""


def _says_something(words: str) -> bool:
    """Do ``words`` say more than a name, a time or a pointer ("大毛", "（）之前给你")?"""
    return len(re.sub(r"[\W_]", "", words)) >= 3 and not _points_only(words)


#: A no in the first sentence: "Today, no, …", "All of it today, no.", "今天不行".
_NO_FIRST = re.compile(r"^[^.!?。！？]{0,60}?(?:\bno\b|\bnope\b|\bcan'?t\b|\bwon'?t\b|不行|不可能|没法|做不到|不给)", _I)


def _sum_offered(text: str) -> str:
    """The last sentence of ``text`` that offers a sum by a time, asking nothing ("Half, $150, by the 30th of
    September, before 10pm Karachi time."); else ""."""
    return next((x for x in reversed(re.split(r"(?<=[.!?。！？])\s*", text))
                 if MONEY.search(x) and find_due_span(x) and not _ASKS.search(x)), "")


def _names_a_deed(words: str) -> bool:
    """Do a counter-offer's words name a deed of their own ("refund the $55 instead", "180，转你"), not only a
    time or a pointer ("do Wednesday", "sort it", "（）之前给你")?"""
    # a light verb with a few words is no deed ("make it Friday", "get it done"), nor "do …" (the deed asked, at
    # another time: "do Thursday, 6pm, all twelve in one call"); with a whole object it is one ("get the factory
    # to quote a reprint of the teal alphas")
    light = (_LIGHT_VERB.match(words + " ") and len(words.split()) <= 5) or re.match(r"do\b", words, _I)
    return _says_something(words) and not light and not re.match(r"(?![$€£¥₹])[\W_]", words)  # ("€30 …" is one)


def _for_all(text: str) -> bool:
    return bool(_FOR_ALL.search(text)) and not _TO_YOU.search(text)


#: A consequence that gives something with no "I'll": "a third of the €3,000 is Nino's", "the kitty money goes
#: back out from me", "the reprint is on me".
#: Where money goes if it comes: "it goes four ways", "it goes to the twelve photographers", "your $85 goes back onto
#: your card", "none of it stays with me", "我一分不碰，…分给你们四个", "那笔钱全进学校的学费账", "版税全归译者".
_MONEY_GOES = re.compile(
    r"\b(?:it|that|this|(?:the|that|this|any|every|my|our)\s+(?:[\w$€£%-]+\s+){0,2}?(?:money|bonus|fee|payment|sum|cash|rest|share"
    r"|royalt\w*|proceeds|income|earnings|cut|advance)|your\s+\S+)\s+(?:goes|go|gets\s+(?:paid|sent|split)"
    r"|is\s+(?:paid|sent|split|shared|divided))\s+(?:back\s+)?(?:\w+\s+ways?\b|to|into|onto|on|in|between|among|evenly)\b"
    # what the money pays for: "that money pays the rig subscription for all five of us"
    r"|\b(?:the|that|this)\s+(?:[\w$€£%-]+\s+){0,2}?(?:money|fee|royalt\w*|proceeds|income)\s+(?:pays|covers|funds)\b"
    r"|\bnone\s+of\s+it\s+(?:stays|goes|comes)\s+(?:with|to)\s+me\b|\bi\s+keep\s+none\s+of\s+it\b"
    r"|(?:我|自己)?一分(?:钱)?(?:都|也)?不(?:碰|要|拿|留|动|落|过)|不落一分|一个子儿(?:都)?不留|(?:全数|全部|统统)(?:拿去|交给|捐给|用来|用于)|(?:全|都)?(?:分给|归|还给|退给|打给)(?:你们|大家|各位|[\u4e00-\u9fff]{1,3}(?:个|位))"
    r"|(?:全数|全部|全|都)进(?:了)?[\u4e00-\u9fff]{0,8}(?:账|账户|基金|公账)|(?:全|都)(?:归|给)[\u4e00-\u9fff]{1,6}|我不经手",
    re.IGNORECASE)
_GIVES = re.compile(r"\b(?:is|are)\s+(?:[A-Z][\w'’-]*['’]s|yours|his|hers|theirs|mine)(?=\W|$)|\bon\s+me\b|\bfrom\s+me\b"
                    # what the speaker pays: "… goes back in the kitty from my own pocket", "my treat"
                    r"|\b(?:from|out\s+of)\s+my\s+(?:own\s+)?(?:pocket|wallet|money)\b|\bmy\s+treat\b|\bon\s+my\s+(?:dime|tab)\b"
                    # what the speaker pays from a shared fund: "… Aram's €85 for shipping is paid out of the pot"
                    r"|\b(?:is|are|gets?)\s+paid\s+(?:back\s+)?(?:out\s+of|from)\s+(?:the\s+)?(?:pot|kitty|fund|treasury|club\s+account)\b"
                    r"|" + _MONEY_GOES.pattern,
                    re.IGNORECASE)
#: A yes that opens what follows a condition: "If Joleen keeps doing the egg-count column, yes: the registry is mine".
_YES_LEAD = re.compile(r"^(?:yes|yeah|yep|sure|ok(?:ay)?|deal)\s*[:,;—–-]\s*", re.IGNORECASE)


_IT_FIRST = re.compile(r"^(?:it|that|this)\s+(?=(?:goes|gets|is|will|comes)\b)", _I)
_THING_IN_IF = re.compile(r"\b(?:the|that|this|any|your|my|our)\s+(?:[$€£¥]?[\d,.]+%?|[\w$€£%-]+)(?:\s+(?!(?:ever|actually|really|is|are|was|gets?|goes|comes|arrives?)\b)[a-z][\w-]*)?", _I)
_ZH_OBJECT_IN_IF = re.compile(r"(?:有|出了|付了)(?P<obj>[\u4e00-\u9fff]{2,6})$")
_ZH_SUM_IN_IF = re.compile(r"那(?:笔)?[\d一二两三四五六七八九十百千万]+(?:块|元|欧|镑|刀|美元)?|那笔[\u4e00-\u9fff]{1,3}")


_NOT_A_CONDITION = re.compile(r"\b(?:as|even|what)\s+if\b", _I)


#: A deed done to "it": "run it", "take care of it", "sort it out" (the deed's first words, then "it").
_DEED_IT = re.compile(r"^(?:[a-z]+\s+){1,3}?(?P<it>it)\b(?!['’])", _I)
_WHO_WILL = re.compile(r"\b(?:who|who['’]s|whos|anyone|anybody|someone|somebody|can\s+you|could\s+you|would\s+you|will\s+you)\b", _I)
#: A deed of one verb and a time, its thing unsaid: "send tonight", "pay tomorrow", "fix by Friday".
_BARE_DEED = re.compile(r"^(?P<verb>(?!take\b|make\b|do\b|go\b|come\b)[a-z]+)(?P<rest>(?:\s+(?:tonight|today|tomorrow|now|asap|later"
                        r"|first\s+thing|(?:by|before|on|this|next|after)\s+[\w\s:]+?))*)$", _I)
#: A thing named in a question: "saturday's raid", "the loot rules doc", "your 12" (a determiner or a possessive first).
_NOUNISH = r"(?!(?:is|are|was|were|has|have|had|due|will|would|still|and|or|but|to|for|of|in|on|at|by|with|if|so)\b)[a-z][\w-]*"
_THING_NAMED = re.compile(r"\b(?:the|your|my|our|their|his|her|this|that|(?!(?:who|what|it|that|there|here|let|he|she|where|how|when)['’]s)"
                          r"[a-z]+['’]s)\s+(?:" + _NOUNISH + r"\s+){0,2}" + _NOUNISH, _I)
_POINTER = re.compile(r"(?:the|this|that|your|my)\s+(?:one|thing|stuff|time|last|same|other|way)", _I)


def _without(value: str, condition: str) -> str:
    """``value`` without the condition said inside it ("run it if Ben takes the healer spot" → "run it")."""
    return clean(value.replace(condition, " ").strip(" ,，")) or value if condition in value else value


def _named_from(condition: str, consequence: str) -> str:
    """The consequence with the thing the condition is about in place of "it" ("Assuming the 20% arrives, it goes to
    …" → "the 20% goes to …"), or before it when it names no sum of its own ("万一…追加了那三千，我一分不碰" →
    "那三千，我一分不碰")."""
    if (it := _IT_FIRST.match(consequence)) is not None and (thing := _THING_IN_IF.search(condition)) is not None:
        return f"{thing.group()} {consequence[it.end():]}"
    if cjk_count(consequence) and ((sum_ := _ZH_SUM_IN_IF.search(condition)) is not None
                                   or (sum_ := _ZH_OBJECT_IN_IF.search(condition)) is not None) \
            and sum_.group("obj" if "obj" in sum_.re.groupindex else 0) not in consequence \
            and not re.search(r"\d|[一二两三四五六七八九十百千万]+(?:块|元|欧)|钱|费|款", consequence):
        return f"{sum_.group('obj' if 'obj' in sum_.re.groupindex else 0)}，{consequence}"
    return consequence


def _apart(text: str, condition: str, value: str) -> bool:
    """Is a promise (``value``) said in a later sentence than its line's condition, the condition's own sentence
    ending before it?"""
    at, head = text.find(condition), clean(value)[:16]
    found = text.find(head) if head else -1
    if at < 0 or found < 0 or found < at:
        return False
    return re.search(r"[.!?。！？](?=\s|$)", text[at + len(condition) : found]) is not None


def _in_its_sentence(text: str, condition: str) -> str:
    """What follows a condition up to the end of its sentence ("…再议。要是Northlight同意改合同，英文版的美术版税全归阿泰。" →
    "英文版的美术版税全归阿泰"), "" when the condition is not found or nothing follows it there."""
    at = text.find(condition)
    if at < 0:
        return ""
    rest = text[at + len(condition):]
    end = re.search(r"[.!?。！？](?=\s|$|[^\d])", rest)
    return rest[: end.start() if end else len(rest)].strip(" ,，:：;；—–")


def _when_asked(text: str) -> str:
    """A short question of its own that asks by when ("…整理成一张表，发群文件？这礼拜五能弄好吗？", "… by Friday?"),
    else "": the time a request asks for apart from the sentence with its deed."""
    asked = [x.strip() for x in re.split(r"(?<=[?？])\s*", text) if x.strip().endswith(("?", "？"))]
    last = asked[-1] if len(asked) > 1 else ""
    short = len(last.split()) <= 5 if last.isascii() else cjk_count(last) <= 12
    return last if short and find_due_span(last) is not None else ""


def _asking(text: str) -> str:
    """The sentence of a line that asks (its last with a question mark), or the whole line: "Let's not. Lukas,
    can you make the repo public?" asks Lukas, whatever "let's" opened it."""
    asks = [x for x in re.split(r"(?<=[.!。！])\s+(?=\S)", text.strip()) if "?" in x or "？" in x]
    return asks[-1] if asks else text


def _zone(request: ExtractionRequest) -> str:
    return request.timezone if is_zone(request.timezone) else "UTC"


#: A time on the listener's clock ("by 9 your time", "你那边周五"), not the speaker's.
_YOUR_CLOCK = re.compile(r"\byour\s+time\b|你那边|你那里", _I)


def _due(text: str, said: Utterance, request: ExtractionRequest, owner: Utterance | None = None,
         listener: Utterance | None = None) -> datetime | None:
    """The time ``text`` (said by ``said``) names; a bare day asked of ``owner`` ends in the owner's zone; a
    time said on the ``listener``'s clock ("by 9 your time") is read on it."""
    clock = listener if listener is not None and _YOUR_CLOCK.search(said.text) else said
    zone = speaker_zone(clock.zone, _zone(request))
    if clock is said and named_zone(text) is None and (at := said.text.find(text)) >= 0 \
            and (named := named_zone(said.text[at:])) is not None:
        zone = named  # "…: both, yes, in your inbox by 9 tomorrow morning, Kiritimati time": the clause after names it
    return resolve_due(text, aware(said.ts), zone,
                       owner=speaker_zone(owner.zone, _zone(request)) if owner is not None else None)


#: A clause offering its time: "Sunday morning I can", "tomorrow works", "周四给你", "明天可以".
_OFFERING = re.compile(r"\b(?:i\s+can|i\s+could|i'?ll|i\s+will|works|ok(?:ay)?|fine|good)\b|可以|能|(?:^|[\s,，])行(?=[吧啊呀的\s,，。!！]|$)|(?<!银)行(?=[吗吧]|不行)"
                       r"|给你|发你|交|搞定|吧\s*$"
                       rf"|(?<![你他她])我(?:来|去|就|会|再)?(?:{ZH_ACTION_VERBS})", _I)  # "5月3号上午我打…", not "我妈那"


_YOUR_TIME = re.compile(r"\s+(?:my|your|our|their|his|her)\s+time\b", _I)


#: A time turned down in so many words: "the whole part by Saturday isn't happening", "周六来不及".
_NOT_HAPPENING = re.compile(r"\b(?:isn'?t|is\s+not|not|won'?t|can'?t|cannot)\s+(?:happening|happen|possible|doable)\b"
                            # "Today it can't come off", "Changing their site today is out of my hands", "… is beyond me today"
                            r"|\b(?:it|that|this|they)\s+(?:can'?t|cannot|won'?t)\b|\bout\s+of\s+my\s+hands\b|\bbeyond\s+me\b"
                            r"|来不及|做不到|不可能|够呛", _I)


#: A time turned down by a bare no right after it: "Today, no.", "今晚，不行。".
_SAID_NO_TO = re.compile(r"[^,;.!?，。；！？]+[,，]\s*(?:no|nope|nah|not\s+possible|impossible|不行|不可能|没戏)\s*(?=[.!。！;；]|$)",
                         re.IGNORECASE)


#: A clause in the past tense, and words that look ahead: "it only cleared this morning" is no time offered.
_PAST_CLAUSE = re.compile(r"\b(?:was|were|did|had|came|went|got|[a-z]{3,}ed)\b", re.IGNORECASE)
_AHEAD = re.compile(r"\b(?:will|'ll|’ll|can|could|shall|going\s+to|gonna|by|before|until|till|latest|then)\b", re.IGNORECASE)


#: A sentence that opens with a time and a colon: "sunday, before 10pm Bogotá: a greek-kern branch …",
#: "Monday, 6pm London: entry amended to …", "周日晚上十点前：重新排好的版发你".
_TIMED_HEAD = re.compile(r"(?:^|(?<=[.!?。！？\n]))\s*(?P<head>[^.!?。！？:：\n]{3,48}?)\s*[:：]\s*"
                         r"(?P<deed>(?:[^.!?。！？\n]|\.(?=\w)){4,160})")  # "1.3" is no end of a sentence


#: A head that turns something down or counts something ("All 2,000 today, no: …"): no time put as an offer.
_NO_IN_HEAD = re.compile(r"\b(?:no|not|nope|never|can'?t|won'?t)\b|不|没"
                         r"|(?<![\d,])\d[\d,]*(?![\d,])(?!\s*(?:[ap]\.?m|点|号|日|st|nd|rd|th))", re.IGNORECASE)


_HEAD_ASIDE = re.compile(r"[\s,]*\b(?:though|however|anyway|then)\b(?=[\s,]|$)", re.IGNORECASE)


#: A clock named before a Chinese time: "圣地亚哥时间晚上六点以前".
_ZONE_FIRST = re.compile(r"^\s*(?:按)?[\u4e00-\u9fff]{2,8}?时间")


def _timed_deed(text: str) -> tuple[str, str] | None:
    """(time, deed) of a counter-offer put as "<time>: <what>", the time being (nearly) all of the head,
    never one turned down; None when no sentence is put so."""
    for m in _TIMED_HEAD.finditer(text):
        # "Monday, though, before 10am Barbados time: …": the clock and a "though" say nothing of the time
        head = _HEAD_ASIDE.sub("", without_clock_words(m.group("head").strip()))
        span = find_due_span(head)
        rest = head[: span[0]] + head[span[1]:] if span is not None else ""
        if span is None or turned_down(head) or _NO_IN_HEAD.search(head) or len(re.sub(r"[\s,，]", "", rest)) > 10:
            continue
        return head[span[0] : span[1]], m.group("deed").strip()
    # "下周二，圣地亚哥时间晚上六点以前，每人四千二，打到各自卡上。": the time in clauses of its own, then the deed
    for sentence in re.split(r"(?<=[。！？!?])\s*", text):
        pieces = re.split(r"[，,]", sentence.strip())
        k = next((n for n, piece in enumerate(pieces) if not only_time(_ZONE_FIRST.sub("", piece) if named_zone(piece) else piece)), 0)
        if k and k < len(pieces) and cjk_count(sentence) and not turned_down("，".join(pieces[:k])):
            when, deed = "，".join(pieces[:k]), "，".join(pieces[k:]).strip(" 。.")
            if len(deed) >= 4 and not re.search(r"[不没别]", deed):  # not "…前，不能再晚", "…，后厨走不开": no deed
                return when, deed
    return None


def _offered_time(text: str) -> str:
    """The time a counter-offer offers: the one in a clause that offers it ("I can do it tomorrow morning
    Jakarta time, tonight I'm at a wedding" → "tomorrow morning"), else the first not turned down ("not
    tonight … tomorrow morning?", "周五不行，周日吧，我周六才有空" → "周日"); "" when it names none. A time asked
    back ("… saturday 20:00 my time?") comes before one that only bounds a state ("on nights till friday")."""
    yes = False  # "可以，周一晚上10点前，…": a time said right after a yes is the one it offers
    for piece in re.finditer(r"[^,;.!?，。；！？]+", text):
        clause = piece.group()
        span = find_due_span(clause)
        only_time = span is not None and len(clause.strip()) - (span[1] - span[0]) <= 2
        offers = (_OFFERING.search(clause) or (yes and only_time)) and not _TURNED_DOWN.search(clause)
        yes = len(clause.strip()) <= 6 and bool(_OFFERING.search(clause)) and span is None
        if span is not None and offers and not _NOT_HAPPENING.search(clause):
            # "tomorrow, by 9 your time": the hour said after a comma narrows the day
            whole = find_due_span(text[piece.start():])
            if whole is not None and whole[0] == span[0] and whole[1] > span[1]:
                return text[piece.start() + whole[0] : piece.start() + whole[1]]
            return clause[span[0] : span[1]]
    # put as a question: "thursday's no good, I'm on nights. saturday 20:00 my time?" (a sentence: "tuesday, 10pm?")
    for asked in re.finditer(r"[^.!?。！？]+[?？]", text):
        sentence = asked.group()
        span = find_due_span(sentence)
        if span is not None and not _TURNED_DOWN.search(sentence):
            return sentence[span[0] : span[1]].strip()
    # the first time not turned down ("the whole part by Saturday isn't happening. … by Monday evening")
    text = re.sub(r"[^,;.!?，。；！？]+", lambda m: " " * len(m.group()) if _NOT_HAPPENING.search(m.group()) else m.group(),
                  text)
    text = _SAID_NO_TO.sub(lambda m: " " * len(m.group()), text)  # "Today, no. … Sunday, before 6pm": not today
    # a time that says when something happened ("it only cleared this morning") offers nothing
    text = re.sub(r"[^,;.!?，。；！？]+", lambda m: " " * len(m.group()) if _PAST_CLAUSE.search(m.group())
                  and not _AHEAD.search(m.group()) else m.group(), text)
    span = find_due_span(text)
    return text[span[0] : span[1]] if span is not None else ""


class _Thread:
    """The batch's thread with its acts, and the candidates the rules gave each turn."""

    def __init__(self, request: ExtractionRequest, acts: Sequence[Act], sure: Sequence[bool] | None = None) -> None:
        self.request = request
        sure = sure if sure is not None else [False] * len(acts)
        self.sure = list(sure)
        self.lines = [dataclasses.replace(u, text=normalize(u.text)) for u in (*request.context, *request.turns)]
        # an explicit cue ("proposal: …", "我提议：…") is a proposal whatever the classifier said
        self.acts = [Act.PROPOSE if _PROPOSAL_CUE.search(u.text) or (_PUT_TO_ALL.search(u.text) and (a in _MAY_PROPOSE or a is Act.CONDITION))
                     # a thank-you the rules find nothing put in ("辛苦苏苏🙏", "👍 谢谢你提醒") proposes nothing
                     else Act.OTHER if a is Act.PROPOSE and _THANKS.search(u.text) and proposal_of(u) is None
                     else a for u, a in zip(self.lines, acts, strict=False)]
        book = self.book = NameBook.of(utterances=self.lines)
        # a deed asked or told of a member by name that the classifier took for talk or an offer ("@大飞 称重视频
        # 下周二比赛前能传到ZwiftPower上吗？", "Tomasz, post the full DM thread, tonight") is a request
        for i, u in enumerate(self.lines):
            if (self.acts[i] in (Act.OTHER, Act.QUESTION, Act.OFFER, Act.PROPOSE, Act.DONE)
                    # (a condition said before it: "if there's a Beira x going round … Rafael, can you dig out …?")
                    or (self.acts[i] is Act.CONDITION and self._asks_member_later(u))) and not _TO_BOT.search(u.text) and (
                    ((self.acts[i] is not Act.OFFER or not _OWN_DEED.search(u.text))
                     and (((self._said_to_member(u) or _VOCATIVE.match(u.text)) and asks_deed(u.text)
                           and not _TO_US.search(u.text)) or self._asks_member_later(u))
                     and not _PROPOSAL_CUE.search(u.text))
                    or self._told_to_member(u) or self._told_to_last(i) or self._pleads_with_member(u)):
                self.acts[i] = Act.REQUEST
            elif self.acts[i] is Act.ACCEPT and (self._told_to_member(u) or (self._opens_naming(u) and asks_deed(u.text))) \
                    and not _OWN_DEED.search(u.text) and not _TO_BOT.search(u.text):
                # "Agnieszka, file an appeal with the league today": a deed told to a member by name, no yes
                self.acts[i] = Act.REQUEST
        # an answer with its own time from the one just asked ("tonight I have a wedding, tomorrow morning I
        # can") counters the request, whatever the classifier called it
        for i, u in enumerate(self.lines):
            # "not by Monday mate … I'll pay half, $21, Wednesday the 3rd my time?": a refusal with an offer of
            # the speaker's own, at a time of its own, counters too
            # ("I won't rewind a whole session … what I'll do: write a one-shot, ready by the 2nd", read as a yes)
            if (self.acts[i] is Act.PROPOSE or (self.acts[i] in (Act.REFUSE, Act.OTHER) and _OWN_DEED.search(u.text))
                    # an act the classifier is unsure of, holding a plan of the speaker's own ("Here's my offer. I …")
                    # (a plan put in the deed's place, or a time turned down for another: not a yes with its own time)
                    or (not sure[i] and self.acts[i] in (Act.OFFER, Act.REQUEST, Act.RESCHEDULE, Act.ACCEPT)
                        and (own := _OWN_DEED.search(u.text)) is not None
                        and (own.group("plan") or own.group("zhplan") or own.group("zhcan") or turned_down(u.text)))
                    or (self.acts[i] in (Act.ACCEPT, Act.REQUEST) and _REFUSES_FIRST.match(u.text) and _OWN_DEED.search(u.text))
                    # "Today, no, and not all 70 … Half of the repair, 35 euros, by Friday the 16th before 6pm my time."
                    or (self.acts[i] in (Act.OFFER, Act.OTHER, Act.ACCEPT, Act.REFUSE) and _NO_FIRST.match(u.text)
                        and _sum_offered(u.text))) \
                    and (not _PROPOSAL_CUE.search(u.text) or _own_plan(u.text)) and (_offered_time(u.text) or _sum_offered(u.text)):
                # ("我的方案：明天把…发群里" right after a deed asked of its speaker: their plan, no plan put to all)
                j = next((k for k in range(i - 1, max(-1, i - 3), -1) if self.lines[k].author_id != u.author_id
                          and (self.acts[k] is Act.REQUEST or self.acts[i] is Act.PROPOSE)), None)
                if j is not None and self.acts[j] is Act.REQUEST and self._put_to(j, u.author_id):
                    self.acts[i] = Act.COUNTER
        # a plan put as a question ("what about saturday 23:00 UTC?") is a proposal; so is one that moves a
        # time ("how about thursday instead?", "要不我们改成周四？") said by someone with no promise of theirs to move
        for i, u in enumerate(self.lines):
            if _PROPOSAL_QUESTION.match(u.text) and (self.acts[i] in _MAY_PROPOSE or (
                    self.acts[i] is Act.RESCHEDULE and not any(self.lines[k].author_id == u.author_id
                                                               and self.acts[k] in _TAKES_ON_ACTS for k in range(i)))):
                self.acts[i] = Act.PROPOSE
        # an "acceptance" that says nothing to take the request on ("precedent, for those who joined late: …")
        # is talk; a change of time with no promise of its speaker's to change ("I can do them Tuesday the
        # 20th", lines after the request put to them) counters that request (``countered``: which line)
        self.countered: dict[int, int] = {}
        #: A "thing: time" line and the request, lines before, put to its speaker about that thing, which it takes on.
        self.topic_of: dict[int, int] = {}
        for i, u in enumerate(self.lines):
            # (the nearest line it may answer: a counter-offer or an offer after the request is what it takes)
            asked = next((k for k in range(i - 1, max(-1, i - 1 - _ASK_BACK), -1) if self.lines[k].author_id != u.author_id
                          and self.acts[k] in (Act.REQUEST, Act.COUNTER, Act.OFFER, Act.PROPOSE, Act.CONDITION)), None) \
                if self.acts[i] is Act.ACCEPT else None
            if asked is not None and self.acts[asked] is Act.REQUEST and self.names_others_only(asked, i) \
                    and not _MINE_BEFORE.search(u.text) \
                    and self._opens_naming(u) <= {self.lines[asked].author_id}:
                # "And Inti: … can you put a photo of it here?" — Teina's "fwiw the customs sticker says the 3rd": no yes of hers
                self.acts[i] = Act.OTHER
            elif self.acts[i] is Act.ACCEPT and (_NO_ANSWER.search(u.text) or (_THANKS.search(u.text) and _bare(u.text) and not _takes_up(u.text)) or (
                    # "hmm", "lol", "Obrigada Zain ❤️": no yes, however sure
                    not _takes_up(u.text) and not (_bare(u.text) and (sure[i] or self._asked_by_name(i))))):
                # (a sure acceptance in a few words of no no stands: "Roger, wilco.", "中！", "righto"; so does one
                # from the member the request just before named, in any words: "No sweat 🎚️", "Ndiyo.")
                self.acts[i] = Act.OTHER
            elif self.acts[i] is Act.OTHER and _bare(u.text) and not _NO_ANSWER.search(u.text) and not _THANKS.search(u.text) \
                    and self._asked_by_name(i):
                self.acts[i] = Act.ACCEPT
            elif self.acts[i] in (Act.OTHER, Act.RESCHEDULE, Act.OFFER) and (topic := _topic_time(u.text)) and (k := next((
                    k for k in range(i - 1, max(-1, i - 1 - _ASKED_FOR_BACK), -1)
                    if (self.acts[k] is Act.REQUEST or asks_deed(self.lines[k].text)) and self.lines[k].author_id != u.author_id
                    and self._put_to(k, u.author_id) and shares_content(topic, self.lines[k].text)), None)) is not None:
                # "The post office receipt: tomorrow, before 10 in the morning my time." to "Inti: … the post office receipt …?"
                self.acts[i], self.acts[k], self.topic_of[i] = Act.ACCEPT, Act.REQUEST, k
            elif self.acts[i] is Act.RESCHEDULE and not any(
                    # (a named yes is one: "Ana, the quote: yes. …" then "Friday, before 6pm." completes it)
                    self.lines[k].author_id == u.author_id and (self.acts[k] in _TAKES_ON_ACTS or _YES_ABOUT_NAMED.search(self.lines[k].text))
                    for k in range(i)):
                j = next((k for k in range(i - 1, max(-1, i - 1 - _COUNTER_BACK), -1)
                          if self.acts[k] is Act.REQUEST and self.lines[k].author_id != u.author_id
                          and any(u.author_id in hit.users for hit in book.find(self.lines[k].text))), None)
                # "Then fine. Monday, 10pm your time." right after another member's offer answers that offer
                offered = j is not None and any(self.acts[k] in _TAKES_ON_ACTS and self.lines[k].author_id != u.author_id
                                                for k in range(j + 1, i))
                if j is not None and not offered and _offered_time(u.text) and not _MOVES.search(u.text):
                    self.acts[i], self.countered[i] = Act.COUNTER, j
        # a line that asks someone for a deed ("Jun, can you send me your address by tomorrow? then it goes
        # out this week") is a request, whatever time of its own it names; so is one said to a member by name
        # that the classifier took for talk ("@大飞 称重视频下周二比赛前能传到ZwiftPower上吗？")
        for i, u in enumerate(self.lines):
            if self.acts[i] is Act.COUNTER and asks_deed(u.text):
                self.acts[i] = Act.REQUEST
        # "一、二我同意。第三条不行：…" soon after another member's plan answers it, whatever the classifier called it
        for i, u in enumerate(self.lines):
            if self.acts[i] is Act.PROPOSE and not _PROPOSAL_CUE.search(u.text) and _TURNED_DOWN.search(u.text) and any(
                    self.acts[j] is Act.PROPOSE and self.lines[j].author_id != u.author_id for j in range(max(0, i - _YES_RUN), i)):
                self.acts[i] = Act.REFUSE
        # a bare yes ("👍", "+1", "扣1") soon after a proposal, by someone else, agrees to it; so does a short
        # yes that may restate it ("sat 23 UTC fine", "8am I can survive ☕")
        for i, u in enumerate(self.lines):
            after = any(self.acts[j] is Act.PROPOSE and self.lines[j].author_id != u.author_id
                        for j in range(max(0, i - _YES_RUN), i))
            if after and not _PART_NO.search(u.text) and (_ASSENT_ONLY.match(u.text) or (
                    self.acts[i] in (Act.OTHER, Act.ACCEPT, Act.OFFER, Act.RESCHEDULE) and _short_yes(u.text)) or (
                    self.acts[i] not in (Act.QUESTION, Act.REQUEST, Act.COUNTER, Act.CONDITION, Act.PROPOSE)
                    and _yes_clause(u.text)) or (
                    # "扣1，早该这样了": a yes first, then a remark, read as a plan of its own
                    self.acts[i] is Act.PROPOSE and not _PROPOSAL_CUE.search(u.text) and _yes_first(u.text)) or (
                    # "按工时分的话，我熬的那些夜怎么算……算了，先同意": a doubt, then the yes it ends on
                    self.acts[i] is Act.CONDITION and _yes_clause(u.text) and _yes_first(u.text, last=True))):
                self.acts[i] = Act.AGREE
        self.attr = ATTRIBUTES[request.lang]
        # lines no reply may take up: attempts on memory and words to Heyan (a "sure" after one answers it)
        names = tuple({u.author_name for u in self.lines if u.author_name})
        self.barred = [u.message_id not in request.cleared and (
            u.addressed or bool(_TO_BOT.search(u.text))
            or attempt(u.text, speaker=u.author_name, names=names, addressed=u.addressed,
                       heard=[(x.author_name, x.text) for x in self.lines[:k]]) is not None)
            for k, u in enumerate(self.lines)]

    def _opens_naming(self, u: Utterance) -> set[str]:
        """The members ``u`` opens by naming ("@大飞 …", "Ayesha, …"), its speaker left out."""
        m = _OPENS_WITH_NAME.match(u.text)
        # ("Tomáš. write to Ostra …": the name ends before its full stop)
        named = {uid for hit in self.book.find(m.group("name").rstrip(".-")) for uid in hit.users} if m is not None else set()
        return named - {u.author_id}

    def names_another(self, i: int) -> bool:
        """Does line ``i`` name a member other than its speaker before its last clause ("Ana says yes to all three"; not
        "Kabul says yes to every line", "Nusrat votes for …, Ruth")?"""
        u = self.lines[i]
        head = re.split(r"[,，]\s*[^,，]{1,24}[.!。！]?\s*$", u.text)[0]
        return any(hit.users and u.author_id not in hit.users for hit in self.book.find(head))

    def _pleads_with_member(self, u: Utterance) -> bool:
        """Does ``u`` ask a member by name with a "please" beside the name ("Today, please, Ruth: …", "Ruth, please —")?"""
        return any(hit.users and u.author_id not in hit.users
                   for pattern in _PLEASE_NAME for m in pattern.finditer(u.text) for hit in self.book.find(m.group("name")))

    def _said_to_member(self, u: Utterance) -> bool:
        return bool(self._opens_naming(u))

    def _asks_member_later(self, u: Utterance) -> bool:
        """Does a later sentence of ``u`` open by naming a member and ask them for a deed ("Listened twice. … Desmond,
        please get the Ringing World to drop our audio today.")?"""
        sentences = [x for x in re.split(r"(?<=[.!?。！？])\s*", u.text) if x.strip()][1:]
        return any(self._opens_naming(dataclasses.replace(u, text=x)) and asks_deed(x) and not _TO_US.search(x)
                   for x in sentences)

    def _told_to_member(self, u: Utterance) -> bool:
        """Does ``u`` tell a member by name to do something ("Tomasz, post the full DM thread, tonight")?"""
        u = dataclasses.replace(u, text=_TOLD_LEAD.sub("", u.text))  # "And today, Aliaksei, you write to …"
        m = _OPENS_WITH_NAME.match(u.text)
        if m is None or not self._said_to_member(u):
            return False
        you = _YOU_FIRST.match(u.text, m.end())
        return bool(
            _IMPERATIVE.match(u.text, you.end() if you else m.end()) or _ZH_GIVE_ME.match(u.text, m.end()) or _ZH_YOU_DO.match(u.text, m.end())
            # "Ruth, before anything else I want to read what you signed.", "阿柚，你跟茶屿签的那份合同，我要看全文。"
            or (_WANTS.search(u.text, m.end()) is not None and not _ASKS.search(u.text)))

    def _put_to(self, j: int, uid: str) -> bool:
        """Is the request at line ``j`` put to ``uid``: by name, or naming no one, to them as the one who spoke just
        before ("那你今天就让书林把卷三撤下来。" after 老白's "是我不对")?"""
        named = [hit for hit in self.book.find(self.lines[j].text) if hit.users]
        if named:
            return any(uid in hit.users for hit in named)
        return j > 0 and self.lines[j - 1].author_id == uid

    def names_others_only(self, j: int, i: int) -> bool:
        """Is the request at line ``j`` put by name to members other than line ``i``'s speaker: opened with their name,
        after any thanks ("Thank you Rustam. And Inti: …?", "Kasia, can you …?")?"""
        text = _OPEN_AND.sub("", _THANKED.sub("", self.lines[j].text).lstrip(" .!,"))
        opens = self._opens_naming(dataclasses.replace(self.lines[j], text=text))
        return bool(opens) and self.lines[i].author_id not in opens

    def it_named(self, i: int, value: str) -> str:
        """``value`` with its "it" ("run it", "take care of it") replaced by the thing the question or request just before,
        by another member, names ("who's running saturday's raid?", "can someone update the loot rules doc?"); else ""."""
        it, bare = _DEED_IT.match(value), _BARE_DEED.match(value)
        if it is None and bare is None:
            return ""
        j = next((k for k in range(i - 1, max(-1, i - 3), -1) if self.lines[k].author_id != self.lines[i].author_id), None)
        if j is None:
            return ""
        said = self.lines[j].text
        if it is not None and "?" in said:
            # (asked who will, or asked of someone: not a nudge about a promise made before, "@Bilal the v2 signs?")
            asked = next((x for x in re.split(r"(?<=[.!?])\s+", said) if "?" in x and _WHO_WILL.search(x)), "")
        elif bare is not None and any(self.lines[i].author_id in hit.users for hit in self.book.find(said)):
            asked = said  # "@Omar the server rent is due Friday and you still haven't sent your 12" — "my bad!! sending tonight"
        else:
            return ""
        thing = next((m.group() for m in _THING_NAMED.finditer(asked)
                      if not _POINTER.fullmatch(m.group()) and not self.book.find(m.group())), "")
        if not thing:
            return ""
        if it is not None:
            return f"{value[:it.start('it')]}{thing}{value[it.end('it'):]}"
        return f"{bare.group('verb')} {thing}{bare.group('rest')}" if bare is not None else ""

    def _told_to_last(self, i: int) -> bool:
        """Is line ``i`` a deed told, with no name, to the member who spoke just before ("Then put my name on the
        track page. That's all I'm asking.", after their apology)? Not a plan for "us", not a question."""
        return self.acts[i] in (Act.OTHER, Act.OFFER) and self.tells_last(i)

    def tells_last(self, i: int) -> bool:
        """Do line ``i``'s words tell a deed, with no name, to the member who spoke just before, whatever its act?"""
        u = self.lines[i]
        if i == 0 or self.lines[i - 1].author_id == u.author_id:
            return False
        said = _TOLD_LEAD.sub("", u.text.split("\n", 1)[0])
        first = re.split(r"(?<=[.!?])\s+", said, maxsplit=1)[0]
        return bool(_IMPERATIVE.match(first)) and not _TO_US.search(first) and "?" not in first and not _OWN_DEED.search(first)

    def asked_of(self, i: int) -> int | None:
        """The request just before line ``i``, by someone else, put to ``i``'s speaker by name or to nobody
        by name: an offer right after it takes it on ("Nélia can you redo the slide?" — "I'll sort it")."""
        j = i - 1
        if j < 0 or self.acts[j] is not Act.REQUEST or self.lines[j].author_id == self.lines[i].author_id:
            return None
        named = [hit for hit in self.book.find(self.lines[j].text) if hit.users]
        return j if not named or any(self.lines[i].author_id in hit.users for hit in named) else None

    def _asked_by_name(self, i: int) -> bool:
        """Is line ``i`` said right after a request, by another member, that names its speaker?"""
        j = i - 1
        if j < 0 or self.acts[j] is not Act.REQUEST or self.lines[j].author_id == self.lines[i].author_id:
            return False
        # the member it opens by naming, else any it names ("石头，…能发给阿麦一份吗？" is put to 石头, not 阿麦)
        opens = self._opens_naming(self.lines[j])
        return self.lines[i].author_id in opens if opens else \
            any(self.lines[i].author_id in hit.users for hit in self.book.find(self.lines[j].text))

    def says_more_than_yes(self, message_id: str) -> bool:
        """Does the line ``message_id`` say more than a yes ("那就用账户付吧，我收回AA的提议" puts a plan of its own;
        "🙋🙋🙋 一二三全举" only says yes)? False for a line the thread does not hold."""
        line = next((u for u in self.lines if message_id and u.message_id == message_id), None)
        return line is not None and not (_short_yes(line.text) or _bare(line.text) or _ASSENT_ONLY.match(line.text)
                                         or (self.act_of(message_id) is Act.AGREE and cjk_count(line.text) <= 12))

    def act_of(self, message_id: str) -> Act | None:
        """The act of the line ``message_id``, when the thread holds it."""
        return next((a for u, a in zip(self.lines, self.acts, strict=True) if u.message_id == message_id), None)

    def vote(self, i: int) -> tuple[int, Vote] | None:
        """The listed proposal line ``i`` votes on, part by part or as a whole, and the vote
        (``bot.offline.votes``); None when the line names no part of the proposal before it."""
        p = self.before(i, frozenset({Act.PROPOSE}), _PROPOSAL_BACK)
        if p is None or not parts(self.lines[p].text):
            # a list put to all that the classifier did not call a proposal ("…, three rules for the label: — …")
            speaker = self.lines[i].author_id
            p = next((j for j in range(i - 1, max(-1, i - 1 - _PROPOSAL_BACK), -1) if self.lines[j].author_id != speaker
                      and not self.barred[j] and self.acts[j] is not Act.QUESTION and parts(self.lines[j].text)), None)
            if p is None or any(self.barred[k] for k in range(p, i)):
                return None
        if parts(self.lines[i].text) or re.search(r"[?？]|[吗呢][\s。.!！~]*$", self.lines[i].text):
            return None  # a list of its own answers a list with another proposal, not a vote; nor does a question
        vote = read_vote(self.lines[i].text, parts(self.lines[p].text))
        return (p, vote) if vote is not None else None

    def before(self, i: int, wanted: frozenset[Act], back: int) -> int | None:
        """The nearest line before ``i``, of someone else, whose act is one of ``wanted``; None when an
        attempt on memory or words to Heyan come first (the reply answers those, and takes up nothing)."""
        speaker = self.lines[i].author_id
        for j in range(i - 1, max(-1, i - 1 - back), -1):
            if self.lines[j].author_id == speaker:
                continue
            if self.barred[j]:
                return None
            if self.acts[j] in wanted:
                return j
        return None

    def moves_own_promise(self, i: int) -> bool:
        """Did the speaker of line ``i`` take on, lines before, a promise that line ``i`` speaks of (a word shared)?"""
        u = self.lines[i]
        return any(self.lines[k].author_id == u.author_id and self.acts[k] in _TAKES_ON_ACTS
                   and shares_content(self.lines[k].text, u.text) for k in range(i))

    def countered_for(self, j: int, i: int) -> bool:
        """Could line ``i`` take up the counter-offer at line ``j``? Only its asker can: the speaker of the
        request it turns down, or a member it names."""
        asked = self.countered.get(j, self.before(j, frozenset({Act.REQUEST}), _ASK_BACK))
        speaker = self.lines[i].author_id
        return (asked is not None and self.lines[asked].author_id == speaker) \
            or any(speaker in hit.users for hit in self.book.find(self.lines[j].text))

    def answers_later(self, j: int, i: int) -> bool:
        """Is line ``i``, a short yes with no words of its own, said right after a third member's statement
        that came after the request at line ``j``? Then it answers that statement, not the request (a
        proposal's yeses come between remarks: they still agree to it)."""
        if self.acts[j] is not Act.REQUEST:
            return False
        between = [k for k in range(j + 1, i) if self.lines[k].author_id not in (self.lines[i].author_id,
                                                                                    self.lines[j].author_id)]
        return bool(between) and between[-1] == i - 1 and self.acts[i - 1] in (Act.OTHER, Act.REFUSE) \
            and _short_yes(self.lines[i].text) and not find_due_span(self.lines[i].text)

    def named_request(self, i: int) -> int | None:
        """The request the line answers by name ("@Harriet yup, will do"): the latest, within
        ``_NAMED_BACK`` lines, by the member the line opens with and put to its speaker; else None."""
        u = self.lines[i]
        opens = _OPENS_WITH_NAME.match(u.text)
        # (a yes after what it is about: "Jacques, on the contract: yes.", "麦芽，你要的合同：行。", "阿珍，合同可以给你看：")
        topic = _YES_ABOUT.match(u.text, opens.end()) if opens is not None else None
        if opens is None or not (_TAKES_ON.match(u.text, opens.end()) or (topic is not None and _TAKES_ON.search("".join(g or "" for g in topic.group("yes", "zh", "zhyes"))))
                                 or _my_plan(u.text) or _ZH_SENDS_YOU.match(u.text, opens.end())):
            return None
        named = {uid for hit in self.book.find(opens.group("name")) for uid in hit.users}
        for j in range(i - 1, max(-1, i - 1 - _NAMED_BACK), -1):
            asked = self.lines[j]
            if self.barred[j] and asked.author_id != u.author_id:
                return None  # an attempt on memory came between: nothing before it is taken up
            if asked.author_id in named and asked.author_id != u.author_id \
                    and self.acts[j] in (Act.REQUEST, Act.COUNTER) \
                    and any(u.author_id in hit.users for hit in self.book.find(asked.text)):
                return j
        return None

    def moves_own(self, j: int, i: int) -> bool:
        """Does line ``j`` ask for another time for a promise made earlier in the thread by its speaker ("can
        the quote be Friday instead?") or by the one who answers it at line ``i`` ("分摊表能提前到今天吗")?"""
        who = {self.lines[j].author_id, self.lines[i].author_id}
        if asks_to_wait(self.lines[j].text):  # asks the thing to wait: a move, never a deed of its own
            return True
        if not (asks_to_move(self.lines[j].text) or takes_time_asked(self.lines[j].text, self.lines[i].text)):
            return False
        # a move asked only by pointing ("could you do it Tuesday instead?"): of a promise said before the
        # lines this batch reads, which the store holds (``bot.extraction.completions``)
        # (or only by a span: "分红能不能往后挪两天？")
        return _points_only(asked := requested_action(self.lines[j].text)) or moves_only(asked) or any(
            self.lines[k].author_id in who and self.acts[k] in _TAKES_ON_ACTS for k in range(j))

    def takes_up_barred(self, cand: CandidateFact) -> bool:
        """Does ``cand`` (a promise or an agreement) take up a barred line as its request or proposal?"""
        barred = {u.message_id for u, bar in zip(self.lines, self.barred, strict=True) if bar}
        return cand.kind in (Kind.COMMITMENT, Kind.CONSENSUS) and cand.message_id not in barred and any(
            cand.extra.get(key) in barred for key in ("proposal_message_id", "request_message_id"))

    def fact(self, i: int, kind: Kind, attribute: str, value: str, **more: object) -> CandidateFact:
        turn = self.lines[i]
        quote = turn.text[:MAX_CLAUSE_CHARS]
        return CandidateFact(kind=kind, subject=turn.author_id, subject_name=turn.author_name, attribute=attribute,
                             value=value, message_id=turn.message_id, quote=quote, asserted_by=turn.author_id,
                             slot=slot_of(kind, attribute, value, quote, turn.message_id), **more)  # type: ignore[arg-type]

    def promise(self, i: int, action: str, due: datetime | None, to: str, asked: Utterance) -> CandidateFact:
        bare, _ = split_due(without_clock_words(action, inside=True))
        # a deed asked for another member, whom it reaches ("…场记表能发给阿麦一份吗？", "drop it into Ji-woo's DMs"):
        # made to them
        # (not a sum shared out that names the one who asked: "六千块里四千五归周老师，剩下一千五给阿依、…")
        if not any(to in hit.users for hit in self.book.find(action)):
            to = self.reaches(action, {self.lines[i].author_id}) or to
        return self.fact(i, Kind.COMMITMENT, bare or action, action, due_at=due, recipient=to,
                         extra={"request_message_id": asked.message_id, "requested_by": asked.author_id,
                                "request_quote": asked.text[:MAX_CLAUSE_CHARS]})

    def reaches(self, action: str, besides: set[str], *, handed: bool = False) -> str | None:
        """The member a deed is to reach, named as where it goes ("发给阿麦", "to Mele", "into Ji-woo's DMs",
        "somewhere Mele can grab them"), when exactly one is; else None."""
        found = {uid for hit in self.book.find(action) if len(hit.users) == 1 and hit.users[0] not in besides
                 and (at := action.find(hit.said)) >= 0
                 and ((_HANDED_TO.search(action[max(0, at - 12) : at]) and not re.match(r"['’]s\b", action[at + len(hit.said):]))
                      if handed else (_TO_WHOM_BEFORE.search(action[max(0, at - 12) : at]) or _TO_WHOM_AFTER.match(action, at + len(hit.said))))
                 for uid in hit.users}
        return found.pop() if len(found) == 1 else None

    def asked_for(self, i: int, promise: CandidateFact) -> CandidateFact:
        """``promise`` made to the member who asked its speaker for the same thing by name, a few lines back."""
        me = self.lines[i].author_id
        for k in range(i - 1, max(-1, i - 1 - _ASKED_FOR_BACK), -1):
            u = self.lines[k]
            if u.author_id != me and not self.barred[k] and _ASKS.search(u.text) and me in self._opens_naming(u) \
                    and shares_content(promise.value, u.text):
                return dataclasses.replace(promise, recipient=u.author_id)
        # else the one whose request the promise answers at once ("那你把我那条的钱退我吧，95欧，今天。" — "钱我退不了…
        # 我能做的是把你那条拿去…找裁缝放宽"): made to them, whatever it offers instead
        if (j := self.asked_of(i)) is not None and not self.barred[j]:
            return dataclasses.replace(promise, recipient=self.lines[j].author_id)
        return promise

    def refused_plan(self, i: int, refusal: CandidateFact) -> CandidateFact:
        """``refusal`` with the whole plan as its value when it cites a proposal put with a cue."""
        cited = refusal.extra.get("proposal_message_id", "")
        proposal = next((u for u in self.lines[:i] if cited and u.message_id == cited), None)
        if proposal is None or not _PROPOSAL_CUE.search(proposal.text):
            return refusal
        plan = self.agreement(i, proposal).value
        return dataclasses.replace(refusal, value=plan) if clean(refusal.value) in proposal.text else refusal

    def agreement(self, i: int, proposal: Utterance) -> CandidateFact:
        cue = _PROPOSAL_CUE.search(proposal.text)
        said = proposal.text[cue.end():] if cue is not None and cue.start() > 0 else proposal.text  # after its preamble
        content = clean(plan_of(_CUE.sub("", said, count=1))) or clean(proposal.text)
        return self.fact(i, Kind.CONSENSUS, self.attr["agrees"], content,
                         extra={"proposal_message_id": proposal.message_id, "proposed_by": proposal.author_id,
                                "proposal_quote": proposal.text[:MAX_CLAUSE_CHARS]})


def _sends_you(text: str) -> bool:
    """Does ``text``, after the name it opens with, hand something to the one named ("小麦，合同发你，…")?"""
    opens = _OPENS_WITH_NAME.match(text)
    return opens is not None and _ZH_SENDS_YOU.match(text, opens.end()) is not None


#: The speaker as the doer, just before a deed: "I'll", "I can", "我来", "我".
_MINE_BEFORE = re.compile(r"\b(?:I|I'll|I’ll|I\s+will|I\s+can|I'm|I’m|me)\b|我(?!们)", re.IGNORECASE)


def _said_as_mine(text: str, value: str) -> bool:
    """Is ``value`` said in ``text`` with the speaker as its doer, within its clause ("…, I'll send it")?"""
    at = text.find(value[:8]) if value else -1
    clause = re.split(r"[,.;:!?，。；：！？]", text[max(0, at - 30):at])[-1] if at >= 0 else ""
    return at < 0 or bool(_MINE_BEFORE.search(clause)) or bool(_MINE_BEFORE.match(value))


def derive(request: ExtractionRequest, acts: Sequence[Act], candidates: Sequence[CandidateFact],
           confidence: Sequence[float] | None = None) -> list[CandidateFact]:
    """The rules' ``candidates`` for ``request.turns``, changed where the act sequence decides:

    * a counter-offer ("not tonight, tomorrow morning I can") to a request is its speaker's commitment to
      the one who asked, of the request's action, due at the counter's own time; the asker's acceptance of
      it ("tomorrow works") is no agreement and no promise of theirs;
    * an acceptance of a request ("yeah ok. thursday noon, my time") is the accepter's commitment to the
      asker, of the request's action, due at the acceptance's own time when it gives one, else the request's;
    * an agreement to a proposal carries the proposal's full content and cites the proposer (so the record
      names both parties; every agreeing member has one);
    * a request, counter-offer, condition, change of time, refusal, report of done or question to Heyan is
      never an agreement;
    * a promise made on a condition ("if …, I'll …", "如果…我就…", "只要…") keeps it in
      ``CandidateFact.condition`` (a conditional line with no promise the rules read gets one from its
      consequence).

    ``acts``: one per line of ``[*request.context, *request.turns]``; ``confidence``:
    each act's probability — an agreement the rules read is dropped only on a sure act (``SURE``)."""
    sure = [True] * len(acts) if confidence is None else [p >= SURE for p in confidence]
    thread = _Thread(request, acts, sure)
    if len(thread.acts) != len(thread.lines):
        raise ValueError(f"{len(thread.acts)} acts for {len(thread.lines)} lines")
    agrees, refuses = thread.attr["agrees"], thread.attr["refuses"]
    out: list[CandidateFact] = []
    offset = len(request.context)
    for i in range(offset, len(thread.lines)):
        turn, act = thread.lines[i], thread.acts[i]
        if act is Act.QUESTION and not _ASKS.search(turn.text):
            act = Act.OTHER  # "@heyan OK, deal, I agree to alternate weeks.": said to Heyan, asks nothing
        if act in (Act.ACCEPT, Act.COUNTER, Act.AGREE) and (sarcastic(turn.text) or joking(turn.text)):
            act = Act.REFUSE  # "sure, and I'll rewrite the whole backend in Rust overnight too 🙃": mockery, no yes
        mine = [c for c in candidates if c.message_id == turn.message_id]
        if (act not in (Act.QUESTION, Act.REQUEST, Act.COUNTER) or not (thread.sure[i] or _ASKS.search(turn.text))) \
                and (cond := condition_of(turn.text)) is not None \
                and _MONEY_GOES.search(cond[1]) and not _NOT_A_CONDITION.search(turn.text):
            # where money goes if it comes ("Assuming the 20% arrives, it goes to the twelve photographers", "万一…追加了
            #那三千，我一分不碰，…分给你们四个"): a promise on a condition, whatever the classifier called the line (unless
            # it surely asks: "Should Coralline order a second run, …" is no question)
            act = Act.CONDITION
        if act is Act.OTHER and any(c.kind is Kind.CONSENSUS and c.attribute == agrees
                                    and not thread.says_more_than_yes(c.extra.get("proposal_message_id", "")) for c in mine) \
                and thread.before(i, frozenset({Act.PROPOSE}), _PROPOSAL_BACK) is not None:
            # "一二三，我都赞成。…" after "🙋🙋🙋 一二三全举": a yes the rules read as one to the yes before it (or to no
            # line) is one to the proposal just put
            act = Act.AGREE
        # (a condition naming someone is no report of them: "If Joleen keeps doing the column, yes: …")
        # (nor a no to one clause of a proposal, whatever else the line reports: "二我不认：提现多久是平台说了算")
        voted = thread.vote(i) if act is not Act.QUESTION else None  # read once: the vote decides twice below
        reports = (act is not Act.CONDITION or condition_of(turn.text) is None) and not _PART_NO.search(turn.text) \
            and not (voted is not None and not thread.names_another(i))
        if any(c.extra.get("flag") for c in mine) or (any(c.reported and c.kind is Kind.EVENT and reports for c in mine)
                                                      and i not in thread.topic_of) \
                or turn.addressed or _TO_BOT.search(turn.text) or _PASTED.search(turn.text):
            # an attempt on memory, a report of someone else, words to Heyan (a note to the bot is no act
            # between members, and may be an attack the detector missed) or a pasted block ("```$ strings … |
            # OWNER J.REYES RELINQUISHES CREDIT```" is no yes to anything): the rules' reading stands
            out.extend(mine)
            continue
        kept = [c for c in mine if not (c.kind is Kind.CONSENSUS and (
            (c.attribute == agrees and act in _NOT_AGREEING and sure[i])
            # "下周二可能不行…改周四晚上8点行吗？": a time turned down for another turns no proposal down
            or (c.attribute == refuses and asks_to_move(turn.text))
            # "can the label be Wednesday instead?" — "Wednesday's fine": a move let through, nothing agreed
            or (c.attribute == agrees and _moves_asked(thread, c.extra.get("proposal_message_id", "")))
            # "I'll post it tomorrow, by 9 your time" — "9 my time works": a counter-offer taken, nothing agreed
            or (c.attribute == agrees and thread.act_of(c.extra.get("proposal_message_id", "")) is Act.COUNTER)))]
        # a refusal of a plan put with a cue refuses the plan, not a piece of it ("大家看看" of "…。大家看看")
        kept = [thread.refused_plan(i, c) if c.kind is Kind.CONSENSUS and c.attribute == refuses else c for c in kept]
        if act is Act.REQUEST and (thread._told_to_member(turn) or thread.tells_last(i)):
            # "还有，今天就给青枫写信，让他们把封面改掉。今天。": a deed told to the member spoken to, no promise of the speaker's
            kept = [c for c in kept if not (c.kind is Kind.COMMITMENT and not c.reported and not _said_as_mine(turn.text, c.value))]
        if moves_time(turn.text):
            # "打钱的事得推后四天：…改到22号（礼拜六）晚上十点前，还是卡萨布兰卡时间": a new time and no deed is the move
            # of a promise made before (bot.offline.reschedule, the store's promise when the thread no longer holds it)
            kept = [c for c in kept if not (c.kind is Kind.COMMITMENT and only_moves(c.value))]
        if act in (Act.OFFER, Act.ACCEPT, Act.OTHER, Act.RESCHEDULE) and moves_time(turn.text) and thread.moves_own_promise(i):
            # "报名表改成今晚8点前发吧" after "报名表我今天中午前发出来": the promise moves (bot.offline.reschedule), no new one
            kept = [c for c in kept if c.kind is not Kind.COMMITMENT]
        if voted is not None:
            # "❶❷❸，认。", "Four for four from me.", "I, II and IV, yes. III I can't do": a vote on a listed proposal
            # — a party to the whole when every part has its yes, else a no to it; the vote itself is no promise
            # ("三条，我都签🎻" is no "都签")
            listed, vote = voted
            whole = thread.agreement(i, thread.lines[listed])
            kept = [c for c in kept if c.kind is not Kind.CONSENSUS and not (c.kind is Kind.COMMITMENT and _vote_only(c.value))]
            out.extend([*kept, whole if vote.all_yes else dataclasses.replace(whole, attribute=refuses)]
                       if vote.all_yes or vote.no else kept)
            continue
        if _PART_NO.search(turn.text):  # "1 and 2, yes. 3, no": a no to a part is no party to the whole
            kept = [c for c in kept if not (c.kind is Kind.CONSENSUS and c.attribute == agrees)]
            if (p := thread.before(i, frozenset({Act.PROPOSE}), _PROPOSAL_BACK)) is not None:
                # "其一我认。其二不行": the no is to the proposal, not to a yes or a word said between them
                whole = thread.agreement(i, thread.lines[p])
                kept = [c for c in kept if c.kind is not Kind.CONSENSUS] + [dataclasses.replace(whole, attribute=refuses)]
        if act is Act.PROPOSE:  # "借这个机会，组里定三条，以后都照这个办：…": a plan of its own agrees to no line before it
            kept = [c for c in kept if not (c.kind is Kind.CONSENSUS and c.attribute == agrees and c.extra.get("bare") == "yes"
                                            and c.extra.get("proposal_message_id") not in ("", turn.message_id))]
            # nor to a piece of itself: "…同意哪几条，举个手🙋" asks for yeses, it says none
            kept = [c for c in kept if not (c.kind is Kind.CONSENSUS and c.attribute == agrees
                                            and c.extra.get("proposal_message_id") in ("", turn.message_id)
                                            and clean(c.value) and clean(c.value) in clean(turn.text)
                                            and len(c.value) < 0.5 * len(turn.text))]
        # "@Harriet yup, will do": the request it names, lines back; "The reminder log: tomorrow, before noon": the one its thing names
        named = thread.named_request(i)
        named = thread.topic_of.get(i) if named is None else named
        # a time and the deed it brings, put to the one who asked ("Today's not possible, …. Monday, though, before 10am: an
        # email to the features editor …"), is a counter-offer whatever else the classifier heard in it
        countering = act is Act.COUNTER or (act in (Act.RESCHEDULE, Act.OFFER, Act.OTHER, Act.REQUEST) and thread.asked_of(i) is not None
                                            and (act is not Act.REQUEST or not asks_deed(turn.text))
                                            and _timed_deed(turn.text) is not None and not thread.moves_own_promise(i))
        if countering and (j := thread.countered.get(i, thread.before(i, frozenset({Act.REQUEST}), _ASK_BACK))) is not None \
                and not _CALLS_TO_ACCOUNT.search(thread.lines[j].text) and not _asks_past(thread.lines[j].text) and (asks_deed(thread.lines[j].text) or not _ASKS.search(thread.lines[j].text)
                     # "老白，…这两件的钱你补一下呗？": put to the counter's speaker by name
                     or (any(turn.author_id in hit.users for hit in thread.book.find(thread.lines[j].text))
                         and not asks_to_move(thread.lines[j].text))):
            asked = thread.lines[j]
            timed = _timed_deed(turn.text)  # "sunday, before 10pm Bogotá: a greek-kern branch …"
            when = timed[0] if timed else _offered_time(turn.text)
            due = _due(when, turn, request, listener=asked) if when else None
            action = requested_action(asked.text)
            if due is not None:  # the time asked for was turned down: the action no longer says it
                action = _YOUR_TIME.sub("", split_due(action)[0]).strip() or action
            offered = _OWN_DEED.search(turn.text)
            said = (offered.group("deed") or offered.group("plan") or offered.group("zhplan") or offered.group("zhcan")
                    or offered.group()) if offered else timed[1] if timed else ""
            if not offered and (sum_said := _sum_offered(turn.text)):
                said = sum_said  # "Half, $150, by the 30th of September, before 10pm Karachi time.": a sum and its time, no verb
            if offered and said.isascii() and turn.text[offered.end():offered.end() + 1].isalnum():
                said = said.rsplit(" ", 1)[0]  # cut inside a word ("… Friday, 10am T"): the whole words only
            if offered and offered.group("zhplan") and (_MONEY_GOES.search(said) or MONEY.search(said)):
                # "钱我能定：九千块按首数分给四位作者，…。阿蘅四十首，四千；老吕两千；…": the share of the one who asked,
                # said in the next sentence, is what they are owed
                after = re.split(r"[。！!？?\n]", turn.text[offered.end():].lstrip("。 "), maxsplit=1)[0]
                if "你" in after or (asked.author_name and asked.author_name in after) \
                        or any(asked.author_id in hit.users for hit in thread.book.find(after)):
                    said = f"{said}。{after}"
            if said and not timed and (span := find_due_span(said)) is not None:
                # "Here is what's possible: your cover swapped in …, by Wednesday the 25th, before 9pm": its own time;
                # an hour alone narrows the day offered ("Sunday morning I can, and I'll have it uploaded by 14:00")
                # (a span counts from now: "…, out within 48 hours" is no hour of the day said before)
                own = said if names_a_day(said) or not when or counts_from_now(said[span[0]:span[1]]) \
                    else f"{when}, {said[span[0]:span[1]]}"
                due = _due(own, turn, request, listener=asked) or due
            # (the clock named after the time first: "…, by Wednesday the 27th, before 9pm Tallinn")
            deed = clean(without_clock_words(split_due(without_clock_words(said, inside=True))[0], inside=True)) if said else ""
            # "I'll pay half, $21, …": the deed the counter offers, not the one asked ("I can do Thursday, …" is
            # the one asked, at another time)
            # else the promise the rules read in the counter's own words ("…另一件我不管。180，周日之前转你")
            own_words = [clean(without_clock_words(split_due(c.value)[0], inside=True)) for c in kept
                         if c.kind is Kind.COMMITMENT and not c.reported]
            action = next((d for d in (deed, *own_words[-1:]) if _names_a_deed(d)), action)
            if _says_something(action):
                # ("大毛可以啊，我先替下一期谢谢你" asks nothing a counter could turn down)
                kept = [c for c in kept if c.kind not in (Kind.COMMITMENT, Kind.CONSENSUS)]
                kept.append(thread.promise(i, action, due or _due(action, asked, request, turn), asked.author_id, asked))
        elif act in (Act.ACCEPT, Act.AGREE) or (named is not None and (act is Act.OFFER or _short_yes(turn.text)
                                                                          or (act in (Act.OTHER, Act.DONE) and _YES_ABOUT_NAMED.search(turn.text)
                                                                              and (_offered_time(turn.text) or _answered_about(turn.text)))
                                                                          or (act in (Act.OTHER, Act.DONE) and _my_plan(turn.text))
                                                                          or (act in (Act.OTHER, Act.DONE) and _sends_you(turn.text)))) \
                or (act is Act.OFFER and thread.asked_of(i) is not None):
            j = named
            # the proposer closing the vote on their own proposal ("其他人都同意，就先按这三条执行") answers no one
            closing = any(c.kind is Kind.CONSENSUS and c.extra.get("proposed_by") == turn.author_id for c in kept)
            if j is None and not closing:
                j = thread.before(i, frozenset({Act.REQUEST, Act.COUNTER, Act.PROPOSE}), _ASK_BACK)
            if j is None and not closing:
                j = thread.before(i, frozenset({Act.PROPOSE}), _PROPOSAL_BACK)
                if j is not None and any(thread.acts[k] is Act.REFUSE and thread.lines[k].author_id == turn.author_id
                                         for k in range(j + 1, i)):
                    j = None  # "我不同意。…" then, lines later, "反正我保留追究的权利": no party to it
            if j is not None and named is None and thread.answers_later(j, i):
                j = None  # "ok fair 😅" after a third member's "that never happened": it answers that line
            if j is not None and named is None and thread.acts[j] is Act.REQUEST and any(
                    thread.acts[k] in _TAKES_ON_ACTS and thread.lines[k].author_id not in
                    (turn.author_id, thread.lines[j].author_id) for k in range(j + 1, i)):
                j = None  # "包在我身上" by the one asked, then a third member's "可以可以": taken already
            if j is not None and named is None and thread.acts[j] is Act.COUNTER and not thread.countered_for(j, i):
                j = None  # "not me, Lee said he'd lock it" then Dana's "I'll email the schedule": no yes to it
            kind = thread.acts[j] if j is not None else None
            if j is not None and kind is Act.COUNTER and not sure[j] and "?" in (ask := _asking(thread.lines[j].text)) \
                    and turn.author_id in thread._opens_naming(dataclasses.replace(thread.lines[j], text=ask)):
                kind = Act.REQUEST  # an unsure counter that ends asking the accepter by name: "… Aziz can the fund send that back?"
            if j is not None and kind is Act.REQUEST and (
                    # ("阿凯，帮个忙：把大家交班费的截图整理成一张表…": put to 阿凯 by name, whatever "大家" it names)
                    (_for_all(ask := _asking(thread.lines[j].text)) and turn.author_id not in thread._opens_naming(thread.lines[j]))
                    or _PROPOSING.match(ask)):
                # said to "us" or opened as a proposal ("proposal: …", "要不…"), whatever the classifier
                # called it: a plan put to all, agreed to
                kind = Act.PROPOSE
            if j is not None and kind is Act.COUNTER:
                # "tomorrow works": the counter-offer was its speaker's promise; nothing of the accepter's
                kept = [c for c in kept if c.kind not in (Kind.COMMITMENT, Kind.CONSENSUS)]
            elif j is not None and kind is Act.REQUEST and thread.moves_own(j, i):
                # "can the quote be Friday instead?" about a promise either of them made: a yes lets it move
                # (bot.offline.reschedule), and takes nothing new on
                kept = [c for c in kept if c.kind not in (Kind.COMMITMENT, Kind.CONSENSUS)]
            elif j is not None and kind is Act.REQUEST and i > j + 1 and thread.lines[i - 1].author_id == turn.author_id \
                    and only_time(turn.text) and not _ASKS.search(turn.text):
                # "Ana, the quote: yes. The scan and the invoice, both in the group folder." then "Friday, before 6pm.":
                # the time completes the promise just made (bot.offline.reschedule: ``follows``), no second one
                kept = [c for c in kept if c.kind not in (Kind.COMMITMENT, Kind.CONSENSUS)]
            elif j is not None and kind is Act.REQUEST and _asks_past(thread.lines[j].text):
                # "Jomar, did you pay the postage yourself?" — "yeah, 2,950 pesos": a yes that says what was done
                kept = [c for c in kept if not (c.kind is Kind.COMMITMENT and c.extra.get("request_message_id"))]
            elif j is not None and kind is Act.REQUEST and not any("request_message_id" in c.extra for c in kept) \
                    and (any(c.kind is Kind.COMMITMENT for c in kept) or _takes_up(turn.text) or _topic_time(turn.text)
                         or (named == j and (_my_plan(turn.text) or _sends_you(turn.text)))
                         # "Roger, wilco.", "中！", "righto": a sure acceptance in a few words right after the request
                         or (sure[i] and _bare(turn.text) and thread.asked_of(i) == j)
                         # "Rafael, can you dig out your notebook …?" — "Claro que sí.": the one asked by name, at once
                         or (_bare(turn.text) and thread.asked_of(i) == j and any(
                             turn.author_id in hit.users for hit in thread.book.find(thread.lines[j].text)))):
                asked = thread.lines[j]
                # ("Jacques, on the contract: yes. All 11 pages, … in your inbox by 9 tomorrow evening": what the yes is
                # about, and what it says will be done, in its own words)
                action = (_answered_about(turn.text) if named == j else "") or requested_action(asked.text)
                if (topic := _topic_time(turn.text)) and not shares_content(topic, action):
                    action = f"{clean(topic)}: {action}"  # "The post office receipt: put a photo of it here"
                # the time the yes names, else the deed's, else the one the request asks for apart from the deed
                # ("…整理成一张表，发群文件？这礼拜五能弄好吗？")
                # (its time the one a clause offers: "morning! yep, I can — Friday arvo, before 4" is due Friday)
                due = _due(_offered_time(turn.text) or turn.text, turn, request, listener=asked) \
                    or _due(action, asked, request, turn) \
                    or _due(_when_asked(asked.text), asked, request, turn)
                # (a "promise" the rules read that is only the yes itself — "没毛病，我来" as "没毛病" — is the request's)
                own = [c for c in kept if c.kind is Kind.COMMITMENT and not c.reported and not takes_it_on(c.value)]
                kept = [c for c in kept if c.kind not in (Kind.COMMITMENT, Kind.CONSENSUS)]
                # ("阿梅，合同可以看：后天中午以前，…一起发你邮箱": the rules' own words leave out what the yes is about)
                about = action if named == j and _answered_about(turn.text) else ""
                if any(_points_only(c.value) or _vague(c.value) for c in own) \
                        or (about and len(own) == 1 and about.split("：")[0].split(":")[0] not in own[0].value):
                    # "I'll sort it. you'll have it in the drive by Wednesday, 1pm": one promise, the request's
                    # action, at the first time the answer gives
                    first = next((c.due_at for c in own if c.due_at is not None), None)
                    kept.append(thread.promise(i, action, first or due, asked.author_id, asked))
                elif own:  # "yep, Tuesday evening I'll move mine": its own words, made to the asker
                    kept += [_it_is(dataclasses.replace(c, recipient=c.recipient or asked.author_id), action)
                             for c in own]
                else:
                    kept.append(thread.promise(i, action, due, asked.author_id, asked))
            elif j is not None and kind is Act.PROPOSE and not _PART_NO.search(turn.text):
                # (a no to a part refused the proposal above)
                cited = [c for c in mine if c.kind is Kind.CONSENSUS and c.attribute == agrees
                         and c.extra.get("proposal_message_id") == thread.lines[j].message_id]
                # the rules' agreement when it cites that proposal; else, or when the proposal says where its
                # content starts ("ok point 3. proposal: …"), one that carries the proposal
                if _PROPOSAL_CUE.search(thread.lines[j].text):
                    cited = []
                # a piece of the proposal ("yes" of "… yes?", its first rule of three) is not what was agreed
                whole = thread.agreement(i, thread.lines[j])
                cited = [c for c in cited if clean(c.value) not in clean(thread.lines[j].text)
                         or len(c.value) >= 0.8 * len(whole.value)]
                kept = [c for c in kept if c.kind is not Kind.CONSENSUS] + (cited or [whole])
        elif act is Act.CONDITION and (cond := condition_of(turn.text)) is not None:
            condition, consequence = cond
            if re.search(r"[.!?](?=\s)|[。！？]", consequence):  # "…再议。要是…，…全归阿泰": only its own sentence
                consequence = _in_its_sentence(turn.text, condition) or consequence
            # a promise said in another sentence than the condition's ("2) if the meter bothers anyone, ignore it.
            # 3) Mele, … a continuous mix lands in your inbox by the 20th.") stands as said
            apart = [c for c in kept if c.kind is Kind.COMMITMENT and _apart(turn.text, condition, c.value)]
            promises = [c for c in kept if c.kind is Kind.COMMITMENT and c not in apart]
            kept = [c for c in kept if c.kind not in (Kind.COMMITMENT, Kind.CONSENSUS)] + apart
            if _COUNTERFACTUAL.search(turn.text) or _WISH.search(turn.text) or _TELL_ME.search(consequence) \
                    or HEDGE.search(consequence) or _ULTIMATUM.search(turn.text) or _OWN_ABILITY.match(condition):
                # "if I had a free weekend I'd rewrite the whole doc": a wish; "I might …, don't hold me to it";
                # "你要是再这样，我就搬走": a threat on the listener's conduct, no promise
                pass
            elif promises:
                # "要是能排在周六上午，课时费我自己出": the time is the condition's, not the promise's
                timeless = bool(find_due_span(condition)) and not find_due_span(consequence)
                kept += [dataclasses.replace(c, condition=condition, due_at=None if timeless else c.due_at)
                         for c in promises]
            elif consequence and not apart and (cjk_count(consequence) or _EN_FUTURE.search(turn.text) or _GIVES.search(consequence)
                                  or (_YES_LEAD.match(consequence) and thread.asked_of(i) is not None)):
                # ("done with the soldering station, it's free if anyone needs it": says how things are, no deed)
                consequence = _YES_LEAD.sub("", consequence)
                action = _named_from(condition, strip_head(consequence) or consequence)
                bare, _ = split_due(action)
                # ("…Who covers that?" — "In case the account climbs back over $300, your $85 goes back onto your
                # card": made to the one who asked)
                # (the member the line opens by naming first: "大熊，要是…，按原价卖你")
                named_first = sorted(thread._opens_naming(turn) - {turn.author_id})
                asker = named_first[0] if len(named_first) == 1 else next(
                    (thread.lines[k].author_id for k in range(i - 1, max(-1, i - 3), -1)
                     if thread.lines[k].author_id != turn.author_id and _ASKS.search(thread.lines[k].text)), "")
                kept.append(thread.fact(i, Kind.COMMITMENT, bare or action, action, condition=condition,
                                        due_at=_due(consequence, turn, request), recipient=asker))
        elif act is Act.PROPOSE and (cue := _PROPOSAL_CUE.search(turn.text)) is not None \
                and (plan := clean(_CUE.sub("", turn.text[cue.end():], count=1))[:12]):
            # "rules from now on, and I'm writing them down: TNT only in the quarry world, …": the plan is put
            # to all, no promise of its speaker's
            kept = [c for c in kept if not (c.kind is Kind.COMMITMENT and plan in c.value)]
        elif act is not Act.CONDITION and (cond := condition_of(turn.text)) is not None:
            # a promise the rules read, on a condition the classifier did not call one: keep the "if"
            # ("I'll run it if Ben takes the healer spot": the "if" said after the deed leaves its words)
            kept = [dataclasses.replace(c, condition=cond[0], value=_without(c.value, cond[0])) if c.kind is Kind.COMMITMENT
                    and not c.condition and not _NOT_A_CONDITION.search(turn.text) and not _apart(turn.text, cond[0], c.value)
                    else c for c in kept]
        # "王磊，去年的捐款明细到底什么时候公开？" … "行，国庆前我把明细表发群里": made to the one who asked for it by name
        kept = [thread.asked_for(i, c) if c.kind is Kind.COMMITMENT and not c.recipient and not c.reported else c
                for c in kept]
        # a request the rules saw taken on, for another member ("Comfort, could you send Yusuf the sales export?" —
        # "Say no more."): made to the member it reaches
        # (not a sum shared out that names the one it was promised to: "六千块里四千五归周老师，剩下一千五给阿依、…")
        kept = [dataclasses.replace(c, recipient=to) if c.kind is Kind.COMMITMENT and c.extra.get("request_message_id")
                and not (c.recipient and any(c.recipient in hit.users for hit in thread.book.find(c.value)))
                and (to := thread.reaches(c.value, {c.subject}, handed=True)) is not None else c for c in kept]
        # "also who's running saturday's raid?" — "I'll run it if Ben takes the healer spot": "it" is the thing just asked about
        kept = [dataclasses.replace(c, value=thing_named) if c.kind is Kind.COMMITMENT
                and (thing_named := thread.it_named(i, c.value)) else c for c in kept]
        # nothing answers an attempt on memory or words to Heyan: a "sure" after one agrees to nothing
        out.extend(c for c in kept if not (thread.takes_up_barred(c)))
    ids = {u.message_id for u in request.turns}
    out.extend(c for c in candidates if c.message_id not in ids)  # nothing else should be there; keep it
    return out
