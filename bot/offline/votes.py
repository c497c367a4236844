"""Votes on a proposal of several parts: which parts a reply says yes or no to.

A plan put as a list ("three rules: — … — … — …", "⑴ … ⑵ …", "I. … II. …", "Photos: … Print: …") is voted
on part by part or as a whole: "❶❷❸，认", "I, II and IV, yes. III I can't do", "Photos ✔ Print ✔ Money ✔",
"Four for four", "三条，我都签", "⑴到⑷我都认", "分红和垫钱那两条我没意见。签合同那条我不认". ``parts`` reads the
list, ``read_vote`` the reply: a ``Vote`` (the parts agreed to and turned down), or None when the reply names
no part and no count of them (a plain "yes" is the act reader's to read).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Part", "Vote", "parts", "read_vote"]

_I = re.IGNORECASE
_CIRCLED = ("①②③④⑤⑥⑦⑧⑨⑩", "❶❷❸❹❺❻❼❽❾❿", "➀➁➂➃➄➅➆➇➈➉", "➊➋➌➍➎➏➐➑➒➓", "⑴⑵⑶⑷⑸⑹⑺⑻⑼⑽", "⒈⒉⒊⒋⒌⒍⒎⒏⒐⒑")
_ROMAN = ("i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x")
_ZH_NUM = "一二三四五六七八九十"
_EN_NUM = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
_EN_ORD = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")

#: The marker that opens a line of a list: its number (or letter, or roman numeral), or a bullet.
_ITEM = re.compile(
    r"^\s*(?:(?P<circ>[" + "".join(_CIRCLED) + r"])"
    r"|[(（]?(?P<num>\d{1,2})[.)）、:：]|[(（](?P<pnum>\d{1,2})[)）]"
    r"|(?P<roman>(?-i:[IVX]{1,4}|[ivx]{1,4}))[.)]"
    r"|[(（]?(?:第)?(?P<zh>[一二三四五六七八九十])(?:条|点|项|则|款)?[、.)）:：，,]"
    r"|(?P<letter>(?-i:[A-H]))[.)、:：]"
    r"|(?P<bullet>——|—|–|-|•|·|\*|▪|►|→|⇒|➜|➔|➤|»|◆|●|■|○|◦))\s*(?P<rest>\S.*)$")
#: A part named by a label before a colon: "Photos: every photo carries …", "署名：…".
_LABEL = re.compile(r"^\s*(?P<label>[^\W\d_][\w'’ -]{0,18}?|[\u4e00-\u9fff]{1,6})\s*[:：]\s*(?P<rest>\S.*)$")
#: A part named by a label in brackets: "【署名】每条素材写拍摄者的名字".
_BRACKETED = re.compile(r"^\s*【\s*(?P<label>[^】]{1,12}?)\s*】\s*[:：]?\s*(?P<rest>\S.*)$")


@dataclass(frozen=True)
class Part:
    """One part of a listed proposal: its place, the names a reply may call it by, and its words."""

    index: int
    names: frozenset[str]
    text: str


@dataclass(frozen=True)
class Vote:
    """What a reply said to a listed proposal: the parts it agreed to and the ones it turned down."""

    yes: frozenset[int]
    no: frozenset[int]
    count: int

    @property
    def all_yes(self) -> bool:
        return not self.no and len(self.yes) == self.count


def _names(k: int, label: str = "", *, extra: str = "") -> frozenset[str]:
    out = {str(k + 1), _ROMAN[k], _ZH_NUM[k], "abcdefgh"[k] if k < 8 else "", *(c[k] for c in _CIRCLED)}
    if label:
        out.add(label.lower())
    # the marker the list used when it is its own ("㈠", "1️⃣", "甲", an emoji, "One")
    if extra and (not extra[:1].isascii() or extra.lower() in _EN_NUM):
        out.add(extra.strip().lower())
    return frozenset(n for n in out if n)


def parts(text: str) -> list[Part]:
    """The parts of a proposal written as a list (two or more), in order; [] when it is not one."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    items = [m for m in map(_ITEM.match, lines[1:]) if m is not None]
    if len(items) >= 2 and len(items) >= len(lines[1:]) - 2:
        return [Part(k, _names(k, _label(m.group("rest"))), m.group("rest")) for k, m in enumerate(items[:10])]
    # labels of one kind: "Photos: …" lines, or "【署名】…" lines (a pasted form "【同学录】姓名：…" is neither)
    for label in (_LABEL, _BRACKETED):
        labelled = [m for m in map(label.match, lines[1:]) if m is not None]
        if len(labelled) >= 2 and len(labelled) >= len(lines[1:]) - 1:
            return [Part(k, _names(k, m.group("label").strip()), m.group("rest")) for k, m in enumerate(labelled[:10])]
    return _inline(text)


