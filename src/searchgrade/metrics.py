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
measures prepared once for many runs), :func:`parse_measure`,
:func:`known_measures`.  Inside, :mod:`searchgrade.measures.registry` holds one entry
per measure family (parameters, cut-off rule, aggregation, kernel, trec_eval
and pytrec_eval names), :mod:`searchgrade.measures.names` parses names,
:mod:`searchgrade.measures.options`, :mod:`searchgrade.measures.qrels`, :mod:`searchgrade.measures.ranking`
and :mod:`searchgrade.measures.dispatch` check the options, index the qrels, rank the
run and call the kernels of :mod:`searchgrade.measures.kernels`.

Measures and formulas
---------------------
``R`` is the number of relevant documents of the query in the qrels, ``rel_i``
is 1 if the document at rank ``i`` is relevant, ``g_i`` its grade (0 when
unjudged), ``k`` the cutoff.  A C/W/L family is given by its user model's
``C(i)``, the chance of going on after rank ``i``, with ``g(i)`` the gain at
rank ``i`` and ``G(i) = g(1) + ... + g(i)`` (the model and the value ``sum_i
W(i) g(i)`` are explained in :mod:`searchgrade.measures.kernels.cwl`).  The
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
``UserWarning`` gives how many and a few ids; with ``missing="zero"`` (trec_eval
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

import math
from typing import TYPE_CHECKING, Iterable, Mapping, NamedTuple, Sequence

import numpy as np

if TYPE_CHECKING:  # pandas is imported where a function needs it: the trec_eval command never does
    import pandas as pd

from . import io as _io
from .io.sources import is_source
from .measures.dispatch import by_judged_only, evaluate_ranked, frame, kernel_values, plan
from .measures.kernels.base import MIN_GEO_MEAN, Ranked
from .measures.names import Measure, is_ir_measure, known_measures, parse_measure
from .measures.tables import closed_form_families, differs_table, formula_table, measure_table
from .measures.options import MISSING, TIES, Options
from .measures.qrels import QrelsIndex, warn_user
from .measures.ranking import rank as _rank
from .measures.subtopics import diversity_split

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
    "TIES",
    "MISSING",
]


# ====================================================================== inputs
def _is_columns(obj) -> bool:
    """True for the columns of a file (:class:`searchgrade.io.bulk.Columns`)."""
    return hasattr(obj, "doc_codes") and hasattr(obj, "keys")


def _input(obj, kind: str):
    """(data, read report or None): a dict or columns as they are; a path, ``"-"`` or an open file read
    as columns (the same rules and errors as :func:`searchgrade.io.read_qrels` / ``read_run``);
    anything else (a DataFrame, records) through :func:`searchgrade.io.as_qrels` / ``as_run``."""
    if isinstance(obj, Mapping) or _is_columns(obj):
        return obj, None
    if is_source(obj):
        return _io._load_columns(obj, kind, warn=True)
    return (_io.as_qrels(obj) if kind == "qrels" else _io.as_run(obj)), None


class Scores(NamedTuple):
    """Per-query values of one run: what :meth:`Evaluator.evaluate` tabulates and the trec_eval command prints."""

    rows: list  # query ids, natural order
    values: dict  # {column name: one value per row}, in the order of Evaluator.measures
    ranked: Ranked | None  # the ranking under the evaluation's judged_only (None if no measure used it)
    report: object | None  # the run's ReadReport when it was read from a file, else None


