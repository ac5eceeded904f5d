"""Retrieval effectiveness measures, trec_eval-exact by default, explicit where they differ.

Input
-----
``qrels`` is ``{qid: {docid: grade}}`` (integer grades; ``grade >= rel_level``
is relevant for binary measures, ``0 <= grade < rel_level`` is judged
non-relevant, and a negative grade means "in the pool but not judged", as in
trec_eval).  ``run`` is ``{qid: {docid: score}}``, higher scores first.

Measures and formulas
---------------------
``R`` is the number of relevant documents of the query in the qrels, ``rel_i``
is 1 if the document at rank ``i`` is relevant, ``g_i`` its grade (0 when
unjudged), ``k`` the cutoff.

============================  ====================================================================
Name (trec_eval name)         Definition
============================  ====================================================================
``P@k`` (``P_k``)             ``sum_{i<=k} rel_i / k``
``R@k`` (``recall_k``)        ``sum_{i<=k} rel_i / R``
``Hit@k`` (``success_k``)     1 if ``sum_{i<=k} rel_i > 0`` else 0
``Rprec`` (``Rprec``)         ``P@R``
``AP`` (``map``)              ``(1/R) sum_i rel_i * P@i``; ``AP@k`` (``map_cut_k``) sums ``i <= k``
``GMAP`` (``gm_map``)         AP per query; aggregated as ``exp(mean(log(max(AP, 1e-5))))``
``RR`` (``recip_rank``)       ``1 / (rank of the first relevant document)``; ``RR@k`` 0 beyond k
``nDCG@k`` (``ndcg_cut_k``)   ``DCG@k / IDCG@k``, ``DCG@k = sum_{i<=k} gain(g_i) / log2(i+1)``,
                              IDCG the DCG of all judged documents sorted by grade; gain = g
                              (linear, trec_eval) or ``2^g - 1`` with ``gain=exp`` (Burges et al.
                              2005); ``discount=jk,b=B``: 1 for ``i < B``, ``1/log_B(i)`` after
                              (Järvelin & Kekäläinen 2002). ``DCG@k``, ``CG@k`` unnormalised.
``RBP(p=..)`` (``rbp``)       ``(1-p) sum_i gain_i p^(i-1)`` (Moffat & Zobel 2008); gain =
                              ``g_i / max grade in the query's qrels`` (binary qrels: rel_i),
                              or binary ``rel_i`` at level r with ``RBP(p=..,rel=r)``.
``RBP_resid(p=..)``           ``p^n + (1-p) sum_{i<=n, unjudged} p^(i-1)``, n = documents retrieved:
                              the most RBP could still grow (trec_eval's ``rbp_resid`` prints 0 when no
                              unjudged document was retrieved; ours always adds the tail p^n).
``ERR@k``                     ``sum_{i<=k} (1/i) R_i prod_{j<i} (1 - R_j)``,
                              ``R_i = (2^g_i - 1) / 2^gmax`` (Chapelle et al. 2009); gmax is the
                              largest grade in the query's qrels unless ``ERR(max_grade=4)@k``.
``Bpref`` (``bpref``)         ``(1/R) sum_{relevant retrieved r} (1 - min(N_r, R) / min(N, R))``,
                              N_r judged non-relevant above r, N judged non-relevant in the qrels.
``Judged@k``                  judged documents (grade >= 0) in the top k, divided by k;
                              ``Hole@k = 1 - Judged@k``; ``Unj@k`` (``unj_k``) is unjudged in the
                              top k divided by k (equal to Hole@k when at least k are retrieved).
``IPrec@r``                   max precision at ranks where recall >= r, the level r*R rounded
(``iprec_at_recall_r``)       half up to a whole number of relevant documents (trec_eval 10).
``11pt`` (``11pt_avg``)       mean of IPrec at r = 0, 0.1, ..., 1
``SetP``, ``SetR``,           precision, recall of the retrieved set, ``F_beta = (1+b^2)PR/(b^2P+R)``
``SetF(beta=1)``, ``SetE``    and van Rijsbergen's ``E = 1 - F_beta``
``NumRet``, ``NumRel``,       counts (``num_ret``, ``num_rel``, ``num_rel_ret``), summed, not
``NumRelRet``                 averaged, by :func:`aggregate`
============================  ====================================================================

Further trec_eval measures are available under their trec_eval names
(``infAP``, ``gm_bpref``, ``Rprec_mult_x``, ``utility``, ``binG``, ``G``,
``ndcg_rel``, ``Rndcg``, ``relative_P_k``, ``set_relative_P``, ``set_map``,
``num_nonrel_judged_ret``) and as ``RprecMult(m=x)``, ``Utility``, ``RelP@k``,
``SetRelP``, ``SetAP``, ``NumNonRelJudgedRet``, ``GMBpref``, ``nDCG_rel``,
``RnDCG``; their formulas are in the docstrings of :mod:`searchgrade._measures`.

Grades
------
A grade >= ``rel_level`` is relevant for binary measures; ``0 <= grade <
rel_level`` is judged non-relevant; a negative grade (trec_eval's -1) marks a
document that was pooled but not judged: it is never relevant, does not count
as judged for Judged@k, bpref and ``judged_only``, and gains 0 in graded
measures.  Graded measures (nDCG, DCG, CG, ERR, RBP without ``rel=``) use the
grade itself and ignore ``rel_level``, as trec_eval's ndcg does.

How the tools differ
--------------------
=====================  ==========================  ==========================  ==========================
Choice                 trec_eval 10.0              ir_measures / pytrec_eval   ranx
=====================  ==========================  ==========================  ==========================
Tied scores            score desc, then docno      trec_eval's order (pytrec   sorts by score; the order
                       desc by strcmp              _eval runs trec_eval code)  of ties is not documented
Qrels query not in     skipped; with ``-c``        skipped                     ``evaluate`` asserts that
the run                counted as 0                                            qrels and run have the same
                                                                               query ids (later versions:
                                                                               ``make_comparable=True``)
Run query without      skipped silently            skipped silently            same assertion
qrels
nDCG gain              linear (the grade), all     linear, as trec_eval        ``ndcg``: linear,
                       grades, log2(rank+1)                                    ``ndcg_burges``: 2^g - 1;
                                                                               grades < rel_lvl dropped
RBP                    graded gains, rescaled      ir_measures: p=0.8 by       binary at rel_lvl
                       with uninitialised min/max  default
                       (undefined for grades > 1)
ERR gmax               (no ERR)                    ERR@k via gdeval.pl, which  (no ERR)
                                                   fixes gmax = 4
IPrec level r          lround(r * R) relevant      trec_eval 9: (long)(r * R   --
                       documents                   + 0.9) relevant documents
=====================  ==========================  ==========================  ==========================

searchgrade uses trec_eval 10.0's choices by default (``ties="trec"``,
``missing="ignore"``, linear gain, lround for IPrec) and reproduces its test
outputs line by line; it warns about run queries without qrels instead of
dropping them silently.  Its own choices where trec_eval has none: graded RBP
uses gain = grade / (largest grade in the query's qrels) (Moffat & Zobel 2008);
ERR uses gmax = the largest grade in the query's qrels, ``ERR(max_grade=4)``
reproduces gdeval.pl.  ``ties="expected"`` gives the tie-aware value of
McSherry & Najork (2008): the mean of the measure over all orders of tied
documents, in closed form.
"""
from __future__ import annotations

