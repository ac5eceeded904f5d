"""The evaluation engine: :class:`Evaluator` and the one-call functions behind :mod:`searchgrade.metrics`.

Every evaluation -- ``sg.evaluate``, ``sg.mean``, :func:`searchgrade.compare`, the report, the trec_eval
and ndeval commands -- runs here; the one-call functions (:func:`evaluate`, :func:`mean`,
:func:`score_run`) enter the measures once and come back with the values (tests/test_engine_walk.py
traces it): the inputs are read (:mod:`searchgrade.io`), the requested measures planned (:func:`plan`:
parsed, the evaluation's options filled in, duplicates refused), the qrels indexed
(:mod:`~searchgrade.measures.qrels`), the run ranked as trec_eval ranks it
(:mod:`~searchgrade.measures.ranking`), each measure's kernel called on the ranked rows
(:func:`kernel_values`, kernels from the registry's rows) and the queries summed up as trec_eval sums
them (:mod:`~searchgrade.measures.summary`). The options and their meaning are the :class:`Evaluator`'s
docstring; the measures, names and conventions are :mod:`searchgrade.metrics`'.
"""
from __future__ import annotations

import textwrap
from dataclasses import replace
from typing import TYPE_CHECKING, Iterable, Mapping, NamedTuple, Sequence

import numpy as np

if TYPE_CHECKING:  # pandas is imported where a function needs it: the trec_eval command never does
    import pandas as pd

from .. import io as _io
from ..io.sources import is_source
from .kinds.base import Ranked
from .names import Measure, is_ir_measure, parse_measure
from .options import Options
from .qrels import QrelsIndex
from .ranking import rank as _rank
from .registry import FAMILIES
from .subtopics import diversity_split
from .stream import Stream, positive_judgments, score_source
from .summary import aggregate, frame, summarize_column, summary_order
from .tables import closed_form_families

__all__ = ["Evaluator", "Scores", "evaluate", "mean", "score_run", "plan", "by_judged_only", "kernel_values",
           "evaluate_ranked", "frame", "relstrings"]


# ====================================================================== inputs
def _is_columns(obj) -> bool:
    """True for the columns of a file (:class:`searchgrade.io.bulk.Columns`)."""
    return hasattr(obj, "doc_codes") and hasattr(obj, "keys")


def _is_file(obj) -> bool:
    """True for a run or qrels file to read: a path, ``"-"`` or an open file (not a dict, not columns)."""
    return not isinstance(obj, Mapping) and not _is_columns(obj) and is_source(obj)


def _input(obj, kind: str):
    """(data, read report or None): a dict or columns as they are; a path, ``"-"`` or an open file read
    as columns (the same rules and errors as :func:`searchgrade.io.read_qrels` / ``read_run``);
    anything else (a DataFrame, records) through :func:`searchgrade.io.as_qrels` / ``as_run``.
    A run without a single query is a ValueError, as an empty run file is."""
    if not (isinstance(obj, Mapping) or _is_columns(obj)):
        if is_source(obj):
            return _io.load_columns(obj, kind, warn=True)
        obj = _io.as_qrels(obj) if kind == "qrels" else _io.as_run(obj)
    if kind == "run" and isinstance(obj, Mapping) and not obj:
        raise ValueError("the run is empty: it has no query (an empty run file is refused too)")
    return obj, None


