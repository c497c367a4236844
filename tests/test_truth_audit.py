"""Truth audit: four held-out dispute scripts (tests/data/truth_audit, two English, two Chinese, written
with their answer key before the rules were read) replayed through `heyan chat --script` on the offline
provider. Every promise must keep its owner, recipient and due time; hedges, jokes and sarcasm must not
become promises; agreements keep their parties; questions to Heyan get answers that hold the key's facts.

`python -m tests.test_truth_audit` prints the figures (docs/BENCHMARKS.md, "Truth audit"). The tests
assert the items that work; the known misses are listed in MISSES (and in the report), not xfailed."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from adapters.cli.app import app
from tests.clock import after_script

pytestmark = pytest.mark.dated  # fixed dates: `make any-day` runs them years ahead too

DATA = Path(__file__).parent / "data" / "truth_audit"
KEY: dict[str, Any] = json.loads((DATA / "key.json").read_text(encoding="utf-8"))["scripts"]
_MENTION = re.compile(r"^\s*@(heyan|和言)", re.IGNORECASE)
_GONE = {"superseded", "rejected", "cancelled", "flagged", "expired"}


@dataclass
class Result:
    """What one script scored: item ids that passed each check, and the misses in words."""

    expected: int = 0
    found: set[str] = field(default_factory=set)
    owner: set[str] = field(default_factory=set)
    recipient: set[str] = field(default_factory=set)
    due: set[str] = field(default_factory=set)
    status: set[str] = field(default_factory=set)
    false: list[str] = field(default_factory=list)
    agreements: int = 0
    agreements_ok: set[str] = field(default_factory=set)
    parties_ok: set[str] = field(default_factory=set)
    questions: int = 0
    answers_ok: set[str] = field(default_factory=set)
    notes: list[str] = field(default_factory=list)


def replay(name: str, data_dir: Path) -> tuple[dict[int, str], list[dict[str, Any]]]:
    """Replay one script into a fresh data dir: the replies by script line (1-based) and the facts."""
    env = {"HEYAN_DATA_DIR": str(data_dir), "HEYAN_TIMEZONE": "UTC", "HEYAN_REDIS_URL": "",
           "HEYAN_QDRANT_URL": ""}
    runner = CliRunner()
    now = after_script(DATA / name)  # the clock set just after the script, whatever today is
    result = runner.invoke(app, ["--now", now, "chat", "--script", str(DATA / name), "--json"], env=env)
    assert result.exit_code == 0, result.output
    replies = [json.loads(x)["text"] for x in result.stdout.splitlines()
               if x.startswith("{") and "memory_ids" in json.loads(x)]
    lines = (DATA / name).read_text(encoding="utf-8").splitlines()
    asked = [i for i, x in enumerate(lines, 1) if _MENTION.match(json.loads(x)["text"])]
    assert len(asked) == len(replies), (asked, replies)
    listed = runner.invoke(app, ["--now", now, "memory", "list", "--json"], env=env)
    assert listed.exit_code == 0, listed.output
    return dict(zip(asked, replies, strict=True)), json.loads(listed.stdout)


def _has(text: str, words: list[str]) -> bool:
    low = text.lower()
    return any(w.lower() in low for w in words)


def _local_date(due_at: str | None, zone: str) -> str | None:
    if not due_at:
        return None
    sign = 1 if zone[0] == "+" else -1
    hours, minutes = (int(p) for p in zone[1:].split(":"))
    tz = timezone(sign * timedelta(hours=hours, minutes=minutes))
    return datetime.fromisoformat(due_at).astimezone(tz).date().isoformat()


def score(name: str, replies: dict[int, str], facts: list[dict[str, Any]]) -> Result:
    key = KEY[name]
    res = Result(expected=len(key["commitments"]))
    session = json.loads((DATA / name).read_text(encoding="utf-8").splitlines()[0])["session"]
    facts = [f for f in facts if f["session"] == session]
    commitments = [f for f in facts if f["kind"] == "commitment" and f["status"] not in _GONE]
    matched: dict[str, list[dict[str, Any]]] = {c["id"]: [] for c in key["commitments"]}
    for fact in commitments:
        text = f"{fact['attribute']} {fact['value']}"
        hits = [c for c in key["commitments"] if _has(text, c["action"])]
        if not hits:
            res.false.append(f"{fact['subject_name']}: {fact['value']}")
            continue
        for c in hits:
            matched[c["id"]].append(fact)
    for c in key["commitments"]:
        cands = matched[c["id"]]
        if not cands:
            res.notes.append(f"missed {c['id']}")
            continue
        res.found.add(c["id"])
        mine = [f for f in cands if f["subject_name"] == c["owner"]]
        if not mine:
            res.notes.append(f"{c['id']}: owner {[f['subject_name'] for f in cands]}")
            continue
        res.owner.add(c["id"])
        if len(mine) > 1:
            res.notes.append(f"{c['id']}: {len(mine)} open records {[f['value'] for f in mine]}")
        best = mine[-1]
        if c["recipient"] is None or _has(best.get("recipient_name") or "", [c["recipient"]]):
            res.recipient.add(c["id"])
        else:
            res.notes.append(f"{c['id']}: recipient {best.get('recipient_name')!r}")
        got = _local_date(best.get("due_at"), key["zone"])
        if (c["due"] is None and got is None) or (c["due"] is not None and got in c["due"]):
            res.due.add(c["id"])
        else:
            res.notes.append(f"{c['id']}: due {best.get('due_at')}")
        done = bool(best.get("done_at")) or best["status"] == "done"
        if done == (c["status"] == "done"):
            res.status.add(c["id"])
        else:
            res.notes.append(f"{c['id']}: done={done}")
    agreements = [f for f in facts if f["kind"] in ("agreement", "consensus") and f["status"] not in _GONE]
    for i, a in enumerate(key["agreements"]):
        res.agreements += 1
        hits = [f for f in agreements
                if all(_has(f"{f['value']} {f['sources'][0]['quote']}", g) for g in a["text"])]
        if not hits:
            res.notes.append(f"missed agreement {i}")
            continue
        res.agreements_ok.add(str(i))
        names = {s.get("author_name") for f in hits for s in f["sources"]} | {f["subject_name"] for f in hits}
        users = {u for f in hits for u in f.get("users", [])}
        parties = [p for p in a["parties"] if p not in names and f"u-{p.lower()}" not in users]
        if parties:
            res.notes.append(f"agreement {i}: parties missing {parties}")
        else:
            res.parties_ok.add(str(i))
    for q in key["questions"]:
        res.questions += 1
        reply = replies.get(q["line"], "")
        if all(_has(reply, g) for g in q["must"]) and not _has(reply, q["must_not"] or ["\0"]):
            res.answers_ok.add(str(q["line"]))
        else:
            res.notes.append(f"answer to line {q['line']}: {reply!r}")
    return res


def figures(results: dict[str, Result]) -> dict[str, str]:
    """The audit's summary line per measure, over all four scripts."""
    total = sum(r.expected for r in results.values())
    agreements = sum(r.agreements for r in results.values())
    questions = sum(r.questions for r in results.values())

    def n(attr: str) -> int:
        return sum(len(getattr(r, attr)) for r in results.values())

    return {
        "commitments found": f"{n('found')}/{total}",
        "right owner": f"{n('owner')}/{total}",
        "right recipient": f"{n('recipient')}/{total}",
        "right due": f"{n('due')}/{total}",
        "right open/done": f"{n('status')}/{total}",
        "false commitments": str(sum(len(r.false) for r in results.values())),
        "agreements found": f"{n('agreements_ok')}/{agreements}",
        "agreement parties all recorded": f"{n('parties_ok')}/{agreements}",
        "answers correct": f"{n('answers_ok')}/{questions}",
    }