#: Markers of a list written on one line, by family, the k-th marker of each: "⑴ … ⑵ …", "㈠…㈡…", "1️⃣ … 2️⃣ …",
#: "甲，…；乙，…", "First, … Second, …", "One: … Two: …".
_PAREN_ZH = "㈠㈡㈢㈣㈤㈥㈦㈧㈨㈩"
_STEMS = "甲乙丙丁戊己庚辛"
_FAMILIES: tuple[tuple[str, ...], ...] = (
    *(tuple(re.escape(c) for c in family) for family in (*_CIRCLED, _PAREN_ZH)),
    tuple(rf"{k}\ufe0f?\u20e3" for k in range(1, 10)),
    # "第一盆：… 第二盆：…", "第一手：…"
    tuple(rf"(?:^|(?<=[。！？；;：:，,\s]))第{c}[\u4e00-\u9fff]{{0,2}}[:：]" for c in "一二三四五六七八九十"),
    tuple(rf"(?:^|(?<=[：:；;。\s]))(?:{c})(?=[，,、：:])" for c in _STEMS),
    tuple(rf"(?:^|(?<=[.!?:]\s))(?i:{w})(?=[,:])" for w in _EN_ORD),
    tuple(rf"(?:^|(?<=[.!?:]\s))(?i:{w})(?=\s*:)" for w in _EN_NUM),
)
#: An emoji that opens each part of a list on one line: "🎙 The opening credits … 💸 Money … 🖊 Nobody signs …".
_EMOJI_MARK = re.compile(r"(?:^|(?<=[.!?。！？]\s)|(?<=[.!?。！？]))([\U0001F300-\U0001FAFF\u2600-\u27BF])\ufe0f?\s+(?=\w)")


#: A part named by a head and its index, on one line: "Trap A: … Trap B: …", "Valley fold 1: … Valley fold 2: …".
_HEADED = re.compile(r"(?:^|(?<=[.!?:;]\s)|(?<=\n))(?P<head>[A-Za-z][\w'’-]*(?:\s+[\w'’-]+){0,2}?)\s+(?P<idx>(?-i:[A-H])|\d{1,2})\s*:\s*")
#: The same in Chinese, the index after the head: "底板一：… 底板二：…", "第一盆：…" is read by ``_FAMILIES``' kin.
_HEADED_ZH = re.compile(r"(?:^|(?<=[。！？；;：:，,\n]))\s*(?P<head>[\u4e00-\u9fff]{1,4}?)(?P<idx>[一二三四五六七八九十])\s*[:：]\s*")
_ORDER = "ABCDEFGH"


def _headed(text: str) -> list[Part]:
    """Parts named "<head> <index>:" with one head and indices A, B, C… or 1, 2, 3… (一, 二, 三… in Chinese) in order,
    two or more."""
    found = list(_HEADED.finditer(text)) or list(_HEADED_ZH.finditer(text))
    for first in found:
        head = first.group("head").casefold()
        run = [m for m in found if m.group("head").casefold() == head]
        idx = [m.group("idx") for m in run]
        if len(run) >= 2 and idx in ([_ORDER[k] for k in range(len(run))], [str(k + 1) for k in range(len(run))],
                                     [_ZH_NUM[k] for k in range(len(run))]):
            # (the ask after the last part is no part of it: "… Where do each of you stand?")
            tail = re.search(r"(?<=[.!。！])\s+[^.!?。！？]*[?？]\s*$", text[run[-1].end():])
            ends = [m.start() for m in run[1:]] + [run[-1].end() + tail.start() if tail else len(text)]
            last = head.split()[-1]
            return [Part(k, _names(k) | {f"{head} {i}".lower(), f"{last} {i}".lower(), f"{head}{i}"}, text[m.end():end].strip())
                    for k, (m, end, i) in enumerate(zip(run, ends, idx, strict=True)) if k < 10]
    return []