import math
import numbers
import re
import warnings
from dataclasses import dataclass, field
from itertools import chain, repeat
from typing import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from ._measures import ALIASES, FAMILIES, MIN_GEO_MEAN, Ranked

__all__ = [
    "Measure",
    "parse_measure",
    "known_measures",
    "Evaluator",
    "evaluate",
    "aggregate",
    "score_ranking",
]

TIES = ("trec", "input", "expected")
_NONPOOL = -(1 << 40)  # code of a retrieved document that is not in the qrels
MISSING = ("ignore", "zero")


# ================================================================ measure names
@dataclass(frozen=True)
class Measure:
    """A parsed measure name: family, parameters, cutoff (``nDCG(gain=exp)@10``)."""

    name: str  # the name as requested, used as the column name
    family: str  # canonical family, e.g. "nDCG"
    params: Mapping = field(default_factory=dict)
    cutoff: float | int | None = None
    rel_level: int = 1  # filled in by the Evaluator

    @property
    def agg(self) -> str:
        """How :func:`aggregate` combines queries: "mean", "gmean" or "sum"."""
        return FAMILIES[self.family].agg

    @property
    def canonical(self) -> str:
        """The ir_measures-style spelling, e.g. ``nDCG(gain=exp)@10``."""
        fam = FAMILIES[self.family]
        defaults = dict(fam.defaults)
        shown = {k: v for k, v in self.params.items() if defaults.get(k, object()) != v}
        p = "(" + ",".join(f"{k}={_fmt(v)}" for k, v in sorted(shown.items())) + ")" if shown else ""
        c = "" if self.cutoff is None else f"@{_fmt(self.cutoff)}"
        return f"{self.family}{p}{c}"

    def __str__(self) -> str:
        return self.name


def _fmt(v) -> str:
    """Compact text for a parameter value."""
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