class Scores(NamedTuple):
    """Per-query values of one run, and what is printed of them: what :meth:`Evaluator.scores` returns.

    :meth:`Evaluator.evaluate` tabulates ``rows`` and ``values``; the trec_eval command prints every
    field, in ``order``.
    """

    rows: list  # query ids, natural order
    values: dict  # {column name: one value per row}, in the order of Evaluator.measures
    order: np.ndarray  # trec_eval's query order of the rows (ids compared as text): summaries add up in it
    summaries: dict | None  # {column name: summary over the rows} (as aggregate() gives), when asked
    relstrings: list | None  # each row's relevance string of its first n ranks (relstring=n), when asked
    positive_judgments: int  # judgments with a grade above 0 in the rows' qrels (trec_eval -c's num_rel)
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
        every mean, and a :class:`~searchgrade.metrics.MissingQueriesWarning` (a
        ``UserWarning``) gives how many and a few of their ids.  :func:`mean`,
        :func:`searchgrade.compare` and ``searchgrade report`` share this default
        (the report's ``-c`` is ``"zero"``).
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

    def scores(self, run, *, summary: bool = False, relstring: int | None = None) -> Scores:
        """Every measure's per-query values as arrays, with the rows and the run's read report; with
        ``summary`` each measure's summary too, with ``relstring=n`` each row's relevance string of n ranks.

        A run file (a path, ``"-"``, an open file) is read a part at a time and scored as it comes, in
        memory bounded by a part of it (:mod:`searchgrade.measures.stream`): the same values."""
        if _is_file(run):
            held, rows, report = score_source(self, run, relstring)
            values, strings = held.take(rows)
            held.close()
            positive = positive_judgments(self, rows)
        else:
            run, report = _input(run, "run")
            rows = self._rows(run)
            values, positive, strings = self._score_rows(run, rows, relstring)
        order = summary_order(rows)
        sums = self._summaries(values, order) if summary else None
        return Scores(rows, values, order, sums, strings, positive, report)

    def _score_rows(self, run, rows: Sequence, relstring: int | None) -> tuple[dict, int, list | None]:
        """({measure name: values}, the rows' judgments above 0, relstrings or None) of the rows of run."""
        groups = by_judged_only(self.measures) or {self.options.judged_only: []}
        values, ranked = {}, None
        for judged, measures in groups.items():
            ctx = self._ranked(run, rows, judged)
            values.update((m.name, kernel_values(m, ctx)) for m in measures)
            if judged == self.options.judged_only:
                ranked = ctx
        values = {m.name: values[m.name] for m in self.measures}
        positive = int(np.count_nonzero(ctx.qgrade > 0))  # the qrels of the rows, under either ranking
        strings = None
        if relstring is not None:
            strings = relstrings(ranked or self._ranked(run, rows, self.options.judged_only), relstring)
        return values, positive, strings

    def stream(self, **batch) -> Stream:
        """A :class:`~searchgrade.measures.stream.Stream` of rankings pushed one query at a time:
        ``s.add(query, ranking)`` for each query, then ``s.finish()`` (the table :meth:`evaluate` gives for
        the same rankings) and ``s.mean()`` (``sg.mean``'s summary).  Only a batch of rankings is held at a
        time (``batch``: ``batch_queries``, ``batch_docs``)."""
        return Stream(self, **batch)

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
        if scores.summaries is not None:
            return dict(scores.summaries)
        return self._summaries(scores.values, scores.order)

    def _summaries(self, values: dict, order: np.ndarray) -> dict:
        """{measure name: summary of its values added up in ``order``} (trec_eval's query order)."""
        return {m.name: summarize_column(values[m.name][order], m.agg) for m in self.measures}


def _closed_form_text() -> str:
    """The families with a closed form under ``ties="expected"``, from the registry, wrapped for a docstring."""
    names = ", ".join(closed_form_families())
    return textwrap.fill(f"form for {names}", 80, subsequent_indent=" " * 8, break_on_hyphens=False)


if Evaluator.__doc__:  # the list comes from the registry rows (Family.expected), so it cannot drift
    Evaluator.__doc__ = Evaluator.__doc__.replace("{closed_form}", _closed_form_text())


# ============================================================ one call each
def evaluate(qrels, run, measures: Iterable | str, **options) -> pd.DataFrame:
    """Score a run: DataFrame with one row per query and one column per requested measure (see Evaluator)."""
    return Evaluator(qrels, measures, **options).evaluate(run)


def mean(qrels, run, measures: Iterable | str, *, summation: str = "trec", **options) -> pd.Series:
    """The summary of :func:`evaluate` in one call: ``aggregate(evaluate(qrels, run, measures, **options))``;
    ``summation`` as :func:`~searchgrade.measures.summary.aggregate` takes it (``"exact"``: mergeable)."""
    ev = Evaluator(qrels, measures, **options)
    return aggregate(ev.evaluate(run), ev.measures, summation=summation)


def score_run(qrels, run, measures: Iterable | str, *, summary: bool = False, relstring: int | None = None,
              **options) -> Scores:
    """:meth:`Evaluator.scores` of one run in one call (the trec_eval command's: options as in Evaluator)."""
    return Evaluator(qrels, measures, **options).scores(run, summary=summary, relstring=relstring)


# =============================================================== the kernels
def plan(requested, options: Options, allow_empty: bool = False) -> list[Measure]:
    """The requested measures parsed, with rel_level and judged_only filled in; ValueError on duplicates
    and on measures that ``ties="expected"`` cannot compute."""
    if isinstance(requested, (str, Measure)) or is_ir_measure(requested):
        requested = [requested]
    elif not isinstance(requested, Iterable) or isinstance(requested, (bytes, bytearray)):
        raise TypeError("measures must be a measure name, a Measure, an ir_measures measure or a list of them, "
                        f"not {type(requested).__name__}")
    parsed = []
    for spec in requested:
        m = parse_measure(spec)
        parsed.append(replace(m, rel_level=options.rel_level,
                              judged_only=bool(m.params.get("judged_only", options.judged_only))))
    if not parsed and not allow_empty:
        raise ValueError("no measures requested")
    _refuse_duplicates(parsed)
    if options.ties == "expected":
        for m in parsed:
            if not FAMILIES[m.family].expected:
                raise ValueError(f"measure {m.name!r}: ties='expected' has no closed form for "
                                 f"{m.family}; use ties='trec' or 'input'")
    return parsed


def _refuse_duplicates(measures: Sequence[Measure]) -> None:
    """ValueError naming measures requested twice: the same name, or two spellings of one measure."""
    seen: dict = {}
    for m in measures:
        seen.setdefault(m.key, []).append(m)
    twice = [group for group in seen.values() if len(group) > 1]
    if twice:
        parts = []
        for group in twice:
            names = [m.spelling or m.name for m in group]
            same = len(set(names)) == 1
            parts.append(repr(names[0]) if same else " and ".join(map(repr, names)) + f" (both {group[0].canonical})")
        raise ValueError("measures requested twice: " + "; ".join(parts) + ". Request each measure once "
                         "(two spellings of one measure would give two identical columns)")
    names = [m.name for m in measures]
    clash = sorted({n for n in names if names.count(n) > 1})
    if clash:  # different measures printing the same name cannot happen; refuse rather than mix columns
        raise ValueError(f"measures requested twice: {clash}")


def by_judged_only(measures: Iterable[Measure]) -> dict[bool, list[Measure]]:
    """The measures grouped by the ranking they need: judged documents only, or all."""
    groups: dict[bool, list[Measure]] = {}
    for m in measures:
        groups.setdefault(m.judged_only, []).append(m)
    return groups


def kernel_values(m: Measure, ctx: Ranked) -> np.ndarray:
    """One value per row of ctx for measure m (counts as int64 unless tie-averaged)."""
    fam = FAMILIES[m.family]
    values = fam.kernel(ctx, m) if ctx.n else np.zeros(0)
    if fam.integer and not ctx.expected:
        values = np.rint(values).astype(np.int64)
    return values


def evaluate_ranked(measures: Sequence[Measure], rows: Sequence, ctx: Ranked) -> pd.DataFrame:
    """One row per query (index "qid"), one column per measure, named by its printed name."""
    return frame(rows, {m.name: kernel_values(m, ctx) for m in measures})


def relstrings(ctx: Ranked, n: int) -> list[str]:
    """trec_eval's relstring of every row of ctx, its first n ranks: a digit per grade, '>' above 9, '-' not
    in the pool, '.' unjudged."""
    char = np.where(ctx.grade > 9, ord(">"), ord("0") + np.minimum(ctx.grade, 9))
    char = np.where(ctx.judged, char, np.where(ctx.nonpool, ord("-"), ord(".")))
    text = char[ctx.rank <= n].astype(np.uint8).tobytes().decode("ascii")
    ends = np.cumsum(np.minimum(ctx.nret, n)).tolist()
    return [text[a:b] for a, b in zip([0] + ends[:-1], ends)]
