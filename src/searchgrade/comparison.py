"""Compare several systems on several measures in one report: means, paired tests, win/tie/loss, significance markers.

:func:`compare` scores every system (``{name: run}``, or per-query tables already made by
:func:`searchgrade.evaluate`), tests the pairs with one of :mod:`searchgrade.stats`'s paired
tests, adjusts the p-values for multiple testing and returns a :class:`Comparison`: the means
(systems x measures), one row per tested pair and measure, and renderings as text, Markdown,
LaTeX and HTML in which every mean carries the letters of the systems it beats significantly.

Which pairs
    Without ``baseline`` every pair of systems (``k (k - 1) / 2`` for ``k`` systems), in the
    order the systems were given (``system_a`` before ``system_b``). With ``baseline=name``
    only the ``k - 1`` pairs (baseline, other); ``system_a`` is then always the baseline.

Which queries
    Every system of a pair must be scored on the same queries (a paired test compares query by
    query). ``missing`` decides that as in :func:`searchgrade.evaluate`: with ``"zero"``
    (trec_eval ``-c``) every run is scored on every query of the qrels, so all systems share
    one query set; with the default ``"ignore"`` a run gets rows only for the queries it
    answered, and if the systems' query sets then differ :func:`compare` refuses, naming what
    differs, unless ``on="intersection"``: then every system is restricted to the queries all
    of them have (means included), the dropped queries are listed in
    :attr:`Comparison.dropped` and a ``UserWarning`` says how many.

What the correction is applied over (``family``)
    A family is the set of tests whose conclusions are read together; the correction holds
    its promise (see below) within one family.

    * ``"measure"`` (default): one family per measure, over its pairs. A report is read
      column by column ("on nDCG@10, which systems differ?"), and this is what
      :func:`searchgrade.stats.pairwise` does for one measure.
    * ``"all"``: one family over every pair and every measure. Use it when the whole table
      backs a single claim; stricter (more tests share the same ``alpha``).
    * ``"pair"``: one family per pair, over its measures ("do these two differ on any of the
      measures?"), as :func:`searchgrade.stats.measurewise` does for two systems.

    ``correction=None`` reports ``p_adjusted = p_value`` (no correction).

Which correction (``correction``)
    ``"holm"`` (default) and ``"bonferroni"`` keep the family-wise error rate (the chance of
    any false "significant" in a family) at ``alpha``; ``"bh"`` (Benjamini-Hochberg) and
    ``"by"`` (Benjamini-Yekutieli) keep the false discovery rate (the expected share of false
    ones among the significant) at ``alpha`` (:func:`searchgrade.stats.adjust`).
    ``"tukey"`` is Carterette's (2012) randomised Tukey HSD: each measure's pairs are read
    against the range of all systems' means after shuffling every query's scores across the
    systems (``n_perm`` shuffles, ``seed``). ``"tukey-parametric"`` is the classical Tukey HSD
    (statsmodels' ``pairwise_tukeyhsd``): a one-way layout that reads the systems as unpaired
    samples, leaving the query effect in its error, so it is conservative for IR. Either is
    the test that decides, not an adjustment of a pairwise test: no pairwise test runs
    (``test`` is refused with them; ``p_value`` is NaN and ``p_adjusted`` holds Tukey's
    family-wise p), and the legend names Tukey's HSD as the test. Both need
    ``family="measure"``; with a baseline they still read each pair against the range over
    every system.

Markers
    Systems get letters a, b, c, ... in input order (after z: aa, ab, ...). A mean carries
    the letter of every system it beats significantly on that measure: the pair's
    ``significant`` is true and its mean per-query difference is in this system's favour.
    With a baseline only pairs with the baseline are tested, so a system's mean can carry only
    the baseline's letter and the baseline's mean the letters of the systems it beats.
    Markers follow the sign of the mean per-query difference, which is what the test tests;
    for GMAP (a geometric mean in :attr:`Comparison.means`) that order can, rarely, differ
    from the order of the shown means.

Randomness
    The permutation test gets ``seed`` for every pair and measure (the default is
    :data:`searchgrade.stats.DEFAULT_SEED`), so two calls give identical p-values, equal to
    calling :func:`searchgrade.stats.permutation_test` on the same two columns with the same
    ``n_perm`` and ``seed``.
"""
from __future__ import annotations

