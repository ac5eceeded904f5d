"""Retrieval effectiveness measures, trec_eval-exact by default, explicit where they differ.

Input
-----
``qrels`` is ``{qid: {docid: grade}}`` (integer grades; ``grade >= rel_level``
is relevant for binary measures, ``0 <= grade < rel_level`` is judged
non-relevant, and a negative grade means "in the pool but not judged", as in
trec_eval).  ``run`` is ``{qid: {docid: score}}``, higher scores first.  Any
other form -- a DataFrame (ir_measures' ``query_id, doc_id, relevance`` /
``score`` columns), a path (``.gz`` too), an open file, ``"-"`` for stdin -- is
read by :func:`searchgrade.io.as_qrels` / :func:`searchgrade.io.as_run`; dicts
are used as they are.

A run file (a path, an open file, ``"-"``) is read and scored a part of whole
queries at a time, in memory bounded by the qrels, about 4 MB of the run and a
few numbers a query, never by the run (:mod:`searchgrade.measures.stream`): in
one pass when its lines are grouped by query, else spilled to temporary files
by query (logged on ``searchgrade.io.stream`` at level INFO).  Rankings made one
query at a time are pushed instead of collected: ``s = Evaluator(qrels,
measures).stream()``, ``s.add(qid, ranking)`` for each query, ``s.finish()``
(what :meth:`Evaluator.evaluate` gives for the same rankings) and ``s.mean()``
(what :func:`mean` gives).  Warnings that a kernel gives about its input (ERR's
grade scale) come once a part or batch there, not once.

The diversity measures (``ERR_IA@k``, ``alpha_nDCG@k``, ``NRBP``, ``AP_IA``,
``P_IA@k``, ``StRecall@k``, ...) need subtopic qrels ``{qid: {subtopic: {docid:
grade}}}`` (:func:`searchgrade.io.read_subtopic_qrels` reads ndeval's files; a
DataFrame or records whose ``iteration`` is the subtopic work too, unless every
query has one subtopic, ordinary qrels): asked of ordinary qrels they are a
ValueError, not ir_measures' warning.  Ordinary measures asked in the same call
see each document's largest grade over its subtopics; the run is ranked once.

Public functions: :func:`evaluate` (per-query table), :func:`mean` (the
summary in one call), :func:`aggregate` (the summary of a per-query table),
:func:`score_ranking` (one ranked list), :class:`Evaluator` (qrels and
measures prepared once for many runs), :func:`score_run` (its per-query arrays,
summaries and relevance strings in one call: what the trec_eval command prints),
:func:`parse_measure`, :func:`known_measures`.  This module is their front door; they live in
:mod:`searchgrade.measures`, and an evaluation enters that package once, at
:mod:`searchgrade.measures.engine` (the Evaluator: it checks the options, indexes
the qrels, ranks the run and calls the kernels of :mod:`searchgrade.measures.kinds`)
or :mod:`searchgrade.measures.summary` (the sums over queries).  Each kind module of
:mod:`searchgrade.measures.kinds` holds its families' rows (parameters, cut-off rule,
aggregation, trec_eval, pytrec_eval, ir_measures and ranx names) beside their kernels,
:mod:`searchgrade.measures.registry` gathers the rows into one table, and
:mod:`searchgrade.measures.names` parses names, one module per dialect.

Measures and formulas
---------------------
``R`` is the number of relevant documents of the query in the qrels, ``rel_i``
is 1 if the document at rank ``i`` is relevant, ``g_i`` its grade (0 when
unjudged), ``k`` the cutoff.  A C/W/L family is given by its user model's
``C(i)``, the chance of going on after rank ``i``, with ``g(i)`` the gain at
rank ``i`` and ``G(i) = g(1) + ... + g(i)`` (the model and the value ``sum_i
W(i) g(i)`` are explained in :mod:`searchgrade.measures.kinds.user_model`).  The
table is generated from the rows of :mod:`searchgrade.measures.registry`, as
:func:`measure_table` is.

{formulas}

``G``, ``nDCG_rel`` and ``RnDCG`` take ``gains={g: v}`` as trec_eval's ``G.1=3``
does.  Every binary measure takes ``rel=``, and every measure ``judged_only=``
(ir_measures' per-measure condensed list).

Measure names
-------------
``parse_measure`` reads ir_measures' syntax -- ``nDCG@10``, ``P(rel=2)@5``,
quoted values (``P(rel="2")@5``, ``nDCG(dcg='exp-log2')@10``), gain maps
(``nDCG(gains={1:1,2:3})``), ir_measures' aliases and parameter spellings
(``Success``, ``MAP``, ``dcg``, ``SetP(relative=True)`` = SetRelP,
``NumRet(rel=1)`` = NumRelRet) -- trec_eval's printed names (``P_10``,
``ndcg_cut_10``, ``iprec_at_recall_0.10``, ``set_F_0.5``, ``utility_1,-2,0,0``,
``rbp_p=0.8``) and ir_measures measure objects (``ir_measures.nDCG@10``).  A
parameter that has no searchgrade counterpart is a ValueError naming the
measure and the parameter.  An ir_measures *object* is read as the measure
ir_measures computes: ``ERR@k`` is ``ERR(max_grade=4)@k`` (gdeval.pl) and
``SetF(beta=b)`` is ``SetF(beta=sqrt(b))`` (it runs trec_eval's ``set_F.b``); the
same *strings* keep searchgrade's reading (the query's largest grade; van
Rijsbergen's beta).  Checked against ir_measures 0.4.3 on tie-free data (tests/
test_measure_names.py), objects and strings give ir_measures' values with
``missing="zero"`` (ir_measures scores a qrels query without a ranking 0),
except where searchgrade differs on purpose: IPrec's level rounding (trec_eval
10, not 9), Judged@k (grade -1 is not judged here; a short run's missing ranks
count as holes), and NumRel/NumQ of a query without a ranking (counted here,
0 there).  ``P(cutoff=5)`` and ``IPrec(recall=0.5)``, ir_measures' keyword form
of ``@``, work too.

Column names: a measure's column is the name as requested (``str()`` of an
ir_measures object) when that spelling shows every parameter whose value
differs from the family's default, else the canonical spelling
(``Measure.canonical``): ``"P_10"`` stays ``P_10``, ``"rbp"`` (trec_eval's
p = 0.9; the family default is ir_measures' 0.8) prints as ``RBP(p=0.9)``.
Two spellings of one measure (``["P_10", "P@10"]``) are a ValueError.
:func:`aggregate` finds columns by these names, never by position.

Grades
------
A grade >= ``rel_level`` is relevant for binary measures; ``0 <= grade <
rel_level`` is judged non-relevant; a negative grade (trec_eval's -1) marks a
document that was pooled but not judged: it is never relevant, does not count
as judged for Judged@k, bpref and ``judged_only``, and gains 0 in graded
measures.  Graded measures (nDCG, DCG, CG, ERR, RBP without ``rel=``) use the
grade itself and ignore ``rel_level``, as trec_eval's ndcg does.  A grade is an
integer from -2**63 + 1 to 2**63 - 1 (trec_eval reads a C long); one that does
not fit is a ValueError naming the query and the document.

Queries
-------
A qrels query the run does not rank gets no row (``missing="ignore"``, the
default, as in trec_eval without ``-c``: it is left out of the means) and a
:class:`MissingQueriesWarning` (a ``UserWarning``; its ``queries`` are the ids)
gives how many and a few ids; with ``missing="zero"`` (trec_eval
``-c``, and what ir_measures does) it is scored on an empty ranking and nothing
is reported.  :func:`mean`, :func:`searchgrade.compare` and ``searchgrade report``
share the default, so they give one mean for one run.  Run queries without qrels
are skipped with a ``UserWarning``.  Either warning says when the unmatched ids
match the other side's as text (qrels ``1`` vs run ``"1"``).

How the tools differ
--------------------
The evaluation's options:

==========================  ==========================  ==========================  ==========================
Choice                      trec_eval 10.0              ir_measures / pytrec_eval   ranx
==========================  ==========================  ==========================  ==========================
Tied scores                 score desc, then docno      trec_eval's order (pytrec   sorts by score; the order
                            desc by strcmp              _eval runs trec_eval code)  of ties is not documented
Qrels query not in the run  skipped; with ``-c``        pytrec_eval: skipped;       ``evaluate`` asserts that
                            counted as 0                ir_measures 0.4: scored     qrels and run have the same
                                                        with each measure's         query ids (later versions:
                                                        DEFAULT, 0 (NumRel, NumQ    ``make_comparable=True``)
                                                        too): like ``-c``
Run query without qrels     skipped silently            skipped silently            same assertion
==========================  ==========================  ==========================  ==========================

The measures (from the registry rows' ``differs``):

{tools}

searchgrade uses trec_eval 10.0's choices by default (``ties="trec"``,
``missing="ignore"``, linear gain, lround for IPrec) and reproduces its test
outputs line by line; it warns about run queries without qrels and qrels
queries without a ranking instead of dropping them silently.  Its own choices
where trec_eval has none (graded RBP's gain, ERR's gmax) are the formulas
above.  ``ties="expected"`` gives the tie-aware value of McSherry & Najork
(2008): the mean of the measure over all orders of tied documents, in closed
form.
"""
from __future__ import annotations