# What works after the fixes of this audit (asserted below); the rest is in MISSES.
_ALL_EN1 = {"jen-review", "jen-signup", "marco-copy", "priya-timeline", "tom-pricing", "tom-sales"}
_ALL_ZH1 = {"chen-data", "chen-migrate", "li-report", "wang-summary", "zhang-contract", "zhang-quote"}
_ALL_ZH2 = {"liu-thanks", "sun-changelog", "sun-translate", "zhao-docs", "zhou-ci"}
_ALL_EN2 = {"alex-rsvp", "dana-venue", "omar-sponsors", "riya-draft"}
WORKS: dict[str, dict[str, set[str]]] = {
    "en_launch.jsonl": {"found": _ALL_EN1, "owner": _ALL_EN1, "recipient": _ALL_EN1 - {"tom-sales"},
                        "due": _ALL_EN1 - {"tom-pricing"}, "status": _ALL_EN1, "agreements_ok": {"0"},
                        "parties_ok": {"0"}, "answers_ok": {"21", "22", "23", "24"}},
    "en_meetup.jsonl": {"found": _ALL_EN2, "owner": _ALL_EN2, "recipient": {"omar-sponsors", "riya-draft"},
                        "due": _ALL_EN2, "status": _ALL_EN2 - {"omar-sponsors"}, "agreements_ok": {"0"},
                        "parties_ok": {"0"}, "answers_ok": {"21", "22", "23", "24"}},
    "zh_report.jsonl": {"found": _ALL_ZH1, "owner": _ALL_ZH1, "recipient": _ALL_ZH1 - {"wang-summary"}, "due": _ALL_ZH1,
                        "status": _ALL_ZH1, "agreements_ok": {"0"}, "parties_ok": {"0"},
                        "answers_ok": {"19", "20", "21", "22"}},
    "zh_release.jsonl": {"found": _ALL_ZH2, "owner": _ALL_ZH2, "recipient": _ALL_ZH2, "due": _ALL_ZH2 - {"liu-thanks"},
                         "status": _ALL_ZH2 - {"zhou-ci"}, "agreements_ok": {"0"}, "parties_ok": {"0"},
                         "answers_ok": {"21", "22", "23", "24"}},
}
#: Known misses, not asserted (docs/BENCHMARKS.md, "Truth audit").
MISSES = (
    "en_launch tom-sales: 'tell the sales team' has no recipient (the sales team is no participant)",
    "en_launch tom-pricing: 'will do, by Tuesday' said on a Tuesday is due that day, not the next Tuesday",
    "en_launch jen-review: 'then I'll review it Friday afternoon instead' is a second record beside the Thursday one",
    "en_meetup dana-venue, alex-rsvp: no recipient (the request was three messages earlier; an imperative's addressee)",
    "en_meetup omar-sponsors: 'sponsor list sent to Sam' does not name 'you'll have it tomorrow': the owner is asked",
    "en_meetup: 'I can do Monday, Friday is impossible for me' stays a promise 'do Monday' (a false commitment,"
    " worded badly in answers)",
    "zh_report wang-summary: 给老板 — the boss is no participant, so no recipient",
    "zh_release liu-thanks: 发布当天发 has no due time now (it was read as today); the release day is not linked",
    "zh_release zhou-ci: '我来修' keeps no object, so 'CI 修好了' asks 周婷 instead of closing it",
)
KNOWN_FALSE = 1


