"""Lists and guesses of measure names: :func:`known_measures`, and what an unknown name's "did you mean" offers.

Built from the registry (:mod:`searchgrade.measures.registry`) as it is when asked, so a family
registered later is listed and guessed too.  :func:`guesses` yields candidates for a name the
parsers refuse, the likeliest first; :func:`searchgrade.measures.names.parse.suggest` offers the first
one that is itself accepted and is not the name typed, and :func:`suggest_trec` does the same for
the trec_eval command's ``-m``.
"""
from __future__ import annotations

import difflib
import re
from typing import Iterator

from .. import registry
from ..family import Family, TrecName
from ..registry import ALIASES, FAMILIES, RANX, TREC_ORDER, TREC_SETS
from .trec import trec_expand, trec_values

__all__ = ["known_measures", "guesses", "suggest_trec", "trec_form"]

_HEAD = re.compile(r"\s*([A-Za-z0-9_]+)\s*")  # a family name at the start of a spelling
_CUT = re.compile(r"([A-Za-z][A-Za-z0-9]*?)[._](\d+)")  # a name and a cut-off joined by _ or .
_POOL: dict = {}  # registry version -> (concrete names, trec_eval's printed names per root)


def _close(word: str, names, n: int = 1) -> list[str]:
    """The names closest to ``word`` (case-insensitive, difflib), best first; [] when none is close."""
    lower = {}
    for name in names:
        lower.setdefault(name.lower(), name)
    return [lower[found] for found in difflib.get_close_matches(word.lower(), list(lower), n=n, cutoff=0.6)]


def _printed(root: str) -> list[str]:
    """The names trec_eval prints for ``-m root`` with its defaults (P_5 ... P_1000, map, rbp)."""
    return _tables()[1].get(root, [])


def _pool() -> list[str]:
    """Every concrete name a whole spelling is compared with: families, aliases, ranx's and trec_eval's names."""
    return _tables()[0]


def _tables() -> tuple[list, dict]:
    """(the concrete names, {trec_eval root: its printed names}), built from the registry as it is now."""
    now = registry.version()
    if now not in _POOL:
        printed = {spec.root: [p for p, _ in trec_expand(spec.root)] for fam in FAMILIES.values() for spec in fam.trec}
        _POOL.clear()
        _POOL[now] = (list(FAMILIES) + list(ALIASES) + list(RANX) + [p for names in printed.values() for p in names],
                      printed)
    return _POOL[now]


def guesses(spelling: str) -> Iterator[str]:
    """Spellings close to an unknown measure name, the likeliest first (``nDGC@10`` -> ``nDCG@10``); unchecked."""
    text = str(spelling).strip()
    for variant in dict.fromkeys((text, text.replace(".", "_", 1))):  # P.1O is P_1O mistyped
        yield from _suffix_guesses(variant)
    at = _CUT.fullmatch(text)  # a family with its cut-off after _ or . (nDCG_10, MRR.10): nDCG@10
    if at:
        yield from (f"{_cased(name, at.group(1))}@{at.group(2)}"
                    for name in _close(at.group(1), list(FAMILIES) + list(ALIASES), n=2))
    heads = _head_guesses(text)
    yield from (guess + rest for guess, rest in heads)
    yield from _close(text, _pool(), n=3)
    yield from (guess for guess, rest in heads if rest)


def _suffix_guesses(text: str) -> Iterator[str]:
    """A trec_eval root with a bad suffix (``ndcg_cut_10x``): the root's printed names closest to it."""
    roots = {spec.root: spec for fam in FAMILIES.values() for spec in fam.trec}
    for root in sorted(roots, key=len, reverse=True):
        spec = roots[root]
        if text.startswith(root + "_") and spec.style != "plain" and not set("@(") & set(text):
            yield from _close(text, _printed(root), n=3)
            digits = re.match(r"\d+", text[len(root) + 1:])
            if spec.cut and digits:  # the cut-off before the typo: ndcg_cut_12x -> ndcg_cut_12
                yield f"{root}_{digits.group()}"