_TREC_PATTERNS: list[tuple[re.Pattern, str, dict]] = [
    (re.compile(r"P_(\d+)"), "P", {}),
    (re.compile(r"recall_(\d+)"), "R", {}),
    (re.compile(r"success_(\d+)"), "Hit", {}),
    (re.compile(r"map_cut_(\d+)"), "AP", {}),
    (re.compile(r"ndcg_cut_(\d+)"), "nDCG", {}),
    (re.compile(r"relative_P_(\d+)"), "RelP", {}),
    (re.compile(r"unj_(\d+)"), "Unj", {}),
    (re.compile(r"iprec_at_recall_(\d*\.?\d+)"), "IPrec", {}),
    (re.compile(r"Rprec_mult_(\d*\.?\d+)"), "RprecMult", {"param": "m"}),
]
_TREC_PLAIN = {
    "map": ("AP", {}),
    "gm_map": ("GMAP", {}),
    "Rprec": ("Rprec", {}),
    "bpref": ("Bpref", {}),
    "gm_bpref": ("GMBpref", {}),
    "recip_rank": ("RR", {}),
    "ndcg": ("nDCG", {}),
    "11pt_avg": ("11pt", {}),
    "infAP": ("infAP", {}),
    "set_P": ("SetP", {}),
    "set_recall": ("SetR", {}),
    "set_F": ("SetF", {"beta": 1.0}),
    "set_relative_P": ("SetRelP", {}),
    "set_map": ("SetAP", {}),
    "num_ret": ("NumRet", {}),
    "num_rel": ("NumRel", {}),
    "num_rel_ret": ("NumRelRet", {}),
    "num_nonrel_judged_ret": ("NumNonRelJudgedRet", {}),
    "rbp": ("RBP", {"p": 0.9}),
    "rbp_resid": ("RBP_resid", {"p": 0.9}),
    "utility": ("Utility", {}),
    "binG": ("binG", {}),
    "G": ("G", {}),
    "ndcg_rel": ("nDCG_rel", {}),
    "Rndcg": ("RnDCG", {}),
}

_IR_RE = re.compile(r"^\s*([A-Za-z0-9_]+?)\s*(?:\((.*)\))?\s*(?:@\s*([^@()]+?))?\s*$")
_FAMILY_BY_LOWER = {k.lower(): k for k in FAMILIES}


def known_measures() -> list[str]:
    """Names parse_measure understands: families (ir_measures style) and trec_eval forms."""
    ir = []
    for f in FAMILIES.values():
        params = f"({','.join(f.params)})" if f.params else ""
        cut = {"none": "", "optional": "[@k]", "required": "@k", "recall": "@r"}[f.cutoff]
        ir.append(f"{f.name}{params}{cut}")
    trec = ["P_k", "recall_k", "success_k", "map_cut_k", "ndcg_cut_k", "relative_P_k", "unj_k",
            "iprec_at_recall_r", "Rprec_mult_x"] + list(_TREC_PLAIN)
    return ir + trec


def _known_text() -> str:
    return "known measures: " + ", ".join(known_measures())


def _coerce_param(measure: str, key: str, value: str):
    """Parse and check one parameter value of a measure."""
    def bad(why):
        return ValueError(f"measure {measure!r}: parameter {key}={value!r} {why}")

    if key in ("gain",):
        if value not in ("linear", "exp"):
            raise bad("must be 'linear' or 'exp'")
        return value
    if key == "discount":
        if value not in ("log2", "jk"):
            raise bad("must be 'log2' or 'jk'")
        return value
    try:
        num = float(value)
    except (TypeError, ValueError):
        raise bad("is not a number") from None
    if not math.isfinite(num):
        raise bad("is not finite")
    if key in ("rel", "max_grade"):
        if not num.is_integer() or num < 1:
            raise bad("must be a positive integer")
        return int(num)
    if key == "p":
        if not 0 < num < 1:
            raise bad("must lie strictly between 0 and 1")
    elif key == "b":
        if num <= 1:
            raise bad("must be greater than 1")
    elif key in ("beta", "m"):
        if num <= 0:
            raise bad("must be positive")
    return num


def _check_cutoff(measure: str, fam, cutoff):
    """Validate the cutoff of a measure against its family's rule."""
    if fam.cutoff == "none" and cutoff is not None:
        raise ValueError(f"measure {measure!r}: {fam.name} takes no cutoff")
    if fam.cutoff in ("required", "recall") and cutoff is None:
        example = "0.5" if fam.cutoff == "recall" else "10"
        raise ValueError(f"measure {measure!r}: {fam.name} needs a cutoff, e.g. {fam.name}@{example}")
    if cutoff is None:
        return None
    if fam.cutoff == "recall":
        try:
            r = float(cutoff)
        except ValueError:
            raise ValueError(f"measure {measure!r}: recall level {cutoff!r} is not a number") from None
        if not 0 <= r <= 1:
            raise ValueError(f"measure {measure!r}: recall level {cutoff!r} must lie in [0, 1]")
        return r
    text = str(cutoff)
    if not re.fullmatch(r"\d+", text) or int(text) < 1:
        raise ValueError(f"measure {measure!r}: cutoff {cutoff!r} must be a positive integer")
    return int(text)


