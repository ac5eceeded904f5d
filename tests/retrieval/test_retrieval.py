"""Tests for searchgrade.retrieval: analysers, BM25 against rank_bm25, TF-IDF, co-ordination level, search."""
from __future__ import annotations

import math

import numpy as np
import pytest

from searchgrade import collections as ds
from searchgrade import retrieval as r


@pytest.fixture(scope="module")
def cran():
    return ds.load("cranfield")


# ---------------------------------------------------------------- analysers


def test_words():
    assert r.words("Boundary-Layer flow at M=6.5, (NACA TN 3792)") == [
        "boundary", "layer", "flow", "at", "m", "6", "5", "naca", "tn", "3792"]
    assert r.words("") == []
    assert r.words("under_score") == ["under", "score"]


def test_words_nostop():
    assert r.words_nostop("What are the effects of the wing on the flow?") == ["effects", "wing", "flow"]
    assert "the" in r.SNOWBALL_ENGLISH_STOP_WORDS and "flow" not in r.SNOWBALL_ENGLISH_STOP_WORDS


def test_stems():
    assert r.stems("The flows past heated plates were measured") == ["flow", "past", "heat", "plate", "measur"]
    assert r.stems("generalization generalizations") == ["gener", "gener"]


def test_stem_pairs():
    assert r.stem_pairs("heat transfer in slabs") == ["heat", "transfer", "slab", "heat_transfer", "transfer_slab"]
    assert r.stem_pairs("the") == []
    assert r.stem_pairs("wing") == ["wing"]


def test_analyser_registry():
    assert set(r.ANALYSERS) >= {"words", "words_nostop", "stems", "stem_pairs"}
    assert r.get_analyser("stems") is r.stems
    assert r.get_analyser(str.split) is str.split
    with pytest.raises(ValueError, match="unknown analyser 'stem'.*stems"):
        r.get_analyser("stem")
    with pytest.raises(ValueError, match="already registered"):
        r.register_analyser("words", str.split)


# ---------------------------------------------------------------- BM25


@pytest.mark.peers
@pytest.mark.parametrize("analyser", ["words", "stems", "stem_pairs"])
def test_bm25_equals_rank_bm25_on_cranfield(cran, analyser):
    rank_bm25 = pytest.importorskip("rank_bm25")
    analyse = r.get_analyser(analyser)
    tokens = [analyse(d["text"]) for d in cran.corpus.values()]
    ours = r.BM25Okapi(tokens)
    ref = rank_bm25.BM25Okapi(tokens)
    assert ours.avgdl == pytest.approx(ref.avgdl, abs=1e-12)
    assert ours.average_idf == pytest.approx(ref.average_idf, rel=1e-12)
    for qid in list(cran.queries)[::5]:
        q = analyse(cran.queries[qid])
        np.testing.assert_allclose(ours.get_scores(q), ref.get_scores(q), rtol=0, atol=1e-9)


@pytest.mark.peers
def test_bm25_parameters_and_repeated_terms_match_rank_bm25():
    rank_bm25 = pytest.importorskip("rank_bm25")
    corpus = [["a", "b", "b"], ["b", "c"], ["a", "a", "a", "c", "d"], [], ["b"]]
    for k1, b, eps in [(1.5, 0.75, 0.25), (0.9, 0.4, 0.5), (2.0, 0.99, 0.0)]:
        ours = r.BM25Okapi(corpus, k1=k1, b=b, epsilon=eps)
        ref = rank_bm25.BM25Okapi(corpus, k1=k1, b=b, epsilon=eps)
        for q in (["a"], ["b", "b", "zzz"], ["a", "c", "d"], []):
            np.testing.assert_allclose(ours.get_scores(q), ref.get_scores(q), rtol=0, atol=1e-12)
        assert ours.idf == pytest.approx(ref.idf)


def test_bm25_empty_document_with_b_one_scores_zero():
    """rank_bm25 divides 0 by 0 here (NaN); an empty document matches nothing, so it scores 0."""
    bm = r.BM25Okapi([["a"], [], ["b"]], b=1.0)
    assert bm.get_scores(["a"]).tolist()[1:] == [0.0, 0.0]


