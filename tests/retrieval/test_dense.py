"""Tests for searchgrade.retrieval.dense: the cache, top-k, and the offline models on tiny texts (marked ``model``)."""
from __future__ import annotations

import numpy as np
import pytest

from searchgrade.retrieval import dense


class CountingEncoder(dense.Encoder):
    """A deterministic toy encoder: letter counts of a/b/c (+ side flag), counting its calls."""

    name = "toy"
    batch_size = 2

    def __init__(self, version="1"):
        self.version = version
        self.calls = 0

    def settings(self):
        return {"encoder": "toy", "version": self.version}

    def _embed(self, texts, side):
        self.calls += 1
        return np.array([[t.count("a"), t.count("b"), t.count("c") + 0.5, 1.0 if side == "query" else 0.0]
                         for t in texts], dtype=np.float64)


def test_vectors_are_normalised_float32(tmp_path):
    enc = CountingEncoder()
    v = enc.encode_documents(["aab", "c", "abc"], progress=False, cache=tmp_path)
    assert v.dtype == np.float32 and v.shape == (3, 4)
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0)
    assert enc.calls == 2  # batches of 2


def test_cache_hit_and_miss(tmp_path):
    enc = CountingEncoder()
    first = enc.encode_documents(["aab", "c"], progress=False, cache=tmp_path)
    assert enc.calls == 1 and len(list(tmp_path.glob("toy-document-*.npy"))) == 1
    again = enc.encode_documents(["aab", "c"], progress=False, cache=tmp_path)
    assert enc.calls == 1 and np.array_equal(first, again)        # hit
    enc.encode_queries(["aab", "c"], progress=False, cache=tmp_path)
    assert enc.calls == 2                                          # other side: miss
    enc.encode_documents(["aab", "cc"], progress=False, cache=tmp_path)
    assert enc.calls == 3                                          # other text: miss
    other = CountingEncoder(version="2")
    other.encode_documents(["aab", "c"], progress=False, cache=tmp_path)
    assert other.calls == 1                                        # other settings: miss
    enc.encode_documents(["aab", "c"], progress=False, cache=False)
    assert enc.calls == 4                                          # cache off


def test_encode_rejects_bad_input():
    enc = CountingEncoder()
    with pytest.raises(TypeError, match="list of texts"):
        enc.encode_documents("abc", cache=False)
    with pytest.raises(TypeError, match="text 1 is int"):
        enc.encode_documents(["a", 3], cache=False)


def test_top_k_rows_ties_by_column():
    scores = np.array([[0.1, 0.9, 0.5, 0.9, 0.2], [1.0, 1.0, 1.0, 1.0, 1.0]])
    (i0, s0), (i1, s1) = dense.top_k_rows(scores, 3)
    assert i0.tolist() == [1, 3, 2] and s0.tolist() == [0.9, 0.9, 0.5]
    assert i1.tolist() == [0, 1, 2]
    assert dense.top_k_rows(scores, 10)[0][0].tolist() == [1, 3, 2, 4, 0]


def test_dense_index_search_and_scorer(tmp_path):
    corpus = {"d1": {"title": "", "text": "aaa"}, "d2": {"title": "", "text": "bbb"}, "d3": {"title": "c", "text": "cc"}}
    index = dense.DenseIndex(CountingEncoder(), corpus, progress=False, cache=tmp_path)
    queries = {"q1": "a", "q2": "ccc"}
    run = index.search(queries, k=2)
    assert list(run["q1"])[0] == "d1"
    assert list(run["q2"])[0] == "d3"
    scores = index.scorer(queries)("q1", ["d2", "d1"])
    assert scores[1] == pytest.approx(run["q1"]["d1"])
    with pytest.raises(KeyError, match="'d9' is not in the indexed corpus"):
        index.scorer(queries)("q1", ["d9"])
    assert dense.doc_text(corpus["d3"]) == "c\ncc"


def test_get_encoder_names():
    assert isinstance(dense.get_encoder("e5"), dense.E5Encoder)
    assert isinstance(dense.get_encoder("use"), dense.USEEncoder)
    enc = dense.get_encoder("minilm")
    assert isinstance(enc, dense.SentenceTransformerEncoder) and enc.name == "minilm"
    assert (dense.minilm_path() / "modules.json").is_file()
    other = dense.get_encoder("some-org/some-model")
    assert isinstance(other, dense.SentenceTransformerEncoder) and other.model_name == "some-org/some-model"


@pytest.mark.model  # imports sentence-transformers and torch (seconds), though no model loads
def test_unavailable_models_fail_clearly(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(RuntimeError, match="could not be loaded: no model hub is reachable"):
        dense.SentenceTransformerEncoder("no-such-org/no-such-model").encode_queries(["x"], cache=False)
    with pytest.raises(RuntimeError, match="cross-encoder model 'BAAI/bge-reranker-v2-m3' could not be loaded"):
        dense.CrossEncoderScorer("BAAI/bge-reranker-v2-m3").score("q", ["d"])


KOREAN_DOCS = [
    "김치는 배추를 소금에 절여 양념으로 버무린 뒤 발효시킨 한국 음식이다.",
    "서울은 대한민국의 수도로 한강이 도시 한가운데를 흐른다.",
    "커피콩을 볶으면 갈색으로 변하고 향이 진해진다.",
]
KOREAN_QUERIES = ["배추로 만드는 발효 음식은?", "한국의 수도는 어디인가?", "원두를 로스팅하면 어떻게 되나?"]


def _check_model(enc, tmp_path):
    d = enc.encode_documents(KOREAN_DOCS, progress=False, cache=tmp_path)
    q = enc.encode_queries(KOREAN_QUERIES, progress=False, cache=tmp_path)
    assert d.dtype == np.float32 and np.allclose(np.linalg.norm(d, axis=1), 1.0, atol=1e-5)
    assert d.shape[0] == 3 and q.shape == (3, d.shape[1])
    return q @ d.T


@pytest.mark.model
def test_minilm_offline(tmp_path):
    enc = dense.get_encoder("minilm")
    sims = _check_model(enc, tmp_path)
    assert sims.shape == (3, 3)
    en = enc.encode_documents(["The cat sat on the mat.", "Stock markets fell sharply."], progress=False, cache=False)
    qe = enc.encode_queries(["Where did the cat sit?"], progress=False, cache=False)
    assert (en @ qe[0]).argmax() == 0
    assert enc.settings()["fingerprint"] != str(dense.minilm_path())


@pytest.mark.model
def test_e5_finds_korean_paraphrases(tmp_path):
    sims = _check_model(dense.get_encoder("e5"), tmp_path)
    assert sims.argmax(axis=1).tolist() == [0, 1, 2]


@pytest.mark.model
def test_use_finds_korean_paraphrases(tmp_path):
    sims = _check_model(dense.get_encoder("use"), tmp_path)
    assert sims.argmax(axis=1).tolist() == [0, 1, 2]


@pytest.mark.model
def test_e5_cuts_at_512_tokens():
    enc = dense.E5Encoder()
    long_text = "한국어 검색 평가 " * 400
    cut = enc.truncate(long_text)
    assert enc.model.token_count(cut) <= 512 < enc.model.token_count(long_text[:len(cut) + 1])
    assert long_text.startswith(cut)
    assert enc.truncate("짧은 글") == "짧은 글"
    assert dense.E5Encoder(max_tokens=None).truncate(long_text) == long_text
    assert enc.settings()["max_tokens"] == 512
