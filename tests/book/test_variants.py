"""Query variants: typos on Hangul syllables, keyword queries, seeded rewrites."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from searchgrade.book import variants
from tests.support.examples import examples


def rng(seed=0):
    return np.random.default_rng(seed)


def test_hangul_helpers():
    assert variants.is_hangul("가") and variants.is_hangul("힣")
    assert not variants.is_hangul("a") and not variants.is_hangul("ㄱ") and not variants.is_hangul("가나")
    assert variants.has_final("했") and not variants.has_final("해")
    assert variants.drop_final("했") == "해"
    assert variants.drop_final("닭") == "다"
    assert variants.drop_final("a") == "a"


def test_each_typo_kind():
    assert variants.add_typo("세종 대왕", rng(), kind=0) == "세종대왕"
    dropped = variants.add_typo("했다", rng(), kind=1)
    assert dropped in {"해다"}  # 다 has no final consonant: only 했 can lose one
    assert variants.add_typo("가나", rng(), kind=2) == "나가"


def test_kind_falls_through_when_impossible():
    # no space: kind 0 becomes a final-consonant drop
    assert variants.add_typo("했", rng(), kind=0) == "해"
    # no space, no final, one pair: a swap
    assert variants.add_typo("가나", rng(), kind=0) == "나가"
    # nothing to change at all
    assert variants.add_typo("abc", rng(), kind=2) == "abc"
    # equal neighbours are never swapped (that would be no typo)
    assert variants.add_typo("가가", rng(), kind=2) == "가가"


@settings(max_examples=examples(200), deadline=None)
@given(st.text(alphabet="가각나낙다닭 ab?", min_size=1, max_size=20), st.integers(0, 2**32 - 1))
def test_one_typo_changes_at_most_two_positions(text, seed):
    out = variants.add_typo(text, rng(seed))
    if len(out) == len(text) - 1:  # a space was dropped
        assert any(text[:i] + text[i + 1:] == out for i, ch in enumerate(text) if ch == " ")
    else:
        assert len(out) == len(text)
        assert sum(a != b for a, b in zip(out, text)) <= 2


def test_keyword_query_keeps_tokens_in_order_and_never_empty():
    tokens = ["세종", "대왕", "태어나", "해"]
    tokenise = lambda text: tokens  # noqa: E731
    for seed in range(50):
        out = variants.keyword_query("아무 문장", rng(seed), tokenise).split()
        assert out and out == [t for t in tokens if t in out]
    assert variants.keyword_query("x", rng(), tokenise, keep=1.0) == "세종 대왕 태어나 해"
    assert variants.keyword_query("그대로", rng(), lambda t: []) == "그대로"


def test_rewrite_is_reproducible_and_mixes_both_kinds():
    tokenise = str.split
    text = "세종대왕은 언제 태어났는가"
    a = [variants.rewrite(text, rng([2026, r]), tokenise) for r in range(40)]
    b = [variants.rewrite(text, rng([2026, r]), tokenise) for r in range(40)]
    assert a == b
    keyword_like = [v for v in a if set(v.split()) <= set(text.split())]
    assert 0 < len(keyword_like) < len(a)
    assert all(v != text or set(v.split()) <= set(text.split()) for v in a)


def test_bad_arguments():
    with pytest.raises(TypeError, match="numpy.random.Generator"):
        variants.add_typo("가나", 7)
    with pytest.raises(ValueError, match="kind must be 0, 1 or 2"):
        variants.add_typo("가나", rng(), kind=3)
    with pytest.raises(ValueError, match="keep"):
        variants.keyword_query("가나", rng(), str.split, keep=0)
    with pytest.raises(ValueError, match="keyword_share"):
        variants.rewrite("가나", rng(), str.split, keyword_share=1.5)
    with pytest.raises(TypeError, match="text must be a str"):
        variants.add_typo(None, rng())
