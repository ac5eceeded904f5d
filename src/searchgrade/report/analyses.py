"""The analyses of ``searchgrade report`` (chapter 5's, reused by later chapters): tables of a line-up of runs.

Runs are ``{qid: {docid: score}}`` and qrels ``{qid: {docid: grade}}`` as everywhere in
:mod:`searchgrade`; a line-up is ``{retriever: run}``. Wherever a rank is needed a list is ordered as
trec_eval orders it. A document counts as relevant when its grade is at least ``rel_level``
(default 1), as in :func:`searchgrade.evaluate`.

- :func:`main_table`: retrievers x measures (means as :func:`searchgrade.mean` gives them: a query without
  results left out by default, scored 0 with ``missing="zero"``);
- :func:`precision_ceiling`: the best possible P@k, mean of min(1, R_q / k);
- :func:`score_distribution`: queries at exactly 0 and exactly 1, histogram;
- :func:`rank_flips`: pairs of retrievers whose order changes between two measures;
- :func:`check_flips`: both margins of each flip tested (paired permutation test, Holm);
- :func:`compare_pairs`: named pairs of retrievers tested on named measures;
- :func:`candidate_ceiling`: Recall@depth of a first stage and the queries with nothing relevant
  among its candidates (what no second stage can repair).

:func:`check_qrels`, :func:`check_run` and :func:`check_runs` refuse malformed inputs with a message naming
the run and query. :mod:`searchgrade.book.diagnostics` re-exports the tables for the chapters.
"""
from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import metrics, stats
from ..io.types import QrelsLike as Qrels, RunLike as Run

__all__ = [
    "main_table",
    "precision_ceiling",
    "Ceiling",
    "score_distribution",
    "Distribution",
    "rank_flips",
    "check_flips",
    "compare_pairs",
    "candidate_ceiling",
    "CandidateCeiling",
]


# ---------------------------------------------------------------------------
# input checks (public: the book's diagnostics check their inputs with them too)


def check_qrels(qrels) -> None:
    """Refuse qrels that are not a non-empty {qid: {docid: grade}} mapping."""
    if not isinstance(qrels, Mapping) or not qrels:
        raise ValueError("qrels must be a non-empty mapping {qid: {docid: grade}}")
    for q, docs in qrels.items():
        if not isinstance(docs, Mapping):
            raise ValueError(f"qrels[{q!r}] must be a mapping {{docid: grade}}, not {type(docs).__name__}")


def check_run(name: str, run, qrels=None) -> None:
    """Refuse a run that is not a non-empty {qid: {docid: score}} mapping, or names queries absent from qrels."""
    if not isinstance(run, Mapping):
        raise ValueError(f"run {name!r} must be a mapping {{qid: {{docid: score}}}}, not {type(run).__name__}")
    if not any(run.values()):
        raise ValueError(f"run {name!r} is empty: it ranks no document for any query")
    for q, docs in run.items():
        if not isinstance(docs, Mapping):
            raise ValueError(f"run {name!r}, query {q!r}: expected {{docid: score}}, got {type(docs).__name__}")
    if qrels is not None:
        unknown = [q for q in run if q not in qrels]
        if unknown:
            raise ValueError(f"run {name!r} has {len(unknown)} queries that are not in the qrels "
                             f"(e.g. {sorted(map(str, unknown))[:3]}); mismatched collection?")


def check_runs(runs, qrels=None) -> None:
    """Refuse an empty line-up or any bad run in it."""
    if not isinstance(runs, Mapping) or not runs:
        raise ValueError("runs must be a non-empty mapping {retriever: run}")
    for name, run in runs.items():
        check_run(str(name), run, qrels)


