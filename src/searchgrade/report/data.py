"""What the report's sections read: the measures (as the user wrote them), the runs, their depths and scores.

:func:`prepare` checks the options and scores every run once; :class:`Data` holds the result. Two
spellings of one measure are one measure (:func:`measure_columns`), and a run's depth is where it was
cut (:func:`run_depth`), so a measure deeper than a run can be flagged (:meth:`Data.shallow`).

Queries without results (a qrels query the run does not rank) follow ``missing``, as in
:func:`searchgrade.evaluate`: by default (``"ignore"``, trec_eval's default) a run's means are over
the queries it answered, as :func:`searchgrade.mean` and :func:`searchgrade.compare` give them, and
the paired tests use the queries every run answered; ``"zero"`` (trec_eval ``-c``, the command's
``-c``) scores them 0 on every measure. The page states which.
"""
from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from ..collections import Collection
from ..io.types import RunLike as Run
from ..metrics import Evaluator, parse_measure
from . import analyses
from .text import check_lang, say

__all__ = ["MEASURES", "PRIMARY", "VIEWER_MEASURES", "STAGE_MEASURES", "GROUP_SIZE", "VIEWER_BYTES", "ALL_PAIRS",
           "MAX_RUNS", "Data", "measure_columns", "run_depth", "prepare", "check_run_count"]

MEASURES = ("P@1", "P@10", "R@10", "R@100", "RR@10", "nDCG@10", "AP@100")
"""Chapter 5's measures, the report's default."""
PRIMARY = "nDCG@10"
"""The default primary measure (picks the best run, the tests' baseline, and the distribution drawn); if the
measures lack it (in any spelling), the first of them."""
VIEWER_MEASURES = ("nDCG@10", "RR@10", "R@10")
STAGE_MEASURES = ("P@1", "RR@10", "nDCG@10")
GROUP_SIZE = 8
VIEWER_BYTES = 60_000_000
"""The most the viewer's embedded data may weigh (every judged query: about 3 kB each for three runs)."""
ALL_PAIRS = 12
"""Up to this many runs the rank flips look at every pair of runs; beyond, at each run and the baseline, so
that the page's work grows with the number of runs, not with its square."""
MAX_RUNS = 1000
"""The most runs one page compares (its main table has a row per run and each row is tested)."""


def check_run_count(n: int) -> None:
    """Refuse more runs than :data:`MAX_RUNS` with one line."""
    if n > MAX_RUNS:
        raise ValueError(f"{n:,} runs are more than one report compares (at most {MAX_RUNS:,}): choose the runs "
                         "to compare (fewer run files, or --retrievers)")


@dataclass
class Data:
    """Everything the sections read: the collection, the runs and records, per-query scores, the main table."""

    coll: Collection
    runs: dict[str, Run]
    infos: dict[str, dict | None]
    measures: list[str]
    primary: str
    per_query: dict[str, pd.DataFrame]
    table: pd.DataFrame
    n_perm: int
    seed: int
    alpha: float
    columns: dict[str, str]
    depths: dict[str, int]
    missing: str = "ignore"
    lang: str = "ko"

    def t(self, key: str, **values) -> str:
        """The page's text ``key`` in its language (:mod:`.text`)."""
        return say(self.lang, key, **values)

    def own(self, run: str) -> pd.DataFrame:
        """A run's per-query scores over the queries its means count: those it answered, or all with ``-c``."""
        table = self.per_query[run]
        return table if self.missing == "zero" else table.loc[[q for q in table.index if q in self.runs[run]]]

    def tested(self, names: Sequence[str] | None = None) -> dict[str, pd.DataFrame]:
        """Per-query scores for paired tests: every run on the same queries (those all of ``names`` answered)."""
        names = list(self.runs) if names is None else list(names)
        if self.missing == "zero":
            return {n: self.per_query[n] for n in names}
        index = self.per_query[names[0]].index
        shared = [q for q in index if all(q in self.runs[n] for n in names)]
        if not shared:
            raise ValueError(f"no query has results in every run ({', '.join(names)}): nothing to test; use -c "
                             "to count queries without results as 0")
        return {n: self.per_query[n].loc[shared] for n in names}

    @property
    def best(self) -> str:
        """The run with the highest mean on the primary measure (the first of a tie)."""
        return str(self.table[self.primary].idxmax())

    def scores(self, measures: Sequence[str]) -> dict[str, pd.DataFrame]:
        """{run: its per-query scores on ``measures``}, on the queries the tests use (:meth:`tested`)."""
        return {n: df[list(measures)] for n, df in self.tested().items()}

    def col(self, measure: str) -> str:
        """The column of one of the report's own measures: the user's spelling when they asked for it too."""
        return self.columns[measure]

    def shallow(self, run: str, measure: str) -> bool:
        """Does ``measure`` look deeper than ``run`` goes (its cutoff, capped by the deepest run, beyond the run's depth)?"""
        cutoff = parse_measure(measure).cutoff
        deepest = max(self.depths.values())
        reach = deepest if cutoff is None else min(int(cutoff), deepest)
        return self.depths[run] < reach


