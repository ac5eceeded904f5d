"""ranx 0.3.21's grids of parameter settings for :func:`~searchgrade.fusion.optimize_fusion`, checked and bounded.

The grids are ranx's (its keyword names and defaults): weights for ``wsum``, ``wmnz``,
``mixed``, ``w_bordafuse`` and ``w_condorcet`` from 0 to 1 by ``step`` = 0.1, every
combination whose sum is exactly 1.0 (as ranx adds them up in floats, in ranx's order);
``rrf``'s k from 10 to 100 by 10; ``gmnz``'s gamma, ``logn_isr``'s sigma and ``rbc``'s phi
from 0.01 to 1 by 0.01; ``probfuse``'s n_segments and ``slidefuse``'s w from 1 to 100.
``segfuse``, ``mapfuse``, ``posfuse`` and ``bayesfuse`` have nothing to search: one setting.

ranx builds the weight grid by going through all ``len(values) ** n_runs`` combinations (11**10
at 10 runs: hours before the first trial); here only those whose steps add up to 1 are made,
in ranx's order, so a grid costs its own size. A grid is refused with one line when it is
empty (a ``step`` that does not divide 1, a minimum above the maximum) or larger than
``max_trials`` (default :data:`MAX_TRIALS`; each setting is one fusion and one evaluation of
every query): the message gives the size and how to narrow it (a coarser ``step``, fewer
runs, a shorter range) or to raise ``max_trials``.
"""
from __future__ import annotations

import math
import numbers
from collections.abc import Iterator, Mapping

import numpy as np

__all__ = ["MAX_TRIALS", "WEIGHTED", "RANGES", "TRAINED_ONLY", "grid", "weight_settings"]

MAX_TRIALS = 10_000
"""The largest grid :func:`grid` makes unless told otherwise (``max_trials=``)."""

WEIGHTED = ("wsum", "wmnz", "mixed", "w_bordafuse", "w_condorcet")
RANGES = {"rrf": ("k", 10, 100, 10), "gmnz": ("gamma", 0.01, 1.0, 0.01), "logn_isr": ("sigma", 0.01, 1.0, 0.01),
          "rbc": ("phi", 0.01, 1.0, 0.01), "probfuse": ("n_segments", 1, 100, 1), "slidefuse": ("w", 1, 100, 1)}
TRAINED_ONLY = ("segfuse", "mapfuse", "posfuse", "bayesfuse")


def _decimals(step) -> int:
    """Decimals of a grid step, as ranx rounds its grid points."""
    text = str(step)
    return len(text.split(".")[1]) if "." in text else 0


def _check_options(method: str, options: Mapping, allowed: set) -> None:
    """Refuse grid options the method does not take."""
    bad = sorted(set(options) - allowed)
    if bad:
        raise ValueError(f"optimize_fusion {method}: unknown grid option(s) {', '.join(bad)} "
                         f"(it takes {', '.join(sorted(allowed)) or 'none'})")


def _option(method: str, name: str, value, positive: bool = False) -> float:
    """A grid option that must be a finite number (``positive``: above 0)."""
    if not isinstance(value, numbers.Real) or isinstance(value, bool) or not math.isfinite(value):
        raise ValueError(f"optimize_fusion {method}: {name} must be a finite number, got {value!r}")
    if positive and value <= 0:
        raise ValueError(f"optimize_fusion {method}: {name} must be above 0, got {value!r}")
    return value


def _too_big(method: str, size: int, max_trials: int, what: str, narrow: str) -> ValueError:
    """The error for a grid of more than max_trials settings."""
    return ValueError(f"optimize_fusion {method}: the grid has {size:,} settings ({what}), more than "
                      f"max_trials={max_trials:,} (each is one fusion and one evaluation); narrow it: {narrow}, "
                      "or pass a larger max_trials=")


