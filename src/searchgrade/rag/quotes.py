"""Quote matching: normalisation, where a quote occurs in a corpus, and the gold evidence of an item."""
from __future__ import annotations

import html
import itertools
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any


_HTML_TAG = re.compile(r"<[A-Za-z/!?][^<>]*>")
_MD_LINK = re.compile(r"!?\[([^\[\]]*)\]\((?:[^()]|\([^()]*\))*\)")
_MD_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_MD_MARKERS = re.compile(r"[*`]+")
_SPACE = re.compile(r"[\s\u200b\u200c\u200d\u2060\ufeff]+")


@lru_cache(maxsize=65536)
def normalise(text: str) -> str:
    """Shape a quote or a chunk for substring matching: NFC, HTML and Markdown stripped, no whitespace.

    Steps, in order: Unicode NFC; HTML entities unescaped (``&amp;`` -> ``&``);
    HTML tags removed (``<br/>``, ``<b>``, ``</td>``; a ``<`` not followed by a
    letter, ``/``, ``!`` or ``?`` is text); Markdown links and images
    ``[text](url)`` -> ``text``; Markdown escapes ``\\*`` -> ``*``; emphasis
    and code markers ``*`` and `````` removed; every whitespace character
    (and zero-width spaces) removed, since line breaks and table padding differ
    between a source page and an indexed chunk.
    """
    if not isinstance(text, str):
        raise TypeError(f"normalise() needs a str, got {type(text).__name__}")
    t = unicodedata.normalize("NFC", text)
    t = html.unescape(t)
    t = _HTML_TAG.sub("", t)
    t = _MD_LINK.sub(r"\1", t)
    t = _MD_ESCAPE.sub(r"\1", t)
    t = _MD_MARKERS.sub("", t)
    return _SPACE.sub("", t)


def quote_in(quote: str, text: str) -> bool:
    """True if ``normalise(quote)`` is a substring of ``normalise(text)``; an empty quote is an error."""
    q = normalise(quote)
    if not q:
        raise ValueError(f"quote {quote!r} is empty after normalisation")
    return q in normalise(text)


def corpus_texts(corpus: Any) -> tuple[dict[str, str], dict[str, str]]:
    """``(texts, titles)`` from ``{id: text}``, ``{id: {"text", "title"}}`` or an object with ``.corpus``."""
    if hasattr(corpus, "corpus"):
        corpus = corpus.corpus
    if not isinstance(corpus, Mapping):
        raise TypeError(f"corpus must be a mapping of document id to text, got {type(corpus).__name__}")
    texts: dict[str, str] = {}
    titles: dict[str, str] = {}
    for doc_id, doc in corpus.items():
        if isinstance(doc, str):
            texts[doc_id] = doc
        elif isinstance(doc, Mapping) and isinstance(doc.get("text"), str):
            texts[doc_id] = doc["text"]
            if isinstance(doc.get("title"), str):
                titles[doc_id] = doc["title"]
        else:
            raise TypeError(f"corpus document {doc_id!r} must be a str or a mapping with a 'text' str")
    return texts, titles


def find_quote(quote: str, corpus: Any) -> list[str]:
    """Ids of every corpus document whose normalised text contains the normalised quote, in corpus order."""
    q = normalise(quote)
    if not q:
        raise ValueError(f"quote {quote!r} is empty after normalisation")
    texts, _ = corpus_texts(corpus)
    return [d for d, t in texts.items() if q in normalise(t)]


# ---------------------------------------------------------------------------
# Gold evidence of an item


@dataclass(frozen=True)
class Gold:
    """An item's evidence for scoring: document groups and (normalised quote, allowed documents) pairs."""

    groups: tuple[frozenset[str], ...]
    quotes: tuple[tuple[str, frozenset[str]], ...]

    @property
    def any_doc(self) -> frozenset[str]:
        """Every evidence document and alternative."""
        return frozenset().union(*self.groups) if self.groups else frozenset()


def gold(item: Mapping) -> Gold:
    """Evidence groups (one per distinct ``doc_id``, with all its ``alt_doc_ids``) and normalised quotes."""
    groups: dict[str, set[str]] = {}
    quotes = []
    for ev in item["evidence"]:
        allowed = {ev["doc_id"], *(ev.get("alt_doc_ids") or [])}
        groups.setdefault(ev["doc_id"], set()).update(allowed)
        quotes.append((normalise(ev["quote"]), frozenset(allowed)))
    return Gold(tuple(frozenset(g) for g in groups.values()), tuple(quotes))


def is_composite(item: Mapping) -> bool:
    """An item is composite when it needs two or more documents (``min_docs >= 2``)."""
    return item["min_docs"] >= 2


def min_documents(item: Mapping, limit: int | None = None) -> tuple[int, tuple[str, ...]]:
    """Fewest documents that together hold every evidence group, and one such set (a minimum hitting set).

    With ``limit``, the search stops at sets of ``limit`` documents: the result
    is then ``(limit, ())`` when no smaller set exists.
    """
    groups = gold(item).groups
    if not groups:
        return 0, ()
    candidates = sorted(frozenset().union(*groups))
    top = len(groups) if limit is None else min(limit, len(groups))
    for size in range(1, top + 1):
        for combo in itertools.combinations(candidates, size):
            chosen = set(combo)
            if all(g & chosen for g in groups):
                return size, combo
    return top, ()
