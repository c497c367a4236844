"""BM25 encoder: stable term ids, English and Chinese tokens, document and query weights."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from memory.index.sparse import AVG_DOC_LEN, K1, Bm25Encoder, term_id, tokenize


def test_term_ids_are_stable_across_processes() -> None:
    words = ["deposit", "张伟", "押金", "garden"]
    code = "import json, sys; from memory.index.sparse import term_id; print(json.dumps([term_id(w) for w in sys.argv[1:]]))"
    ids = []
    for seed in ("1", "2"):
        out = subprocess.run(
            [sys.executable, "-c", code, *words],
            capture_output=True,
            text=True,
            check=True,
            env={"PYTHONHASHSEED": seed, "PATH": ""},
        )
        ids.append(json.loads(out.stdout))
    assert ids[0] == ids[1] == [term_id(w) for w in words]
    assert all(0 <= i < 2**32 for i in ids[0])
    # pinned: a change here would silently break every stored sparse vector
    assert term_id("deposit") == 0x95DB9D39


def test_english_tokens_lowercase_stopwords_stems() -> None:
    assert tokenize("The Kids were PAINTING, painted paints") == ["kid", "paint", "paint", "paint"]
    assert tokenize("Running, dancing and dance!") == ["run", "danc", "danc"]
    assert tokenize("is the a of") == []


def test_chinese_characters_and_bigrams() -> None:
    tokens = tokenize("李娜的押金")
    assert {"李", "娜", "押", "金", "李娜", "押金", "娜的", "的押"} <= set(tokens)
    assert "的" not in tokens  # particle dropped as a single character
    mixed = tokenize("张伟 said 押金 is late")
    assert "张伟" in mixed and "押金" in mixed and "late" in mixed and "said" in mixed


def test_query_matches_reworded_chinese_document() -> None:
    enc = Bm25Encoder()
    doc = enc.encode_document("张伟要求重新抽签分配菜地")
    query = enc.encode_query("怎么重新分配菜地？")
    shared = set(doc.indices) & set(query.indices)
    assert {term_id("分配"), term_id("菜地"), term_id("重新")} <= shared


def test_document_weights_saturate_and_normalise_length() -> None:
    enc = Bm25Encoder()
    one = enc.encode_document("deposit")
    weights = dict(zip(one.indices, one.values, strict=True))
    norm = K1 * (1 - 0.75 + 0.75 * 1 / AVG_DOC_LEN)
    assert weights[term_id("deposit")] == pytest.approx((K1 + 1) / (1 + norm))
    three = enc.encode_document("deposit deposit deposit")
    repeated = dict(zip(three.indices, three.values, strict=True))
    assert weights[term_id("deposit")] < repeated[term_id("deposit")] < K1 + 1  # grows, saturates
    long = enc.encode_document("deposit " + " ".join(f"word{i}" for i in range(30)))
    long_w = dict(zip(long.indices, long.values, strict=True))
    assert long_w[term_id("deposit")] < weights[term_id("deposit")]  # longer documents weigh a term less
    assert list(one.indices) == sorted(one.indices)


def test_query_weights_are_one_per_unique_term() -> None:
    q = Bm25Encoder().encode_query("deposit deposit garden 押金")
    assert set(q.values) == {1.0}
    assert len(q.indices) == len(set(q.indices)) == 5  # deposit, garden, 押, 金, 押金
    assert Bm25Encoder().encode_query("the of").empty


def test_jieba_mode_is_available() -> None:
    enc = Bm25Encoder(zh="jieba")
    assert enc.name == "bm25:jieba+stem"
    assert "押金" in enc.tokens("张伟的押金")
    with pytest.raises(ValueError):
        Bm25Encoder(zh="words")  # type: ignore[arg-type]
