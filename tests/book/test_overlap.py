"""Tests of searchgrade.book.overlap: hand-made questions and paragraphs, worked out by hand."""
import numpy as np
import pandas as pd
import pytest

from searchgrade import stats
from searchgrade.book import overlap

CORPUS = {"d1": {"title": "Sejong", "text": "king sejong made hangul"},
          "d2": {"title": "Seoul", "text": "capital city"},
          "d3": {"title": "", "text": "hangul alphabet letters"}}
QUERIES = {"q1": "who made hangul", "q2": "hangul alphabet made", "q3": "", "q4": "capital", "q5": "nothing"}
QRELS = {"q1": {"d1": 1}, "q2": {"d1": 1, "d3": 2}, "q3": {"d2": 1}, "q4": {"d2": 0}, "q5": {"d2": 1}}


def split(text):
    return text.split()


def test_token_overlap_by_hand():
    got = overlap.token_overlap(QUERIES, CORPUS, QRELS, tokeniser=split)
    # q1: {who, made, hangul} vs d1 -> made, hangul: 2/3
    # q2: {hangul, alphabet, made}: d1 shares 2, d3 shares 2 -> best 2/3
    # q3: no token -> NaN; q4: only a grade-0 document -> left out; q5: 0 of 1
    assert list(got.index) == ["q1", "q2", "q3", "q5"]
    assert got["q1"] == pytest.approx(2 / 3) and got["q2"] == pytest.approx(2 / 3)
    assert np.isnan(got["q3"]) and got["q5"] == 0.0


def test_token_overlap_reads_the_title_and_takes_the_best_document():
    got = overlap.token_overlap({"q": "sejong alphabet letters"}, CORPUS, {"q": {"d1": 1, "d3": 1}},
                                tokeniser=lambda t: t.lower().split())
    assert got["q"] == pytest.approx(2 / 3)           # d3 holds 2 of 3; d1 (title Sejong) only 1
    only_text = overlap.token_overlap({"q": "sejong"}, CORPUS, {"q": {"d1": 1}},
                                      tokeniser=lambda t: t.lower().split(), fields=("text",))
    assert only_text["q"] == 1.0                       # 'sejong' is also in d1's text


def test_token_overlap_unknown_document():
    with pytest.raises(KeyError, match="not in the corpus"):
        overlap.token_overlap({"q": "a"}, CORPUS, {"q": {"zz": 1}}, tokeniser=split)


@pytest.mark.model  # loads Kiwi's morphological model (kiwipiepy_model)
def test_token_overlap_korean_tokeniser_matters():
    corpus = {"d": {"title": "", "text": "세종대왕은 1443년에 훈민정음을 창제하였다."}}
    queries, qrels = {"q": "훈민정음은 누가 만들었나요?"}, {"q": {"d": 1}}
    eojeol = overlap.token_overlap(queries, corpus, qrels, tokeniser="ko-ws")["q"]
    morphemes = overlap.token_overlap(queries, corpus, qrels, tokeniser="ko-kiwi")["q"]
    assert eojeol == 0.0 and morphemes > 0.0           # particles glued to 훈민정음 hide the shared word


def test_overlap_buckets_edges():
    values = pd.Series({"a": 0.0, "b": 0.49, "c": 0.5, "d": 0.99, "e": 1.0, "f": np.nan})
    got = overlap.overlap_buckets(values, edges=(0, 0.5, 1))
    assert list(got.index) == ["a", "b", "c", "d", "e"]
    assert list(got.astype(str)) == ["0.00–0.50", "0.00–0.50", "0.50–1.00", "0.50–1.00", "0.50–1.00"]
    assert list(got.cat.categories) == overlap.bucket_labels([0, 0.5, 1])


@pytest.mark.parametrize("edges", [(0.5,), (0, 0.5, 0.5), (1, 0)])
def test_overlap_buckets_bad_edges(edges):
    with pytest.raises(ValueError, match="strictly increasing"):
        overlap.overlap_buckets(pd.Series({"a": 0.5}), edges=edges)


def test_overlap_buckets_value_outside():
    with pytest.raises(ValueError, match="outside"):
        overlap.overlap_buckets(pd.Series({"a": 1.2}), edges=(0, 1))


def test_compare_by_bucket():
    n = 30
    ids = [f"q{i}" for i in range(2 * n)]
    buckets = overlap.overlap_buckets(pd.Series([0.1] * n + [0.9] * n, index=ids), edges=(0, 0.5, 0.75, 1))
    a = pd.Series([1.0] * n + [1.0, 0.0] * (n // 2), index=ids)
    b = pd.Series([0.0] * n + [0.0, 1.0] * (n // 2), index=ids)
    got = overlap.compare_by_bucket(a, b, buckets, n_perm=2000, seed=1)
    low, mid, high = got.index
    assert got.loc[low, "n"] == n and got.loc[mid, "n"] == 0 and got.loc[high, "n"] == n
    assert got.loc[low, "mean_diff"] == 1.0 and got.loc[high, "mean_diff"] == 0.0
    assert got.loc[low, "p_value"] < 0.01 and got.loc[high, "p_value"] == 1.0
    assert np.isnan(got.loc[mid, "p_value"]) and not got.loc[mid, "significant"]
    tested = got["p_value"].dropna()
    np.testing.assert_allclose(got["p_holm"].dropna(), stats.holm(tested.to_numpy()))
    assert got.loc[low, "significant"] and not got.loc[high, "significant"]


def test_compare_by_bucket_needs_every_score():
    buckets = overlap.overlap_buckets(pd.Series({"q1": 0.2, "q2": 0.8}), edges=(0, 1))
    with pytest.raises(KeyError, match="no score"):
        overlap.compare_by_bucket(pd.Series({"q1": 1.0}), pd.Series({"q1": 0.0, "q2": 1.0}), buckets)


def test_overlap_buckets_separate_top():
    values = pd.Series({"a": 0.2, "b": 0.99, "c": 1.0})
    got = overlap.overlap_buckets(values, edges=(0, 0.5, 1), separate_top=True)
    assert list(got.astype(str)) == ["0.00–0.50", "0.50–1.00", "1.00"]
    assert list(got.cat.categories) == ["0.00–0.50", "0.50–1.00", "1.00"]