def _head_guesses(text: str) -> list[tuple[str, str]]:
    """(closest known name, the rest) for the name at the head of ``text`` (``MAPP@10``: ``MAP``, ``@10``)."""
    mt = _HEAD.match(text)
    if not mt:
        return []
    head, rest = mt.group(1), text[mt.end():]
    if head.lower() == "r" and rest.startswith("-"):  # ranx's r-precision, the one name with a dash
        head, rest = text.partition("@")[0], text[len(text.partition("@")[0]):]
    roots = [spec.root for fam in FAMILIES.values() for spec in fam.trec]
    return [(_cased(guess, head), rest)
            for guess in _close(head, list(FAMILIES) + list(ALIASES) + roots + list(RANX), n=3)]


def _cased(guess: str, head: str) -> str:
    """An alias in the writer's case (MAPP -> MAP, Mrr -> Mrr); any other name as it is."""
    if guess.lower() in ALIASES and guess not in FAMILIES:
        return guess.upper() if head.isupper() else guess.capitalize() if head[:1].isupper() else guess
    return guess


def suggest_trec(arg: str) -> str | None:
    """A trec_eval ``-m`` argument close to an unknown one that the command accepts and that is not ``arg``:
    ``ndcg_cut_10`` -> ``ndcg_cut.10``, ``ndcg_cut10`` -> ``ndcg_cut.10``, ``mapp`` -> ``map``; None if none is."""
    return next((g for g in _trec_guesses(arg) if g != arg and _trec_accepts(g)), None)


def _trec_guesses(arg: str) -> Iterator[str]:
    """Candidate ``-m`` arguments for an unknown one, the likeliest first; unchecked."""
    roots = sorted(TREC_ORDER, key=len, reverse=True)
    for root in roots:  # a printed name: root_text is -m root.text
        if arg.startswith(root + "_") and len(arg) > len(root) + 1:
            yield f"{root}.{arg[len(root) + 1:]}"
    for root in roots:  # a root run together with its cut-offs: ndcg_cut10 is -m ndcg_cut.10
        if arg.startswith(root) and arg[len(root):len(root) + 1].isdigit():
            yield f"{root}.{arg[len(root):]}"
    root, dot, text = arg.partition(".")
    for guess in _close(root, list(TREC_SETS) + list(TREC_ORDER), n=3):
        yield guess + dot + text
        yield guess


def _trec_accepts(arg: str) -> bool:
    """Whether the trec_eval command reads ``-m arg``: a set, or a root with parameters trec_eval reads."""
    root, dot, text = arg.partition(".")
    if root in TREC_SETS:
        return not dot
    if root not in TREC_ORDER:
        return False
    try:
        trec_values([(root, text if dot else None)])
    except ValueError:
        return False
    return True


# ---------------------------------------------------------------- known names
def trec_form(fam: Family, spec: TrecName) -> str:
    """A trec_eval name pattern for known_measures(): P_k, iprec_at_recall_r, set_F[_beta], rbp[_p=x]."""
    if spec.style == "cut":
        return f"{spec.root}_k"
    if spec.style == "level":
        return f"{spec.root}_{'r' if spec.target == 'cutoff' else spec.target}"
    if spec.style == "doubles":
        return f"{spec.root}[_{','.join(spec.params)}]"
    if spec.style == "list":
        return f"{spec.root}[_x,y,...]"
    if spec.style == "pairs":
        return f"{spec.root}[_{','.join('grade=gain,...' if p == 'gains' else p + '=x' for p in spec.params)}]"
    return spec.root


def known_measures() -> list[str]:
    """Names parse_measure understands: families (ir_measures style), trec_eval forms, aliases, ranx's names."""
    ir = [f"{f.name}{'(' + ','.join(p.name for p in f.params) + ')' if f.params else ''}{f.cut_suffix}"
          for f in FAMILIES.values()]
    trec = [trec_form(f, spec) for f in FAMILIES.values() for spec in f.trec]
    ranx = [f"{name}{'.p' if name == 'rbp' else '[@k]' if at_k else ''}[-lL] (ranx)" for name, (at_k, _) in RANX.items()]
    return ir + trec + [f"{alias} (= {target})" for alias, target in ALIASES.items()] + ranx
