"""Embedders: the offline USE model on real text, the OpenAI-compatible one against a loopback stub."""

from __future__ import annotations

import math
from collections.abc import Iterator

import pytest

from memory.errors import ConfigError, EmbedderError, InvalidTextError
from memory.index.embedders import LineVectors, LocalEmbedder, OpenAIEmbedder, bounded, make_embedder
from memory.models import EMBED_TEXT_LIMIT
from tests.local_embedder import shared_local_embedder
from tests.openai_stub import EMBEDDINGS, OpenAIStub, StubResponse, serve_stub


@pytest.fixture(scope="session")
def local_embedder() -> LocalEmbedder:
    return shared_local_embedder()


@pytest.fixture
def openai_stub() -> Iterator[OpenAIStub]:
    with serve_stub() as stub:
        yield stub


def cos(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


async def test_local_embedder_shape_and_norm(local_embedder: LocalEmbedder) -> None:
    assert local_embedder.name == "local:use-multilingual-v3"
    assert local_embedder.dim == 512
    [vec] = await local_embedder.embed(["Alice will return the deposit on Friday."])
    assert len(vec) == 512
    assert math.isclose(math.sqrt(sum(x * x for x in vec)), 1.0, rel_tol=1e-3)


@pytest.mark.parametrize(
    ("text", "paraphrase", "unrelated"),
    [
        (
            "Bob promised to pay back the money by next week.",
            "Bob said he would return the cash within a week.",
            "The garden needs watering every morning.",
        ),
        ("张伟答应下周之前把钱还给李娜。", "张伟说他会在下周前还李娜的钱。", "菜园需要每天早上浇水。"),
        (
            "李娜觉得很委屈，没有被尊重。",
            "Li Na feels wronged and disrespected.",
            "The meeting room has a projector.",
        ),
    ],
)
async def test_local_paraphrases_are_closer_than_unrelated(
    local_embedder: LocalEmbedder, text: str, paraphrase: str, unrelated: str
) -> None:
    a, p, u = await local_embedder.embed([text, paraphrase, unrelated])
    assert cos(a, p) > cos(a, u) + 0.1


async def test_local_batch_equals_singles(local_embedder: LocalEmbedder) -> None:
    texts = [f"Memory number {i} about the dispute over the garden plot." for i in range(12)] + ["中文句子"]
    batch = await local_embedder.embed(texts)
    for text, vec in zip(texts, batch, strict=True):
        [single] = await local_embedder.embed([text])
        assert cos(single, vec) > 0.9999


async def test_local_empty_text_names_index(local_embedder: LocalEmbedder) -> None:
    with pytest.raises(InvalidTextError, match="text 2"):
        await local_embedder.embed(["fine", "also fine", "   "])
    assert await local_embedder.embed([]) == []


async def test_local_long_text_is_bounded(local_embedder: LocalEmbedder) -> None:
    long = "word " * 2000
    text, cut = bounded(long)
    assert cut and len(text) <= EMBED_TEXT_LIMIT
    assert bounded("short") == ("short", False)
    zh, zh_cut = bounded("争" * 5000)
    assert zh_cut and len(zh) == EMBED_TEXT_LIMIT
    [a] = await local_embedder.embed([long])
    [b] = await local_embedder.embed([text])
    assert cos(a, b) > 0.9999


async def test_local_embedders_of_a_process_share_one_model(local_embedder: LocalEmbedder) -> None:
    """A second runtime in the same process (tests, benches) does not load the model again."""
    other = LocalEmbedder(threads=local_embedder.threads)
    [a], [b] = await local_embedder.embed(["the draft is late"]), await other.embed(["the draft is late"])
    assert other._model is local_embedder._model and a == b


async def test_local_embedder_tokenizes_as_the_reference_sentencepiece(local_embedder: LocalEmbedder) -> None:
    """The model's text is cut by the sentencepiece library, as the model was trained: a run of characters
    the vocabulary lacks (an emoji joined by U+200D) is one unknown piece, not one per character, and
    so embeds as the same run without the joiner does."""
    await local_embedder.embed(["warm"])
    cut = local_embedder._model._sp.encode
    assert cut("a😮\u200d💨b", out_type=int) == [10, 0, 305] == cut("a😮💨b", out_type=int)
    assert cut("所以美术风格又改了", out_type=str)[0] == "▁"
    [joined], [plain] = await local_embedder.embed(["sigh 😮\u200d💨 ok"]), await local_embedder.embed(["sigh 😮💨 ok"])
    assert cos(joined, plain) > 0.9999

def test_line_vectors_embed_each_line_once_and_keep_the_latest(local_embedder: LocalEmbedder) -> None:
    asked: list[list[str]] = []

    def embed(texts: list[str]) -> list[list[float]]:
        asked.append(list(texts))
        return local_embedder.embed_sync(texts)

    lines = LineVectors(embed, size=2)
    first = lines(["I'll send it Friday", "ok", "ok"])
    assert asked == [["I'll send it Friday", "ok"]] and first[1] == first[2]
    assert lines(["I'll send it Friday", "ok"]) == first[:2] and len(asked) == 1  # both held; "ok" used last
    assert first[0] == pytest.approx(local_embedder.embed_sync(["I'll send it Friday"])[0], abs=1e-6)
    lines(["a third line"])  # past size=2: the least recently used ("I'll send it Friday") goes
    lines(["ok"])
    assert len(asked) == 2
    lines(["I'll send it Friday"])
    assert asked[-1] == ["I'll send it Friday"]


def test_unknown_embedder_names_the_setting() -> None:
    with pytest.raises(ConfigError, match="HEYAN_EMBEDDER") as err:
        make_embedder("bert")
    assert "local" in str(err.value) and "openai" in str(err.value)
    assert isinstance(make_embedder("local", threads=None), LocalEmbedder)
    with pytest.raises(ConfigError):
        LocalEmbedder(threads=0)


async def test_openai_embedder_batches_and_discovers_dim(openai_stub: OpenAIStub) -> None:
    emb = make_embedder(
        "openai", model="stub-embed", base_url=openai_stub.base_url, api_key="k", batch_size=2
    )
    assert isinstance(emb, OpenAIEmbedder)
    assert emb.name == "openai:stub-embed"
    await emb.start()
    assert emb.dim == openai_stub.embedding_dim
    vectors = await emb.embed(["a", "b", "c"])
    assert len(vectors) == 3 and all(len(v) == emb.dim for v in vectors)
    # one probe + two batches (2 + 1)
    assert [len(r["input"]) for r in openai_stub.embedding_requests] == [1, 2, 1]
    assert all(r["encoding_format"] == "float" for r in openai_stub.embedding_requests)
    [again] = await emb.embed(["b"])
    assert cos(again, vectors[1]) > 0.9999
    with pytest.raises(InvalidTextError, match="text 1"):
        await emb.embed(["x", ""])
    await emb.close()


async def test_openai_embedder_retries_then_succeeds(openai_stub: OpenAIStub) -> None:
    openai_stub.push(StubResponse(status=503, body={"error": {"message": "busy"}}), route=EMBEDDINGS)
    emb = OpenAIEmbedder(
        model="m", base_url=openai_stub.base_url, dim=openai_stub.embedding_dim, max_retries=2
    )
    assert len(await emb.embed(["hello"])) == 1
    assert len(openai_stub.embedding_requests) == 2
    await emb.close()


async def test_openai_embedder_errors_name_the_url(openai_stub: OpenAIStub) -> None:
    openai_stub.push(StubResponse(status=401, body={"error": {"message": "bad key"}}), route=EMBEDDINGS)
    emb = OpenAIEmbedder(model="m", base_url=openai_stub.base_url, dim=64, max_retries=0)
    with pytest.raises(EmbedderError, match="API key") as err:
        await emb.embed(["hello"])
    assert openai_stub.base_url in str(err.value)
    wrong = OpenAIEmbedder(model="m", base_url=openai_stub.base_url, dim=12, max_retries=0)
    with pytest.raises(EmbedderError, match="dim"):
        await wrong.embed(["hello"])
    down = OpenAIEmbedder(model="m", base_url="http://127.0.0.1:9/v1", dim=8, max_retries=0, timeout=2)
    with pytest.raises(EmbedderError, match=r"127\.0\.0\.1:9"):
        await down.embed(["hello"])
    for e in (emb, wrong, down):
        await e.close()