# ================================================================== evaluation
class Evaluator:
    """Measures and qrels prepared once; ``.evaluate(run)`` scores any number of runs.

    ``qrels`` and runs are dicts (``{qid: {docid: grade}}``, ``{qid: {docid:
    score}}``) or anything :func:`searchgrade.io.as_qrels` / :func:`searchgrade.io.as_run`
    read: a DataFrame, a path (``.gz`` too), an open file, ``"-"`` (stdin); files are read
    into columns, not dicts.
    ``measures`` are names (``"nDCG@10"``, ``"ndcg_cut_10"``, ``"nDCG(dcg='exp-log2')@10"``),
    :class:`Measure` objects or ir_measures measure objects (see :mod:`searchgrade.metrics`).

    Options (all keyword-only; what other tools do is in brackets):

    ties
        ``"trec"`` (default): score descending, ties by docid descending (string
        order) -- exactly trec_eval's qsort order, which pytrec_eval inherits
        and so do ir_measures' measures that run on pytrec_eval.  Not all of
        them do: ir_measures 0.4.3 computes ``RR@k`` with its msmarco provider,
        which sorts ties by docid *ascending*, so on tied scores its ``RR@10``
        can differ from this ``RR@10`` (and from its own ``RR``, which keeps
        trec_eval's order).  ``"input"``: score descending, ties kept in the
        run dict's order (a stable sort; ranx sorts by score with numpy and keeps
        no documented tie order).  ``"expected"``: the mean of the measure over
        all orders of tied documents (McSherry & Najork 2008), exact in closed
        {closed_form};
        other measures raise ValueError naming the measure.
    missing
        ``"ignore"`` (default; trec_eval without ``-c``, pytrec_eval): queries
        in the qrels but not in the run get no row, so they are left out of
        every mean, and a ``UserWarning`` gives how many and a few of their
        ids.  :func:`mean`, :func:`searchgrade.compare` and ``searchgrade
        report`` share this default (the report's ``-c`` is ``"zero"``).
        ``"zero"`` (trec_eval ``-c``): they are scored on an empty ranking
        (every measure 0 except NumRel, NumQ and RBP_resid, which is 1),
        without a warning.  ir_measures 0.4.3 does the latter: its evaluator
        adds every qrels query the run lacks with the measure's ``DEFAULT``
        (0), so its means equal ``missing="zero"``, not the default here.
    rel_level
        Binary measures count ``grade >= rel_level`` as relevant (trec_eval
        ``-l``, pytrec_eval ``relevance_level``; ir_measures ``rel=``).  A
        measure's own ``rel=`` parameter overrides it.  Graded measures (nDCG,
        DCG, CG, ERR, RBP without ``rel=``) use the grades themselves.
    judged_only
        Drop unjudged documents (not in the qrels, or negative grade) before
        ranking: condensed lists (Sakai 2007; trec_eval ``-J``).  A measure's own
        ``judged_only=`` parameter (ir_measures') overrides it; the run is then
        ranked once per setting.
    max_docs
        Keep only the first ``max_docs`` documents of each query after sorting
        (trec_eval ``-M``).

    Run queries that have no qrels are skipped, as trec_eval does, with a
    ``UserWarning`` naming how many and a few of them.  Either warning says
    when the unmatched ids differ from the other side's only in type (``1``
    vs ``"1"``).  Two spellings of one measure (``"P_10"``, ``"P@10"``) are a
    ValueError: request each measure once.
    """

    def __init__(self, qrels, measures: Iterable | str, *, ties: str = "trec", missing: str = "ignore",
                 rel_level: int = 1, judged_only: bool = False, max_docs: int | None = None):
        self.options = Options(ties, missing, rel_level, judged_only, max_docs)
        self.measures: list[Measure] = plan(measures, self.options, allow_empty=True)
        qrels, self._subtopics = diversity_split(qrels, self.measures)  # subtopic qrels: collapsed + indexed
        self._index = QrelsIndex(_input(qrels, "qrels")[0])

    ties = property(lambda self: self.options.ties, doc="The tie rule (see the class docstring).")
    missing = property(lambda self: self.options.missing, doc="What happens to qrels queries not in the run.")
    rel_level = property(lambda self: self.options.rel_level, doc="The binary relevance level.")
    judged_only = property(lambda self: self.options.judged_only, doc="Whether unjudged documents are dropped.")
    max_docs = property(lambda self: self.options.max_docs, doc="Documents kept per query, or None.")

    def _rows(self, run) -> list:
        """Query ids that get a row, in natural order; warns about ids that do not match."""
        if _is_columns(run):
            return self._index.rows(dict.fromkeys(run.keys), self.options.missing)
        if not isinstance(run, Mapping):
            raise TypeError(f"run must be a dict {{qid: {{docid: score}}}}, not {type(run).__name__}")
        return self._index.rows(run, self.options.missing)

    def rank(self, run, rows: Sequence | None = None, exact: bool = False) -> tuple[list, Ranked]:
        """Sort and flatten the run into a :class:`Ranked` context: (row qids, context).

        Tied documents that no measure can tell apart (same qrels code) stay in
        any order unless ``exact``; :meth:`Ranked.docids` always gives the exact order.
        """
        run = _input(run, "run")[0]
        if rows is None:
            rows = self._rows(run)
        return list(rows), self._ranked(run, rows, self.options.judged_only, exact)

    def _ranked(self, run, rows: Sequence, judged_only: bool, exact: bool = False) -> Ranked:
        o = self.options
        ctx = _rank(self._index, run, rows, ties=o.ties, judged_only=judged_only, max_docs=o.max_docs,
                    exact=exact or self._subtopics is not None)
        if self._subtopics is not None:  # the diversity kernels read the subtopics of the exact ranking
            ctx.cache["subtopics"] = (self._subtopics, list(rows))
        return ctx

    def scores(self, run) -> Scores:
        """Every measure's per-query values as arrays, with the rows, the ranking and the run's read report."""
        run, report = _input(run, "run")
        rows = self._rows(run)
        groups = by_judged_only(self.measures) or {self.options.judged_only: []}
        values, ranked = {}, None
        for judged, measures in groups.items():
            ctx = self._ranked(run, rows, judged)
            values.update((m.name, kernel_values(m, ctx)) for m in measures)
            if judged == self.options.judged_only:
                ranked = ctx
        return Scores(rows, {m.name: values[m.name] for m in self.measures}, ranked, report)

    def evaluate(self, run) -> pd.DataFrame:
        """One row per query (index "qid"), one column per measure, named by its printed name."""
        if not self.measures:
            raise ValueError("no measures requested")
        got = self.scores(run)
        return frame(got.rows, got.values)

    def evaluate_ranked(self, rows: Sequence, ctx: Ranked) -> pd.DataFrame:
        """The DataFrame of :meth:`evaluate` for a run already ranked by :meth:`rank`."""
        other = [m.name for m in self.measures if m.judged_only != ctx.judged_only]
        if other:
            raise ValueError(f"measures {other} need a ranking with judged_only={not ctx.judged_only}; "
                             "use evaluate(run)")
        return evaluate_ranked(self.measures, rows, ctx)

    def summarize(self, scores: Scores) -> dict:
        """The summary of every measure over the rows of ``scores``, as :func:`aggregate` computes it."""
        order = summary_order(scores.rows)
        return {m.name: _summary(scores.values[m.name][order], m.agg) for m in self.measures}