import itertools
import warnings
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from . import io as _io
from . import stats
from .metrics import Evaluator, aggregate, parse_measure
from .stats.comparison_table import Comparison, letter

__all__ = ["Comparison", "compare", "letter", "FAMILIES", "CORRECTIONS", "TESTS"]

FAMILIES = ("measure", "pair", "all")
"""What Holm's correction is applied over (see the module docstring)."""

CORRECTIONS = ("holm", "bonferroni", "bh", "by", "tukey", "tukey-parametric", None)
"""Corrections :func:`compare` knows (``None``: report raw p-values as adjusted); see the module docstring."""

TESTS = ("permutation", "randomization", "t", "sign")
"""Test names :func:`compare` accepts (the p-value tests of :data:`searchgrade.stats.TESTS`)."""

_N_EXAMPLES = 5


# --------------------------------------------------------------------------- input checks


def _examples(values) -> str:
    """A few values for an error message."""
    values = sorted(map(str, values))
    shown = ", ".join(repr(v) for v in values[:_N_EXAMPLES])
    return shown + (", ..." if len(values) > _N_EXAMPLES else "")


def _check_options(test, correction, family, alpha, on) -> None:
    """Refuse an unknown test, correction, family or alignment, or an alpha outside (0, 1), before any work."""
    if test is not None and test not in TESTS:
        hint = " (bootstrap gives an interval, not a p-value)" if test == "bootstrap" else ""
        raise ValueError(f"unknown test {test!r}: choose one of {', '.join(map(repr, TESTS))}{hint}")
    if correction not in CORRECTIONS:
        raise ValueError(f"unknown correction {correction!r}: choose one of "
                         f"{', '.join(map(repr, CORRECTIONS[:-1]))} or None (no correction)")
    if test is not None and _is_tukey(correction):
        raise ValueError(f"correction={correction!r} is itself the test that decides (Tukey's HSD over all systems), "
                         f"so test={test!r} would never be used: leave test out, or keep test={test!r} with "
                         "correction='holm' (or 'bonferroni', 'bh', 'by', None)")
    if _is_tukey(correction) and family != "measure":
        raise ValueError(f"correction={correction!r} compares every pair of systems on one measure: it "
                         f"needs family='measure', not {family!r}")
    if family not in FAMILIES:
        raise ValueError(f"unknown family {family!r}: choose 'measure' (Holm within each measure over its "
                         "pairs), 'pair' (within each pair over its measures) or 'all' (over every test)")
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 < alpha < 1:
        raise ValueError(f"alpha must be a number strictly between 0 and 1, got {alpha!r}")
    if on not in ("strict", "intersection"):
        raise ValueError(f"on must be 'strict' or 'intersection', not {on!r}")


def _measure_list(measures) -> list[str]:
    """Measure names as a non-empty list without repeats."""
    if isinstance(measures, str):
        measures = [measures]
    if measures is None or not isinstance(measures, Sequence):
        raise TypeError(f"measures must be a measure name or a list of names, not {measures!r}")
    measures = [m if isinstance(m, str) else str(m) for m in measures]
    if not measures:
        raise ValueError("no measures to compare")
    repeated = sorted({m for m in measures if measures.count(m) > 1})
    if repeated:
        raise ValueError(f"measures requested twice: {repeated}")
    return measures


