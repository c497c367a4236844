"""Votes on a listed proposal (bot.offline.votes), read part by part or as a whole, in both languages, and
the records a vote leaves (bot.offline.acts): a party to the whole only when every part has its yes; and
assurances told with a promise tag ("I already sent it, I promise") that promise nothing."""

from __future__ import annotations

import pytest

from bot.offline.votes import parts, read_vote
from memory.models import Kind
from tests.test_offline_acts import _facts

pytestmark = pytest.mark.usefixtures("hash_embedder")

EN = ("Before the next tournament, some house rules — tell me where you stand:\n"
      "1) entry fees go into the club account, never a personal one;\n"
      "2) the bracket is published 48 hours before the first match;\n"
      "3) streamers credit the club's caster by name.")
ZH = ("合唱团下学期的三件事，大家表个态：\n"
      "（一）排练室的钥匙只放在前台；\n"
      "（二）演出服押金统一收两百；\n"
      "（三）曲目单提前一个月定下来。")
INLINE_EN = ("Three rules for the relay, so nobody argues on race day. First, every runner logs their own split. Second, "
             "the captain picks the order. Third, the entry fee is split evenly.")
INLINE_EMOJI = "Club night rules, vote please. 🏁 Races start at 8. 🧾 Receipts go in the shared folder. 🍕 Pizza is on the club."
INLINE_ZH = "合租的规矩，大家逐条回：甲，垃圾每天倒；乙，客人过夜先在群里说；丙，网费平摊。"
LABELLED = ("Three things for the zine before issue 5:\n"
            "Covers: the artist keeps the original.\n"
            "Ads: no ads from vape shops.\n"
            "Printing: always the co-op in town.")


@pytest.mark.parametrize(("proposal", "reply", "yes", "no"), [
    (EN, "1, 2 and 3 from me", {0, 1, 2}, set()),
    (EN, "All three, no hesitation.", {0, 1, 2}, set()),
    (EN, "3 for 3", {0, 1, 2}, set()),
    (EN, "1 and 3 yes. 2 I can't back: half of us only see the bracket the night before anyway.", {0, 2}, {1}),
    (EN, "Yes to the first and the third; the second one, no.", {0, 2}, {1}),
    (EN, "Count me in. The caster rule is overdue.", {0, 1, 2}, set()),
    (ZH, "（一）（二）（三）都同意。", {0, 1, 2}, set()),
    (ZH, "一到三我全支持", {0, 1, 2}, set()),
    (ZH, "三件都行，押金那件早该定了", {0, 1, 2}, set()),
    (ZH, "钥匙和曲目单我都赞成，押金那条我不同意，两百太多了。", {0, 2}, {1}),
    (LABELLED, "Covers yes, Ads yes, Printing no: the co-op doubled its price.", {0, 1}, {2}),
    (LABELLED, "Covers ✅ Ads ✅ Printing ✅", {0, 1, 2}, set()),
    # lists written on one line: ordinals, emoji, stems, ㈠, keycaps
    (INLINE_EN, "First and third: yes, gladly. The second I can't sign.", {0, 2}, {1}),
    (INLINE_EN, "The three of them, no hesitation.", {0, 1, 2}, set()),
    (INLINE_EMOJI, "🏁🧾 yes, 🍕 no: I'm vegan.", {0, 1}, {2}),
    (INLINE_EMOJI, "Tous les trois 👍", {0, 1, 2}, set()),
    (INLINE_ZH, "甲、丙我认。乙不签，太慢了。", {0, 2}, {1}),
    (INLINE_ZH, "三条我全投赞成票。", {0, 1, 2}, set()),
    ("以后就按这三条：㈠值日表每周一更新；㈡公共冰箱周五清空；㈢水电费按人头分。", "㈠㈢我没话说，㈡我只认一半。", {0, 2}, {1}),
    ("两条规矩：1️⃣ 借器材要登记；2️⃣ 坏了照价赔。", "赞成1️⃣，赞成2️⃣。", {0, 1}, set()),
    # parts named by a head and an index on one line, the ask after the last one no part of it
    ("Three knots for the club. Knot A: every route names its setter. Knot B: no sponsor deal without a vote. "
     "Knot C: fees go to the club account. Where does everyone land?", "A yes, B no, C yes.", {0, 2}, {1}),
    ("Two stitches, then. Stitch 1: credit the pattern's maker. Stitch 2: proceeds go to the fund. Thoughts?",
     "Stitches 1 and 2 I accept.", {0, 1}, set()),
    # a reason that names a part's words, then a word on a part by its name: the reason votes nothing
    ("Three folds. Fold 1: the maker's name on every box. Fold 2: two signatures on any licence. Fold 3: money into the "
     "shared account.", "Folds 1 and 3 I accept. Fold 2 I won't sign: I answer the mail, and a second signature "
     "across five zones loses every request. Name and account, yes. The signatures, no.", {0, 2}, {1}),
])
def test_a_vote_names_the_parts_it_agrees_to_and_turns_down(proposal: str, reply: str, yes: set[int], no: set[int]) -> None:
    vote = read_vote(reply, parts(proposal))
    assert vote is not None and (set(vote.yes), set(vote.no)) == (yes, no)
    assert vote.all_yes is (not no and len(yes) == len(parts(proposal)))