def measure_columns(measures: Sequence[str], primary: str | None) -> tuple[list[str], str, dict[str, str]]:
    """The user's measures (as written), the primary one among them, and a column for each of the report's own.

    Two spellings of one measure (``MRR@10``, ``RR@10``) are one measure: the report's own measures
    (P@10 for the ceiling, those of the viewer and the second stage) reuse the column of a measure
    the user asked for under another spelling, so nothing is asked twice and every name is printed as
    the user wrote it. ``primary`` may be any spelling of one of the measures; by default it is nDCG@10
    if the measures hold it, else the first of them.
    """
    measures = [str(m) for m in dict.fromkeys(measures)]
    if not measures:
        raise ValueError("no measures: give at least one (e.g. --measures nDCG@10,P@10)")
    keys: dict[tuple, str] = {}
    for m in measures:
        key = parse_measure(m).key
        if key in keys:
            raise ValueError(f"measures requested twice: {keys[key]!r} and {m!r} are one measure")
        keys[key] = m
    wanted = PRIMARY if primary is None else primary
    chosen = keys.get(parse_measure(wanted).key)
    if chosen is None:
        if primary is not None:
            raise ValueError(f"the primary measure {primary!r} must be one of the measures {measures}")
        chosen = measures[0]
    own = dict.fromkeys(["P@10", *VIEWER_MEASURES, *STAGE_MEASURES])
    return measures, chosen, {m: keys.get(parse_measure(m).key, m) for m in own}


def run_depth(run: Run, info: dict | None) -> int:
    """How deep a run was cut: its record's depth, or its own ``depth`` (a rerank's candidates) if smaller.

    A run without a record is as deep as the most documents it ranks for one query. The file alone
    cannot tell a cut from a retriever that found fewer documents (BM25 ranks only documents sharing
    a term with the query), so the record decides where there is one.
    """
    if not info or not info.get("depth"):
        return max((len(docs) for docs in run.values()), default=0)
    own = ((info.get("settings") or {}).get("params") or {}).get("depth")
    return int(min(own or info["depth"], info["depth"]))


def prepare(coll: Collection, runs: Mapping[str, Run], infos, measures, primary, n_perm, seed, alpha,
            missing: str = "ignore", lang: str = "ko") -> Data:
    """Check the options and score every run once (``missing``: queries without results left out, or 0)."""
    if not runs:
        raise ValueError("no runs to report on")
    check_run_count(len(runs))
    if missing not in ("ignore", "zero"):
        raise ValueError(f"missing must be 'ignore' or 'zero', not {missing!r}")
    check_lang(lang)
    measures, primary, columns = measure_columns(measures, primary)
    with warnings.catch_warnings():   # the page says how many queries each run left without results
        warnings.simplefilter("ignore", UserWarning)
        table = analyses.main_table(coll.qrels, runs, measures, missing=missing)   # refuses empty runs, unknown queries
    scored = list(dict.fromkeys([*measures, *columns.values()]))
    evaluator = Evaluator(coll.qrels, scored, missing="zero")   # every query: the viewer shows an empty list's 0
    per_query = {str(n): evaluator.evaluate(run) for n, run in runs.items()}
    infos = {str(n): (infos or {}).get(n) for n in runs}
    return Data(coll, {str(n): r for n, r in runs.items()}, infos, measures, primary, per_query, table,
                n_perm, seed, alpha, columns, {str(n): run_depth(r, infos[str(n)]) for n, r in runs.items()},
                missing, lang)