def _inline(text: str) -> list[Part]:
    """The parts of a list written on one line: the markers of one family in order, two or more."""
    if headed := _headed(text):
        return headed
    for family in _FAMILIES:
        found: list[re.Match[str]] = []
        at = 0
        for marker in family:
            m = re.compile(marker).search(text, at)
            if m is None:
                break
            found.append(m)
            at = m.end()
        if len(found) >= 2:
            ends = [m.start() for m in found[1:]] + [len(text)]
            if any(len(text[m.end() : end].strip(" ，,、：:；;")) < 4 for m, end in zip(found, ends, strict=True)):
                continue  # "❶❷❸，认。": the marks named in a vote, no list of its own
            return [Part(k, _names(k, extra=m.group()), text[m.end() : end].strip(" ，,、：:；;"))
                    for k, (m, end) in enumerate(zip(found, ends, strict=True))]
    marks = list(_EMOJI_MARK.finditer(text))
    if len(marks) >= 2 and len({m.group(1) for m in marks}) == len(marks):
        ends = [m.start() for m in marks[1:]] + [len(text)]
        if any(len(text[m.end() : end].strip()) < 4 for m, end in zip(marks, ends, strict=True)):
            return []
        return [Part(k, _names(k, extra=m.group(1)), text[m.end() : end].strip())
                for k, (m, end) in enumerate(zip(marks, ends, strict=True)) if k < 10]
    return []


def _label(rest: str) -> str:
    m = _LABEL.match(rest)
    return m.group("label").strip() if m is not None else ""


_YES = re.compile(r"✔|✅|☑|👍|🙌|\b(?:yes|yeses|yep|yeah|agreed?|agree|fine|ok(?:ay)?|on\s+board|(?:i['’]?m|i\s+am|we['’]re|all)\s+in(?!\s+\w)|sign(?:ed)?|support|"
                  r"fair|good|deal|approve[sd]?|accept(?:ed)?|count\s+me\s+in|put\s+me\s+down|all\s+good|from\s+me|works\s+for\s+me|same\s+here|no\s+objections?|votes?\s+(?:for|yes)|my\s+vote)\b|\+1"
                  r"|认|同意|支持|签|赞成|没问题|没意见|没话说|可以|行|赞同|投.?票|举手|点头|按手印|👌|\b(?:oui|sí|si|ja|sì|wi|ae|ndiyo)\b", _I)
#: A no to a part: a refusal, not any negation ("Print most of all, Cortinarius is not a joke" says yes).
_NO = re.compile(r"✘|✗|❌|👎|\bno\b(?!\s+(?:problems?|worries|doubts?|way|rush|one|longer|more|less|matter|hesitation|questions?|objections?|complaints?|brainer))(?!-)"
                 r"|\b(?:can'?t|can’t|cannot|won'?t|won’t|will\s+not|couldn'?t|wouldn'?t|shan'?t)\b"
                 r"|\b(?:don'?t|don’t|do\s+not)\s+(?:agree|support|accept|sign|want|like|buy)\b"
                 r"|\bnot\s+(?:for\s+me|on\s+board|agreed|ok(?:ay)?|fine|happy|signing|in|that\s+one|this\s+one)\b"
                 r"|\b(?:against|refuse[ds]?|veto(?:ed)?|pass\s+on|out\s+on)\b"
                 r"|不(?:认|同意|行|签|支持|赞成|能|可以|接受|答应)|反对|没法|做不到|免谈|不干|只(?:认|同意)一半", _I)