@pytest.mark.parametrize("reply", ["yes", "sounds good to me", "I'll bring the cones on Saturday", "好的", "我晚点看",
                                   "word for word what I'd have written", "oh yes"])
def test_a_reply_that_names_no_part_and_no_count_is_no_vote(reply: str) -> None:
    assert read_vote(reply, parts(EN)) is None


def test_a_list_with_arrows_and_a_yes_to_each_of_its_parts() -> None:
    arrows = ("Three rules for the garden plots, one answer from each of you:\n→ plots rotate every spring\n"
              "→ tools go back to the shed the same day\n→ the water bill is split by plot size")
    assert len(parts(arrows)) == 3
    assert read_vote("Yes to each of the three.", parts(arrows)) == read_vote("All three, yes.", parts(arrows))
    vote = read_vote("Yes to each of the three.", parts(arrows))
    assert vote is not None and vote.all_yes


ZE = "合唱团定个章程，三条，各位看一条答一条：\n一则，演出署全团的名字；\n二则，任何合同三人以上同意才签；\n三则，团费每月公布。"
BRACKETS = "排练室以后就两条，各位给个准话：\n【钥匙】钥匙只放前台；\n【押金】押金统一收两百。"


@pytest.mark.parametrize(("proposal", "reply", "yes", "no"), [
    (ZE, "一则到三则，我全要。", {0, 1, 2}, set()),
    (ZE, "一则、三则我认。二则只认一半：三人太少。", {0, 2}, {1}),
    (ZE, "一二三，我这边都行。", {0, 1, 2}, set()),
    (ZE, "我举三次手。", {0, 1, 2}, set()),
    (BRACKETS, "【钥匙】【押金】，两条我都赞同。", {0, 1}, set()),
    (BRACKETS, "钥匙那条没问题。押金那条我不认：两百太多。", {0}, {1}),
    (BRACKETS, "两条，我这边一个字都不用改。", {0, 1}, set()),
])
def test_chinese_lists_of_rules_and_labels_are_voted_on_part_by_part(proposal: str, reply: str, yes: set[int],
                                                                   no: set[int]) -> None:
    """Parts numbered "一则…" or labelled "【钥匙】…", and the votes on them: a range, a run of numerals, hands raised,
    a label said before "那条"."""
    vote = read_vote(reply, parts(proposal))
    assert vote is not None and (set(vote.yes), set(vote.no)) == (yes, no)


def test_a_reply_that_only_shares_words_with_the_parts_says_no_yes() -> None:
    """"in" is a yes only as "I'm in": a line naming the parts' words ("second", "the entry fee") with "in equal
    parts", "in August" votes for nothing."""
    reply = ("Should the club win the second prize, the entry fee comes back to every runner in equal parts. "
             "They announce it in August.")
    assert read_vote(reply, parts(INLINE_EN)) is None
    assert read_vote("Second and third: I'm in.", parts(INLINE_EN)) == read_vote("Second and third: yes.", parts(INLINE_EN))


@pytest.mark.parametrize("text", ["I'll send the draft by Friday.", "Yesterday:\nwe met\nand talked",
                                  "```\nName : x\nSize : 3\n```"])
def test_a_message_that_is_no_list_of_parts_has_none(text: str) -> None:
    assert len(parts(text)) < 2 or text.startswith("```")


async def test_every_part_voted_yes_makes_a_party_and_a_part_turned_down_refuses_the_whole() -> None:
    facts = await _facts([("Ines", EN), ("Bo", "1, 2 and 3 from me"), ("Cem", "All three."),
                          ("Dara", "1 and 3 yes. 2 I can't back: half of us only see the bracket the night before.")])
    agreed = {f.subject for f in facts if f.kind is Kind.CONSENSUS and "club account" in f.value and f.attribute == "agrees to"}
    refused = {f.subject for f in facts if f.kind is Kind.CONSENSUS and "club account" in f.value and f.attribute == "refuses"}
    assert agreed == {"u-Bo", "u-Cem"} and refused == {"u-Dara"}
    assert not [f for f in facts if f.kind is Kind.COMMITMENT]


