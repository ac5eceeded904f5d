"""The fusion methods, one registry row each: ranx 0.3.21's 25 by ranx's names and parameter names.

A row names its parameters with their defaults (``REQUIRED``: no default, as in ranx), the
contribution kernel that turns each run into one value per candidate and the combiner that
fuses those values (:mod:`.kernels`), the paper, and for a trained method what it learns from
relevance judgements and how (:mod:`.training`). ``weights`` (one per run, or
``{name: weight}`` for named runs) default to 1 for every run; ``rrf`` takes them too
(searchgrade's, not ranx's: ``w / (k + rank)``).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from . import training
from .condorcet import condorcet
from .kernels import combiner, contribution
from .pool import Pool

__all__ = ["REQUIRED", "Method", "METHODS", "register_method", "apply", "learn"]

REQUIRED = object()
"""The default of a parameter the caller must give."""


@dataclass(frozen=True)
class Method:
    """One fusion method (see the module docstring)."""

    name: str
    params: Mapping[str, object]
    contribution: Callable | None       # (pool, run index, params) -> row; None: the combiner reads the pool
    combine: Callable                   # (matrix, pool, params) -> fused scores
    doc: str
    cite: str
    learns: tuple[str, ...] = ()        # the parameters learned from qrels (ranx's *_train output)
    learn: Callable | None = field(default=None, repr=False)   # (pool, qrels, params) -> {learned: value}

    @property
    def needs_ranks(self) -> bool:
        """Whether the method reads ranks (all but the score combinations)."""
        return self.contribution is not contribution["scores"]


METHODS: dict[str, Method] = {}
"""The fusion methods by name."""


def register_method(method: Method) -> None:
    """Add a row to :data:`METHODS`."""
    METHODS[method.name] = method


def _learn_probfuse(pool, qrels, p):
    return {"probs": [training.probfuse_probs(h, int(p["n_segments"])) for h in training.hit_lists(pool, qrels)]}


def _learn_segfuse(pool, qrels, p):
    return {"probs": [training.segfuse_probs(h) for h in training.hit_lists(pool, qrels)]}


def _learn_positions(pool, qrels, p):
    return {"probs": [training.position_probs(h) for h in training.hit_lists(pool, qrels)]}


def _learn_mapfuse(pool, qrels, p):
    return {"map_scores": [training.map_score(pool, r, qrels) for r in range(pool.n_runs)]}


def _learn_bayesfuse(pool, qrels, p):
    return {"log_odds": [training.bayes_log_odds(h) for h in training.hit_lists(pool, qrels)]}


_S, _C, _K = contribution["scores"], contribution, combiner
_FOX = "Fox & Shaw 1994"
_W = {"weights": None}
for _row in (
    Method("min", {}, _S, _K["min"], "CombMIN: the smallest score", _FOX),
    Method("max", {}, _S, _K["max"], "CombMAX: the largest score", _FOX),
    Method("med", {}, _S, _K["med"], "CombMED: the median of the scores of the runs that retrieved it", _FOX),
    Method("sum", {}, _S, _K["sum"], "CombSUM: the sum of the scores", _FOX),
    Method("anz", {}, _S, _K["anz"], "CombANZ: CombSUM / the number of runs that retrieved it", _FOX),
    Method("mnz", {}, _S, _K["mnz"], "CombMNZ: CombSUM * the number of runs that retrieved it", _FOX),
    Method("gmnz", {"gamma": REQUIRED}, _S, _K["gmnz"], "CombGMNZ: CombSUM * count^gamma", "Lee 1997"),
    Method("isr", {}, _C["isr"], _K["mnz"], "ISR: CombMNZ of 1 / rank^2", "Mourão et al. 2015"),
    Method("log_isr", {}, _C["isr"], _K["log_mnz"], "Log_ISR: CombSUM of 1 / rank^2 * log(count)", "Mourão et al. 2015"),
    Method("logn_isr", {"sigma": 0.01}, _C["isr"], _K["logn_mnz"],
           "LogN_ISR: CombSUM of 1 / rank^2 * log(count + sigma)", "Mourão et al. 2015"),
    Method("rrf", {"k": 60, **_W}, _C["rrf"], _K["sum"], "RRF: the sum of w / (k + rank)", "Cormack et al. 2009"),
    Method("bordafuse", {}, _C["borda"], _K["sum"], "BordaFuse: the sum of Borda points", "Aslam & Montague 2001"),
    Method("w_bordafuse", dict(_W), _C["borda"], _K["wsum"], "weighted BordaFuse", "Aslam & Montague 2001"),
    Method("condorcet", {}, None, condorcet, "Condorcet: pairwise majority order", "Montague & Aslam 2002"),
    Method("w_condorcet", dict(_W), None, condorcet, "weighted Condorcet", "Montague & Aslam 2002"),
    Method("wsum", dict(_W), _S, _K["wsum"], "weighted sum: sum of w * score", _FOX),
    Method("wmnz", dict(_W), _S, _K["wmnz"], "weighted MNZ: CombSUM * the sum of the weights of the runs "
           "that retrieved it", "Wu 2012"),
    Method("mixed", dict(_W), _S, _K["mixed"], "mixed: sum of w * score * sqrt(count)", "Wu 2012"),
    Method("rbc", {"phi": REQUIRED}, _C["rbc"], _K["sum"], "RBC: the sum of (1 - phi) * phi^(rank - 1)",
           "Bailey et al. 2017"),
    Method("probfuse", {"n_segments": REQUIRED}, _C["probfuse"], _K["sum"],
           "ProbFuse: P(relevant | segment) / segment number", "Lillis et al. 2006", ("probs",), _learn_probfuse),
    Method("segfuse", {}, _C["segfuse"], _K["sum"], "SegFuse: P(relevant | segment) * (score + 1)",
           "Shokouhi 2007", ("probs",), _learn_segfuse),
    Method("slidefuse", {"w": REQUIRED}, _C["slidefuse"], _K["sum"],
           "SlideFuse: mean P(relevant | position) over rank +- w", "Lillis et al. 2008", ("probs",), _learn_positions),
    Method("mapfuse", {}, _C["mapfuse"], _K["sum"], "MAPFuse: MAP of the run / rank", "Lillis et al. 2010",
           ("map_scores",), _learn_mapfuse),
    Method("posfuse", {}, _C["posfuse"], _K["sum"], "PosFuse: P(relevant | position)", "Lillis et al. 2010",
           ("probs",), _learn_positions),
    Method("bayesfuse", {}, _C["bayesfuse"], _K["sum_odds"], "BayesFuse: the sum of log-odds of relevance",
           "Aslam & Montague 2001", ("log_odds",), _learn_bayesfuse),
):
    register_method(_row)


def learn(method: Method, pool: Pool, qrels: Mapping, params: dict) -> dict:
    """``params`` with what the method learns from ``qrels`` (on the ranked, normalised pool)."""
    return {**params, **method.learn(pool, qrels, params)}


def apply(method: Method, pool: Pool, params: dict) -> np.ndarray:
    """The fused score of every candidate of a (ranked, normalised) pool."""
    m = None
    if method.contribution is not None:
        with np.errstate(divide="ignore", invalid="ignore"):
            m = np.stack([method.contribution(pool, r, params) for r in range(pool.n_runs)])
    with np.errstate(divide="ignore", invalid="ignore"):
        return method.combine(m, pool, params)
