"""The cipher, the keys and the codec's sealed payloads (``memory.store.crypto``, ``memory.store.codec``)."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner

from adapters.cli.app import app
from memory.errors import DecryptionError, KeyConfigError
from memory.models import Fact, Kind, Source, Summary, utcnow
from memory.store.codec import PLAIN, SEALED, PayloadCodec
from memory.store.crypto import ENV, KEY_FILE, Cipher, generate_key, key_id, load_cipher, parse_keys
from tests.keys import OTHER_KEY, TEST_KEY

OLD, NEW = parse_keys(TEST_KEY)[0], parse_keys(OTHER_KEY)[0]


def _fact(subject: str = "u1") -> Fact:
    return Fact(tenant="discord:1", session="t", kind=Kind.COMMITMENT, subject=subject, subject_name="张伟",
                attribute="send the draft", value="send the draft to Ann by Friday", asserted_by="u1",
                users=("u1",), sources=(Source(message_id="m1", author_id="u1", author_name="张伟", ts=utcnow(),
                                               quote="I'll send the draft by Friday"),), slot="commitment:ab").with_id()


def test_seal_opens_only_with_its_context_and_a_configured_key() -> None:
    cipher = Cipher([NEW, OLD])
    token = cipher.seal("秘密 secret".encode(), "facts/discord:1/a")
    assert token.startswith(f"hy1.{key_id(NEW)}.") and cipher.is_current(token)
    assert cipher.open(token, "facts/discord:1/a") == "秘密 secret".encode()
    with pytest.raises(DecryptionError, match="copied from another record"):
        cipher.open(token, "facts/discord:1/b")  # moved onto another record
    tampered = token[:-2] + ("A" if token[-2] != "A" else "B") + token[-1]
    with pytest.raises(DecryptionError, match="altered"):
        cipher.open(tampered, "facts/discord:1/a")
    old_token = Cipher([OLD]).seal(b"x", "c")
    assert cipher.open(old_token, "c") == b"x" and not cipher.is_current(old_token)
    with pytest.raises(DecryptionError, match=f"key {key_id(OLD)}, which is not in {ENV}"):
        Cipher([NEW]).open(old_token, "c")
    assert TEST_KEY not in repr(cipher) and OTHER_KEY not in repr(cipher)


@pytest.mark.parametrize("bad", ["", "a,,b", "not base64!!", "c2hvcnQ=", f"{TEST_KEY},x"])
def test_malformed_keys_name_the_variable_never_the_key(bad: str) -> None:
    with pytest.raises(KeyConfigError) as err:
        parse_keys(bad or " ")
    message = str(err.value)
    assert message.startswith(ENV) and "heyan keys generate" in message and "\n" not in message
    assert TEST_KEY not in message and "not base64!!" not in message


def test_the_embedded_key_file_is_created_0600_and_reused(tmp_path: Path) -> None:
    first = load_cipher(None, tmp_path, distributed=False)
    path = tmp_path / KEY_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    again = load_cipher(None, tmp_path, distributed=False)
    assert again.primary == first.primary
    path.chmod(0o644)
    load_cipher(None, tmp_path, distributed=False)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # tightened
    assert load_cipher(TEST_KEY, tmp_path, distributed=True).primary == key_id(OLD)  # the variable wins


def test_the_distributed_shape_refuses_without_keys(tmp_path: Path) -> None:
    with pytest.raises(KeyConfigError, match=f"{ENV} is not set") as err:
        load_cipher(None, tmp_path, distributed=True)
    assert "\n" not in str(err.value) and not (tmp_path / KEY_FILE).exists()


def test_cli_refuses_in_one_line_and_config_masks_the_keys(tmp_path: Path, redis_url: str) -> None:
    env = {"HEYAN_DATA_DIR": str(tmp_path), "HEYAN_REDIS_URL": redis_url, ENV: None}
    result = CliRunner().invoke(app, ["memory", "list"], env=env)  # type: ignore[arg-type]
    assert result.exit_code == 2 and ENV in result.output
    assert len([line for line in result.output.splitlines() if line.strip()]) <= 3  # one line, wrapped at most
    result = CliRunner().invoke(app, ["config"], env={ENV: f"{TEST_KEY},{OTHER_KEY}"})
    assert result.exit_code == 0 and TEST_KEY not in result.output and OTHER_KEY not in result.output
    assert json.loads(result.output)["privacy"]["encryption_keys"] == "***"
    result = CliRunner().invoke(app, ["keys", "generate"])
    assert result.exit_code == 0 and len(parse_keys(result.output.strip())) == 1


def test_sealed_fact_payload_holds_no_free_text_and_filters_stay_plain() -> None:
    codec = PayloadCodec(Cipher([NEW]))
    fact = _fact()
    payload = codec.fact_to_payload(fact)
    raw = json.dumps(payload, ensure_ascii=False)
    for text in ("draft", "张伟", "Friday", "commitment:ab"):
        assert text not in raw
    assert payload["subject"] == "u1" and payload["users"] == ["u1"] and payload["tenant"] == "discord:1"
    assert payload["kind"] == "commitment" and payload["status"] == "active" and payload["due_ts"] is None
    assert codec.fact_from_payload(payload) == fact
    entity = _fact(subject="the printer")
    sealed = codec.fact_to_payload(entity)
    assert sealed["subject"].startswith("~") and "printer" not in json.dumps(sealed)
    assert codec.fact_from_payload(sealed).subject == "the printer"
    # a sealed payload copied onto another record does not open there
    other = _fact().model_copy(update={"id": "00000000-0000-0000-0000-000000000001"})
    with pytest.raises(DecryptionError):
        codec.fact_from_payload({**payload, "id": other.id})
    with pytest.raises(DecryptionError, match=ENV):
        PLAIN.fact_from_payload(payload)


def test_records_from_before_encryption_are_read_and_resealed() -> None:
    codec = PayloadCodec(Cipher([NEW, OLD]))
    fact, summary = _fact(), Summary(tenant="discord:1", session="t", text="they agreed", history=("old",)).with_id()
    legacy_fact, legacy_summary = PLAIN.fact_to_payload(fact), PLAIN.summary_to_payload(summary)
    assert codec.fact_from_payload(legacy_fact) == fact and codec.summary_from_payload(legacy_summary) == summary
    assert not codec.is_current(legacy_fact)
    resealed = codec.reseal("facts", fact.id, legacy_fact)
    assert resealed is not None and codec.sealed_with(resealed) == key_id(NEW)
    merged = {**legacy_fact, **resealed}  # what set_payload leaves: the clear keys are wiped
    assert merged["value"] is None and merged["text"] is None and codec.fact_from_payload(merged) == fact
    assert codec.reseal("facts", fact.id, merged) is None
    under_old = PayloadCodec(Cipher([OLD])).summary_to_payload(summary)
    assert SEALED in under_old and codec.summary_from_payload(under_old) == summary
    again = codec.reseal("summaries", summary.id, under_old)
    assert again is not None and codec.sealed_with(again) == key_id(NEW) and again["text"] is None


def test_generated_keys_are_distinct_and_valid() -> None:
    keys = {generate_key() for _ in range(5)}
    assert len(keys) == 5 and all(len(parse_keys(k)[0]) == 32 for k in keys)