def parse_measure(name: str | Measure) -> Measure:
    """Parse ``nDCG(gain=exp)@10``, ``P(rel=2)@5``, ``ndcg_cut_10``, ...; unknown -> ValueError listing names."""
    if isinstance(name, Measure):
        return name
    if not isinstance(name, str):
        raise TypeError(f"a measure name must be a str, not {type(name).__name__}")
    text = name.strip()
    # trec_eval spellings first (exact, case-sensitive)
    if text in _TREC_PLAIN:
        fam, params = _TREC_PLAIN[text]
        f = FAMILIES[fam]
        return Measure(name, fam, {**dict(f.defaults), **params}, None)
    for pattern, fam, extra in _TREC_PATTERNS:
        mt = pattern.fullmatch(text)
        if mt:
            f = FAMILIES[fam]
            if "param" in extra:
                value = _coerce_param(name, extra["param"], mt.group(1))
                return Measure(name, fam, {**dict(f.defaults), extra["param"]: value}, None)
            return Measure(name, fam, dict(f.defaults), _check_cutoff(name, f, mt.group(1)))
    mt = _IR_RE.match(text)
    if not mt:
        raise ValueError(f"unknown measure {name!r}; {_known_text()}")
    base, ptext, cut = mt.groups()
    key = base.lower()
    fam_name = _FAMILY_BY_LOWER.get(key) or ALIASES.get(key)
    if fam_name is None:
        raise ValueError(f"unknown measure {name!r}; {_known_text()}")
    f = FAMILIES[fam_name]
    params = dict(f.defaults)
    if ptext is not None and ptext.strip():
        for item in ptext.split(","):
            if "=" not in item:
                raise ValueError(f"measure {name!r}: parameter {item.strip()!r} is not of the form key=value")
            k, v = (s.strip() for s in item.split("=", 1))
            if k not in f.params:
                allowed = ", ".join(f.params) or "none"
                raise ValueError(f"measure {name!r}: unknown parameter {k!r} (allowed: {allowed})")
            params[k] = _coerce_param(name, k, v)
    if fam_name in ("nDCG", "DCG") and "b" in params and params.get("discount", "log2") != "jk":
        raise ValueError(f"measure {name!r}: b= only applies with discount=jk")
    if params.get("discount") == "jk":
        params.setdefault("b", 2.0)
    return Measure(name, fam_name, params, _check_cutoff(name, f, cut))


# ================================================================== evaluation
_RUNS = re.compile(r"\d+|\D+")  # digit runs and the text between them


def _natural_key(qid) -> tuple:
    """Sort key comparing digit runs as numbers: q2 < q10, '9' < '10'."""
    s = str(qid)
    return tuple([(0, int(p), "") if p.isdigit() else (1, 0, p) for p in _RUNS.findall(s)] + [(2, 0, s)])


def _as_grade(qid, docid, grade) -> int:
    """An integer grade, or ValueError naming the query and document."""
    if isinstance(grade, (bool, np.bool_)):
        raise ValueError(f"qrels query {qid!r} document {docid!r}: grade {grade!r} is a bool, not an integer")
    if isinstance(grade, numbers.Integral):
        return int(grade)
    if isinstance(grade, numbers.Real) and float(grade).is_integer():
        return int(grade)
    raise ValueError(f"qrels query {qid!r} document {docid!r}: grade {grade!r} is not an integer")


def _docid_descending(docs: list, positions: list) -> list:
    """The positions sorted by their docid, descending in string order (strcmp, as trec_eval).

    Non-string ids are compared as text; equal texts keep their input order.
    """
    if type(docs[positions[0]]) is str:
        try:  # docids within a query are distinct: the input order of positions does not matter
            return sorted(positions, key=docs.__getitem__, reverse=True)
        except TypeError:  # a mixture of str and other ids
            pass
    return sorted(sorted(positions), key=lambda j: str(docs[j]), reverse=True)