@pytest.fixture(scope="module")
def audited(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Result]:
    out = {}
    for name in KEY:
        replies, facts = replay(name, tmp_path_factory.mktemp("truth"))
        out[name] = score(name, replies, facts)
    return out


@pytest.mark.parametrize("name", sorted(KEY))
def test_what_works_keeps_working(audited: dict[str, Result], name: str) -> None:
    res = audited[name]
    for attr, ids in WORKS.get(name, {}).items():
        assert ids <= getattr(res, attr), (name, attr, ids - getattr(res, attr), res.notes)


def test_no_false_commitments_beyond_the_known(audited: dict[str, Result]) -> None:
    assert sum(len(r.false) for r in audited.values()) <= KNOWN_FALSE, {k: r.false for k, r in audited.items()}



def test_asking_which_promise_is_done_uses_the_speakers_clock(tmp_path: Path) -> None:
    """ "CI 修好了" with one unnamed match asks 周婷, in the clock she wrote in (+08:00), not the tenant's UTC."""
    env = {"HEYAN_DATA_DIR": str(tmp_path), "HEYAN_TIMEZONE": "UTC", "HEYAN_REDIS_URL": "", "HEYAN_QDRANT_URL": ""}
    script = DATA / "zh_release.jsonl"
    result = CliRunner().invoke(app, ["--now", after_script(script), "chat", "--script", str(script), "--json"],
                                env=env)
    notices = [json.loads(x)["text"] for x in result.stdout.splitlines() if x.startswith('{"type": "notice"')]
    assert notices and "12月2日周三 15:00（UTC+08:00）" in notices[0], notices