def _closed_form_text() -> str:
    """The families with a closed form under ``ties="expected"``, from the registry, wrapped for a docstring."""
    import textwrap

    names = ", ".join(closed_form_families())
    return textwrap.fill(f"form for {names}", 80, subsequent_indent=" " * 8, break_on_hyphens=False)


if Evaluator.__doc__:  # the list comes from the registry rows (Family.expected), so it cannot drift
    Evaluator.__doc__ = Evaluator.__doc__.replace("{closed_form}", _closed_form_text())


def evaluate(qrels, run, measures: Iterable | str, **options) -> pd.DataFrame:
    """Score a run: DataFrame with one row per query and one column per requested measure (see Evaluator)."""
    return Evaluator(qrels, measures, **options).evaluate(run)


def mean(qrels, run, measures: Iterable | str, **options) -> pd.Series:
    """The summary of :func:`evaluate` in one call: ``aggregate(evaluate(qrels, run, measures, **options))``."""
    ev = Evaluator(qrels, measures, **options)
    return aggregate(ev.evaluate(run), ev.measures)


# ================================================================= aggregation
def summary_order(rows: Sequence) -> np.ndarray:
    """The order in which summaries add the queries up: trec_eval's, query ids compared as text (strcmp)."""
    texts = [q if type(q) is str else str(q) for q in rows]
    return np.argsort(np.array(texts, dtype=str), kind="stable") if texts else np.zeros(0, dtype=np.int64)


