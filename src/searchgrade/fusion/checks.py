"""The checks of fusion's arguments: each parameter by its kind, weights, learned values, depth and ties.

Every check raises one ValueError (TypeError for a value of the wrong type) that names the
method and the parameter, so that no numpy or Python error reaches the user from a bad
argument. What each parameter may be:

==============  ==============================================================
parameter       allowed
==============  ==============================================================
k               a finite number >= 0 (rrf)
gamma           a finite number (gmnz)
sigma, phi      a finite number from 0 to 1 (logn_isr, rbc)
n_segments      an integer >= 1 (probfuse)
w               an integer >= 0 (slidefuse)
weights         one finite number per run (a list, or ``{run name: weight}``)
probs,          one list of finite numbers per run (probfuse's: at least one)
log_odds
map_scores      one finite number per run
depth           None or an integer >= 1
ties            ``"trec"`` or ``"input"``
==============  ==============================================================
"""
from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence

import numpy as np

__all__ = ["TIES", "check_params", "check_depth", "check_ties", "run_weights"]

TIES = ("trec", "input")
"""How a run's tied documents are ranked: by document id descending (trec_eval's), or in the run's order."""

_NUMBERS = {"k": (0, None), "gamma": (None, None), "sigma": (0, 1), "phi": (0, 1)}  # name: (lowest, highest)
_COUNTS = {"n_segments": 1, "w": 0}  # name: lowest
_PER_RUN_LISTS = ("probs", "log_odds")


def _is_number(value) -> bool:
    """A real number that is not a bool."""
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def _number(method: str, name: str, value, lowest=None, highest=None) -> float:
    """A finite number within [lowest, highest], or the error naming the parameter."""
    if not _is_number(value):
        raise TypeError(f"fusion {method}: {name} must be a number, got {value!r} ({type(value).__name__})")
    if not math.isfinite(value):
        raise ValueError(f"fusion {method}: {name} must be a finite number, got {value!r}")
    if (lowest is not None and value < lowest) or (highest is not None and value > highest):
        span = f"from {lowest} to {highest}" if highest is not None else f">= {lowest}"
        raise ValueError(f"fusion {method}: {name} must be {span}, got {value!r}")
    return value


def _count(method: str, name: str, value, lowest: int) -> int:
    """An integer >= lowest (an integral float is taken as its integer), or the error naming the parameter."""
    if _is_number(value) and not isinstance(value, numbers.Integral) and float(value).is_integer():
        value = int(value)
    if not isinstance(value, numbers.Integral) or isinstance(value, (bool, np.bool_)):
        raise TypeError(f"fusion {method}: {name} must be an integer >= {lowest}, got {value!r}")
    if value < lowest:
        raise ValueError(f"fusion {method}: {name} must be an integer >= {lowest}, got {value!r}")
    return int(value)


def _numbers(method: str, name: str, values) -> list[float]:
    """A sequence of finite numbers as floats, or the error naming the parameter."""
    if isinstance(values, (str, bytes, Mapping)) or not isinstance(values, (Sequence, np.ndarray)):
        raise TypeError(f"fusion {method}: {name} must be a list of numbers, got {type(values).__name__}")
    return [float(_number(method, name, v)) for v in (values.tolist() if isinstance(values, np.ndarray) else values)]


def _per_run(method: str, name: str, values, n_runs: int) -> list:
    """A parameter that has one value per run: a sequence of that length."""
    if isinstance(values, (str, bytes, Mapping)) or not isinstance(values, (Sequence, np.ndarray)):
        raise TypeError(f"fusion {method}: {name} must have one entry per run, got {type(values).__name__}")
    if len(values) != n_runs:
        raise ValueError(f"fusion {method}: {name} has {len(values)} {'entry' if len(values) == 1 else 'entries'} "
                         f"for {n_runs} runs (one per run)")
    return list(values)


def _learned(method: str, name: str, values, n_runs: int):
    """Learned values given by the caller, checked: one list (or one number, map_scores) per run."""
    values = _per_run(method, name, values, n_runs)
    if name == "map_scores":
        return [float(_number(method, name, v)) for v in values]
    out = []
    for i, v in enumerate(values, 1):
        if np.ndim(v) != 1:
            raise ValueError(f"fusion {method}: {name} of run {i} must be a list of numbers")
        out.append(np.asarray(_numbers(method, name, v), dtype=np.float64))
        if method == "probfuse" and not len(out[-1]):
            raise ValueError(f"fusion {method}: {name} of run {i} is empty (one probability per segment)")
    return out


def run_weights(method: str, weights, runs, names: list[str]) -> list[float]:
    """One finite weight per run (None: 1 each; a mapping: by run name)."""
    if weights is None:
        return [1.0] * len(names)
    if isinstance(weights, Mapping):
        keys = list(runs) if isinstance(runs, Mapping) else []
        missing = [k for k in keys if k not in weights]
        if not keys or missing:
            raise ValueError(f"fusion {method}: weights by name need named runs and one weight for each "
                             f"(none for {', '.join(map(repr, missing or list(weights)))})")
        weights = [weights[k] for k in keys]
    weights = _numbers(method, "weights", weights)
    if len(weights) != len(names):
        raise ValueError(f"fusion {method}: {len(weights)} weights for {len(names)} runs (one weight per run)")
    return weights


def check_params(method: str, params: dict, given, runs, names: list[str]) -> dict:
    """``params`` with each value checked by its kind (see the module docstring); ``given``: what the caller set."""
    out = dict(params)
    for name, value in params.items():
        if name in _NUMBERS:
            out[name] = _number(method, name, value, *_NUMBERS[name])
        elif name in _COUNTS:
            out[name] = _count(method, name, value, _COUNTS[name])
        elif name == "weights":
            out[name] = run_weights(method, value, runs, names)
        elif name in (*_PER_RUN_LISTS, "map_scores") and name in given:
            out[name] = _learned(method, name, value, len(names))
    return out


def check_depth(depth) -> int | None:
    """None, or a positive integer."""
    if depth is None:
        return None
    if not isinstance(depth, numbers.Integral) or isinstance(depth, (bool, np.bool_)) or depth < 1:
        raise ValueError(f"fusion: depth must be a positive integer or None, got {depth!r}")
    return int(depth)


def check_ties(ties) -> str:
    """One of :data:`TIES`."""
    if ties not in TIES:
        raise ValueError(f"fusion: ties must be one of {', '.join(map(repr, TIES))}, got {ties!r}")
    return ties
