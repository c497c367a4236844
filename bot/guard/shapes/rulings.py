"""What a ruling on people looks like, in both languages: a sanction, a duty or an exemption put on
someone ("Aylin is suspended", "阿杰罚款200刀"), and the words that make it a decision ("decided", "此事已定").

A ruling alone is talk (a demand stays a demand); the shapes that carry one (``authority``,
``proxies``, ``notes``) decide when it is an attack. Quoted and reported words are mentioned, not ruled.
"""

from __future__ import annotations

import re

__all__ = ["ASSENT", "DECISION", "FINAL", "MATCHES", "SANCTION", "mentioned", "sentences", "unquoted"]

_I = re.IGNORECASE
#: How many candidate openings of one shape are examined in a message: an attack opens a line, it is
#: not the 500th "the board decided" of a paste; the bound keeps every check linear in the text.
MATCHES = 24

_BARRED = (r"(?:use|book|join|attend|come|post|enter|vote|play|take\s+part|run|lead|speak|reply|comment)\b")
#: A sanction, a duty or an exemption put on someone, or their assent declared for them.
SANCTION = re.compile(
    r"\b(?:suspended|banned|fined|kicked(?:\s+out)?|expelled|barred|excluded|disqualified|demoted|blocked|"
    r"stripped\s+of|removed\s+(?:from|as)|(?:have|has)\s+been\s+(?:re)?moved|(?:re)?moved\s+to\s+(?:another|a\s+different|the\s+other)|"
    r"reassigned|transferred|revoked|no\s+longer|"
    r"(?:is|are|was|were)\s+(?:now\s+)?(?:off|out\s+of|kicked\s+off|dropped\s+from)\s+(?:the|this|our)\s+\w+|"
    r"pays?\s+(?:the\s+|a\s+|all\s+|his\s+|her\s+|their\s+)?(?:\w+\s+)?(?:fee|fine|penalty|bill|deposit|damages|costs?)|"
    r"(?:the\s+)?only\s+one\s+responsible|sole(?:ly)?\s+responsible|"
    r"(?:is|are)\s+not\s+allowed|(?:must|has\s+to|have\s+to|will\s+have\s+to|is\s+to|are\s+to)\s+"
    r"(?:pay|cover|refund|make|do|handle|leave|apologi[sz]e|take|give|hand)|"
    r"pay(?:s|ing)?\s+(?:for\s+)?(?:the\s+)?(?:whole|entire|full|all|everything)|cover(?:s|ing)?\s+(?:the\s+)?(?:whole|entire|full|every|all)|"
    r"exempt(?:ed)?|waived|(?:does|do|did)(?:n't|\s+not)\s+(?:have|need)\s+to\s+pay|"
    r"(?:gave|gives?|given|giving)\s+up|step(?:s|ped)?\s+down|resigned|"
    r"(?:parts?|tasks?|shifts?|shares?|slots?|roles?|work|sections?)\s+(?:go(?:es)?|went|(?:is|are)\s+given|pass(?:es)?)\s+to|"
    r"takes?\s+over|in\s+charge\s+of\s+(?:all|every)|solely\s+responsible|responsible\s+for\s+(?:all|every|the\s+whole)|"
    r"owes?|liable|at\s+fault|(?:is|are)\s+out\s+of\s+(?:the\s+)?(?:project|group|team|club|league|roster|rota|guild|course)|los(?:es|t|ing)\s+(?:his|her|their)|"
    r"(?:(?:can|may)\s+no\s+longer|may\s+not|(?:is|are)\s+not\s+to)\s+" + _BARRED + r"|"
    r"(?:can't|cannot)\s+" + _BARRED + r"[^.!?\n]{0,50}\b(?:anymore|any\s+longer|until|from\s+now\s+on|for\s+the\s+rest))\b"
    r"|(?:stall|seat|spot|place|room|desk|share|money|deposit|budget|job|duty|duties)s?\s+(?:go(?:es)?|went|pass(?:es)?)\s+to\b"
    r"|罚款|罚了?\d|罚钱|暂停|停赛|禁赛|禁止|取消|作废|无效|踢出|移出|开除|除名|调到|调去|转给|交给|归[^，。,\s]{1,6}(?:负责|管)|"
    r"被(?:罚|禁|踢|移|开除|暂停|撤|取消|降|停|冻结|封|拉黑|注销)|冻结|封号|封禁|拉黑|"
    r"不(?:用|需要|必)(?:再)?(?:交|付|出|来|做|参加|值班|管|道歉|还)|免交|免除|免单|免了|免掉|减免|负责补|一个人(?:负责|承担|全出|出|付|包)|全(?:部)?由|全出|全包|"
    r"由[^，。,；;]{1,12}?(?:负责|承担|出钱|付|交|管|顶上|顶替|接手|接替|代替|出(?=[，。！!,.\s]|$))|承担|放弃|不参与|退出|撤销|收回|降为|负全责|"
    r"不得|不准|不许|赔偿|赔\d|扣(?:除|分|钱|积分|工资|押金|\d)|负责[^，。,；;]{0,8}?(?:所有|全部|一切)|(?:不再|不用再|无需再|不必再)(?:分摊|平摊|出钱|付钱|交钱)|covers?\s+(?:the\s+)?[\w\s]{0,20}?\balone\b|as\s+a\s+penalty|forfeit(?:ed|s)?|所有[^，。,]{0,8}由|"
    r"(?:不能再|以后不能|不得再|不再允许)(?:参加|使用|预订|订|来|进|发言|投票|用|参与)|违规|处分",
    _I,
)
#: Assent declared for someone: "Aylin accepted paying", "Sofia agreed she won't bring it up", "张伟同意".
ASSENT = re.compile(r"\b(?:agreed|agrees|accepted|accepts|admitted|admits|promised|consented|conceded|confessed|"
                    r"apologi[sz]ed|signed\s+off|won't\s+bring\s+(?:it|this)\s+up|"
                    r"(?:is|'s|’s|are|was)\s+(?:totally\s+|completely\s+)?(?:fine|ok|okay|happy|good|cool)\s+with)\b"
                    # "（阿宁已确认）", "小鹿已知悉": a consent marked done in someone's name
                    r"|同意|答应|承认|保证|认错|认了|接受|已(?:经)?(?:确认|知悉|批准|签字|认可)", _I)