def _system_names(runs, baseline) -> list:
    """The systems' names in input order; at least two, and the baseline among them."""
    if not isinstance(runs, Mapping):
        raise TypeError(f"runs must be a mapping {{name: run}} (the names label the report), "
                        f"not {type(runs).__name__}")
    names = list(runs)
    if len(names) < 2:
        raise ValueError(f"need at least 2 systems to compare, got {len(names)}")
    labels = [str(n) for n in names]
    if len(set(labels)) < len(labels):
        raise ValueError(f"system names must be distinct as text, got {labels}")
    if baseline is not None and baseline not in runs:
        raise ValueError(f"unknown baseline {baseline!r}: the systems are {labels}")
    return names


# --------------------------------------------------------------------------- per-query tables


def _is_table(value, measures: Sequence[str]) -> bool:
    """True for a per-query DataFrame holding every requested measure as a column."""
    return isinstance(value, pd.DataFrame) and all(m in value.columns for m in measures)


def _as_run(name, value):
    """value as a {qid: {docid: score}} run; io.as_run converts other inputs when the package has it."""
    if isinstance(value, Mapping) and not isinstance(value, pd.Series):
        return value
    as_run = getattr(_io, "as_run", None)
    if as_run is not None:
        return as_run(value)
    if isinstance(value, pd.DataFrame):
        raise ValueError(f"system {name!r} is a DataFrame without the measure column(s) asked for; its "
                         f"columns are {list(value.columns)[:8]}: pass per-query tables that hold every "
                         "measure (index qid), or the run itself")
    raise TypeError(f"system {name!r} is a {type(value).__name__}: pass a run {{qid: {{docid: score}}}} or "
                    "a per-query DataFrame from searchgrade.evaluate")


def _per_query(qrels, runs: Mapping, names: list, measures: list[str], options: dict) -> dict:
    """{name: per-query DataFrame with exactly the measures' columns}; runs are scored by one Evaluator."""
    tables, to_score = {}, {}
    for name in names:
        value = runs[name]
        if _is_table(value, measures):
            table = value[measures]
            if table.index.has_duplicates:
                dup = table.index[table.index.duplicated()].unique()
                raise ValueError(f"system {name!r}: per-query table lists query id(s) {_examples(dup)} twice")
            tables[name] = table
        elif isinstance(value, pd.DataFrame) and any(m in value.columns for m in measures):
            lacking = [m for m in measures if m not in value.columns]
            raise ValueError(f"system {name!r}: the per-query table has no column for {lacking}; its columns "
                             f"are {list(value.columns)[:8]}")
        else:
            to_score[name] = _as_run(name, value)
    if to_score:
        if qrels is None:
            raise ValueError(f"qrels are needed to score the run(s) {_examples(to_score)}")
        as_qrels = getattr(_io, "as_qrels", None)
        if as_qrels is not None and not isinstance(qrels, Mapping):
            qrels = as_qrels(qrels)
        evaluator = Evaluator(qrels, measures, **options)
        for name, run in to_score.items():
            table = evaluator.evaluate(run)
            table.columns = measures
            tables[name] = table
    elif options:
        raise ValueError(f"evaluate options {sorted(options)} given, but every system is an already "
                         "evaluated table: nothing is scored here")
    return {name: tables[name] for name in names}


def _align(tables: dict, on: str) -> tuple[dict, dict]:
    """Tables on one shared query set (order of the first), and {name: dropped qids} under on='intersection'."""
    names = list(tables)
    first = tables[names[0]].index
    shared = first
    for name in names[1:]:
        shared = shared.intersection(tables[name].index, sort=False)
    differ = {n: tables[n].index.difference(shared) for n in names}
    if any(len(d) for d in differ.values()):
        if on == "strict":
            parts = "; ".join(f"{n!r} has {len(d)} more (e.g. {_examples(d)})" for n, d in differ.items() if len(d))
            raise ValueError(
                f"the systems were scored on different queries: {len(shared)} queries are shared; {parts}. "
                "Score every run on every query of the qrels (missing='zero', trec_eval -c), or pass "
                "on='intersection' to compare on the shared queries on purpose")
        if len(shared) == 0:
            raise ValueError("the systems have no query in common")
        warnings.warn(f"comparing on the {len(shared)} queries every system has; dropped "
                      + ", ".join(f"{len(d)} of {n!r}" for n, d in differ.items() if len(d)),
                      UserWarning, stacklevel=3)
    if len(shared) == 0:
        raise ValueError("empty sample: the systems have no queries")
    aligned = {n: t.loc[shared] if not t.index.equals(shared) else t for n, t in tables.items()}
    return aligned, {n: list(d) for n, d in differ.items() if len(d)}