def _sort_groups(order: np.ndarray, lo: np.ndarray, size: np.ndarray, docs: list, chunk: int = 1 << 16) -> None:
    """Put each tie group ``order[lo : lo + size]`` in docid order, in place: one small Python sort per group.

    Groups go a chunk of about ``chunk`` documents at a time, so the Python lists stay small.
    """
    stops = np.cumsum(size)  # end of each group in the concatenation of all groups
    g = 0
    while g < len(lo):
        base = int(stops[g] - size[g])  # documents of the groups before g
        h = max(g + 1, int(np.searchsorted(stops, base + chunk, side="right")))  # groups g .. h-1 this time
        width = size[g:h]
        ends = stops[g:h] - base
        pos = np.repeat(lo[g:h] - (ends - width), width) + np.arange(int(ends[-1]))  # their positions in order
        members = order[pos].tolist()
        cuts = ends.tolist()
        by_docid = chain.from_iterable(_docid_descending(docs, members[a:b]) for a, b in zip([0] + cuts, cuts))
        order[pos] = np.fromiter(by_docid, dtype=np.int64, count=len(members))
        g = h


def _rank_rows(score: np.ndarray, lengths: np.ndarray, stable: bool) -> np.ndarray:
    """Permutation sorting each row (a contiguous block, ``lengths`` long) by score descending; rows stay in place.

    Rows of similar length (the same power of two) are laid out as one padded
    matrix and sorted row by row in one call, so padding at most doubles the
    work.  ``stable`` keeps equal scores in input order.
    """
    kind = "stable" if stable else None
    order = np.empty(len(score), dtype=np.int64)
    starts = np.cumsum(lengths) - lengths
    size_class = np.ceil(np.log2(np.maximum(lengths, 1))).astype(np.int64)
    for c in np.unique(size_class[lengths > 0]).tolist():
        rows = np.flatnonzero((size_class == c) & (lengths > 0))
        width = int(lengths[rows].max())
        filled = np.arange(width) < lengths[rows][:, None]  # cells holding a row's documents, in input order
        if rows[-1] - rows[0] + 1 == len(rows):  # consecutive rows (the usual case): a slice of the run
            cells = slice(int(starts[rows[0]]), int(starts[rows[-1]] + lengths[rows[-1]]))
        else:
            cells = (starts[rows][:, None] + np.arange(width))[filled]  # their positions in the run
        neg = np.full(filled.shape, -np.inf)
        neg[filled] = score[cells]
        np.negative(neg, out=neg)  # scores are finite, so the padding (+inf) sorts last
        by_score = np.argsort(neg, axis=1, kind=kind)
        del neg
        by_score += starts[rows][:, None]
        order[cells] = by_score[filled]
    return order