def _compositions(total: int, parts: int, most: int) -> Iterator[tuple[int, ...]]:
    """Every tuple of ``parts`` integers from 0 to ``most`` that adds up to ``total``, in lexicographic order."""
    if parts == 1:
        if total <= most:
            yield (total,)
        return
    for first in range(min(most, total) + 1):
        for rest in _compositions(total - first, parts - 1, most):
            yield (first, *rest)


def _weight_count(step: float, n_runs: int) -> int:
    """How many index tuples add up to one at this step (an upper bound on the weight grid's size)."""
    m = round(1 / step)
    return math.comb(m + n_runs - 1, n_runs - 1) if abs(m * step - 1) < 1e-9 else 0


def weight_settings(method: str, n_runs: int, step=0.1, max_trials: int = MAX_TRIALS) -> list[dict]:
    """ranx's weight grid: every combination of 0, step, 2 step, ... (rounded as ranx rounds) that sums to 1.0."""
    step = _option(method, "step", step, positive=True)
    values = [round(float(x), _decimals(step)) for x in np.arange(0, 1 + step, step)]
    size = _weight_count(step, n_runs)
    if size > max_trials:
        coarser = next((f"step={s} gives {_weight_count(s, n_runs):,}" for s in (0.2, 0.25, 0.5)
                        if s > step and _weight_count(s, n_runs) <= max_trials), "a coarser step")
        raise _too_big(method, size, max_trials, f"{n_runs} runs, step={step}", f"fewer runs, or {coarser}")
    m = round(1 / step)
    out = [] if not size else [{"weights": seq} for idx in _compositions(m, n_runs, len(values) - 1)
                               if sum(seq := [values[i] for i in idx]) == 1.0]
    if not out:
        raise ValueError(f"optimize_fusion {method}: no weights from 0 to 1 by step={step} add up to 1 "
                         "(use a step that divides 1, such as 0.1, 0.2, 0.25 or 0.5)")
    return out


def _range(method: str, name: str, lo, hi, step, max_trials: int) -> list[dict]:
    """ranx's grid of one parameter from lo to hi by step."""
    lo, hi = _option(method, f"min_{name}", lo), _option(method, f"max_{name}", hi)
    step = _option(method, "step", step, positive=True)
    if lo > hi:
        raise ValueError(f"optimize_fusion {method}: min_{name}={lo!r} is above max_{name}={hi!r}, so the grid "
                         "is empty")
    size = math.floor((hi - lo) / step + 1e-9) + 1
    if size > max_trials:
        raise _too_big(method, size, max_trials, f"{name} from {lo} to {hi} by {step}",
                       f"a shorter range (min_{name}=, max_{name}=) or a larger step")
    if all(isinstance(v, numbers.Integral) for v in (lo, hi, step)):
        return [{name: v} for v in range(lo, hi + 1, step)]
    return [{name: round(float(v), _decimals(step))} for v in np.arange(lo, hi + step, step)]


def grid(method: str, n_runs: int, *, max_trials: int = MAX_TRIALS, **options) -> list[dict]:
    """ranx's grid of parameter settings for a method (options: ranx's ``step``, ``min_k``, ``max_gamma``, ...),
    refused with one line when empty or larger than ``max_trials`` (see the module docstring)."""
    if method in WEIGHTED:
        _check_options(method, options, {"step"})
        return weight_settings(method, n_runs, options.get("step", 0.1), max_trials)
    if method in RANGES:
        name, lo, hi, step = RANGES[method]
        _check_options(method, options, {f"min_{name}", f"max_{name}"} | ({"step"} if step != 1 else set()))
        return _range(method, name, options.get(f"min_{name}", lo), options.get(f"max_{name}", hi),
                      options.get("step", step), max_trials)
    if method in TRAINED_ONLY:
        _check_options(method, options, set())
        return [{}]
    raise ValueError(f"fusion {method} has no parameter to tune (tunable: "
                     f"{', '.join([*WEIGHTED, *RANGES, *TRAINED_ONLY])})")
