"""Synthetic, deterministic test data for ``heyan bench load`` and ``heyan bench cost``.

``memory_at(i)`` builds the i-th fact from its index alone (its own seeded RNG): a million are streamed,
any can be rebuilt, every run sees the same; zh and en, every kind, never a string repeated.
``dispute(n)`` is a four-member thread labelled with what the trigger should extract at once, in
phrasings the rules are not all built for, so trigger recall is measured, not assumed.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from memory.models import NAMESPACE, Fact, Kind, Lang

__all__ = ["CommunityHistory", "DisputeLine", "HistoryAsk", "HistoryDispute", "SynthMemory", "community_history", "dispute",
           "memories", "memory_at", "tenant_name", "tenant_size"]

EPOCH = datetime(2026, 9, 1, 9, 0, tzinfo=UTC)

ZH_NAMES = ["张伟", "李娜", "王芳", "刘洋", "陈静", "杨磊", "赵敏", "黄强", "周婷", "吴昊", "徐丽", "孙鹏",
            "马超", "朱琳", "胡军", "郭雪", "何平", "高翔", "林涛", "罗欣"]
EN_NAMES = ["Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace", "Heidi", "Ivan", "Judy", "Mallory",
            "Niaj", "Olivia", "Peggy", "Rupert", "Sybil", "Trent", "Victor", "Walter", "Yara"]
ZH_ITEMS = ["设计稿", "押金", "房租", "会议纪要", "发票", "钥匙", "报销单", "合同草稿", "活动预算", "海报",
            "代码评审", "服务器账单", "演出场地", "采购清单", "值班表", "客户名单", "录音文件", "网站改版",
            "年会节目", "打印机墨盒", "团建费用", "样品", "快递", "停车位", "仓库钥匙", "宣传视频"]
EN_ITEMS = ["design draft", "hall deposit", "rent", "meeting notes", "invoice", "spare keys", "expense report",
            "contract draft", "event budget", "poster", "code review", "server bill", "venue booking",
            "shopping list", "on-call rota", "client list", "recording", "website redesign", "raffle prizes",
            "printer toner", "team dinner bill", "product samples", "parcel", "parking spot", "storage unit",
            "launch video"]
ZH_TIMES = ["明天下午三点前", "周五之前", "下周一", "月底前", "今晚十点前", "这个周末", "国庆节后", "下个月五号",
            "后天上午", "两周内"]
EN_TIMES = ["by Friday", "before Monday noon", "by the end of the month", "tonight before ten", "this weekend",
            "next Tuesday", "within two weeks", "by the 5th", "tomorrow morning", "before the launch"]
ZH_PLACES = ["群里", "会议室", "楼下咖啡馆", "线上会议", "办公室", "社区花园", "仓库", "共享文档"]
EN_PLACES = ["the group chat", "the meeting room", "the café downstairs", "a video call", "the office",
             "the community garden", "the storage room", "the shared doc"]
ZH_FEELINGS = ["很生气", "很失望", "有点焦虑", "觉得被忽视", "松了一口气", "很委屈", "不太放心", "很感激"]
EN_FEELINGS = ["angry", "let down", "anxious", "ignored", "relieved", "hurt", "uneasy", "grateful"]
ZH_ROLES = ["负责人", "财务", "志愿者", "组长", "新成员", "版主", "房东", "室友"]
EN_ROLES = ["lead", "treasurer", "volunteer", "team captain", "new member", "moderator", "landlord", "roommate"]
ZH_GROUPS = ["设计组", "读书会", "篮球队", "合租屋", "社区花园", "开源项目", "乐队", "志愿者协会"]
EN_GROUPS = ["design team", "book club", "basketball team", "shared flat", "community garden",
             "open-source project", "band", "volunteer group"]

#: Consecutive memories that go to one tenant: a batch of writes then holds a few tenants' facts,
#: each written in one upsert, as an extraction job writes one tenant's facts at a time.
TENANT_CHUNK = 16

KINDS = (Kind.COMMITMENT, Kind.DEMAND, Kind.EMOTION, Kind.EVENT, Kind.PERSON, Kind.CONSENSUS)
SESSIONS_PER_TENANT = 8


@dataclass(frozen=True, slots=True)
class SynthMemory:
    """One synthetic memory and a question it answers (for recall queries)."""

    fact: Fact
    question: str


def _zh(r: random.Random, kind: Kind, who: str, other: str, about: str = "") -> tuple[str, str, str]:
    item, when, amount = r.choice(ZH_ITEMS), r.choice(ZH_TIMES), r.randrange(50, 5000, 10)
    item = about or item  # drawn all the same: memory_at's stream does not change
    if kind is Kind.COMMITMENT:
        return f"{item}的承诺", f"{when}把{item}交给{other}，金额{amount}元", f"{who}答应了{item}什么时候给？"
    if kind is Kind.DEMAND:
        return f"对{item}的诉求", f"希望{other}{when}处理好{item}，不超过{amount}元", f"{who}对{item}有什么要求？"
    if kind is Kind.EMOTION:
        feeling = r.choice(ZH_FEELINGS)
        return "感受", f"因为{item}拖了{amount % 30 + 2}天{feeling}", f"{who}为什么{feeling}？"
    if kind is Kind.EVENT:
        place = r.choice(ZH_PLACES)
        return f"{item}的经过", f"{amount % 28 + 1}号在{place}提到{item}还没处理", f"{who}在{place}说了{item}什么？"
    if kind is Kind.PERSON:
        role, group = r.choice(ZH_ROLES), r.choice(ZH_GROUPS)
        return "身份", f"{group}的{role}，已经{amount % 9 + 1}年了", f"{who}在{group}是什么角色？"
    return f"{item}的共识", f"大家同意{item}由{other}{when}负责，预算{amount}元", f"关于{item}大家同意了什么？"


def _en(r: random.Random, kind: Kind, who: str, other: str, about: str = "") -> tuple[str, str, str]:
    item, when, amount = r.choice(EN_ITEMS), r.choice(EN_TIMES), r.randrange(50, 5000, 10)
    item = about or item
    if kind is Kind.COMMITMENT:
        return (f"promise about the {item}", f"will hand the {item} to {other} {when}, ${amount} in total",
                f"When will {who} hand over the {item}?")
    if kind is Kind.DEMAND:
        return (f"demand about the {item}", f"wants {other} to sort out the {item} {when}, under ${amount}",
                f"What does {who} want done about the {item}?")
    if kind is Kind.EMOTION:
        feeling = r.choice(EN_FEELINGS)
        return ("feeling", f"feels {feeling} because the {item} slipped {amount % 30 + 2} days",
                f"Why does {who} feel {feeling}?")
    if kind is Kind.EVENT:
        place = r.choice(EN_PLACES)
        return (f"what happened with the {item}", f"said on day {amount % 28 + 1} in {place} that the {item} is still open",
                f"What did {who} say about the {item} in {place}?")
    if kind is Kind.PERSON:
        role, group = r.choice(EN_ROLES), r.choice(EN_GROUPS)
        return ("role", f"{role} of the {group} for {amount % 9 + 1} years", f"What is {who}'s role in the {group}?")
    return (f"agreement on the {item}", f"everyone agreed {other} handles the {item} {when}, budget ${amount}",
            f"What was agreed about the {item}?")


def memory_at(i: int, tenants: int, *, seed: int = 14) -> SynthMemory:
    """The i-th memory of a corpus spread evenly over ``tenants`` tenants, from ``i`` alone."""
    r = random.Random(seed * 1_000_003 + i)
    tenant = tenant_name((i // TENANT_CHUNK) % tenants)
    lang: Lang = "zh" if r.random() < 0.5 else "en"
    names = ZH_NAMES if lang == "zh" else EN_NAMES
    who, other = r.sample(names, 2)
    kind = KINDS[r.randrange(len(KINDS))]
    attribute, value, question = (_zh if lang == "zh" else _en)(r, kind, who, other)
    at = EPOCH + timedelta(minutes=i % 500_000)
    fact = Fact(
        id=str(uuid.uuid5(NAMESPACE, f"bench-load\x1f{seed}\x1f{i}")),
        tenant=tenant,
        session=f"thread-{r.randrange(SESSIONS_PER_TENANT)}",
        kind=kind,
        subject=f"u-{who}",
        subject_name=who,
        attribute=attribute,
        value=value,
        asserted_by=f"u-{who}",
        lang=lang,
        users=(f"u-{who}",),
        valid_from=at,
        created_at=at,
        updated_at=at,
    )
    return SynthMemory(fact, question)


def tenant_name(k: int) -> str:
    return f"bench:t{k:05d}"


def tenant_size(k: int, n: int, tenants: int) -> int:
    """How many of the first ``n`` memories ``memory_at`` gives tenant ``k``."""
    chunks, rest = divmod(n, TENANT_CHUNK)
    full = chunks // tenants + (1 if k < chunks % tenants else 0)
    return full * TENANT_CHUNK + (rest if chunks % tenants == k else 0)


def memories(start: int, stop: int, tenants: int, *, seed: int = 14) -> Iterator[SynthMemory]:
    for i in range(start, stop):
        yield memory_at(i, tenants, seed=seed)


# --- a long dispute, with ground truth -----------------------------------------------------------

@dataclass(frozen=True, slots=True)
class DisputeLine:
    """One message of the synthetic dispute. ``fact_bearing``: the generator put a promise, demand,
    agreement or refusal in it (what the trigger should extract at once)."""

    index: int
    user_id: str
    name: str
    lang: Lang
    text: str
    fact_bearing: bool
    mention: bool


PEOPLE = (("u-zhang", "张伟", "zh"), ("u-li", "李娜", "zh"), ("u-mike", "Mike", "en"), ("u-sarah", "Sarah", "en"))

# Fact-bearing phrasings; {o} other person, {i} item, {t} time. Some are ones a regex is not built for.
_ZH_FACT = [
    "我会{t}把{i}发给{o}。", "我保证{t}处理完{i}。", "我答应{o}，{i}{t}给你。", "{o}，我明天就把{i}寄给你。",
    "我希望{o}{t}把{i}交上来。", "我要求{o}先把{i}的钱退了。", "请你{t}把{i}准备好。", "{o}必须给我一个{i}的说法。",
    "好的，我同意{i}由{o}负责。", "就这么办，{i}{t}搞定。", "我不同意{o}那样处理{i}。", "我不会再替{o}垫付{i}了。",
    "{i}包在我身上，{t}给你。", "这样吧，{i}我来弄，{t}发群里。", "行，{i}那边我去跟进。",
]
_EN_FACT = [
    "I'll send the {i} to {o} {t}.", "I promise to finish the {i} {t}.", "I will pay my share of the {i} {t}.",
    "We'll sort out the {i} {t}, {o}.", "I want {o} to return the {i} {t}.", "I expect the {i} fixed {t}.",
    "{o}, you need to send the {i} {t}.", "Please get the {i} done {t}.", "OK, I agree that {o} takes the {i}.",
    "Deal, the {i} is settled {t}.", "No way, I won't cover the {i} again.", "I refuse to split the {i} like that.",
    "Leave the {i} with me, done {t}.", "Fine, the {i} is on me {t}.", "Let me handle the {i} {t}.",
]
_ZH_CHAT = [
    "这事拖了太久了。", "上次开会你也这么说。", "{i}到底在谁手上？", "我今天有点累，晚点再说。", "大家先冷静一下。",
    "{o}，你看到我发的消息了吗？", "我记得{i}上周还在{p}。", "说实话我有点失望。", "其实我也不想吵。", "哈哈，好吧。",
    "{i}的事情我还在查。", "刚刚在{p}碰到{o}了。", "这个问题不是第一次了。", "我需要想一想。", "嗯嗯，收到。",
]
_EN_CHAT = [
    "This has dragged on way too long.", "You said the same thing last meeting.", "Who actually has the {i}?",
    "I'm tired today, let's talk later.", "Let's all calm down a bit.", "{o}, did you see my message?",
    "I think the {i} was in {p} last week.", "Honestly I'm a bit disappointed.", "I don't want to fight either.",
    "lol ok", "Still looking into the {i}.", "Ran into {o} at {p} just now.", "This isn't the first time.",
    "I need to think about it.", "Got it, thanks.",
]
_ZH_ASK = ["和言，{o}之前答应了什么？", "和言，帮我们理一下{i}的情况。", "和言，{i}现在谁负责？"]
_EN_ASK = ["@heyan what did {o} promise about the {i}?", "@heyan can you sum up where we are on the {i}?",
           "@heyan who is handling the {i} now?"]

#: Share of messages that carry a promise, demand, agreement or refusal.
FACT_SHARE = 0.2
#: Every this-many-th message (1-based) addresses the bot.
MENTION_EVERY = 10


def dispute(n: int, *, seed: int = 14) -> list[DisputeLine]:
    """``n`` messages of one long dispute, Chinese and English, with ground-truth labels."""
    r = random.Random(seed)
    lines: list[DisputeLine] = []
    for index in range(1, n + 1):
        user_id, name, lang = PEOPLE[r.randrange(len(PEOPLE))]
        others = [p[1] for p in PEOPLE if p[0] != user_id and p[2] == lang]
        other = others[0] if others else PEOPLE[0][1]
        zh = lang == "zh"
        slots = {"o": other, "i": r.choice(ZH_ITEMS if zh else EN_ITEMS), "t": r.choice(ZH_TIMES if zh else EN_TIMES),
                 "p": r.choice(ZH_PLACES if zh else EN_PLACES)}
        mention = index % MENTION_EVERY == 0
        if mention:
            text, bearing = r.choice(_ZH_ASK if zh else _EN_ASK), False
        elif r.random() < FACT_SHARE:
            text, bearing = r.choice(_ZH_FACT if zh else _EN_FACT), True
        else:
            text, bearing = r.choice(_ZH_CHAT if zh else _EN_CHAT), False
        text = text.format(**slots)
        lines.append(DisputeLine(index, user_id, name, lang, text, bearing, mention))  # type: ignore[arg-type]
    return lines


# --- a long community history: months, many disputes, with the questions members ask ------------

@dataclass(frozen=True, slots=True)
class HistoryDispute:
    """One dispute of a community history: its session, parties, topic, and when it opened and
    closed (None: still open at the end)."""

    index: int
    session: str
    lang: Lang
    parties: tuple[str, str]
    item: str
    opened: datetime
    closed: datetime | None


@dataclass(frozen=True, slots=True)
class HistoryAsk:
    """A question asked at ``at`` whose answer is ``relevant``. ``category``: ``during`` (asked while
    the history runs: replies that use memories) or, for the questions asked at the end, ``open`` (a
    dispute still open), ``standing`` (an agreement members kept referring to after its dispute
    closed) or ``past`` (anything else of a closed dispute)."""

    at: datetime
    text: str
    relevant: frozenset[str]
    category: str


@dataclass(frozen=True, slots=True)
class CommunityHistory:
    """A tenant's months of disputes (``facts`` in the order said) and the questions asked meanwhile
    (``asks``) and at the end (``final``); ``done``: commitments kept (done at their dispute's close);
    ``confirmed``: records a moderator confirmed, and when."""

    tenant: str
    now: datetime
    disputes: tuple[HistoryDispute, ...]
    facts: tuple[Fact, ...]
    asks: tuple[HistoryAsk, ...]
    final: tuple[HistoryAsk, ...]
    done: frozenset[str]
    confirmed: dict[str, datetime]


#: Topics per language: few enough that each recurs in several disputes over the months.
HOT_ITEMS = 6
#: Every this-many-th dispute is still open at the end of the history.
OPEN_EVERY = 5
_DISPUTE_KINDS = (Kind.DEMAND, Kind.COMMITMENT, Kind.EMOTION, Kind.EVENT)


def community_history(seed: int = 1, *, months: int = 6, disputes: int = 60) -> CommunityHistory:
    """A deterministic community history: ``disputes`` disputes over ``months`` months between twelve
    members (six writing Chinese, six English) on a few recurring topics, each with every party's
    demand, promise, feeling and account and, once closed, its agreement; members ask about a dispute
    while it runs, and about some agreements (the standing ones) long after. Two seeds give two
    communities: one to tune on, one held out."""
    r = random.Random(seed * 7919 + 23)
    start, days = EPOCH, months * 30
    now = start + timedelta(days=days)
    tenant = f"bench:history-{seed}"
    hot = {"zh": r.sample(ZH_ITEMS, HOT_ITEMS), "en": r.sample(EN_ITEMS, HOT_ITEMS)}
    people = {"zh": r.sample(ZH_NAMES, 6), "en": r.sample(EN_NAMES, 6)}
    facts: list[Fact] = []
    asks: list[HistoryAsk] = []
    final: list[HistoryAsk] = []
    done: set[str] = set()
    confirmed: dict[str, datetime] = {}
    made: list[HistoryDispute] = []

    def at(lo: datetime, hi: datetime) -> datetime:
        return lo + timedelta(seconds=r.uniform(0, max(60.0, (hi - lo).total_seconds())))

    for d in range(disputes):
        lang: Lang = "zh" if d % 2 == 0 else "en"
        parties = tuple(r.sample(people[lang], 2))
        item = r.choice(hot[lang])
        if d % OPEN_EVERY == OPEN_EVERY - 1:  # a dispute still running at the end, opened in the last weeks
            opened = now - timedelta(days=r.uniform(4, 40))
            end = now + timedelta(days=r.uniform(1, 20))
        else:
            opened = start + timedelta(days=r.uniform(0, days - 4))
            end = opened + timedelta(days=r.uniform(3, 20))
        closed = end if end < now - timedelta(days=2) else None
        dispute = HistoryDispute(d, f"dispute-{d:03d}", lang, (parties[0], parties[1]), item, opened, closed)
        made.append(dispute)
        own: list[tuple[Fact, str]] = []
        kinds = [(who, kind) for who in parties for kind in _DISPUTE_KINDS]
        if closed is not None:
            kinds.append((parties[0], Kind.CONSENSUS))
        for j, (who, kind) in enumerate(kinds):
            other = parties[1] if who == parties[0] else parties[0]
            attribute, value, question = (_zh if lang == "zh" else _en)(r, kind, who, other, item)
            when = closed if kind is Kind.CONSENSUS and closed else at(opened, min(end, now))
            fact = Fact(id=str(uuid.uuid5(NAMESPACE, f"bench-history\x1f{seed}\x1f{d}\x1f{j}")), tenant=tenant,
                        session=dispute.session, kind=kind, subject=f"u-{who}", subject_name=who, attribute=attribute,
                        value=value, asserted_by=f"u-{who}", lang=lang, users=(f"u-{who}",), valid_from=when,
                        created_at=when, updated_at=when)
            facts.append(fact)
            own.append((fact, question))
            if kind is Kind.COMMITMENT and closed is not None and r.random() < 0.7:
                done.add(fact.id)
        for _ in range(max(1, int((min(end, now) - opened).days) // 2)):  # asked while it runs
            when = at(opened, min(end, now))
            known = [(f, q) for f, q in own if f.valid_from <= when]
            if known:
                fact, question = r.choice(known)
                asks.append(HistoryAsk(when, question, frozenset({fact.id}), "during"))
        if closed is None:
            for fact, question in r.sample(own, min(3, len(own))):
                final.append(HistoryAsk(now, question, frozenset({fact.id}), "open"))
            continue
        agreement, agreed = own[-1]
        if r.random() < 0.5:
            confirmed[agreement.id] = closed + timedelta(days=1)
        if r.random() < 0.3:  # a standing agreement: members keep coming back to it
            for _ in range(3):
                asks.append(HistoryAsk(at(closed, now), agreed, frozenset({agreement.id}), "during"))
            final.append(HistoryAsk(now, agreed, frozenset({agreement.id}), "standing"))
        elif r.random() < 0.6:
            fact, question = r.choice(own)
            final.append(HistoryAsk(now, question, frozenset({fact.id}), "past"))
    facts.sort(key=lambda f: (f.valid_from, f.id))
    asks.sort(key=lambda a: a.at)
    return CommunityHistory(tenant, now, tuple(made), tuple(facts), tuple(asks), tuple(final), frozenset(done),
                            confirmed)
