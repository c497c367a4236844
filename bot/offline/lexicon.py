"""The offline provider's word lists: emotions and the cue phrases for intents, in Chinese and English.

Compiled once, so every rule agrees on a promise, demand, agreement or hedge. Chinese patterns guard
with look-arounds (no word boundaries); each is anchored or of bounded length, so scans are linear.
Measured on ``tests/data/extraction_corpus.jsonl`` (``heyan bench extraction``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "ACK",
    "AGREE",
    "CAN_NOT_PROMISE",
    "CLOSING",
    "COMMIT_EN",
    "COMMIT_ZH",
    "COMPLAINT",
    "DELEGATE",
    "DEMAND",
    "EMOTIONS",
    "EN_COMMIT_HEAD",
    "EN_HANDING",
    "FIRST_PERSON",
    "HEDGE",
    "LEADING_TIME",
    "LEAD_PROMISE_TAG",
    "MONEY",
    "NEGATION_BEFORE",
    "NEG_COMMIT",
    "NOT_A_PROMISE",
    "PAST",
    "PROMISE_TAG",
    "PROPOSAL",
    "QUESTION",
    "REFUSE",
    "REFUSING_QUESTION",
    "REPORTED",
    "REQUEST_QUESTION",
    "STANDING",
    "STOPWORDS_EN",
    "SUM",
    "YES_EN",
    "YES_ZH",
    "ZH_COMMIT_HEAD",
    "ZH_TO_ME",
    "Emotion",
    "emotion_named",
    "find_emotions",
]

_I = re.IGNORECASE


@dataclass(frozen=True, slots=True)
class Emotion:
    """One emotion concept: its normalised labels and the class ``classify`` reports."""

    zh: str
    en: str
    klass: str  # calm | upset | angry | hurt | anxious
    pattern: re.Pattern[str]

    def label(self, lang: str) -> str:
        return self.zh if lang == "zh" else self.en


def _emotion(zh: str, en: str, klass: str, zh_words: str, en_words: str) -> Emotion:
    return Emotion(zh, en, klass, re.compile(rf"(?:{zh_words})|\b(?:{en_words})\b", _I))


#: Ordered by strength: the first concept a clause matches is the one reported.
EMOTIONS: tuple[Emotion, ...] = (
    _emotion(
        "生气", "angry", "angry", "生气|气死|愤怒|火大|恼火|气愤",
        "angry|furious|mad|pissed(?: off)?|livid|outraged",
    ),
    _emotion("受够了", "fed up", "angry", "受够了?|忍无可忍", "fed up|sick of|had enough|sick and tired|tired of"),
    _emotion("委屈", "hurt", "hurt", "委屈|受伤|心寒|被冒犯|不被尊重", "hurt|wronged|disrespected|insulted"),
    _emotion("失望", "disappointed", "hurt", "失望|寒心", "disappointed|let down"),
    _emotion("难过", "sad", "hurt", "难过|伤心|心痛", "sad|heartbroken|upset and sad|gutted|devastated|miserable|crushed"),
    _emotion("焦虑", "anxious", "anxious", "焦虑|着急|紧张|压力很大|压力好大", "anxious|stressed|nervous|panicking"),
    _emotion("担心", "worried", "anxious", "担心|担忧|害怕", "worried|concerned|scared|afraid"),
    _emotion(
        "沮丧", "frustrated", "upset", "沮丧|无语|崩溃|心累|累死了?|累坏了|(?:很|好|太|特别|非常|超|真)累",
        "frustrated|frustrating|exhausted|drained",
    ),
    # "麻烦" is "trouble"/"could you please", not annoyance
    _emotion("烦", "annoyed", "upset", "(?<!麻)烦(?!请)", "annoyed|annoying|irritated"),
    _emotion("被忽视", "ignored", "upset", "被忽视|被无视|没人理", "ignored|invisible|left out"),
    _emotion("不满", "dissatisfied", "upset", "不满意?|很有意见",
             r"dissatisfied|unsatisfied|not\s+(?:at\s+all\s+)?(?:happy|satisfied|pleased)"),
    _emotion("不开心", "upset", "upset", "不开心|不高兴|不爽", "upset|unhappy"),
)

#: A negation just before an emotion word cancels it: "我不生气", "I'm not angry".
NEGATION_BEFORE = re.compile(
    r"(?:不|没有?|别|并不)(?:太|很|再|是|算)?$|\b(?:not|never|n't|no longer)\s+(?:\w+\s+)?$", _I
)

#: Verbs of doing something for someone, in the progressive ("sending the photos now"): with a time, a promise.
EN_HANDING = (
    r"sending|transferring|paying|returning|dropping|bringing|covering|fixing|cleaning|calling|emailing|texting"
    r"|forwarding|refunding|replacing|handling|booking|ordering|picking\s+up|sorting|posting|sharing|writing|finishing"
    r"|submitting|updating|uploading|repairing|buying|giving|handing|delivering|mailing|wiring|settling|signing|redoing"
    r"|rewriting|swapping|making\s+sure|taking\s+care\s+of|cooking|making|preparing|organi[sz]ing|arranging"
    r"|setting\s+up|driving|helping|hosting|feeding|watering|walking|ordering|moving\s+(?:my|the|our)"
)

#: Cues of uncertainty. A hedged promise is not a commitment; other hedged facts get low confidence.
HEDGE = re.compile(
    r"可能|也许|大概|或许|说不定|应该会|尽量|试试|试着|看看|考虑|不一定|不确定|不知道|争取|不敢保证|有空的话"
    r"|如果可以|如果有时间|再说吧|再看吧|改天|再(?:商量|聊|谈|讨论|议|研究)"
    r"|\b(?:maybe|might|perhaps|probably|possibly|i think i|i guess|i suppose|not sure|i don'?t know|i dunno"
    r"|try to|i'?ll try|will try|i'?ll see(?!\s+to\s+it)|we'?ll see|see if i can|hopefully|i hope to|could"
    r"|consider(?!\s+(?:it|this|that|the\s+\w+(?:\s+\w+)?)\s+(?:done|handled|sorted))"
    r"|think about|no promises|can'?t promise|if i (?:can|have time|get (?:a|the) chance)|if possible)\b",
    _I,
)

#: English promise heads, anchored at the clause's subject: "I'll", "I promise to", "we're going to".
EN_COMMIT_HEAD = re.compile(
    r"^(?:i|we)\s*(?:'ll|’ll|\s+will|\s+shall|'m\s+going\s+to|’m\s+going\s+to|\s+am\s+going\s+to|'re\s+going\s+to"
    r"|\s+are\s+going\s+to|'m\s+gonna|’m\s+gonna|\s+am\s+gonna|'re\s+gonna|\s+are\s+gonna"
    r"|(?:'m|’m|\s+am|'re|’re|\s+are)\s+planning\s+(?:to|on)|\s+plan\s+to|\s+intend\s+to"
    r"|\s+promise|\s+swear|\s+guarantee|\s+commit"
    r"|\s+give\s+you\s+my\s+word)"
    r"(?:\s+(?:that\s+)?(?:i|we)(?:'ll|’ll|\s+will)|\s+(?:to|that|you)\b)?"
    r"(?:\s+(?:make\s+sure(?:\s+(?:to|that|i))?|definitely|really|also|absolutely|personally|be\s+sure\s+to))*\s*",
    _I,
)

#: An English clause that promises: a promise head, "I can … from now on", "I won't … again".
COMMIT_EN = re.compile(
    r"^(?:i|we)\s*(?:'ll|’ll|\s+will|\s+shall)\b"
    r"|^(?:i|we)\s*(?:'m|’m|\s+am|'re|’re|\s+are)\s+(?:going\s+to|gonna|planning\s+(?:to|on))\b"
    r"|^(?:i|we)\s+(?:plan|intend)\s+to\b"
    r"|^(?:i|we)\s+(?:promise|swear|guarantee|commit\s+to)\b"
    r"|^i\s+give\s+you\s+my\s+word\b|^promise\s+(?:i'?ll|i\s+will|to|you'?ll|you\s+will)\b"
    r"|^(?:leave\s+it\s+(?:to|with)\s+me|count\s+on\s+me|consider\s+it\s+done|i'?m\s+on\s+it)\b",
    _I,
)

#: Words after "I'll" that make it a figure of speech, not a promise ("I'll be honest").
NOT_A_PROMISE = re.compile(
    r"^(?:be\s+(?:honest|frank|blunt|upset|angry|mad|furious|sad|fine|okay|ok|happy|glad|surprised)"
    r"|admit|say\s+(?:this|it|that)|tell\s+you\s+(?:what|something|this)|never\s+forget|believe\s+it"
    r"|wait\s+and\s+see|let\s+it\s+go|remember\s+(?:this|that)|give\s+you\s+that|leave\s+it\s+there"
    r"|have\s+to\s+think|need\s+to\s+think|think\b|see\b(?!\s+to\s+it)|let\s+you\s+know\s+if"
    r"|know\b(?!\s+(?:you|her|him|them|everyone|the\s+group)\b)"  # "we'll know in August": a state
    # a state or a place, not a deed: "I'll be late", "I'm going to be away", "going to bed", "going to need …"
    r"|be\s+(?:a\s+(?:bit|little)\s+|so\s+|very\s+|really\s+|running\s+)?(?:late|away|busy|out|home|off|sick|gone|asleep"
    r"|around|at\s+work|in\s+(?:a\s+)?meeting|on\s+(?:holiday|vacation|leave)|travel+ing|working)\b"
    r"|level\s+with|be\s+(?:real|straight)\s+with|not\s+lie|lie\b|pass\b(?!\s+(?:it|the|this|that|on|along|them)\b)"
    r"|never\s+(?:understand|forgive|know|get)\b|need\b|have\s+to\b|has\s+to\b|believe\b|miss\b|regret\b|lose\b|(?:bed|sleep|school|class|church|town|lunch|dinner)\b"
    r"|work\b(?!\s+on\b)|(?:the|a|an|my|your|his|her|their|our)\s+(?:gym|store|shop|office|doctor|dentist|hospital|party"
    r"|movies|beach|bathroom|toilet|meeting|bank|airport|station)\b)",
    _I,
)

#: "I can …" promises only with a time marker; these verbs of perception never promise.
CAN_NOT_PROMISE = re.compile(r"^(?:i|we)\s+can\s+(?:see|hear|understand|imagine|tell|feel|guess|say|only)\b", _I)

#: Chinese promise heads after the subject (我/我们, at most a few characters before the cue).
ZH_COMMIT_HEAD = re.compile(
    r"^(?:我们?|咱们?)(?!妈|爸|哥|姐|弟|妹|家|老婆|老公|男朋友|女朋友|朋友|同事|室友|老板|儿|孩)(?P<pre>[^，,。你他她把给的被不没]{0,8}?)"
    r"(?P<cue>保证|答应|承诺|发誓|一定会?|肯定会|绝对会?|(?<![开聚约机散例年舞宴社工协体误理学])会(?!议|面|员|长|计|儿|很|太|比较|非常|有点|特别|挺|更|被)|将会?|负责|马上|这就|立刻|立即|尽快|今天就|明天就|今晚就"
    r"|先来|(?<![从后原本将过起出回未])来(?=吧?$)|(?<![从后原本将过起出回未])来(?=[\u4e00-\u9fff])(?!说|讲|看|想|问|决定|晚|迟|了|过|自|的|着)"
    r"|去(?=[找跟和把给交付还买修换打清洗搬收退说谈问])"
    r"|以后不再|以后不会再|再也不|不会再|不再)"
)

#: A Chinese clause that promises: a promise head, a first-person 把 sentence that hands something
#: over, a deadline with 前/之前 before an action, or "以后不再…". See ``rules._is_commitment``.
COMMIT_ZH = re.compile(
    ZH_COMMIT_HEAD.pattern
    + r"|^(?:我们?)(?:[^，,。你他她]{0,10}?)(?:把|(?:发|交|还|付|寄|送|退|转|打)给)"
    # "我先从我自己账户里转你400": a sum or a thing handed to the listener
    r"|^(?:我们?)(?!想|希望|觉得|以为|记得|忘)(?:[^，,。你他她]{0,10}?)(?:还|付|寄|退|转|赔|补)(?:您|你)(?=[\d一二两三四五六七八九十几百千万半]|$)"
    r"|^(?:以后|今后|从今以后|从今天起|从现在起|从现在开始|从今晚开始|从明天起|从明天开始)[^，,。]{0,6}?(?:不再|不会再|再也不|绝不|会|都会)"
    r"|^(?:我们?)(?:以后|今后)(?=轮流|每|都|一起|按|准时|提前|不|会|要|负责)"
    r"|^(?:这事|这件事|这个)?(?:就)?(?:交给我|包在我身上)|^放心吧?我"
    # the subject left out, as Chinese does: "（放心，）周末前一定搞定"
    r"|^(?:[^，,。你他她]{1,10}?(?:之前|以前|前|之内|以内|内)[，,]?)?(?:一定|保证|肯定会)(?!要)"
)

#: Something handed back to the speaker: "还给我", "退我", "转我" — never "交给我" (taking a task on), "转给我妈".
ZH_TO_ME = re.compile(r"(?:还|退|转|发|寄|赔|补)(?:给|回)?我(?!们|自己|来|去|先|就|会|的|家|妈|爸|哥|姐|弟|妹|老|爷|奶|外|姥|叔|舅|姑|姨)")

#: The speaker has done it already: a report, not a promise ("我已经把钱转给你了", "昨天我把钥匙还给他").
PAST = re.compile(r"已经|了[。！!.~]*$|(?:给|还|转|付|交|发|寄|垫)[^，,。]{0,8}了(?=[，,])|过了|刚才|刚刚|昨天|上周|上次|之前就|去年|前年|上个?月|[答承]应过|承诺过|保证过|说过"
                  # "主线写了八个月", "练了三遍": how long or how often it was done; "我就先垫了图库音乐": what was done then
                  r"|[\u4e00-\u9fff]了[一二两三四五六七八九十几半\d]+个?(?:月|年|天|周|星期|礼拜|小时|钟头|次|遍)|就先?(?:垫|用|填|放|投|签|买|付|拿)了")

#: Markers of a standing promise ("from now on", "以后"): it has no deadline, only a start.
STANDING = re.compile(
    r"从今以后|从今天起|从现在起|从现在开始|从今晚开始|从明天起|从明天开始|(?<![0-9一二两三四五六七八九十天周月年时点号钟])以后"
    r"|今后|每天|每晚|每次|再也不|不再|不会再"
    r"|\b(?:from\s+now\s+on|going\s+forward|from\s+(?:today|tonight|tomorrow|monday|next\s+week)\s+on"
    r"|starting\s+(?:today|tonight|tomorrow|now|next\s+\w+|this\s+\w+|on\s+\w+|monday|tuesday|wednesday"
    r"|thursday|friday|saturday|sunday)|every\s+(?:day|night|week|time|morning|evening)|anymore|any\s+more|ever\s+again"
    r"|no\s+longer|stop\s+\w+ing|quit\s+\w+ing)\b",
    _I,
)

#: A clause that is only a promise tag: "I promise", "保证", "说到做到". It binds its sentence.
PROMISE_TAG = re.compile(
    r"^(?:(?:and\s+|yes\s+)?i\s+(?:promise|swear)(?:\s+you)?|promise|you\s+have\s+my\s+word|i\s+give\s+you\s+my\s+word"
    r"|我保证|保证|我发誓|我承诺|说到做到)[\s!！。.~～]*$",
    _I,
)

#: A promise tag that opens its clause: "You have my word, the noise stops at 10", "我保证，…".
LEAD_PROMISE_TAG = re.compile(
    r"^(?:(?:you\s+have\s+my\s+word|i\s+give\s+you\s+my\s+word)(?:\s+that)?\s*[,，:：!！]*"
    r"|(?:(?:i\s+)?promise(?:\s+you)?|i\s+swear|trust\s+me|我保证|我发誓|我向你保证|说到做到)\s*[,，:：!！]+)\s*(?=\S)",
    _I,
)

#: Taking something on ("leave it to me", "交给我"): binds the promise next to it like a tag.
DELEGATE = re.compile(
    r"^(?:(?:just\s+)?leave\s+(?:it|this|that|them|the\s+[^,.;!?]{1,50}?)\s+(?:to|with)\s+me|count\s+on\s+me"
    r"|consider\s+(?:it|this|that)\s+done|(?:i'?m\s+)?(?:on|working\s+on)\s+it|will\s+do|can\s+do"
    r"|(?:这事|这件事|这个)?(?:就)?(?:交给我|包在我身上|我来?负责|我来)(?:吧|了)?|放心吧?)[\s!！。.~～]*$",
    _I,
)

#: Questions that ask the other side to do something: a demand, not a question about the record.
REQUEST_QUESTION = re.compile(
    r"^(?:could|can|would|will)\s+you\s+(?:please\s+)?(?:please|kindly)\b|^please\b|\bplease\s+(?:stop|give|pay|send"
    r"|return|move|clean)\b"
    r"|^(?:could|can|would|will)\s+you\s+(?:please\s+)?(?:stop|not|quit)\b|^would\s+you\s+mind\b"
    r"|^你(?:[^，,。我]{0,4}?)(?:能不能|可不可以|能)(?:[^，,。]{0,4}?)(?:把|别|不要|少|小点)|^(?:能不能|可不可以)请你|^麻烦你"
    r"|^(?:能不能|可不可以|能否|可否)(?:别|不要|把|少|小点|轻点|早点)|^[^，,。你我]{0,6}?能(?:不能)?(?:别|不要)"
    r"|^[^，,。你我]{0,6}?(?:能|可以|能不能)把[^，,。]{1,12}?(?:还|给|交|发|退)(?:给)?我"
    r"|^你?[^，,。]{0,8}?把[^，,。]{1,12}?(?:还|给|交|发|退)(?:给)?我(?!们)[^，,。]{0,3}?(?:好吗|行吗|可以吗|好不好|行不行)",
    _I,
)

#: Rhetorical questions that refuse: "凭什么要我…？", "why should I pay for that?".
REFUSING_QUESTION = re.compile(r"凭什么|\bwhy\s+should\s+i\b", _I)

#: A time phrase that opens a clause before its subject: "From tonight on, I …", "Starting Monday, …".
LEADING_TIME = re.compile(
    r"^(?:from\s+now\s+on|going\s+forward|from\s+(?:next\s+|this\s+)?\w+\s+on|starting\s+(?:next\s+|this\s+)?\w+"
    r"|as\s+of\s+\w+|从今以后|从[^，,。我]{1,6}?(?:起|开始)|以后|今后)[\s,，]*",
    _I,
)

#: Demands: what the speaker wants from the other side.
DEMAND = re.compile(
    r"^希望你(?!好|开心|早日|身体|一切|顺利)|^(?:我们?)(?:[^，,。]{0,4}?)(?:要求|希望|想要(?!不要)|需要(?!想|考虑|思考|冷静|休息|静一静|时间|一点时间)|坚持|只要|只想"
    r"|想让|想请)"
    r"|^你先把|^你[^，,。我]{0,8}?(?:之前|以前|前)把[^，,。]{1,12}?(?:还|给|交|发|退)(?:给)?我(?!们)|^(?:别|不要|不许)(?!说|提|客气|担心|介意|着急|急|怕|生气|难过|紧|了|管)|必须|请你|(?<![我申邀])请(?!问|教|假|客|坐|进|多|稍|柬|吃|喝)|麻烦你|你得|你应该|你要(?!是)|你最好|给我一个|你能不能"
    r"|能不能请你|^你[^，,。]{0,12}?(?:之前|以前)先(?!走|去)|^你(?:别|不要|不许|少)(?!管了|担心|急|着急|客气|介意|在意|操心|费心)"
    r"|^[^，,。我你他她]{0,10}?(?:之前|以前|前)?把[^，,。]{1,12}?(?:还|给|交|发|退)(?:给)?我(?!们)"
    r"|^i(?:'d|’d|\s+would)\s+(?:like|love|prefer)\b(?!\s+to\b)"
    r"|^i(?:'d|’d| would)?\s+(?:just\s+|really\s+|only\s+|still\s+)?(?:want|demand|expect|insist|would\s+like|'d\s+like|like\s+you\s+to|need\s+you\b"
    r"|need\s+(?:a|an|the|my|our|some|it|this|that|him|her|them)\b|ask\s+(?:you\s+)?(?:for|that|to))\b"
    r"|^we\s+(?:want|demand|need|expect|insist)\b|^i'?m\s+going\s+to\s+need\b|^please\b|^you'?re\s+going\s+to\s+(?:pay|fix|clean|replace|return|give|apologi[sz]e|cover)\b|\byou(?:'ll|’ll|\s+will)?\s+(?:must|need\s+to|have\s+to|should|better)\b",
    _I,
)

#: Agreement with what was proposed. Checked after REFUSE, which holds the negated forms.
AGREE = re.compile(
    r"(?<![得须需要经])同意(?!的(?:扣|回|打|请|举手|话)|吗|不|与否|否|才|就能|方可)|(?<![不反])赞成(?!吗|不)|就这么办|就这样吧|那就这样(?=[。！!.~\s]*$)|就这么定|可以接受|我接受|成交|没问题|一言为定|说定了|我没意见|行吧就这样"
    r"|\bi\s+agree\b|^(?:ok(?:ay)?[,\s]+)?agreed\b|(?<!never\s)(?<!n't\s)(?<!not\s)\bagreed\b(?!\s+(?:on|to|that|upon)\b)|^deal\b|\bit'?s\s+a\s+deal\b|\bdeal[.!]*$|sounds\s+good|that\s+works|works\s+for\s+me"
    r"|就按你说的办|按你说的来|听你的|\bthat'?s\s+fair\b"
    r"|^(?:好的?|好啊|好吧|行吧?|行啊|可以(?:啊|吧)?|嗯嗯?|ok|okay)[，,]\s*那?就(?!算了)(?=[\u4e00-\u9fff\d])|就这样定|(?:^|[,，]\s*)deal\b"
    r"|\bi'?m\s+(?:good|cool|fine|ok|okay)\s+with\b|\bsounds\s+(?:fair|great|fine|reasonable|ok|okay|right|perfect)\b|\blet'?s\s+go\s+with\s+(?:that|it|this|your)\b"
    r"|(?:就|那就)?(?:按|照)(?:这个|这样|你的|你说的)(?:来|办|做)|\b(?:fine|ok|okay|good|alright)\s+(?:by|with)\s+me\b|\bi\s+accept\b|let'?s\s+do\s+(?:that|it)\b|\bi'?m\s+(?:ok|okay|fine)\s+with\b|\bfair\s+enough\b"
    # an assent, then the proposal said again: "Fine, let's use a shared calendar", "yeah ok, three ways it is"
    r"|^(?:(?:fine|ok(?:ay)?|sure|yeah|yep|yes|alright|all\s+right)[\s,.!]+)+(?:then[\s,]+)?let'?s\s+(?!not\b|do\s+(?:it|that|this)\b|go\s+with\b)"
    r"|^(?:(?:fine|ok(?:ay)?|sure|yeah|yep|yes|alright)[\s,.!]+)+[^,.!?]{1,30}?\s+it\s+is[.!\s]*$"
    r"|^(?:(?:fine|ok(?:ay)?|sure|yeah|yep|yes|alright)[\s,.!]+)*[^,.!?]{1,30}?(?:\s+works|'s\s+fine)(?:\s+for\s+(?:me|us))?"
    r"(?=[\s.!,]*$|\s*[,;—–-])",
    _I,
)

#: A bare "OK"/"好的": agreement only when it is the whole message, else just a discourse marker.
#: A sum of money written out: "180", "$21", "400块", "20刀".
SUM = r"[¥￥$€]?\d+(?:\.\d+)?(?:块钱?|元|刀|块)?"
#: A sum of money, said with its currency or in Chinese hundreds and thousands: "$1,200", "€900", "400块", "四千五".
MONEY = re.compile(r"[$€£¥￥]\s?\d|\d[\d,.]*\s?(?:dollars?|euros?|pounds?|块钱?|元|欧|刀|美元)"
                   r"|[一二两三四五六七八九十]+[百千万][一二三四五六七八九]?|[一二两三四五六七八九十百千万]+(?:块|元)", _I)
#: The words of a bare yes, in one place for every rule that hears one ("aye", "妥" were added to each of
#: several lists by hand before): English, then Chinese.
YES_EN = r"ok(?:ay)?|sure|alright|yes|yep|yeah|yup|aye|yea|fine"
YES_ZH = r"好的?|好吧|行|可以|嗯嗯?|没问题"
#: A bare yes and nothing else: an agreement when it answers a proposal, never an offer.
ACK = re.compile(rf"^(?:{YES_EN}|{YES_ZH})[\s.!！。,，~]*$", _I)

#: Refusals: "no" to a proposal or a demand. "I won't … again" is a promise and is checked first.
REFUSE = re.compile(
    r"不同意|(?<!行)不行(?![不吗么?？])|我拒绝|拒绝|不可能|没门|不接受|我(?:是|才|就|也|可|绝对|肯定)?不会(?!再)|不答应|不干|休想|凭什么要我|我才不|我不(?:赔|付|道歉|让|搬|给|还"
    r"|出|做|去|换|签|交|借|背|认|管|买单)|^(?:不|不要|不用了?|不了)[。！!.\s]*$|^(?:不|不要|不用了?)[，,]"
    r"|门都没有|想都别想|想得美|做梦吧?|才怪|开什么玩笑|别开玩笑了?"
    r"|\bi\s+refuse\b|\bno\s+way\b|\bi\s+(?:don'?t|do\s+not)\s+agree\b"
    r"|\bi\s+(?:don'?t|do\s+not|can'?t|cannot|won'?t)\s+accept\b|\bi\s+disagree\b"
    r"|\bi\s+(?:won'?t|will\s+not)\b(?!\s+be\s+(?:able|home|around|available|free|back|in\s+town)\b|\s+forget\b|\s+let\s+you\s+down\b"
    r"|\s+tell\s+(?:anyone|anybody|a\s+soul)\b|\s+say\s+a\s+word\b)"
    r"|\bi'?ll\s+pass\b"
    # "let's not", "nah let's not", "let's not, it'll get messy" (not "let's not fight": a proposal)
    r"|^(?:(?:nah|no|nope|hmm+|um+|actually|honestly|ok(?:ay)?)[\s,]+)*let'?s\s+not"
    r"(?:\s+(?:do|go\s+with)\s+(?:that|this|it))?(?=[\s.!]*$|\s*[,;—–-])"
    r"|^(?:算了吧?|别了吧?)[，,]\s*(?=不|别)"
    r"|\b(?:doesn'?t|does\s+not|won'?t|will\s+not)\s+work\s+for\s+(?:me|us)\b"  # "算了吧，不按人头": dismissed, then the proposal refused
    r"|不能接受|没法接受|无法接受|接受不了"
    r"|\bno\s+deal\b|\b(?:never|not)\s+(?:going\s+to\s+)?agree\b|\b(?:not\s+|un)acceptable\b|\bi\s+reject\b"
    r"|^(?:no|nope|nah)\b[.!\s]*$|\b(?:hard|flat|big)\s+no\b|\bnot\s+a\s+chance\b|,\s*(?:but\s+)?no[.!]*$|^(?:no|nope|nah)\s*,(?!\s*i\s+(?:haven'?t|didn'?t|don'?t|wasn'?t|'m\s+not|am\s+not|never))|\b(?:that|this|it)\s+(?:doesn'?t|does\s+not|won'?t)\s+work\s+for\s+me\b"
    r"|\bnot\s+happening\b|\bi'?m\s+not\s+(?=(?:paying|going\s+to(?!\s+(?:lie|pretend|argue|repeat|sugar-?coat|fight|judge"
    r"|say|bother|beat\s+around))|doing|giving|apologi[sz]ing|moving)\b)"
    r"|\bi\s+can'?t\s+(?:accept|agree)\b|\bforget\s+it\b|^(?:absolutely|certainly|definitely|of\s+course)\s+not\b"
    r"|\bi'?m\s+not\s+(?!(?:kidding|joking|saying|feeling|talking|trying|being|getting|looking|asking|sure|going\s+to\s+(?:lie|pretend|argue|repeat|sugar-?coat|fight|judge|say|bother))\b)"
    r"\w+ing\b",
    _I,
)

#: Someone else's words or deeds reported by the speaker: the speaker's claim, never the other's fact.
REPORTED = re.compile(
    r"^(?:他们?|她们?|对方|人家|老板|房东|房主|经理|卖家|买家|店家|同事|室友|会长|队长)"
    r"(?:[^，,。我]{0,6}?)(?:说|答应|承诺|保证|同意|表示|告诉我|声称|发誓|欠|会|要|从来不|总是|又没|根本没|没有?|把|已经|刚)"
    r"|^你(?:[^，,。我]{0,4}?)(?:说过|答应过?|承诺过?|保证过?|明明说|从来都?不|从来没|总是|老是|又|根本没|一直没|还没|上次说"
    r"|没有?(?!事|错|关系))"
    r"|^(?![我你咱刚明今昨后前上下这那每第])(?:(?![你我他她它就按照])[\u4e00-\u9fff]){2,3}"
    r"(?:说过?(?!的)|答应过?|承诺过?|保证过?|告诉我|声称|发誓|同意了|(?:今天|明天|后天|今晚|下周|周末|下个?月|这周)(?:会|要|打算))"
    r"|听说|据说|据(?:他|她)说"
    r"|^(?:he|she|they|(?:my|the|our|your)\s+(?:landlord|roommate|flatmate|boss|manager|neighbou?r|friend|partner"
    r"|sister|brother|colleague|teammate|guild\s+master|officer|leader))\s+(?:said|says|told|promised|agreed|claimed"
    r"|claims|swore|will|'ll|’ll|would|'d|is\s+going\s+to|was\s+going\s+to|owes|admitted|never|always|didn'?t|keeps)\b"
    r"|^(?!(?:i|we|you|it|this|that|there|everyone|everybody|nobody|someone|somebody|anyone|today|tomorrow|tonight"
    r"|monday|tuesday|wednesday|thursday|friday|saturday|sunday|next|the|my|our|your|which|what|who|how|when|where|why"
    r"|one|both|each|all|none|either|neither|here|let|what|who)\b)(?-i:[A-Z][a-z]+)(?:'s|’s)\s+(?:going\s+to|gonna|planning\s+to)\b"
    r"|^(?!(?:i|we|you|it|this|that|there|everyone|everybody|nobody|someone|somebody|anyone|today|tomorrow|tonight"
    r"|monday|tuesday|wednesday|thursday|friday|saturday|sunday|next|the|my|our|your|which|what|who|how|when|where|why"
    r"|one|both|each|all|none|either|neither)\b)(?-i:[A-Z][a-z]+(?:\s[A-Z][a-z]+)?)\s+(?:said|says|told|promised"
    r"|agreed|claimed|claims|swore|owes|admitted|never|always|didn'?t|keeps|will|'ll|’ll|is\s+going\s+to|is\s+gonna"
    r"|is\s+planning\s+to|wants\s+to|plans\s+to)\b"
    r"|^我?记得(?:[^，,。]{0,4}?)(?:你|他|她|他们|她们)(?:[^，,。]{0,4}?)(?:说过?|答应过?|承诺过?|保证过?)"
    r"|^you\s+(?:said|told|promised|agreed|swore|never|always|didn'?t|did\s+not|haven'?t|keep|kept|still\s+haven'?t)\b"
    r"|\bi\s+heard\b|\baccording\s+to\b|^(?:apparently|supposedly|reportedly)\b",
    _I,
)

#: A promise not to do something again: "I won't be late again", "我以后不再…". Checked before REFUSE.
NEG_COMMIT = re.compile(
    r"^(?:i|we)\s*(?:won'?t|will\s+not|'ll\s+never|’ll\s+never|will\s+never)\b[^.!?]{0,160}?"
    r"\b(?:again|anymore|any\s+more|ever)\b"
    r"|^(?:i|we)\s+(?:promise|swear)\s+(?:not\s+to|never\s+to|i\s+won'?t|i'?ll\s+never|we\s+won'?t)\b"
    r"|^promise\s+(?:not\s+to|never\s+to|i\s+won'?t|i\s+will\s+not|i'?ll\s+never)\b"
    r"|^(?:it|this|that)\s+(?:won'?t|will\s+not|will\s+never)\s+happen\s+again\b"
    r"|^(?:i|we)\s*(?:won'?t|will\s+not)\s+(?:forget|let\s+(?:you|it|this)\s+(?:down|happen\s+again)|be\s+late\s+again"
    r"|tell\s+(?:anyone|anybody|a\s+soul)|say\s+a\s+word|leak)\b"
    # not doing what the listener fears is a promise: "我不会告诉别人的", "我绝不会再迟到"
    r"|^我们?(?:是|绝对|肯定|一定)?(?:不会|绝不会?)(?:再)?(?:告诉别人|告诉任何人|说出去|泄露|外传|乱说|打扰你|吵到你|迟到|食言|让你失望|忘)"
    r"|^(?:我们?)?[^，,。你他她]{0,6}?(?:以后不再|以后不会再|再也不|不会再|绝不再|保证不再|保证不会再)"
    r"|^我们?(?:以后|今后|从今以后|再也)不(?!是|知道|行|对|清楚|确定|喜欢)",
    _I,
)

#: Speaker as subject: used to decide whether an emotion is first-person.
FIRST_PERSON = re.compile(r"我|\b(?:i|i'm|i’m|me|my|myself)\b", _I)

PROPOSAL = re.compile(
    r"要不|不如|我建议|建议|我们可以|可不可以|能不能|怎么样|咱们|我提议"
    r"|\bhow\s+about\b|\bwhat\s+if\b|\bi\s+suggest\b|\bi\s+propose\b|\blet'?s\b|\bwe\s+could\b|\bwhy\s+don'?t\s+we\b"
    r"|\bcould\s+we\b",
    _I,
)

CLOSING = re.compile(
    r"谢谢|多谢|再见|就到这|到此为止|结束吧|问题解决了|没事了"
    r"|\bthanks?\b|\bthank\s+you\b|\bbye\b|\bgoodbye\b|\bthat's\s+all\b|\bwe'?re\s+done\b|\bresolved\b|\bgood\s+night\b",
    _I,
)

QUESTION = re.compile(
    r"[?？]|[吗呢]$|^(?:为什么|怎么|什么|谁|哪|何时)|^(?:what|why|how|when|who|where|did|do|can|is|are)\b", _I
)

COMPLAINT = re.compile(
    r"总是|从来不|每次都|又一次|凭什么|太过分|不公平|没做到|说话不算"
    r"|\balways\b|\bnever\b|\bagain\b|\bnot\s+fair\b|\bunfair\b|\byou\s+didn'?t\b|\byou\s+haven'?t\b|\bbroke\s+your\b",
    _I,
)

_STOPWORDS = (
    "a an the i me my you your he him his she her it its we us our they them their is are was were be been "
    "am do does did have has had will would shall should can could may might must to of in on at by for with "
    "and or but so if then that this these those what which who whom how why when where not no yes ok okay "
    "just really very please about from up out as there here all any some i'll i'm i've i'd we'll we're "
    "you're you'll it's that's don't won't can't let's"
)
STOPWORDS_EN = frozenset(_STOPWORDS.split())


def find_emotions(text: str) -> list[tuple[Emotion, re.Match[str]]]:
    """Every emotion concept in ``text`` that is not negated just before it, strongest first."""
    found: list[tuple[Emotion, re.Match[str]]] = []
    for emotion in EMOTIONS:
        for m in emotion.pattern.finditer(text):
            if not NEGATION_BEFORE.search(text[max(0, m.start() - 12) : m.start()]):
                found.append((emotion, m))
                break
    return found


def emotion_named(label: str) -> Emotion | None:
    """The emotion concept a stored label names ("worried", "担心", or a phrase holding one)."""
    text = label.strip()
    for emotion in EMOTIONS:
        if text.casefold() in (emotion.zh, emotion.en):
            return emotion
    found = find_emotions(text)
    return found[0][0] if found else None