# --- the general rules behind the fixes, one line each ---------------------------------------------------

T0 = datetime(2026, 12, 1, 10, tzinfo=UTC)  # a Tuesday


def _rules(lines: list[tuple[str, str, str]], lang: str = "en") -> list[Any]:
    from bot.extraction.candidates import ExtractionRequest, Utterance
    from bot.offline.rules import extract_rules

    turns = [Utterance(f"m{i}", uid, name, text, T0 + timedelta(minutes=i)) for i, (uid, name, text) in enumerate(lines)]
    return extract_rules(ExtractionRequest("t", "s", turns, lang=lang, timezone="UTC"))  # type: ignore[arg-type]


def test_who_owes_what_asks_for_promises() -> None:
    from bot.offline.questions import Ask, read_question

    for text in ("@heyan who owes what?", "@和言 谁欠谁什么？", "@和言 张敏欠我什么？"):
        q = read_question(text, "u-a", {"u-z": ["张敏"]})
        assert q is not None and q.ask is Ask.PROMISES and not q.topic and not q.zh_topic, text


def test_a_laugh_with_a_mock_cue_is_no_promise_but_a_grudging_one_is() -> None:
    for text in ("lol sure, I'll also bake 500 cupcakes, obviously", "yeah sure, and I'll fly to the moon by Monday 🙄"):
        assert not any(c.kind.value == "commitment" for c in _rules([("u-r", "Riya", text)])), text
    assert not any(c.kind.value == "commitment" for c in _rules([("u-l", "小李", "哈哈，那我顺便把火星基地也建了吧")], "zh"))
    assert [c.kind.value for c in _rules([("u-p", "Priya", "ok ok i'll do the dishes after dinner 🙄")])] == ["commitment"]


def test_a_laugh_that_closes_a_promise_makes_it_a_joke() -> None:
    for text in ("honestly I'll carry your laptop bag for the rest of the year 😂",
                 "thanks!! I'll build you a statue in the town square 🤣🤣"):
        assert not any(c.kind.value == "commitment" for c in _rules([("u-r", "Riya", text)])), text
    assert not any(c.kind.value == "commitment" for c in _rules([("u-l", "小李", "以后全楼的快递我一个人包了😂")], "zh"))
    # a laugh after another clause leaves the promise standing
    kept = _rules([("u-p", "Priya", "I'll send the invoice on Friday, the printer ate the first one 😂")])
    assert [c.kind.value for c in kept] == ["commitment"]


def test_a_stated_agreement_is_what_the_answers_agree_to() -> None:
    found = _rules([("u-w", "王芳", "那我们就这么定：以后周报每周一上午十点前交"), ("u-l", "小李", "行"),
                    ("u-c", "陈浩", "同意"), ("u-z", "张敏", "没问题")], "zh")
    assert [(c.subject, c.value) for c in found] == [(u, "以后周报每周一上午十点前交") for u in ("u-l", "u-c", "u-z")]
    assert all(c.extra["proposed_by"] == "u-w" for c in found)