def test_bm25_by_hand():
    corpus = [["x", "y"], ["y", "y", "z"], ["z"]]
    bm = r.BM25Okapi(corpus, k1=1.2, b=0.5)
    avgdl = 2.0
    idf_x = math.log((3 - 1 + 0.5) / (1 + 0.5))
    expected = idf_x * 1 * 2.2 / (1 + 1.2 * (1 - 0.5 + 0.5 * 2 / avgdl))
    assert bm.get_scores(["x"])[0] == pytest.approx(expected)
    assert bm.get_scores(["x"])[1:].tolist() == [0.0, 0.0]


def test_empty_corpus_errors():
    with pytest.raises(ValueError, match="empty corpus"):
        r.BM25Okapi([])
    with pytest.raises(ValueError, match="no terms"):
        r.TfIdf([[], []])
    with pytest.raises(TypeError, match="token lists"):
        r.BM25Okapi(["a text", "another"])
    bm = r.BM25Okapi([["a"]])
    with pytest.raises(TypeError, match="not a string"):
        bm.get_scores("a")


# ---------------------------------------------------------------- TF-IDF and co-ordination level


def test_tfidf_cosine():
    corpus = [["a", "b"], ["a", "a", "c"], ["b", "c"], ["d"]]
    tfidf = r.TfIdf(corpus)
    scores = tfidf.get_scores(["a", "b"])
    idf = {t: math.log(4 / n) for t, n in {"a": 2, "b": 2, "c": 2, "d": 1}.items()}
    # document 0 has exactly the query's terms with tf 1: cosine 1
    assert scores[0] == pytest.approx(1.0)
    # document 1: a with tf 2, c with tf 1
    w1 = np.array([(1 + math.log(2)) * idf["a"], idf["c"]])
    assert scores[1] == pytest.approx(w1[0] * idf["a"] / (np.linalg.norm(w1) * math.sqrt(idf["a"] ** 2 + idf["b"] ** 2)))
    assert scores[3] == 0.0
    assert np.all(scores <= 1 + 1e-12)


def test_coordination_level():
    corpus = [["wing", "flow", "flow"], ["wing"], ["heat", "flow", "wing", "slab"], ["heat"]]
    cl = r.CoordinationLevel(corpus)
    q = ["wing", "flow", "heat", "flow", "unknown"]
    assert cl.get_scores(q).tolist() == [2.0, 1.0, 3.0, 1.0]
    assert cl.retrieve_at_level(q, 3).tolist() == [2]
    assert cl.retrieve_at_level(q, 2).tolist() == [0, 2]
    assert cl.retrieve_at_level(q, 1).tolist() == [0, 1, 2, 3]
    assert cl.matched(q).tolist() == [2.0, 1.0, 3.0, 1.0]
    with pytest.raises(ValueError, match="at least 1"):
        cl.retrieve_at_level(q, 0)


def test_coordination_levels_trade_recall_for_precision(cran):
    """Lowering the level can only grow the retrieved set, so recall never falls."""
    ix = r.index(cran, "stems", model="coordination")
    q = "1"
    rel = {d for d, g in cran.qrels[q].items() if g > 0}
    tokens = ix.analyser(cran.queries[q])
    top = int(ix.retriever.get_scores(tokens).max())
    recalls = []
    for level in range(top, 0, -1):
        got = {ix.docids[i] for i in ix.retriever.retrieve_at_level(tokens, level)}
        recalls.append(len(got & rel) / len(rel))
    assert recalls == sorted(recalls) and recalls[-1] > recalls[0]


# ---------------------------------------------------------------- top_k and search


