"""ir_measures' text syntax, ``Family(key=value,...)@cutoff``: ``nDCG@10``, ``P(rel="2")@5``, ``RBP(p=0.8)``.

Values bare or quoted, a gain map as ``gains={1:1,2:3}``, the cut-off also as ir_measures' keyword
(``P(cutoff=5)``, ``IPrec(recall=0.5)``); family names are case-insensitive and the rows' aliases work
(MAP, MRR, NDCG, Success).  searchgrade's own names are written in the same syntax.
"""
from __future__ import annotations

import re

from ..family import Family
from ..registry import family
from .measure import Measure, build

__all__ = ["from_ir_text", "param_items"]

_HEAD = re.compile(r"\s*([A-Za-z0-9_]+)\s*")
_QUOTES = "'\""


def from_ir_text(spelling: str, text: str) -> Measure | None:
    """``Family(key=value,...)@cutoff`` (searchgrade's and ir_measures' syntax); None when no family has the name
    (or it is not of that form), a ValueError naming the problem when its parameters or cut-off are wrong."""
    mt = _HEAD.match(text)
    if not mt:
        return None
    fam = family(mt.group(1))
    pos, items = mt.end(), []
    if pos < len(text) and text[pos] == "(":
        close = _closing(spelling, text, pos)
        items = param_items(spelling, text[pos + 1:close])
        pos = close + 1
    rest = text[pos:].strip()
    cut = None
    if rest:
        if not rest.startswith("@") or fam is None:
            return None
        cut = _unquote(rest[1:].strip())
        if not cut:
            raise ValueError(f"measure {spelling!r}: nothing after '@' (a cutoff such as @10)")
    if fam is None:
        return None
    return build(spelling, fam, *_at_keyword(spelling, fam, items, cut))


def _at_keyword(spelling: str, fam: Family, items: list, cut) -> tuple[list, object]:
    """ir_measures' keyword form of the @ parameter: P(cutoff=5) is P@5, IPrec(recall=0.5) is IPrec@0.5."""
    at = "recall" if fam.cutoff == "recall" else "cutoff"
    rest = []
    for key, value in items:
        if key != at:
            rest.append((key, value))
        elif cut is not None:
            raise ValueError(f"measure {spelling!r}: the {at} is given twice ({at}= and @)")
        else:
            cut = value
    return rest, cut


def _top_level(text: str, start: int = 0):
    """``(index, char, top)`` for each character of text[start:]; top: outside quotes, braces and brackets."""
    quote, depth = None, 0
    for i in range(start, len(text)):
        ch = text[i]
        if quote:
            quote = None if ch == quote else quote
        elif ch in _QUOTES:
            quote = ch
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
        yield i, ch, quote is None and depth == 0


def _unquote(text: str) -> str:
    """text without one pair of matching quotes around it."""
    return text[1:-1] if len(text) >= 2 and text[0] in _QUOTES and text[-1] == text[0] else text


def _closing(spelling: str, text: str, start: int) -> int:
    """Index of the ')' closing the '(' at ``start`` (quotes, braces and brackets respected)."""
    for i, ch, top in _top_level(text, start + 1):
        if ch == ")" and top:
            return i
    raise ValueError(f"measure {spelling!r}: unbalanced parentheses, braces or quotes")


def param_items(spelling: str, inner: str) -> list[tuple[str, str]]:
    """``key=value`` items of a parameter list, split at top-level commas; quoted values unquoted."""
    cuts = [i for i, ch, top in _top_level(inner) if ch == "," and top]
    parts = [inner[a + 1:b] for a, b in zip([-1] + cuts, cuts + [len(inner)])]
    out = []
    for part in filter(str.strip, parts):
        key, eq, value = part.partition("=")
        if not eq or not key.strip():
            raise ValueError(f"measure {spelling!r}: parameter {part.strip()!r} is not of the form key=value")
        out.append((key.strip(), _unquote(value.strip())))
    return out