def test_taking_a_request_on_with_a_time_of_ones_own() -> None:
    [tom] = _rules([("u-p", "Priya", "Tom, could you update the pricing table before launch?"),
                    ("u-t", "Tom", "will do, by Friday")])
    assert tom.subject == "u-t" and tom.recipient == "u-p" and tom.due_at.date().isoformat() == "2026-12-04"
    [zhang] = _rules([("u-w", "王芳", "张敏，客户那边的报价你能周四前发给我吗？"), ("u-z", "张敏", "可以")], "zh")
    assert zhang.subject == "u-z" and zhang.recipient == "u-w" and "报价" in zhang.value
    [sun] = _rules([("u-l", "刘洋", "孙磊，你把 changelog 整理一下，周五给我可以吗？"), ("u-s", "孙磊", "周五不行，周六吧")], "zh")
    assert sun.kind.value == "commitment" and sun.due_at.date().isoformat() == "2026-12-05"


def test_a_promise_in_own_words_to_a_request_is_made_to_the_asker() -> None:
    [marco] = _rules([("u-p", "Priya", "ok so it slipped again. Marco, can you get the landing page copy done by Thursday?"),
                      ("u-m", "Marco", "sure, I'll have the copy by Thursday noon")])
    assert marco.subject == "u-m" and marco.recipient == "u-p"


def test_confirming_a_reported_promise_makes_it_ones_own() -> None:
    found = _rules([("u-m", "Marco", "btw Jen said she'll fix the broken signup form tomorrow"), ("u-j", "Jen", "yep, on it")])
    jen = [c for c in found if c.kind.value == "commitment"]
    assert [(c.subject, c.due_at.date().isoformat()) for c in jen] == [("u-j", "2026-12-02")]
    found = _rules([("u-m", "Marco", "btw Jen said she'll fix the broken signup form tomorrow"), ("u-t", "Tom", "yep")])
    assert not any(c.kind.value == "commitment" for c in found)  # only the one reported on confirms


def test_a_yes_that_restates_the_proposal_agrees_to_it() -> None:
    found = _rules([("u-d", "Dana", "do we agree the budget cap is $300?"), ("u-a", "Alex", "yes, $300 max")])
    assert [(c.subject, c.kind.value, c.extra.get("proposed_by")) for c in found] == [("u-a", "consensus", "u-d")]


def test_a_time_sentence_gives_the_next_promise_its_due() -> None:
    [dana] = _rules([("u-d", "Dana", "fine, Saturday morning then. I'll book the venue and pay the deposit")])
    assert dana.due_at is not None and dana.due_at.date().isoformat() == "2026-12-05"


def test_the_day_of_an_event_is_not_today() -> None:
    from bot.text.duetime import resolve_due

    assert resolve_due("给每个贡献者发感谢邮件，发布当天发", T0, "Asia/Shanghai") is None
    assert resolve_due("我当天就还你", T0, "Asia/Shanghai") is not None


def test_moving_a_promise() -> None:
    from bot.extraction.candidates import Utterance
    from bot.offline.reschedule import moved_value, reschedules

    [move] = reschedules([Utterance("m1", "u-m", "Marco", "actually make that Friday noon for the copy, Thursday is packed", T0)])
    assert (move.when, move.what) == ("Friday noon", "the copy")
    assert moved_value("have the copy by Thursday noon", move.when) == "have the copy by Friday noon"
    assert moved_value("文档，周四前写完", "周五") == "文档，周五前写完"
    asked = Utterance("m1", "u-w", "王芳", "那报价改成周五吧，周四客户不在", T0)
    [taken] = reschedules([Utterance("m2", "u-z", "张敏", "好的，周五", T0)], [asked])
    assert (taken.author_id, taken.when, taken.what) == ("u-z", "周五", "报价")
    assert not reschedules([Utterance("m1", "u-a", "A", "make it count", T0)])


if __name__ == "__main__":  # pragma: no cover - the audit's report
    import tempfile

    results = {}
    for script in KEY:
        with tempfile.TemporaryDirectory() as tmp:
            results[script] = score(script, *replay(script, Path(tmp)))
    for script, r in results.items():
        print(f"== {script}")
        for note in r.notes:
            print("   ", note)
        for false in r.false:
            print("    false:", false)
    print(json.dumps(figures(results), ensure_ascii=False, indent=1))