def test_top_k_order_and_matching_only():
    corpus = [["a"], ["b"], ["a"], ["a", "a"], ["c"]]
    bm = r.BM25Okapi(corpus)
    idx, scores = bm.top_k(["a"], 10)
    assert idx.tolist() == [3, 0, 2]  # tie between 0 and 2 broken by corpus position
    assert scores[1] == scores[2] and np.all(np.diff(scores) <= 0)
    assert bm.top_k(["zzz"], 5)[0].tolist() == []
    assert bm.top_k(["a"], 2, exclude=[3])[0].tolist() == [0, 2]
    with pytest.raises(ValueError, match="positive"):
        bm.top_k(["a"], 0)
    with pytest.raises(IndexError):
        bm.top_k(["a"], 2, exclude=[9])
    assert [x[0].tolist() for x in bm.batch_top_k([["a"], ["b"]], 1)] == [[3], [1]]


def test_search_is_deterministic_and_uses_docids(cran):
    ix = r.index(cran, "words_nostop")
    queries = {q: cran.queries[q] for q in list(cran.queries)[:20]}
    run1 = ix.search(queries, k=50)
    run2 = r.search(r.BM25Okapi([r.words_nostop(d["text"]) for d in cran.corpus.values()]), queries,
                    "words_nostop", k=50, docids=list(cran.corpus))
    assert run1 == run2
    assert [list(v) for v in run1.values()] == [list(v) for v in run2.values()]
    assert all(len(v) == 50 for v in run1.values())
    assert set(run1["1"]) <= set(cran.corpus)


def test_search_exclude(cran):
    ix = r.index(cran, "stems")
    full = ix.search({"1": cran.queries["1"]}, k=10)
    src = next(iter(cran.exclude["1"]))
    assert src in full["1"]  # the source paper of query 1 is found
    cut = ix.search({"1": cran.queries["1"]}, k=10, exclude=cran.exclude)
    assert src not in cut["1"] and len(cut["1"]) == 10
    with pytest.raises(KeyError, match="not in the corpus"):
        ix.search({"1": "flow"}, exclude={"1": ["99999"]})


def test_search_default_docids_and_errors():
    bm = r.BM25Okapi([["a"], ["b"]])
    assert r.search(bm, {"q": "A"}, "words") == {"q": {"0": pytest.approx(bm.get_scores(["a"])[0])}}
    with pytest.raises(ValueError, match="unknown analyser"):
        r.search(bm, {"q": "a"}, "nope")
    with pytest.raises(ValueError, match="2 documents"):
        r.search(bm, {"q": "a"}, "words", docids=["x"])


def test_index_models_and_errors(cran):
    for model in r.MODELS:
        run = r.index(cran, "stems", model=model).search({"1": cran.queries["1"]}, k=5)
        assert len(run["1"]) == 5
    with pytest.raises(ValueError, match="unknown model"):
        r.index(cran, "stems", model="dense")
    small = r.index(cran, "words", model="bm25", fields=("title",), k1=1.2)
    assert small.retriever.k1 == 1.2


def test_index_at_level():
    class Toy:
        corpus = {"d1": {"text": "wing flow"}, "d2": {"text": "wing"}, "d3": {"text": "heat flow wing slab"}}

    ix = r.index(Toy, "words", model="coordination")
    run = ix.at_level({"q": "wing flow heat", "e": "nothing"}, 2)
    assert run == {"q": {"d3": 3.0, "d1": 2.0}, "e": {}}
    assert ix.at_level({"q": "wing flow heat"}, 1, exclude={"q": ["d3"]}) == {"q": {"d1": 2.0, "d2": 1.0}}
    assert ix.at_level({"q": "wing flow heat"}, 4) == {"q": {}}
    with pytest.raises(ValueError, match="at least 1"):
        ix.at_level({"q": "wing"}, 0)


def test_korean_tokenisers_are_analysers():
    ws = r.get_analyser("ko-ws")
    assert ws("세종대왕은 한글을 만들었다") == ["세종대왕은", "한글을", "만들었다"]
    assert r.get_analyser("ko-bigram")("한글을")[:2] == ["한글", "글을"]
    with pytest.raises(ValueError, match="ko-kiwi"):
        r.get_analyser("ko-nope")