def _means(tables: dict) -> pd.DataFrame:
    """Systems x measures as searchgrade.aggregate gives them (plain means for columns that are not measures)."""
    out = pd.DataFrame({name: pd.Series({c: _aggregate_column(table[c]) for c in table.columns}, dtype=object)
                        for name, table in tables.items()}).T.infer_objects()
    out.index.name, out.columns.name = "system", "measure"
    return out


def _aggregate_column(column: pd.Series):
    """One column's summary: aggregate() for a measure name (mean, geometric mean or sum), else the mean."""
    try:
        parse_measure(str(column.name))
    except ValueError:
        return float(column.to_numpy(dtype=float).mean())
    return aggregate(column.to_frame()).iloc[0]


# --------------------------------------------------------------------------- tests


def _is_tukey(correction) -> bool:
    """True for the corrections that are Tukey's HSD (a test of its own, not an adjustment of p-values)."""
    return correction in ("tukey", "tukey-parametric")


def _pairs(names: list, baseline) -> list[tuple]:
    """(system_a, system_b) pairs: all of them, or (baseline, other) for each other system."""
    if baseline is None:
        return list(itertools.combinations(names, 2))
    return [(baseline, n) for n in names if n != baseline]


def _one_test(test, x: pd.Series, y: pd.Series, n_perm: int, seed) -> float:
    """The p-value of one paired test on two aligned columns; NaN when no pairwise test is run (Tukey decides)."""
    if test is None:
        return float("nan")
    if test in ("permutation", "randomization"):
        return float(stats.permutation_test(x, y, n_perm=n_perm, seed=seed).p_value)
    return float(stats.TESTS[test](x, y).p_value)


def _test_rows(tables: dict, measures: list[str], pairs: list[tuple], test: str, n_perm: int, seed) -> pd.DataFrame:
    """One row per measure and pair: means, difference, p-value and per-query wins/ties/losses."""
    rows = []
    for measure in measures:
        for a, b in pairs:
            x = tables[a][measure].rename(f"{a!s} {measure}")
            y = tables[b][measure].rename(f"{b!s} {measure}")
            p_value = _one_test(test, x, y, n_perm, seed)
            xa, ya = x.to_numpy(dtype=float), y.to_numpy(dtype=float)
            rows.append({"measure": measure, "system_a": a, "system_b": b, "mean_a": float(xa.mean()),
                         "mean_b": float(ya.mean()), "diff": float((xa - ya).mean()),
                         "p_value": p_value, "wins": int(np.count_nonzero(xa > ya)),
                         "ties": int(np.count_nonzero(xa == ya)), "losses": int(np.count_nonzero(xa < ya)),
                         "n": int(xa.size)})
    return pd.DataFrame(rows)


def _tukey(tests: pd.DataFrame, tables: dict, correction: str, n_perm: int, seed) -> pd.Series:
    """Tukey HSD p-values of the tested pairs, each measure's family being every system on it."""
    method = "parametric" if correction == "tukey-parametric" else "randomized"
    out = pd.Series(np.nan, index=tests.index)
    for measure, group in tests.groupby("measure", sort=False):
        wide = pd.DataFrame({name: table[measure].to_numpy(dtype=float) for name, table in tables.items()})
        hsd = stats.tukey_hsd(wide, method=method, n_perm=n_perm, seed=seed)
        p = {(a, b): v for a, b, v in zip(hsd["a"], hsd["b"], hsd["p_value"])}
        for i, a, b in zip(group.index, group["system_a"], group["system_b"]):
            out[i] = p[(a, b)] if (a, b) in p else p[(b, a)]
    return out