#: Every part at once: "all four", "four for four", "three times yes", "every word of it", "全认", "一条不少".
_NUMW = r"(?:two|three|four|five|six|seven|eight|nine|ten|both|\d{1,2})"
_ALL = re.compile(r"\b(?:(?:to|for|on|with)\s+all(?:\s+(?P<n1>" + _NUMW + r"))?\b(?!\s+(?:but|except))|all\s+(?P<n2>" + _NUMW + r")\b"
                  r"|(?P<n3>" + _NUMW + r")\s+(?:for|out\s+of|of)\s+(?P=n3)\b|(?P<n5>" + _NUMW + r")\s+(?:times\s+yes|yes(?:es)?)\b"
                  r"|every\s+(?:word|line|one|part|point|rule)|all\s+of\s+(?:it|them)|the\s+(?:whole\s+)?lot|each\s+(?:one|of\s+them)"
                  # "Every stop, yes.": every part by the proposal's own word, then a yes
                  r"|every\s+[a-z]{3,12}\b(?=[\s,.!—–-]*(?:yes|yep|yeah|agreed|fine|ok(?:ay)?)\b)"
                  # "Yes to each of the four", "every one of the three"
                  r"|(?:each|every\s+one)\s+of\s+the\s+(?P<n12>" + _NUMW + r")\b"
                  r"|start\s+to\s+finish|the\s+(?P<n7>" + _NUMW + r")\s+of\s+them|(?P<n8>both)(?:\s+of\s+them)?"
                  # "tou le twa", "oui aux deux", "todos los tres", "alle drei"
                  r"|\b(?:tous|toutes|tou|todos|todas|alle|tutti)\s+(?:les\s+|le\s+|los\s+|las\s+|i\s+|e\s+)?(?P<n9>deux|trois|quatre|twa|de|kat|dos|tres|cuatro|zwei|drei|vier|due|tre|quattro)\b"
                  r"|\baux\s+(?P<n10>deux|trois|quatre)\b)"
                  # ("三块底板都认", "三盆我全认": the parts counted by the proposal's own measure word and noun)
                  r"|(?P<n6>[一二三四五六七八九十两\d])?(?:条|点|项|个|件|[\u4e00-\u9fff]{1,3}(?=我?也?(?:都|全|全部|统统)))?(?:我)?(?:也)?(?:的回答)?"
                  r"(?:都|全|全部|统统)(?:是)?(?:投)?(?:认|同意|支持|签|赞成|没问题|可以|行|点头|按手印|要|好)"
                  r"|投(?P<n11>[一二三四五六七八九十两\d])票"
                  # "我举四次手", "两条，我这边一个字都不用改", "三条照单全收"
                  r"|举(?P<n13>[一二三四五六七八九十两\d])次手"
                  r"|(?P<n14>[一二三四五六七八九十两\d])(?:条|点|项|则)[，,\s]*(?:我|我这边|我这儿)?[，,\s]*(?:一个字都不(?:用)?改|照单全收|全盘接受)"
                  r"|一条不少|一条都不少|全票|全都要", _I)
_RANGE = re.compile(r"(?P<a>[" + "".join(_CIRCLED) + r"\d一二三四五六七八九十]|\b[IVX]{1,4}\b)(?:条|点|项|则|款)?\s*(?:到|至|-|–|—|~|～|through|to)\s*"
                    r"(?P<b>[" + "".join(_CIRCLED) + r"\d一二三四五六七八九十]|\b[IVX]{1,4}\b)")
_CLAUSE = re.compile(r"(?<=[.!?;。！？；\n])\s*|(?<=[:：])\s+")
_EXCEPT = re.compile(r"\b(?:but|except|apart\s+from|save)\b|除了|除去|但|不过|只有", _I)


def _count_word(w: str | None) -> int | None:
    if not w:
        return None
    w = w.lower()
    if w.isdigit():
        return int(w)
    if w in ("both", "deux", "de", "dos", "zwei", "due", "两"):
        return 2
    if w in ("trois", "twa", "tres", "drei", "tre"):
        return 3
    if w in ("quatre", "kat", "cuatro", "vier", "quattro"):
        return 4
    if w in _EN_NUM:
        return _EN_NUM.index(w) + 1
    if w in _ZH_NUM:
        return _ZH_NUM.index(w) + 1
    return None


def _index(token: str, plist: list[Part]) -> int | None:
    t = token.lower()
    return next((p.index for p in plist if t in p.names), None)