from typing import Iterable, Mapping, Sequence

from . import io as _io
from .measures.engine import Evaluator, Scores, evaluate, mean, score_run
from .measures.names import Measure, known_measures, parse_measure
from .measures.options import MISSING, TIES, MissingQueriesWarning
from .measures.summary import aggregate, summary_order
from .measures.tables import differs_table, formula_table, measure_table

__all__ = [
    "Measure",
    "parse_measure",
    "known_measures",
    "measure_table",
    "Evaluator",
    "Scores",
    "evaluate",
    "mean",
    "aggregate",
    "summary_order",
    "score_ranking",
    "score_run",
    "MissingQueriesWarning",
    "TIES",
    "MISSING",
]


# ============================================================ one ranked list
def score_ranking(ranking: Sequence, qrels, measures: Iterable | str, **options) -> dict:
    """Measures of one ranked list, taken in the given order: ``{measure: value}``.

    ``qrels`` are the query's ``{docid: grade}``, or anything
    :func:`searchgrade.io.as_qrels` reads that holds exactly one query.
    """
    if isinstance(ranking, (str, bytes, bytearray)) or not isinstance(ranking, Iterable):
        raise TypeError(f"ranking must be a list of document ids in rank order, not {type(ranking).__name__}"
                        + (" (a single string would be read as a list of characters)"
                           if isinstance(ranking, (str, bytes, bytearray)) else ""))
    _ordered(ranking)
    ranking = list(ranking)
    seen = set()
    for d in ranking:
        if d in seen:
            raise ValueError(f"document {d!r} appears twice in the ranking")
        seen.add(d)
    if options.get("ties", "input") != "input":
        raise ValueError("score_ranking takes the list order as the ranking; ties cannot be chosen")
    options["ties"] = "input"
    if not isinstance(qrels, Mapping):
        many = _io.as_qrels(qrels)
        if len(many) != 1:
            raise ValueError(f"score_ranking needs the judgments of one query; these qrels hold {len(many)}")
        (qrels,) = many.values()
    n = len(ranking)
    run = {"q": {d: float(n - i) for i, d in enumerate(ranking)}}
    options.setdefault("missing", "zero")
    df = evaluate({"q": dict(qrels)}, run, measures, **options)
    return {c: (v.item() if hasattr(v, "item") else v) for c, v in df.iloc[0].items()}


def _ordered(ranking) -> None:
    """Refuse a collection without an order of its own: a set's order follows the hash seed."""
    from collections.abc import KeysView, Set

    if isinstance(ranking, Mapping):
        raise TypeError(f"ranking must be a list of document ids in rank order, not a {type(ranking).__name__} "
                        "(a run's {docid: score} goes to searchgrade.evaluate)")
    if isinstance(ranking, Set) and not isinstance(ranking, KeysView):
        raise TypeError(f"ranking must be a list of document ids in rank order, not a {type(ranking).__name__}: "
                        "a set has no order (its iteration order changes with the hash seed)")


# The module docstring's formula and tool tables are generated from the registry rows, as
# measure_table() is (searchgrade.measures.tables), so no second copy of a formula can drift.
if __doc__:
    __doc__ = __doc__.replace("{formulas}", formula_table()).replace("{tools}", differs_table())