def _sequential_sum(x: np.ndarray) -> float:
    """x added up one value after another, as trec_eval's loop adds (not numpy's pairwise sum)."""
    return float(np.cumsum(x, dtype=np.float64)[-1])


def _summary(x: np.ndarray, agg: str):
    """One column's summary over values in summary order: sum (an int when whole), geometric mean (trec_eval's
    floor, C's log) or mean, each added up in that order as trec_eval adds."""
    if agg == "sum":
        total = x.sum()
        return int(total) if float(total).is_integer() else float(total)
    if len(x) == 0:
        return float("nan")
    if agg == "gmean":
        logs = np.fromiter(map(math.log, np.maximum(x, MIN_GEO_MEAN).tolist()), dtype=np.float64, count=len(x))
        return math.exp(_sequential_sum(logs) / len(x))
    return _sequential_sum(x) / len(x)


def _column_for(df: pd.DataFrame, spec) -> tuple[str, Measure]:
    """(column, measure) for a requested measure: its printed name, else its spelling; KeyError if absent."""
    m = parse_measure(spec)
    for col in dict.fromkeys([m.name, m.spelling or m.name, spec if isinstance(spec, str) else m.name]):
        if col in df.columns:
            return col, m
    raise KeyError(m.name)


def _measure_columns(df: pd.DataFrame) -> list[tuple[str, Measure]]:
    """Every column whose name is a measure name; numeric columns that are not are reported, others ignored."""
    import pandas as pd

    pairs, skipped = [], []
    for col in df.columns:
        try:
            pairs.append((col, parse_measure(col)))
        except (TypeError, ValueError):
            if pd.api.types.is_numeric_dtype(df[col]):
                skipped.append(col)
    if skipped:
        warn_user(f"aggregate: numeric column(s) {skipped} are not measure names and were left out")
    return pairs


def aggregate(df: pd.DataFrame, measures: Iterable | None = None) -> pd.Series:
    """Summary over queries, column by name: mean; geometric mean for GMAP / gm_bpref; sum for counts.

    With ``measures=None`` every column whose name is a measure name is
    summarised; other columns (``system``, ...) are left out -- silently when
    they are not numeric, with a ``UserWarning`` when they are.  With
    ``measures`` (names, :class:`Measure` or ir_measures objects), exactly those
    columns, found by the measure's printed name (or the spelling as given),
    in that order; a KeyError names any that is missing.
    """
    import pandas as pd

    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"aggregate needs the DataFrame that evaluate() returns, not {type(df).__name__}")
    if measures is None:
        pairs = _measure_columns(df)
    else:
        if isinstance(measures, (str, Measure)) or is_ir_measure(measures):
            measures = [measures]
        pairs, missing = [], []
        for spec in measures:
            try:
                pairs.append(_column_for(df, spec))
            except KeyError as err:
                missing.append(err.args[0])
        if missing:
            raise KeyError(f"aggregate: no column for measure(s) {missing}; the columns are {list(df.columns)}")
    order = summary_order(list(df.index))
    out = {col: _summary(df[col].to_numpy(dtype=np.float64)[order], m.agg) for col, m in pairs}
    return pd.Series(out, dtype=object if any(isinstance(v, int) for v in out.values()) else np.float64,
                     name="all")


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
    df = Evaluator({"q": dict(qrels)}, measures, **options).evaluate(run)
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