class Evaluator:
    """Measures and qrels prepared once; ``.evaluate(run)`` scores any number of runs.

    Options (all keyword-only; what other tools do is in brackets):

    ties
        ``"trec"`` (default): score descending, ties by docid descending (string
        order) -- exactly trec_eval's qsort order, which pytrec_eval and
        ir_measures inherit.  ``"input"``: score descending, ties kept in the
        run dict's order (a stable sort; ranx sorts by score with numpy and keeps
        no documented tie order).  ``"expected"``: the mean of the measure over
        all orders of tied documents (McSherry & Najork 2008), exact in closed
        form for P, R, Hit, RelP, Rprec, AP, GMAP, RR, nDCG, DCG, CG, RBP,
        RBP_resid, Judged/Hole/Unj and the set and count measures; other measures
        raise ValueError naming the measure.
    missing
        ``"ignore"`` (default, trec_eval and ir_measures): queries in the qrels
        but not in the run get no row.  ``"zero"`` (trec_eval ``-c``): they are
        scored on an empty ranking (every measure 0 except NumRel and
        RBP_resid, which is 1).
    rel_level
        Binary measures count ``grade >= rel_level`` as relevant (trec_eval
        ``-l``, pytrec_eval ``relevance_level``; ir_measures ``rel=``).  A
        measure's own ``rel=`` parameter overrides it.  Graded measures (nDCG,
        DCG, CG, ERR, RBP without ``rel=``) use the grades themselves.
    judged_only
        Drop unjudged documents (not in the qrels, or negative grade) before
        ranking: condensed lists (Sakai 2007; trec_eval ``-J``).
    max_docs
        Keep only the first ``max_docs`` documents of each query after sorting
        (trec_eval ``-M``).

    Run queries that have no qrels are skipped, as trec_eval does, with a
    ``UserWarning`` naming how many and a few of them.
    """

    def __init__(self, qrels: Mapping, measures: Iterable[str | Measure] | str, *, ties: str = "trec",
                 missing: str = "ignore", rel_level: int = 1, judged_only: bool = False,
                 max_docs: int | None = None):
        if ties not in TIES:
            raise ValueError(f"ties must be one of {TIES}, not {ties!r}")
        if missing not in MISSING:
            raise ValueError(f"missing must be one of {MISSING}, not {missing!r}")
        if isinstance(rel_level, bool) or not isinstance(rel_level, numbers.Integral) or rel_level < 1:
            raise ValueError(f"rel_level must be a positive integer, not {rel_level!r}")
        if max_docs is not None and (isinstance(max_docs, bool) or not isinstance(max_docs, numbers.Integral)
                                     or max_docs < 1):
            raise ValueError(f"max_docs must be a positive integer or None, not {max_docs!r}")
        if ties == "expected" and max_docs is not None:
            raise ValueError("max_docs cannot be combined with ties='expected' (the cut would split tie groups)")
        if isinstance(measures, (str, Measure)):
            measures = [measures]
        parsed = []
        for m in measures:
            pm = parse_measure(m)
            parsed.append(Measure(pm.name, pm.family, pm.params, pm.cutoff, int(rel_level)))
        if not parsed:
            raise ValueError("no measures requested")
        names = [m.name for m in parsed]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"measures requested twice: {dup}")
        if ties == "expected":
            for m in parsed:
                if not FAMILIES[m.family].expected:
                    raise ValueError(f"measure {m.name!r}: ties='expected' has no closed form for "
                                     f"{m.family}; use ties='trec' or 'input'")
        self.measures = parsed
        self.ties, self.missing, self.rel_level = ties, missing, int(rel_level)
        self.judged_only, self.max_docs = bool(judged_only), max_docs
        if not isinstance(qrels, Mapping):
            raise TypeError(f"qrels must be a dict {{qid: {{docid: grade}}}}, not {type(qrels).__name__}")
        self._qrels: dict = {}
        for qid, docs in qrels.items():
            if type(docs) is not dict and not isinstance(docs, Mapping):  # the type test is the fast path
                raise TypeError(f"qrels query {qid!r}: expected a dict {{docid: grade}}, not {type(docs).__name__}")
            if set(map(type, docs.values())) <= {int}:  # the usual case, checked at C speed
                self._qrels[qid] = dict(docs)
            else:
                self._qrels[qid] = {d: _as_grade(qid, d, g) for d, g in docs.items()}
        self._natural: list | None = None  # qrels query ids in natural order (built on first use)
        self._table: tuple | None = None  # judged grades of every qrels query (built on first use)

    # ------------------------------------------------------------------ ranking
    def _rows(self, run: Mapping) -> list:
        """Query ids that get a row, in natural order; warns about run queries without qrels."""
        if not isinstance(run, Mapping):
            raise TypeError(f"run must be a dict {{qid: {{docid: score}}}}, not {type(run).__name__}")
        orphans = [q for q in run if q not in self._qrels]
        if orphans:
            orphans.sort(key=_natural_key)
            few = ", ".join(map(str, orphans[:5])) + (", ..." if len(orphans) > 5 else "")
            warnings.warn(f"{len(orphans)} run quer{'y has' if len(orphans) == 1 else 'ies have'} no qrels and "
                          f"{'was' if len(orphans) == 1 else 'were'} skipped (as trec_eval does): {few}",
                          UserWarning, stacklevel=3)
        if self._natural is None:
            self._natural = sorted(self._qrels, key=_natural_key)
        if self.missing == "zero":
            return list(self._natural)
        return [q for q in self._natural if q in run]

    def _judged_grades(self, rows: Sequence) -> tuple[np.ndarray, np.ndarray]:
        """(count per row, flat grades): each row's judged grades (>= 0), best first."""
        if self._table is None:  # one pass over all the qrels, kept for every run
            counts = np.fromiter(map(len, self._qrels.values()), dtype=np.int64, count=len(self._qrels))
            grade = np.fromiter(chain.from_iterable(d.values() for d in self._qrels.values()),
                                dtype=np.int64, count=int(counts.sum()))
            query = np.repeat(np.arange(len(counts)), counts)
            judged = grade >= 0
            grade, query = grade[judged], query[judged]
            judged_counts = np.bincount(query, minlength=len(counts))
            top = int(grade.max()) if len(grade) else 0
            if len(counts) * (top + 1) < 2**62:  # sort one integer key (query, grade descending)
                key = np.sort(query * (top + 1) + (top - grade))
                grade = top - key % (top + 1)
            else:
                grade = grade[np.lexsort((-grade, query))]
            self._table = ({q: i for i, q in enumerate(self._qrels)}, np.cumsum(judged_counts) - judged_counts,
                           judged_counts, grade)
        index, starts, counts, grades = self._table
        which = np.fromiter(map(index.__getitem__, rows), dtype=np.int64, count=len(rows))
        qcount = counts[which]
        first = np.repeat(starts[which] - (np.cumsum(qcount) - qcount), qcount)  # flat position of each row's start
        return qcount, grades[first + np.arange(len(first), dtype=np.int64)]

    def rank(self, run: Mapping, rows: Sequence | None = None, exact: bool = False) -> tuple[list, Ranked]:
        """Sort and flatten the run into a :class:`Ranked` context: (row qids, context).

        Tied documents that no measure can tell apart (same qrels code) stay in
        any order unless ``exact``; :meth:`Ranked.docids` always gives the exact order.
        """
        if rows is None:
            rows = self._rows(run)
        n = len(rows)
        dicts = []
        for q in rows:
            d = run.get(q)
            if not d:
                d = {}
            elif type(d) is not dict and not isinstance(d, Mapping):
                raise TypeError(f"run query {q!r}: expected a dict {{docid: score}}, not {type(d).__name__}")
            dicts.append(d)
        lengths = np.fromiter(map(len, dicts), dtype=np.int64, count=n)
        total = int(lengths.sum())
        # Flatten with C-level iteration: no Python function call per document.
        score = np.array(list(chain.from_iterable(d.values() for d in dicts)))
        if score.dtype.kind not in "fiu" or (score.dtype.kind == "f" and not np.isfinite(score).all()):
            score = self._check_scores(rows, run)
        score = score.astype(np.float64, copy=False)
        # qrels grade of each retrieved document: one dict lookup per document, _NONPOOL when absent
        code = np.fromiter(chain.from_iterable(map(self._qrels[q].get, d, repeat(_NONPOOL, len(d)))
                                               for q, d in zip(rows, dicts)), dtype=np.int64, count=total)
        order = self._sort(score, lengths, dicts, None if exact else code)
        code = code[order]
        seg = np.repeat(np.arange(n, dtype=np.int64), lengths)
        gid = None
        if self.ties == "expected":  # tie groups: runs of equal scores within a row
            s_sorted = score[order]
            newgrp = np.ones(len(order), dtype=bool)
            newgrp[1:] = (s_sorted[1:] != s_sorted[:-1]) | (seg[1:] != seg[:-1])
            gid = np.cumsum(newgrp) - 1
        del score
        if self.max_docs is not None or self.judged_only:
            pos = np.arange(len(seg)) - np.concatenate(([0], np.cumsum(lengths)[:-1]))[seg]
            keep = np.ones(len(seg), dtype=bool)
            if self.max_docs is not None:
                keep &= pos < self.max_docs
            if self.judged_only:
                keep &= code >= 0
            seg, code, order = seg[keep], code[keep], order[keep]
            if gid is not None:
                gid = gid[keep]
            lengths = np.bincount(seg, minlength=n)
        rank = np.arange(1, len(seg) + 1, dtype=np.int64)
        rank -= np.repeat(np.cumsum(lengths) - lengths, lengths)  # 1-based rank within the row
        # qrels statistics of the rows: judged grades, best first
        qcount, qgrade = self._judged_grades(rows)
        qseg = np.repeat(np.arange(n, dtype=np.int64), qcount)
        qrank = np.arange(len(qseg), dtype=np.int64) - np.concatenate(([0], np.cumsum(qcount)[:-1]))[qseg] + 1
        judged, nonpool = code >= 0, code == _NONPOOL
        ctx = Ranked(n=n, seg=seg, rank=rank, grade=np.maximum(code, 0, out=code), judged=judged,
                     nonpool=nonpool, nret=lengths.astype(np.int64), qseg=qseg, qgrade=qgrade,
                     qrank=qrank, expected=self.ties == "expected",
                     gid=(np.unique(gid, return_inverse=True)[1] if gid is not None else None))
        if exact or self.ties != "trec":
            ctx.cache["order"], ctx.cache["dicts"] = order, dicts
        else:  # docids() ranks the run again, breaking every tie
            ctx.cache["exact"] = lambda: self.rank(run, rows, exact=True)[1]
        return list(rows), ctx

    def _sort(self, score: np.ndarray, lengths: np.ndarray, dicts: list, code: np.ndarray | None = None) -> np.ndarray:
        """Permutation putting each query's documents in rank order (rows stay in place).

        Score descending; ties in input order, or for ties="trec" by docid
        descending in string order (trec_eval's qsort with strcmp).  All rows
        are sorted by score at once (:func:`_rank_rows`); then only tie groups
        are put in docid order, one small Python sort per group.  Given ``code``
        (the qrels code of each document), a tie group whose documents all have
        the same code is left as it is: no measure can tell its orders apart.
        """
        order = _rank_rows(score, lengths, stable=self.ties != "trec")
        if self.ties != "trec" or len(order) < 2:
            return order
        # Tie groups: neighbours in rank order with the same score and the same row.
        s = score[order]
        tie = s[1:] == s[:-1]
        del s
        row_start = np.zeros(len(order), dtype=bool)
        row_start[(np.cumsum(lengths) - lengths)[lengths > 0]] = True
        tie &= ~row_start[1:]
        differ = tie
        if code is not None:
            c = code[order]
            differ = tie & (c[1:] != c[:-1])
            del c
        if not differ.any():
            return order
        first = np.flatnonzero(np.concatenate(([True], ~tie)))  # where each tie group starts
        size = np.diff(np.append(first, len(order)))
        group = np.searchsorted(first, np.flatnonzero(differ), side="right") - 1  # group of each differing pair
        group = group[np.concatenate(([True], group[1:] != group[:-1]))]  # the groups that need docid order
        _sort_groups(order, first[group], size[group], list(chain.from_iterable(dicts)))  # docids in input order
        return order

    @staticmethod
    def _check_scores(rows, run) -> np.ndarray:
        """Scores as floats, or ValueError naming the first query and document with a bad score."""
        out = []
        for q in rows:
            for d, s in (run.get(q) or {}).items():
                try:
                    ok = not isinstance(s, (str, bytes, bool, np.bool_)) and math.isfinite(float(s))
                except (TypeError, ValueError, OverflowError):
                    ok = False
                if not ok:
                    raise ValueError(f"run query {q!r} document {d!r}: score {s!r} is not a finite number")
                out.append(float(s))
        return np.array(out, dtype=np.float64)

    # --------------------------------------------------------------- evaluation
    def evaluate(self, run: Mapping) -> pd.DataFrame:
        """One row per query (index "qid"), one column per measure, named as requested."""
        rows, ctx = self.rank(run)
        return self.evaluate_ranked(rows, ctx)

    def evaluate_ranked(self, rows: Sequence, ctx: Ranked) -> pd.DataFrame:
        """The DataFrame of :meth:`evaluate` for a run already ranked by :meth:`rank`."""
        data = {}
        for m in self.measures:
            fam = FAMILIES[m.family]
            values = fam.kernel(ctx, m) if ctx.n else np.zeros(0)
            if fam.integer and not ctx.expected:
                values = np.rint(values).astype(np.int64)
            data[m.name] = values
        index = pd.Index(rows, name="qid", dtype=object)
        return pd.DataFrame(data, index=index, columns=[m.name for m in self.measures])