_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]{3,}|\d{2,}")
_COMMON = frozenset({
    "that", "this", "with", "from", "have", "been", "will", "would", "could", "should", "must", "they", "them", "their",
    "your", "what", "when", "which", "where", "there", "here", "about", "into", "onto", "over", "under", "only", "unless",
    "until", "after", "before", "once", "while", "every", "each", "other", "than", "then", "also", "just", "more", "most",
    "some", "anyone", "nobody", "anything", "nothing", "everyone", "everything", "get", "goe", "make", "take", "give",
    "rule", "point", "part", "item", "thing", "first", "last", "again", "still", "even", "like", "such", "same", "both",
    "very", "much", "many", "well", "because", "without", "within", "through", "between", "always", "never", "already",
    "sure", "really", "going", "want", "need", "know", "think",
})


def _fold(word: str) -> str:
    """"credited", "credits", "credit's" → "credit": the word a reply may name a part by, in another form."""
    w = re.sub(r"['’]s$", "", word.lower())
    return next((w[: -len(end)] for end in ("ing", "ed", "es", "s") if w.endswith(end) and len(w) - len(end) >= 4), w)


def _words_of(text: str) -> list[tuple[str, int]]:
    """(word, position): Latin words of four letters and more, numbers of two digits and more, and every pair
    of Chinese characters, the word folded (lower case, no plural s)."""
    out = [(_fold(m.group()), m.start()) for m in _WORD.finditer(text)]
    for m in re.finditer(r"[\u4e00-\u9fff]+", text):
        out += [(text[k : k + 2], k) for k in range(m.start(), m.end() - 1)]
    return out


def _own_words(plist: list[Part]) -> list[set[str]]:
    """The words of each part that no other part has: a reply may name the part by them ("the 30 days one")."""
    # (not a word of a vote itself: "同意" in "筹备组过半同意才能付" names no part of "丙我不同意")
    sets = [{w for w, _ in _words_of(p.text) if w.isascii() or not (_YES.search(w) or _NO.search(w) or re.search("[不没]", w))} - _COMMON
            for p in plist]
    return [ws - set().union(*(o for j, o in enumerate(sets) if j != k)) for k, ws in enumerate(sets)]


def _mentions(clause: str, plist: list[Part], own: list[set[str]]) -> list[tuple[int, int]]:
    """(part index, position) for each part a clause names: by its marker, its number, its label or its ordinal."""
    found: list[tuple[int, int]] = []
    for m in _RANGE.finditer(clause):
        a, b = _index(m.group("a"), plist), _index(m.group("b"), plist)
        if a is not None and b is not None and a < b:
            found += [(k, m.start()) for k in range(a, b + 1)]
    for p in plist:
        for name in p.names:
            if name in _STEMS:  # "甲、丙、丁我认" — not the 丁 of 老丁
                pat = r"(?<![老小阿])" + name + r"(?=[、，,。.！!；;甲乙丙丁戊己庚辛我都不认签这\s]|$)"
            elif len(name) == 1 and not name.isascii():  # a circled mark or a Chinese numeral
                # "第三条", "三我不认" name the third; "三条都好" counts them
                pat = (r"(?:第" + name + r"(?:条|点|项|个|件|则|款)?|(?<![一二三四五六七八九十两\d])" + name + r"(?:则|款)"
                       r"|(?<![一二三四五六七八九十两\d])" + name + r"(?=[我不，,、和与及\s]|$))"
                       if name in _ZH_NUM else re.escape(name))
            elif name.isdigit():
                pat = r"(?:(?:rule|point|part|item|number|no\.?|#|第)\s*)?(?<![\d:.,])" + name + r"(?![\d:.%])(?!\s*(?:am|pm|h|号|日|月|点钟|:\d))"
            elif name in _ROMAN:  # "I, II and IV, yes", "III I can't do" — not the pronoun "I"
                pat = r"(?<![\w'’])(?-i:" + name.upper() + r")(?![\w'’])" + (
                    r"(?=\s*(?:[,，.;:)&/]|and\b|or\b|yes\b|no\b|$))" if len(name) == 1 else "")
            elif len(name) == 1:  # a letter: only as "A条", "(a)", "point a", a capital alone ("A yes, B yes, C no")
                pat = (r"(?:(?<=[(（])" + name + r"(?=[)）])|(?<![A-Za-z])" + name.upper() + r"(?=条|项)"
                       r"|(?<![\w'’])(?-i:" + name.upper() + r")(?=\s*(?:[,，;&/]|and\b|or\b|yes\b|no\b)))")
            elif re.search(r"[\u4e00-\u9fff]", name):  # a Chinese label runs into the words around it: "署名那条没问题"
                pat = re.escape(name)
            else:
                pat = r"(?<!\w)" + re.escape(name) + r"(?!\w)"
            found += [(p.index, m.start()) for m in re.finditer(pat, clause, _I)]
        found += [(p.index, at) for w, at in _words_of(clause) if w in own[p.index]]
        k = p.index
        # "一二三四，我这儿都行": the numerals of the parts in a run, each one named
        for run in re.finditer(r"(?<![一二三四五六七八九十两\d])[一二三四五六七八九十]{2,10}(?![一二三四五六七八九十两条点项个件则款块元岁])", clause):
            found += [(k, run.start() + j) for j, c in enumerate(run.group()) if k < len(_ZH_NUM) and c == _ZH_NUM[k]]
        if k < len(_EN_ORD):
            found += [(k, m.start()) for m in re.finditer(r"\b(?:the\s+)?" + _EN_ORD[k] + r"\b(?:\s+(?:one|rule|point|part))?", clause, _I)]
    return sorted(set(found), key=lambda x: x[1])


