"""Reading a measure name in any dialect: :func:`parse_measure`, and the "did you mean" an unknown name gets.

The dialects are tried in turn: trec_eval's printed names (:mod:`.trec`), ranx's names (:mod:`.ranx`),
``-m`` arguments as pytrec_eval takes them (``P.10``, :mod:`.trec`), then ir_measures' text syntax
(:mod:`.ir_text`), which is searchgrade's own; an ir_measures object is read by :mod:`.ir_object`.
"""
from __future__ import annotations

from .ir_object import from_ir_object, is_ir_measure
from .ir_text import from_ir_text
from .known import guesses
from .measure import Measure
from .ranx import from_ranx
from .trec import from_trec, from_trec_key

__all__ = ["parse_measure", "suggest"]


def parse_measure(name) -> Measure:
    """Parse ``nDCG(gain=exp)@10``, ``P(rel="2")@5``, ``ndcg_cut_10``, ``P.10``, an ir_measures object, ...;
    ValueError if unknown (with a short "did you mean")."""
    found = _parse(name)
    if found is None:
        raise _unknown(name)
    return found


def _parse(name) -> Measure | None:
    """The Measure of ``name``, None when no dialect knows it, a ValueError when one knows it but refuses it."""
    if isinstance(name, Measure):
        return name
    if is_ir_measure(name):
        return from_ir_object(name)
    if not isinstance(name, str):
        raise TypeError(f"a measure must be a name (str), a Measure or an ir_measures measure, "
                        f"not {type(name).__name__}")
    text = name.strip()
    return from_trec(name, text) or from_ranx(name, text) or from_trec_key(name, text) or from_ir_text(name, text)


def suggest(spelling: str) -> str | None:
    """A known spelling close to an unknown measure name (``nDGC@10`` -> ``nDCG@10``), or None: the first of
    :func:`~searchgrade.measures.names.known.guesses` that is accepted and is not the name typed."""
    typed = str(spelling).strip()
    for guess in guesses(typed):
        if guess.strip() == typed:
            continue
        try:
            if _parse(guess) is not None:
                return guess
        except ValueError:
            continue
    return None


def _unknown(spelling) -> ValueError:
    """The error for a name nothing reads: a short 'did you mean', never the whole list."""
    guess = suggest(spelling)
    hint = f"; did you mean {guess!r}?" if guess else ""
    return ValueError(f"unknown measure {spelling!r}{hint} (searchgrade.known_measures() lists the names)")
