"""Query variants: the run-to-run variation of a query rewriter or a hurried user, made reproducible.

A real RAG pipeline rarely sends the user's exact question to the index: an LLM
extracts keywords, a user mistypes. Chapter 8 uses these functions as a
*controlled* source of that variation, so that repeated runs differ for a
known reason and two builds with the same seed give the same variants::

    rng = numpy.random.default_rng([2026, run])      # one stream per run
    rewrite("세종대왕은 언제 태어났는가?", rng, tokenise=korean.get_tokeniser("ko-kiwi"))

Typos act on precomposed Hangul syllables (U+AC00 to U+D7A3) only.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

__all__ = ["TYPO_KINDS", "is_hangul", "has_final", "drop_final", "add_typo", "keyword_query", "rewrite"]

HANGUL_FIRST, HANGUL_LAST, N_FINALS = 0xAC00, 0xD7A3, 28
#: The three typo kinds, in the order ``add_typo`` numbers them.
TYPO_KINDS = ("drop a space", "drop a final consonant", "swap two adjacent syllables")


def is_hangul(ch: str) -> bool:
    """True for one precomposed Hangul syllable (U+AC00 to U+D7A3)."""
    return len(ch) == 1 and HANGUL_FIRST <= ord(ch) <= HANGUL_LAST


def has_final(ch: str) -> bool:
    """True for a Hangul syllable with a final consonant (batchim): (code − 0xAC00) mod 28 ≠ 0."""
    return is_hangul(ch) and (ord(ch) - HANGUL_FIRST) % N_FINALS != 0


def drop_final(ch: str) -> str:
    """The syllable without its final consonant (했 → 해); other characters unchanged."""
    if not has_final(ch):
        return ch
    return chr(ord(ch) - (ord(ch) - HANGUL_FIRST) % N_FINALS)


def _check_rng(rng) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator (numpy.random.default_rng(seed)), "
                        f"got {type(rng).__name__}")
    return rng


def add_typo(text: str, rng: np.random.Generator, kind: int | None = None) -> str:
    """One random typo: drop a space, drop a final consonant, or swap two adjacent syllables.

    ``kind`` (0, 1 or 2, see :data:`TYPO_KINDS`) is drawn from ``rng`` when
    not given. A kind the text offers no place for falls through to the next
    one (no space → a final consonant → a syllable pair); a text with none of
    the three (e.g. no Hangul and no space) comes back unchanged.
    """
    rng = _check_rng(rng)
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    if kind is None:
        kind = int(rng.integers(3))
    elif kind not in (0, 1, 2):
        raise ValueError(f"kind must be 0, 1 or 2 ({', '.join(TYPO_KINDS)}), got {kind!r}")
    chars = list(text)
    spaces = [i for i, ch in enumerate(chars) if ch == " "]
    finals = [i for i, ch in enumerate(chars) if has_final(ch)]
    pairs = [i for i in range(len(chars) - 1) if is_hangul(chars[i]) and is_hangul(chars[i + 1])
             and chars[i] != chars[i + 1]]
    if kind == 0 and spaces:
        del chars[int(rng.choice(spaces))]
    elif kind <= 1 and finals:
        i = int(rng.choice(finals))
        chars[i] = drop_final(chars[i])
    elif pairs:
        i = int(rng.choice(pairs))
        chars[i], chars[i + 1] = chars[i + 1], chars[i]
    return "".join(chars)


def keyword_query(text: str, rng: np.random.Generator, tokenise: Callable[[str], Sequence[str]],
                  keep: float = 0.7) -> str:
    """Keywords as an unreliable extractor gives them: each token of ``tokenise(text)`` kept with probability ``keep``.

    At least one token is kept (the first), so a query never becomes empty
    unless the tokeniser returns nothing; then the text is returned as it is.
    """
    rng = _check_rng(rng)
    if not 0.0 < keep <= 1.0:
        raise ValueError(f"keep must be in (0, 1], got {keep!r}")
    tokens = list(tokenise(text))
    if not tokens:
        return text
    kept = [t for t in tokens if rng.random() < keep]
    return " ".join(kept or tokens[:1])


def rewrite(text: str, rng: np.random.Generator, tokenise: Callable[[str], Sequence[str]],
            keyword_share: float = 0.5, keep: float = 0.7) -> str:
    """With probability ``keyword_share`` a keyword query, otherwise the text with one typo (and a second one half the time)."""
    rng = _check_rng(rng)
    if not 0.0 <= keyword_share <= 1.0:
        raise ValueError(f"keyword_share must be in [0, 1], got {keyword_share!r}")
    if rng.random() < keyword_share:
        return keyword_query(text, rng, tokenise, keep)
    text = add_typo(text, rng)
    return add_typo(text, rng) if rng.random() < 0.5 else text