async def test_a_chinese_vote_of_all_parts_is_no_promise_of_its_own() -> None:
    facts = await _facts([("小林", ZH), ("阿珍", "三件，我都签"), ("老周", "（一）（三）我认，（二）不认，两百太多。")], "zh")
    assert not [f for f in facts if f.kind is Kind.COMMITMENT]
    votes = {(f.subject, f.attribute) for f in facts if f.kind is Kind.CONSENSUS and "钥匙" in f.value}
    assert votes == {("u-阿珍", "同意"), ("u-老周", "拒绝")}


@pytest.mark.parametrize(("lang", "said"), [
    ("zh", "说实话，上个月有家出版社要那组照片，我答应了，照片已经发过去了。"),
    ("en", "The file is with the printer, I already sent it, I promise."),
    ("en", "Nothing's hidden in the budget, I promise."),
    ("en", "No catch, I promise."),
])
async def test_an_assurance_of_what_was_done_or_is_is_no_promise(lang: str, said: str) -> None:
    facts = await _facts([("Rui", "what happened with the photos?" if lang == "en" else "照片那事怎么样了？"), ("Ota", said)], lang)
    assert not [f for f in facts if f.kind is Kind.COMMITMENT]


@pytest.mark.parametrize(("lang", "said", "words"), [
    ("en", "the deck goes out tomorrow, I promise", "deck"),
    ("zh", "我答应了，周五前把字幕发你", "字幕"),
])
async def test_a_promise_with_its_tag_still_stands(lang: str, said: str, words: str) -> None:
    facts = await _facts([("Rui", "and the rest?" if lang == "en" else "剩下的呢？"), ("Ota", said)], lang)
    assert [f for f in facts if f.kind is Kind.COMMITMENT and words in f.value]


async def test_a_vote_said_of_ones_own_town_or_name_or_with_a_who_in_it_still_counts() -> None:
    facts = await _facts([("Ana", "back in a minute"), ("Ines", EN), ("Bo", "Lima says yes to every line of that."),
                          ("Cem", "Cem votes for the club account, the bracket and the caster. The caster one most of all, Ines."),
                          ("Dara", "Ana says yes to all three, she told me on the phone.")])
    agreed = {f.subject for f in facts if f.kind is Kind.CONSENSUS and "club account" in f.value and f.attribute == "agrees to"}
    assert agreed == {"u-Bo", "u-Cem"}  # (Dara only reports someone else's vote)
    facts = await _facts([("小林", ZH), ("阿珍", "三件我全投赞成票。押金那件尤其好，谁也别想再拖。")], "zh")
    assert {f.subject for f in facts if f.kind is Kind.CONSENSUS and f.attribute == "同意" and "钥匙" in f.value} == {"u-阿珍"}


def test_what_is_left_of_what_was_promised_is_asked_as_open() -> None:
    from bot.offline.questions import Ask, read_question
    names = {"u-a": ["阿珍"], "u-b": ["Bo"]}
    for text in ("到现在为止，群里答应过的事还剩哪几件没兑现？", "which of the promises made here are still open?"):
        q = read_question(text, "u-a", names)
        assert q is not None and q.ask is Ask.OPEN and not q.zh_topic, text
    # a topic first, the question after a comma, no question mark
    q = read_question("bo's word about the raffle money, does it count yet or is it still waiting on something", "u-a", names)
    assert q is not None and q.ask is Ask.PROMISES and q.people == ("u-b",) and set(q.topic) <= {"raffl", "raffle", "money"}


@pytest.mark.parametrize(("proposal", "vote", "yes", "no"), [
    # parts headed in Chinese by a noun and its index ("底板一：…"), or "第一盆：…", counted by the proposal's own words
    ("以后合作，三块底板先铺好：底板一：署名并列。底板二：接手的人写清谁搭了哪块。底板三：截稿前一周冻结。每块请单独表态。",
     "三块底板都认。", {0, 1, 2}, set()),
    ("我写三盆规矩，大家一盆一盆表态：第一盆：删帖前先私聊。第二盆：禁言要两个管理员同意。第三盆：用药帖写清药名。",
     "三盆我全认🌵", {0, 1, 2}, set()),
    ("我写三盆规矩，大家一盆一盆表态：第一盆：删帖前先私聊。第二盆：禁言要两个管理员同意。第三盆：用药帖写清药名。",
     "第一盆、第二盆我认。第三盆不行。", {0, 1}, {2}),
    ("Three stops for the relay. Stop 1: photograph each pen. Stop 2: tracked post only. Stop 3: the sender pays half.",
     "Every stop, yes. Obviously.", {0, 1, 2}, set()),
])
def test_a_vote_on_parts_named_in_the_proposals_own_words(proposal: str, vote: str, yes: set[int], no: set[int]) -> None:
    found = read_vote(vote, parts(proposal))
    assert found is not None and (set(found.yes), set(found.no)) == (yes, no), found