def _polarity(words: str) -> str:
    return "no" if _NO.search(words) else "yes" if _YES.search(words) else ""


def read_vote(reply: str, plist: list[Part]) -> Vote | None:
    """What ``reply`` says to each part of ``plist``; None when it names no part and no count of them."""
    n = len(plist)
    if n < 2:
        return None
    text = reply.strip()
    yes: set[int] = set()
    no: set[int] = set()
    pending: set[int] = set()
    named_any = whole = awaiting = False
    own = _own_words(plist)  # once a reply, not once a clause
    for clause in [c for c in _CLAUSE.split(text) if c.strip()]:
        every = _ALL.search(clause)
        if every is not None and not _EXCEPT.search(clause[every.end() :]):
            said = next((_count_word(every.group(g)) for g in ("n1", "n2", "n3", "n5", "n6", "n7", "n8", "n9", "n10", "n11", "n12", "n13", "n14")
                         if every.group(g)), None)
            if (said is None or said == n) and not _NO.search(clause):
                named_any = True
                yes |= set(range(n)) - no
                continue
        mentions = _mentions(clause, plist, own)
        if not mentions:
            # "I'm in. The two judges bit is the one that matters.": a yes to the whole, then a word on a part
            whole = whole or (_polarity(clause) == "yes" and not yes and not no and not pending)
            if pending and awaiting and (pol := _polarity(clause)):  # "The credit rule and the 30 days: agreed, both fair"
                (yes if pol == "yes" else no).update(pending)
                pending = set()
            continue
        named_any = True
        if pending and (pol := _polarity(clause[: mentions[0][1]])):  # "First, second and third: yes, and …"
            (yes if pol == "yes" else no).update(pending)
            pending = set()
        cuts = [pos for _, pos in mentions] + [len(clause)]
        marks = [_polarity(clause[pos:end]) for (_, pos), end in zip(mentions, cuts[1:], strict=True)]
        # names listed together take the polarity said after the last of them ("❶❷我同意", "I, II and IV, yes");
        # else the one said before the first ("yes to II and IV")
        for j in range(len(marks) - 2, -1, -1):
            marks[j] = marks[j] or marks[j + 1]
        lead = _polarity(clause[: mentions[0][1]])
        for (k, _), pol in zip(mentions, marks, strict=True):
            pol = pol or lead
            (yes if pol == "yes" else no if pol == "no" else pending).add(k)
        # parts named before a colon await the next clause's word ("The credit rule and the 30 days: agreed"); named in
        # a reason ("I'm the one who answers the mail, and a second signature …") they await none
        awaiting = clause.rstrip().endswith((":", "：", "—", "–"))
    if pending:
        yes |= pending if _YES.search(text) and not _NO.search(text) else set()
    if not named_any or not (yes or no or whole):
        return None
    if whole and not no:
        yes = set(range(n))
    return Vote(frozenset(yes - no), frozenset(no), n)
