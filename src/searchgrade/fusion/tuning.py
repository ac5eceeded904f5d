"""Tuning a fusion method's parameters on ranx's grid, with a held-out check of what the tuning is worth.

ranx's ``optimize_fusion`` picks the grid point with the best mean score on the queries it is
given and reports nothing else, so a user who then measures on the same queries reports a
score the tuning has already seen. :func:`optimize_fusion` does the same search and, with
``folds=k``, also splits the queries into k folds (seeded), tunes on k - 1 of them and scores
the fold left out: each query gets one held-out score. The result holds the choice on all
queries (ranx's answer), its score there, each fold's choice and scores, and the mean
held-out score, so the optimism of tuning on the test queries is a number.

The grids are ranx 0.3.21's (:mod:`.grids`, which refuses an empty grid and one larger than
``max_trials``); ``segfuse``, ``mapfuse``, ``posfuse`` and ``bayesfuse`` have nothing to
search: they are trained (on the tuning queries) and scored. As in ranx the last grid point
with the best score wins. Scores are searchgrade's (``metric`` as
:func:`searchgrade.evaluate` reads it), averaged over the queries with the evaluation's
defaults: qrels queries the fused run lacks and run queries without qrels are left out, with
a warning.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from .api import as_runs, method_row, norm_row, prepare, resolve_params
from .checks import check_ties
from .grids import MAX_TRIALS, grid
from .methods import Method, apply, learn
from .pool import Pool

__all__ = ["optimize_fusion", "FusionTuning", "grid"]

@dataclass
class FusionTuning:
    """What :func:`optimize_fusion` found (see its docstring); ``optimism`` = score - held_out."""

    method: str
    norm: str | None
    metric: str
    params: dict                      # chosen on all queries: what ranx's optimize_fusion returns
    score: float                      # that choice's mean score on the same queries
    trials: list[tuple[dict, float]]  # every grid point and its mean score on all queries
    folds: list[dict] = field(default_factory=list)
    held_out: float | None = None     # mean over the queries of each query's held-out score

    def __repr__(self) -> str:
        """One line: the choice and its scores (``trials``, ``folds`` and ``table()`` hold the details)."""
        held = "" if self.held_out is None else f", held_out={self.held_out:.4f} ({len(self.folds)} folds)"
        params = ", ".join(f"{k}={v}" for k, v in self.params.items())
        return (f"FusionTuning({self.method}, norm={self.norm}, {self.metric}: {params or 'no parameters'}; "
                f"score={self.score:.4f} on {self.n_queries} quer{'y' if self.n_queries == 1 else 'ies'}{held}; "
                f"{len(self.trials)} trials)")

    @property
    def optimism(self) -> float | None:
        """How much higher the score looks when the tuning queries are also the test queries."""
        return None if self.held_out is None else self.score - self.held_out

    def table(self):
        """One row per fold and one for all queries: chosen parameters, tuning score, held-out score."""
        import pandas as pd

        def text(params: dict) -> str:
            return ", ".join(f"{k}={v}" for k, v in params.items())

        rows = [{"tuned on": f"all but fold {f['fold']}", "queries tuned": f["n_tune"], "params": text(f["params"]),
                 "score (tuning queries)": f["tuned"], "queries scored": f["n_test"],
                 "score (held out)": f["held_out"]} for f in self.folds]
        rows.append({"tuned on": "all queries", "queries tuned": self.n_queries, "params": text(self.params),
                     "score (tuning queries)": self.score, "queries scored": self.n_queries,
                     "score (held out)": np.nan})
        return pd.DataFrame(rows)

    n_queries: int = 0


class _Scorer:
    """Per-query scores of one grid point, trained on a set of queries (cached where training plays no part)."""

    def __init__(self, pool: Pool, method: Method, runs, names, qrels: Mapping, metric: str):
        from ..metrics import Evaluator

        self.pool, self.method, self.runs, self.names, self.qrels = pool, method, runs, names, qrels
        self.evaluator = Evaluator(qrels, metric)
        self.name = self.evaluator.measures[0].name
        self._cache: dict = {}

    def __call__(self, trial: dict, train: frozenset | None) -> dict:
        key = (repr(trial), train if self.method.learns else None)
        if key not in self._cache:
            p = resolve_params(self.method, trial, self.runs, self.names, trained=True)
            if self.method.learns:
                judged = self.qrels if train is None else {q: g for q, g in self.qrels.items() if q in train}
                p = learn(self.method, self.pool, judged, p)
            got = self.evaluator.scores(self.pool.to_run(apply(self.method, self.pool, p)))
            self._cache[key] = dict(zip(got.rows, got.values[self.name].tolist()))
        return self._cache[key]


def _best(trials: list[dict], scores: list[float]) -> tuple[dict, float]:
    """The last grid point with the best score (ranx keeps a later point on a tie)."""
    i = len(scores) - 1 - int(np.argmax(np.asarray(scores)[::-1]))
    return trials[i], scores[i]


def _mean(per_query: dict, queries) -> float:
    """The mean of some queries' scores."""
    return float(np.mean([per_query[q] for q in queries]))