def _positive_int(value, name: str) -> int:
    """``value`` as a positive int, or a ValueError naming it."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


# ---------------------------------------------------------------------------
# the main table


def main_table(qrels: Qrels, runs: Mapping[str, Run], measures: Sequence[str], *, missing: str = "ignore",
               ties: str = "trec", rel_level: int = 1) -> pd.DataFrame:
    """Mean of each measure for each retriever: rows in the line-up's order, one column per measure (as named).

    ``missing`` is :func:`searchgrade.evaluate`'s, with the same default, so a row equals
    :func:`searchgrade.mean` of that run: with ``"ignore"`` (trec_eval's default) a query a
    retriever returned nothing for is left out of its means (a ``UserWarning`` says which); with
    ``"zero"`` (trec_eval ``-c``) it scores 0, so every row has the same denominator.
    """
    check_qrels(qrels)
    check_runs(runs, qrels)
    measures = list(measures)
    if not measures:
        raise ValueError("measures must name at least one measure")
    rows = {}
    for name, run in runs.items():
        df = metrics.evaluate(qrels, run, measures, missing=missing, ties=ties, rel_level=rel_level)
        rows[name] = metrics.aggregate(df)[measures]
    table = pd.DataFrame(rows).T
    table.index.name = "retriever"
    return table


# ---------------------------------------------------------------------------
# ceilings and distributions


@dataclass
class Ceiling:
    """The best possible P@k over a query set: ``value`` = mean of min(1, R_q / k); ``relevant`` = R_q per query."""

    k: int
    value: float
    relevant: pd.Series

    def counts(self) -> pd.Series:
        """How many queries have 1, 2, ... relevant documents."""
        return self.relevant.value_counts().sort_index().rename("queries")


def precision_ceiling(qrels: Qrels, k: int, rel_level: int = 1) -> Ceiling:
    """Best possible P@k: (1/|Q|) * sum_q min(1, R_q / k), R_q = documents with grade >= rel_level.

    A perfect ranking puts all R_q relevant documents first, so its P@k is
    R_q / k when R_q < k and 1 otherwise. Queries with no relevant document
    are counted (with 0), as a mean of P@k over the same queries would.
    """
    check_qrels(qrels)
    k = _positive_int(k, "k")
    rel = pd.Series({q: sum(1 for g in docs.values() if g >= rel_level) for q, docs in qrels.items()},
                    name="relevant", dtype=int)
    rel.index.name = "qid"
    return Ceiling(k, float(np.minimum(1.0, rel / k).mean()), rel)


@dataclass
class Distribution:
    """Per-query score distribution: ``summary`` (one row per measure) and ``histogram`` (bins x measures)."""

    summary: pd.DataFrame
    histogram: pd.DataFrame


def score_distribution(per_query, bins: int = 10) -> Distribution:
    """Counts of queries at exactly 0 and exactly 1, the mean, and a histogram on [0, 1] in ``bins`` equal bins.

    ``per_query``: a DataFrame (queries x measures, e.g. from
    :func:`searchgrade.evaluate`) or a Series. Bins are [0, 1/b), ...,
    [(b-1)/b, 1]: the last bin is closed, so a perfect query falls in it.
    Values outside [0, 1] or missing are refused (they are not scores of a
    bounded measure).
    """
    if isinstance(per_query, pd.Series):
        per_query = per_query.to_frame(per_query.name if per_query.name is not None else "score")
    if not isinstance(per_query, pd.DataFrame):
        raise TypeError(f"per_query must be a DataFrame or Series of per-query scores, not {type(per_query).__name__}")
    if per_query.empty:
        raise ValueError("per_query has no queries")
    bins = _positive_int(bins, "bins")
    edges = np.linspace(0.0, 1.0, bins + 1)
    labels = [f"[{lo:.2f}, {hi:.2f}{']' if i == bins - 1 else ')'}" for i, (lo, hi) in enumerate(zip(edges, edges[1:]))]
    summary, hist = {}, {}
    for col in per_query.columns:
        v = pd.to_numeric(per_query[col], errors="coerce").to_numpy(dtype=float)
        if np.isnan(v).any():
            raise ValueError(f"column {col!r}: {int(np.isnan(v).sum())} missing or non-numeric scores")
        if (v < 0).any() or (v > 1).any():
            raise ValueError(f"column {col!r}: scores outside [0, 1] (min {v.min():g}, max {v.max():g})")
        counts, _ = np.histogram(v, bins=edges)
        hist[col] = counts
        n = v.size
        summary[col] = {"queries": n, "mean": float(v.mean()), "median": float(np.median(v)),
                        "zero": int((v == 0).sum()), "one": int((v == 1).sum()),
                        "zero_share": float((v == 0).mean()), "one_share": float((v == 1).mean()),
                        "between": int(((v > 0) & (v < 1)).sum())}
    summary_df = pd.DataFrame(summary).T
    for c in ("queries", "zero", "one", "between"):
        summary_df[c] = summary_df[c].astype(int)
    hist_df = pd.DataFrame(hist, index=pd.Index(labels, name="bin"))
    return Distribution(summary_df, hist_df)


# ---------------------------------------------------------------------------
# rank flips


def rank_flips(table: pd.DataFrame, measures: Sequence[str] | None = None, tol: float = 1e-12,
               pairs: Sequence[tuple[str, str]] | None = None) -> pd.DataFrame:
    """Retriever pairs ordered one way by measure a and the other way by measure b (both differences beyond ``tol``).

    ``table``: retrievers x measures (:func:`main_table`). One row per flip
    and pair of measures (a before b in ``measures``): ``ahead_on_a`` is the
    retriever with the higher mean on a, ``ahead_on_b`` the other one (higher
    on b), ``diff_a`` and ``diff_b`` the two positive margins. Differences of
    at most ``tol`` are ties, never flips. ``pairs``: the retriever pairs to
    look at (default: every pair of rows).
    """
    if not isinstance(table, pd.DataFrame) or table.shape[0] < 2:
        raise ValueError("table must be a DataFrame with at least two retrievers (rows)")
    measures = list(table.columns if measures is None else measures)
    missing = [m for m in measures if m not in table.columns]
    if missing:
        raise ValueError(f"measures not in the table: {missing}; it has {list(table.columns)}")
    if len(measures) < 2:
        raise ValueError("rank_flips needs at least two measures")
    if tol < 0:
        raise ValueError(f"tol must be non-negative, got {tol}")
    rows = []
    pairs = list(itertools.combinations(list(table.index), 2) if pairs is None else pairs)
    for a, b in itertools.combinations(measures, 2):
        for x, y in pairs:
            da = float(table.at[x, a] - table.at[y, a])
            db = float(table.at[x, b] - table.at[y, b])
            if abs(da) > tol and abs(db) > tol and np.sign(da) != np.sign(db):
                first, second = (x, y) if da > 0 else (y, x)
                rows.append({"measure_a": a, "measure_b": b, "ahead_on_a": first, "ahead_on_b": second,
                             "diff_a": abs(da), "diff_b": abs(db)})
    return pd.DataFrame(rows, columns=["measure_a", "measure_b", "ahead_on_a", "ahead_on_b", "diff_a", "diff_b"])


# ---------------------------------------------------------------------------
# second stage


@dataclass
class CandidateCeiling:
    """Recall of a candidate list: ``recall`` = mean Recall@depth, ``per_query``, ``empty`` = queries with none relevant."""

    depth: int
    recall: float
    per_query: pd.Series
    empty: list[str]

    @property
    def empty_share(self) -> float:
        """Share of queries with nothing relevant among the candidates."""
        return len(self.empty) / len(self.per_query)


def candidate_ceiling(first_stage: Run, qrels: Qrels, depth: int, rel_level: int = 1) -> CandidateCeiling:
    """Recall@depth of a first stage over every qrels query (no result = 0) and the queries it gives nothing relevant.

    Recall@depth = |relevant in the top depth| / R_q. A second stage that
    reorders these ``depth`` candidates keeps this value; a query with none
    relevant among them scores 0 on every measure whatever the reordering.
    Queries without any relevant document are refused (their recall is undefined).
    """
    check_qrels(qrels)
    check_run("first_stage", first_stage, qrels)
    depth = _positive_int(depth, "depth")
    norel = [q for q, docs in qrels.items() if not any(g >= rel_level for g in docs.values())]
    if norel:
        raise ValueError(f"{len(norel)} queries have no relevant document (e.g. {sorted(map(str, norel))[:3]}); "
                         "recall is undefined for them")
    name = f"R@{depth}"
    per_query = metrics.evaluate(qrels, first_stage, [name], missing="zero", rel_level=rel_level)[name]
    empty = [str(q) for q in per_query.index[per_query == 0]]
    return CandidateCeiling(depth, float(per_query.mean()), per_query.rename(name), empty)


# ---------------------------------------------------------------------------
# paired tests


def _scores(per_query: Mapping[str, pd.DataFrame], name: str, measure: str) -> pd.Series:
    """The per-query scores of one retriever on one measure, with a clear error when absent."""
    if name not in per_query:
        raise KeyError(f"no per-query scores for retriever {name!r}; have {sorted(per_query)}")
    table = per_query[name]
    if measure not in table.columns:
        raise KeyError(f"retriever {name!r} has no measure {measure!r}; its columns are {list(table.columns)}")
    return table[measure].rename(name)


def compare_pairs(per_query: Mapping[str, pd.DataFrame], pairs: Sequence[tuple[str, str]],
                  measures: Sequence[str], *, n_perm: int = 10_000, seed=stats.DEFAULT_SEED,
                  alpha: float = 0.05) -> pd.DataFrame:
    """One row per (a, b, measure): mean_a, mean_b, mean_diff = mean(a - b), p_value, p_holm over all rows, significant.

    Every test uses the same seed (as :func:`searchgrade.stats.pairwise`).
    """
    if not pairs or not measures:
        raise ValueError("compare_pairs needs at least one pair and one measure")
    rows = []
    for a, b in pairs:
        for m in measures:
            x, y = _scores(per_query, a, m), _scores(per_query, b, m)
            test = stats.permutation_test(x, y, n_perm=n_perm, seed=seed)
            rows.append({"a": a, "b": b, "measure": m, "mean_a": float(x.mean()), "mean_b": float(y.mean()),
                         "mean_diff": test.mean_diff, "p_value": test.p_value})
    out = pd.DataFrame(rows)
    out["p_holm"] = stats.holm(out["p_value"].to_numpy())
    out["significant"] = out["p_holm"] <= alpha
    return out


def check_flips(flips: pd.DataFrame, per_query: Mapping[str, pd.DataFrame], *, n_perm: int = 10_000,
                seed=stats.DEFAULT_SEED, alpha: float = 0.05) -> pd.DataFrame:
    """The flips of lineup.rank_flips with both margins tested: p_a, p_b (Holm over all 2 x flips tests), real.

    ``p_a`` tests ``ahead_on_a`` against ``ahead_on_b`` on ``measure_a``, ``p_b``
    the reverse on ``measure_b``; ``real`` is True when both adjusted p-values
    are at most ``alpha``. An empty table of flips comes back empty.
    """
    columns = [*flips.columns, "p_a", "p_b", "real"]
    if flips.empty:
        return pd.DataFrame(columns=columns)
    p = []
    for row in flips.itertuples(index=False):
        for winner, loser, m in ((row.ahead_on_a, row.ahead_on_b, row.measure_a),
                                 (row.ahead_on_b, row.ahead_on_a, row.measure_b)):
            x, y = _scores(per_query, winner, m), _scores(per_query, loser, m)
            p.append(stats.permutation_test(x, y, n_perm=n_perm, seed=seed).p_value)
    adjusted = stats.holm(p)
    out = flips.reset_index(drop=True).copy()
    out["p_a"], out["p_b"] = adjusted[0::2], adjusted[1::2]
    out["real"] = (out["p_a"] <= alpha) & (out["p_b"] <= alpha)
    return out[columns]