#: Words that make a statement a decision: decided, voted, final, settled, 决定, 投票, 已定.
DECISION = re.compile(
    r"\b(?:decided|decides|decision|voted|votes?|ruled|ruling|verdict|resolved|resolution|determined|"
    r"final(?:ly)?|officially|settled|closed|do\s+not\s+reopen|don't\s+reopen|(?:not|isn'?t|isn’t)\s+up\s+for\s+(?:discussion|debate)|"
    r"(?:cleared|approved|signed\s+off)\s+by|"
    r"no\s+further\s+discussion|end\s+of\s+discussion)\b"
    r"|决定|已定|定了|投票|表决|裁定|决议|议定|拍板|不再讨论|不用再讨论|不再议|此事已定|定论|就这么定|存档|备案",
    _I,
)
#: Finality said outright: "closed, do not reopen", "此事已定，不再讨论".
FINAL = re.compile(
    r"\b(?:do\s+not\s+reopen|don't\s+reopen|not\s+up\s+for\s+discussion|no\s+further\s+discussion|"
    r"end\s+of\s+discussion|(?:this|it)\s+is\s+final|final\s+decision|decision\s+is\s+final)\b"
    r"|此事已定|不再讨论|不用再讨论|不再议|已成定论|不得再议",
    _I,
)
#: Somebody else's words being reported: "she said …", "听说 …", "according to …".
_REPORTED = re.compile(
    r"\b(?:said|says|told|tells|claims?|claimed|claiming|heard|rumou?r|apparently|according\s+to|supposedly|"
    r"if|whether|what\s+if|imagine|pretend|joking|kidding)\b[^.!?。！？]{0,60}$"
    r"|(?:说|听说|据说|传言|传闻|如果|要是|假如|万一|开玩笑)[^。！？]{0,40}$",
    _I,
)
_QUOTED = re.compile(r"\"[^\"\n]{0,300}\"|“[^”\n]{0,300}”|「[^」\n]{0,300}」|『[^』\n]{0,300}』|‘[^’\n]{0,300}’"
                     r"|(?<![A-Za-z])'[^'\n]{8,300}'(?![A-Za-z])")
_SENTENCE = re.compile(r"[^\n。！？!?；;]+?(?:[。！？!?；;]+|(?<=[^\d\s])\.(?=\s|$)|\n|$)")


def unquoted(text: str) -> str:
    """``text`` with quoted words blanked (same length): a quote is mentioned, not said."""
    return _QUOTED.sub(lambda m: " " * len(m.group()), text)


def sentences(text: str) -> list[str]:
    """Sentences, cut at CJK and Latin sentence marks and line ends — not at "2.3.0" or "v1.2"."""
    return [s.group().strip() for s in _SENTENCE.finditer(text) if s.group().strip()]


def mentioned(sentence: str, at: int) -> bool:
    """Are the words at ``at`` reported or asked about ("she said the board decided …", "did the
    board decide …?", "听说理事会决定…") rather than said?"""
    if sentence.rstrip().endswith(("?", "？")):
        return True
    return _REPORTED.search(sentence[max(0, at - 60):at]) is not None
