"""Kiwi-tokenised ROUGE: ranx-k's tokens and F1 scores, by hand."""
import builtins

import pytest

from searchgrade.retrievers import rouge
from searchgrade.retrievers.rouge import kiwi_tokens, rouge_f1


def test_rouge_l_and_1_by_hand():
    ref, ret = ["a", "b", "c", "d"], ["a", "c", "x"]
    # LCS a c = 2: P = 2/3, R = 2/4, F1 = 2 P R / (P + R) = 4/7
    assert rouge_f1(ref, ret, "rougeL") == pytest.approx(4 / 7, abs=1e-15)
    assert rouge_f1(ref, ret, "rouge1") == pytest.approx(4 / 7, abs=1e-15)
    assert rouge_f1(["a", "b"], ["b", "a"], "rougeL") == pytest.approx(0.5)
    assert rouge_f1(["a", "b"], ["b", "a"], "rouge1") == 1.0
    assert rouge_f1([], ["a"]) == rouge_f1(["a"], []) == rouge_f1(["a"], ["b"]) == 0.0


def test_rouge_2_counts_pairs_and_ranx_ks_distinct_pairs_on_request():
    ref, ret = ["a", "b", "a", "b"], ["a", "b", "a", "b"]
    assert rouge_f1(ref, ret, "rouge2") == 1.0
    # ranx-k divides by distinct pairs (ab, ba: 2) an overlap of 3: precision and recall 1.5
    assert rouge_f1(ref, ret, "rouge2", distinct_pairs=True) == 1.5
    assert rouge_f1(["a"], ["a"], "rouge2") == 0.0
    with pytest.raises(ValueError, match="kind must be one of rouge1, rouge2, rougeL"):
        rouge_f1(ref, ret, "rougeW")


@pytest.mark.model  # loads Kiwi's morphological model (kiwipiepy_model)
def test_kiwi_tokens_keep_content_morphemes():
    pytest.importorskip("kiwipiepy")
    tokens = kiwi_tokens("훈민정음은 1443년 세종대왕이 창제한 문자이다!")
    assert tokens[:2] == ["훈민정음", "1443"] and "창제" in tokens
    assert all(len(t) > 1 for t in tokens) and "은" not in tokens
    assert kiwi_tokens("!!! ...") == [] and kiwi_tokens("") == []
    with pytest.raises(TypeError, match="kiwi_tokens\\(\\) needs a str"):
        kiwi_tokens(None)


def test_without_kiwi_one_line_names_the_extra(monkeypatch):
    real_import = builtins.__import__

    def no_kiwi(name, *args, **kwargs):
        if name == "kiwipiepy":
            raise ImportError("No module named 'kiwipiepy'")
        return real_import(name, *args, **kwargs)

    rouge._kiwi.cache_clear()
    monkeypatch.setattr(builtins, "__import__", no_kiwi)
    with pytest.raises(ImportError) as err:
        kiwi_tokens("한국어")
    assert str(err.value) == "Kiwi-tokenised ROUGE needs kiwipiepy: pip install 'searchgrade[retrieval]'"
    rouge._kiwi.cache_clear()