def _adjust(tests: pd.DataFrame, tables: dict, correction, family: str, alpha: float, n_perm: int,
            seed) -> pd.DataFrame:
    """Add p_adjusted (the correction within each family) and significant = p_adjusted <= alpha."""
    p = tests["p_value"]
    if correction is None:
        adjusted = p.copy()
    elif _is_tukey(correction):
        adjusted = _tukey(tests, tables, correction, n_perm, seed)
    elif family == "all":
        adjusted = stats.adjust(p, correction)
    else:
        keys = ["measure"] if family == "measure" else ["system_a", "system_b"]
        adjusted = pd.concat([stats.adjust(group["p_value"], correction)
                              for _, group in tests.groupby(keys, sort=False)])
    tests.insert(tests.columns.get_loc("p_value") + 1, "p_adjusted", adjusted.reindex(tests.index))
    tests.insert(tests.columns.get_loc("p_adjusted") + 1, "significant", tests["p_adjusted"] <= alpha)
    return tests


def compare(qrels, runs: Mapping, measures, *, baseline=None, test: str | None = None, correction="holm",
            family: str = "measure", alpha: float = 0.05, n_perm: int = 10_000, seed=stats.DEFAULT_SEED,
            on: str = "strict", **evaluate_options) -> Comparison:
    """Score and test every pair of systems (or every system against ``baseline``) on each measure.

    ``runs``: ``{name: run}`` with runs as ``{qid: {docid: score}}`` or anything
    ``searchgrade.io.as_run`` accepts (a run DataFrame, a path), or per-query DataFrames from
    :func:`searchgrade.evaluate` holding every measure as a column (``qrels`` may then be None);
    ``qrels`` as ``searchgrade.io.as_qrels`` accepts them. ``evaluate_options`` (``missing=``,
    ``ties=``, ``rel_level=``, ...) go to :class:`searchgrade.Evaluator` for the runs scored
    here. ``test``: ``"permutation"`` (the default: ``n_perm`` sign flips, seeded), ``"t"`` or
    ``"sign"``. ``correction``: ``"holm"`` (default), ``"bonferroni"``, ``"bh"``, ``"by"`` (see
    :mod:`searchgrade.stats.corrections`), ``"tukey"`` (Carterette's randomised Tukey HSD,
    ``n_perm`` shuffles seeded by ``seed``), ``"tukey-parametric"`` or None. Tukey's HSD is a
    test of its own: with it no pairwise test runs (``p_value`` is NaN, ``p_adjusted`` is
    Tukey's p), and naming a ``test`` as well is refused. ``family``: within
    each measure (default), each pair, or over all tests (Tukey: each measure only);
    ``significant`` is ``p_adjusted <= alpha``. Query alignment (``on``) and
    the marker rule are described in the module docstring.
    """
    _check_options(test, correction, family, alpha, on)
    if test is None and not _is_tukey(correction):
        test = "permutation"
    names = _system_names(runs, baseline)
    measures = _measure_list(measures)
    tables, dropped = _align(_per_query(qrels, runs, names, measures, evaluate_options), on)
    tests = _test_rows(tables, measures, _pairs(names, baseline), test, n_perm, seed)
    tests = _adjust(tests, tables, correction, family, alpha, n_perm, seed)
    return Comparison(systems=names, measures=measures, means=_means(tables), tests=tests, per_query=tables,
                      baseline=baseline, test=test, correction=correction, family=family, alpha=float(alpha),
                      n_perm=n_perm if _uses_shuffles(test, correction) else None,
                      seed=seed if _uses_shuffles(test, correction) else None, dropped=dropped)


def _uses_shuffles(test, correction) -> bool:
    """True when n_perm and seed shape the result (permutation test or randomised Tukey HSD)."""
    return test in ("permutation", "randomization") or correction == "tukey"
