"""Kiwi-tokenised ROUGE between a reference text and a retrieved text, as ranx-k 0.0.17 computes it.

Tokens (ranx-k's ``KiwiTokenizer(method="morphs", use_stopwords=True)``): every character that is
neither a word character nor whitespace becomes a space, whitespace runs become one space; Kiwi's
best analysis of the text gives morphemes, of which those kept have a tag starting with ``N``,
``V``, ``M``, ``SL`` or ``SN`` (nouns, verbs and adjectives, modifiers and adverbs, Latin letters,
numbers), more than one character, and are not in :data:`STOPWORDS`; they are lower-cased.

Scores, for reference tokens ``r`` and retrieved tokens ``t`` (0 when either is empty)::

    ROUGE-1: overlap = sum over words of min(count in r, count in t)
    ROUGE-2: the same over adjacent pairs (0 when r or t has fewer than 2 tokens)
    ROUGE-L: overlap = length of the longest common subsequence of r and t
    P = overlap / len(t),  R = overlap / len(r),  F1 = 2 P R / (P + R)  (0 when overlap is 0)

ranx-k divides ROUGE-2's overlap by the number of *distinct* pairs of each text, so its precision
and recall exceed 1 when a pair repeats; ``distinct_pairs=True`` reproduces that, the default
divides by the number of pairs, as ROUGE does. ROUGE-1 and ROUGE-L are ranx-k's as they are.

Kiwi (kiwipiepy) comes with the ``retrieval`` extra and is imported on first use.
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

__all__ = ["ROUGE_KINDS", "POS_PREFIXES", "STOPWORDS", "kiwi_tokens", "rouge_f1"]

#: The ROUGE variants :func:`rouge_f1` computes.
ROUGE_KINDS = ("rouge1", "rouge2", "rougeL")
#: Kiwi tags (by prefix) whose morphemes are tokens: ranx-k's default part-of-speech filter.
POS_PREFIXES = ("N", "V", "M", "SL", "SN")
#: Words left out (ranx-k's Korean list; its one-character entries are dropped by the length rule anyway).
STOPWORDS = frozenset(
    "은 는 이 가 을 를 에 의 로 으로 와 과 도 만 라 이다 있다 없다 하다 되다 수 것 들 등 및 또는 그리고 하지만 "
    "그러나 따라서 그 저 그것 이것 저것 여기 거기 저기 때문 위해 통해 대해 에서 부터 까지 동안".split())

_NOT_WORD = re.compile(r"[^\w\s]")
_SPACES = re.compile(r"\s+")


@lru_cache(maxsize=1)
def _kiwi():
    """One Kiwi analyser per process, loaded on first use."""
    try:
        import kiwipiepy
    except ImportError:
        raise ImportError("Kiwi-tokenised ROUGE needs kiwipiepy: pip install 'searchgrade[retrieval]'") from None
    return kiwipiepy.Kiwi()


def kiwi_tokens(text: str) -> list[str]:
    """The content morphemes of ``text`` that ROUGE compares (see the module docstring)."""
    if not isinstance(text, str):
        raise TypeError(f"kiwi_tokens() needs a str, got {type(text).__name__}")
    cleaned = _SPACES.sub(" ", _NOT_WORD.sub(" ", text)).strip()
    if not cleaned:
        return []
    tokens = []
    for token in _kiwi().analyze(cleaned)[0][0]:
        form = token.form.lower()
        if token.tag.startswith(POS_PREFIXES) and len(form) > 1 and form not in STOPWORDS:
            tokens.append(form)
    return tokens


def _f1(overlap: int, n_reference: int, n_retrieved: int) -> float:
    if overlap == 0:
        return 0.0
    precision, recall = overlap / n_retrieved, overlap / n_reference
    return 2 * (precision * recall) / (precision + recall)


def _lcs(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence (one row of the dynamic programme at a time)."""
    row = [0] * (len(b) + 1)
    for x in a:
        diagonal = 0
        for j, y in enumerate(b, 1):
            above = row[j]
            row[j] = diagonal + 1 if x == y else max(above, row[j - 1])
            diagonal = above
    return row[-1]


def rouge_f1(reference: Sequence[str], retrieved: Sequence[str], kind: str = "rougeL",
             distinct_pairs: bool = False) -> float:
    """ROUGE-1, -2 or -L F1 of two token lists (:func:`kiwi_tokens`); see the module docstring."""
    if kind not in ROUGE_KINDS:
        raise ValueError(f"kind must be one of {', '.join(ROUGE_KINDS)}, got {kind!r}")
    if not reference or not retrieved:
        return 0.0
    if kind == "rouge1":
        return _f1(sum((Counter(reference) & Counter(retrieved)).values()), len(reference), len(retrieved))
    if kind == "rougeL":
        return _f1(_lcs(reference, retrieved), len(reference), len(retrieved))
    if len(reference) < 2 or len(retrieved) < 2:
        return 0.0
    ref_pairs, ret_pairs = Counter(zip(reference, reference[1:])), Counter(zip(retrieved, retrieved[1:]))
    overlap = sum((ref_pairs & ret_pairs).values())
    if distinct_pairs:
        return _f1(overlap, len(ref_pairs), len(ret_pairs))
    return _f1(overlap, len(reference) - 1, len(retrieved) - 1)