def _fold(scorer: _Scorer, trials: list[dict], tune: list, test: list, number: int) -> dict:
    """Tune on ``tune``, score ``test``."""
    train = frozenset(tune)
    chosen, tuned = _best(trials, [_mean(scorer(t, train), tune) for t in trials])
    per_query = scorer(chosen, train)
    return {"fold": number, "params": chosen, "tuned": tuned, "held_out": _mean(per_query, test),
            "n_tune": len(tune), "n_test": len(test), "scores": {q: per_query[q] for q in test}}


def optimize_fusion(qrels, runs, method: str = "wsum", norm: str | None = "min-max", metric: str = "ndcg",
                    folds: int | None = None, *, seed: int = 0, ties: str = "trec", max_trials: int = MAX_TRIALS,
                    **grid_options) -> FusionTuning:
    """Search ranx's grid for a fusion method's parameters; with ``folds=k``, also a k-fold held-out score.

    ``qrels``, ``runs``, ``method`` and ``norm`` as in :func:`searchgrade.fuse` (``runs``: a list or
    ``{name: run}``); ``metric`` any measure name :func:`searchgrade.evaluate` reads (default
    ``"ndcg"``, as in ranx). Returns a :class:`FusionTuning`: ``params`` and ``score`` are the
    choice made on all queries and its score there (ranx's answer); with ``folds`` the queries
    are shuffled with ``seed`` and cut into ``folds`` parts, each part is scored with the
    parameters tuned on the others (``folds`` lists them), ``held_out`` is the mean of those
    scores over all queries and ``optimism`` how much ``score`` exceeds it. ``ties`` as in
    :func:`searchgrade.fuse`. A grid of more than ``max_trials`` settings (ranx's weights for
    many runs: 92,378 at 10 runs) is refused with its size and how to narrow it. Printed, the
    result is one line; its attributes and :meth:`FusionTuning.table` hold the details.
    """
    m, nm = method_row(method), norm_row(norm)
    if not isinstance(qrels, Mapping):
        from ..io import as_qrels

        qrels = as_qrels(qrels)
    runs_list, names = as_runs(runs)
    trials = grid(m.name, len(runs_list), max_trials=max_trials, **grid_options)
    pool = prepare(runs_list, names, nm, m, warn=True, ties=check_ties(ties))
    scorer = _Scorer(pool, m, runs, names, qrels, metric)
    everything = [scorer(t, None) for t in trials]
    queries = list(everything[0])
    if not queries:
        raise ValueError("optimize_fusion: no query is both judged and in the fused run")
    means = [_mean(s, queries) for s in everything]
    chosen, score = _best(trials, means)
    result = FusionTuning(m.name, None if nm is None else nm.name, scorer.name, chosen, score,
                          list(zip(trials, means)), n_queries=len(queries))
    if folds is not None:
        if isinstance(folds, bool) or not 2 <= int(folds) <= len(queries):
            raise ValueError(f"optimize_fusion: folds must be an integer from 2 to the {len(queries)} queries, "
                             f"got {folds!r}")
        order = np.random.default_rng(seed).permutation(len(queries))
        parts = [[queries[i] for i in sorted(part)] for part in np.array_split(order, int(folds))]
        for number, test in enumerate(parts, 1):
            tune = [q for part in parts if part is not test for q in part]
            result.folds.append(_fold(scorer, trials, tune, test, number))
        held = {q: s for f in result.folds for q, s in f["scores"].items()}
        result.held_out = _mean(held, queries)
    return result
