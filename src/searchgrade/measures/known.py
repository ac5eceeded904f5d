"""Lists and guesses of measure names: :func:`known_measures`, and the short "did you mean" an unknown name gets.

Built from the registry (:mod:`searchgrade.measures.registry`) as it is when asked, so a family
registered later is listed and guessed too.  :mod:`searchgrade.measures.names` parses the names.
"""
from __future__ import annotations

import difflib
import re

from .registry import ALIASES, FAMILIES, RANX, TREC_ORDER, TREC_SETS, Family, TrecName

__all__ = ["known_measures", "suggest", "suggest_trec", "trec_form"]

_HEAD = re.compile(r"\s*([A-Za-z0-9_]+)\s*")  # a family name at the start of a spelling


def _close(word: str, names) -> str | None:
    """The name closest to ``word`` (case-insensitive, difflib), or None when none is close."""
    lower = {}
    for name in names:
        lower.setdefault(name.lower(), name)
    found = difflib.get_close_matches(word.lower(), list(lower), n=1, cutoff=0.6)
    return lower[found[0]] if found else None


def suggest(spelling: str) -> str | None:
    """A known spelling close to an unknown measure name (``nDGC@10`` -> ``nDCG@10``), or None."""
    text = str(spelling).strip()
    roots = {spec.root: (fam, spec) for fam in FAMILIES.values() for spec in fam.trec}
    for root in sorted(roots, key=len, reverse=True):  # a trec_eval root with a bad suffix
        fam, spec = roots[root]
        if text.startswith(root + "_") and spec.style != "plain" and not set("@(") & set(text):
            return trec_form(fam, spec)
    mt = _HEAD.match(text)
    if not mt:
        return None
    head, rest = mt.group(1), text[mt.end():]
    if head.lower() == "r" and rest.startswith("-"):  # ranx's r-precision, the one name with a dash
        head, rest = text.partition("@")[0], text[len(text.partition("@")[0]):]
    names = list(FAMILIES) + list(ALIASES) + list(roots) + list(RANX)
    guess = _close(head, names)
    if guess is None:
        return None
    if guess.lower() in ALIASES and guess not in FAMILIES:  # an alias in the writer's case: MAPP -> MAP
        guess = guess.upper() if head.isupper() else guess.capitalize() if head[:1].isupper() else guess
    return guess + rest if guess in FAMILIES or guess in RANX or guess.lower() in ALIASES else guess


def suggest_trec(arg: str) -> str | None:
    """A trec_eval ``-m`` argument close to an unknown one: ``ndcg_cut_10`` -> ``ndcg_cut.10``, ``mapp`` -> ``map``."""
    for root in sorted(TREC_ORDER, key=len, reverse=True):
        if arg.startswith(root + "_") and len(arg) > len(root) + 1:
            return f"{root}.{arg[len(root) + 1:]}"
    root, dot, text = arg.partition(".")
    guess = _close(root, list(TREC_SETS) + list(TREC_ORDER))
    return guess + dot + text if guess else None


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