def evaluate(qrels: Mapping, run: Mapping, measures: Iterable[str] | str, **options) -> pd.DataFrame:
    """Score a run: DataFrame with one row per query and one column per requested measure (see Evaluator)."""
    return Evaluator(qrels, measures, **options).evaluate(run)


def aggregate(df: pd.DataFrame, measures: Iterable[str | Measure] | None = None) -> pd.Series:
    """Summary over queries: mean; geometric mean for GMAP / gm_bpref; sum for counts (as trec_eval)."""
    cols = list(df.columns)
    parsed = [parse_measure(c) for c in cols] if measures is None else [parse_measure(m) for m in measures]
    out = {}
    for col, m in zip(cols, parsed):
        x = df[col].to_numpy(dtype=np.float64)
        if m.agg == "sum":
            total = x.sum()
            out[col] = int(total) if float(total).is_integer() else total
        elif len(x) == 0:
            out[col] = float("nan")
        elif m.agg == "gmean":
            out[col] = float(np.exp(np.mean(np.log(np.maximum(x, MIN_GEO_MEAN)))))
        else:
            out[col] = float(x.mean())
    return pd.Series(out, dtype=object if any(isinstance(v, int) for v in out.values()) else np.float64,
                     name="all")


def score_ranking(ranking: Sequence, qrels: Mapping, measures: Iterable[str] | str, **options) -> dict:
    """Measures of one ranked list, taken in the given order: ``{measure: value}``."""
    ranking = list(ranking)
    seen = set()
    for d in ranking:
        if d in seen:
            raise ValueError(f"document {d!r} appears twice in the ranking")
        seen.add(d)
    if options.get("ties", "input") != "input":
        raise ValueError("score_ranking takes the list order as the ranking; ties cannot be chosen")
    options["ties"] = "input"
    n = len(ranking)
    run = {"q": {d: float(n - i) for i, d in enumerate(ranking)}}
    options.setdefault("missing", "zero")
    df = Evaluator({"q": dict(qrels)}, measures, **options).evaluate(run)
    return {c: (v.item() if hasattr(v, "item") else v) for c, v in df.iloc[0].items()}
