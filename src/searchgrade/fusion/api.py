"""The front door of fusion: :func:`fuse` and :func:`normalize`, and the checks of their arguments."""
from __future__ import annotations

import difflib
import math
from collections.abc import Mapping, Sequence

import numpy as np

from .methods import METHODS, REQUIRED, Method, apply, learn
from .norms import NORMS, Norm, normalise_pool
from .pool import Pool, build_pool, warn_missing_queries

__all__ = ["fuse", "normalize", "fuse_runs", "as_runs", "method_row", "norm_row", "resolve_params", "prepare"]


def _unknown(what: str, name, table: Mapping) -> ValueError:
    """A ValueError naming the unknown name, the closest known one (aliases lead to their row) and the known ones."""
    names = sorted({row.name for row in table.values()})
    close = difflib.get_close_matches(str(name).lower(), sorted(table), n=1, cutoff=0.5)
    hint = f"; did you mean {table[close[0]].name!r}?" if close else ""
    return ValueError(f"unknown fusion {what} {name!r}{hint} (known: {', '.join(names)})")


def method_row(method: str | Method) -> Method:
    """The registry row of a method name (a close-match suggestion when unknown)."""
    if isinstance(method, Method):
        return method
    if method not in METHODS:
        raise _unknown("method", method, METHODS)
    return METHODS[method]


def norm_row(norm: str | Norm | None) -> Norm | None:
    """The registry row of a normalisation name (None and "none": no normalisation)."""
    if norm is None or isinstance(norm, Norm) or norm == "none":
        return None if norm == "none" else norm
    if norm not in NORMS:
        raise _unknown("normalisation", norm, NORMS)
    return NORMS[norm]


def as_runs(runs) -> tuple[list[Mapping], list[str]]:
    """Runs (a list, or a ``{name: run}`` mapping) as a list, and how messages name them."""
    if isinstance(runs, Mapping):
        names, items = [repr(n) for n in runs], list(runs.values())
    elif isinstance(runs, Sequence) and not isinstance(runs, (str, bytes)):
        names, items = [str(i) for i in range(len(runs))], list(runs)
    else:
        raise TypeError("fusion: pass a list of runs or a {name: run} mapping, "
                        f"not {type(runs).__name__}")
    if not items:
        raise ValueError("fusion: no runs to fuse")
    from ..io import as_run

    return [run if isinstance(run, Mapping) else as_run(run) for run in items], names


def _weights(weights, runs, names: list[str], method: str) -> list[float]:
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
    weights = [float(w) for w in weights]
    if len(weights) != len(names):
        raise ValueError(f"fusion {method}: {len(weights)} weights for {len(names)} runs (one weight per run)")
    if not all(math.isfinite(w) for w in weights):
        raise ValueError(f"fusion {method}: weights must be finite numbers, got {weights}")
    return weights


def resolve_params(method: Method, params: Mapping | None, runs, names: list[str], trained: bool) -> dict:
    """The method's parameters: the defaults, what the caller gave, checked; weights one per run."""
    given = dict(params or {})
    allowed = {**method.params, **{k: None for k in method.learns}}
    for key in given:
        if key not in allowed:
            close = difflib.get_close_matches(str(key).lower(), list(allowed), n=1, cutoff=0.5)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            takes = ", ".join(allowed) or "no parameters"
            raise ValueError(f"fusion {method.name}: unknown parameter {key!r}{hint} (it takes {takes})")
    out = {**method.params, **given}
    missing = [k for k, v in out.items() if v is REQUIRED]
    if missing:
        raise ValueError(f"fusion {method.name} needs {', '.join(missing)} (params={{{missing[0]!r}: ...}})")
    if method.learns and not trained and not all(k in given for k in method.learns):
        raise ValueError(f"fusion {method.name} learns {', '.join(method.learns)} from relevance judgements: "
                         "pass qrels= (or the learned values in params=)")
    if "weights" in method.params:
        out["weights"] = _weights(out["weights"], runs, names, method.name)
    if method.name == "logn_isr" and not 0 <= out["sigma"] <= 1:
        raise ValueError(f"fusion logn_isr: sigma must be in [0, 1], got {out['sigma']}")
    return out


def prepare(runs_list: list[Mapping], names: list[str], norm: Norm | None, method: Method, warn: bool) -> Pool:
    """The pool of the runs, normalised, ranked when the method reads ranks."""
    pool = build_pool(runs_list, names)
    if warn:
        warn_missing_queries(pool)
    pool = normalise_pool(pool, norm)
    return pool.ranked() if method.needs_ranks or method.learns else pool


def fuse_runs(runs_list: list[Mapping], names: list[str], method: Method, norm: Norm | None, params: dict,
              qrels: Mapping | None = None, depth: int | None = None, warn: bool = True) -> dict:
    """:func:`fuse` on checked arguments (``warn=False``: no warning about queries some runs lack)."""
    pool = prepare(runs_list, names, norm, method, warn)
    if qrels is not None and method.learns:
        params = learn(method, pool, qrels, params)
    return pool.to_run(apply(method, pool, params), depth)


def fuse(runs, method: str = "wsum", norm: str | None = "min-max", params: Mapping | None = None,
         qrels=None, *, depth: int | None = None) -> dict:
    """Fuse runs into one, by any of ranx 0.3.21's methods and normalisations, with ranx's values.

    ``runs`` is a list of runs ``{qid: {docid: score}}`` (or anything :func:`searchgrade.as_run`
    reads) or a ``{name: run}`` mapping. ``method`` and ``params`` use ranx's names
    (:data:`searchgrade.fusion.METHODS`: ``rrf`` with ``k``, ``wsum`` with ``weights``, ...);
    ``norm`` is one of :data:`searchgrade.fusion.NORMALISATIONS` or None. Each run's list for a
    query is normalised on its own, then the method fuses the normalised lists. The trained
    methods (``probfuse``, ``segfuse``, ``slidefuse``, ``mapfuse``, ``posfuse``, ``bayesfuse``)
    learn from ``qrels=`` what ranx's ``*_train`` functions learn, on the normalised runs.

    Ranks are trec_eval's: score descending, ties by document id descending; the fused run lists
    each query's documents in that order too, and keeps its ``depth`` best (None: all). Queries
    are the union of the runs' queries: when the runs do not all have the same queries a
    UserWarning names the missing ones and each query is fused over the runs that have it (a
    run without the query counts as an empty list). An unknown method or normalisation, a
    wrong parameter, weights of the wrong length and a trained method without ``qrels=`` are
    ValueErrors that say so.
    """
    m, nm = method_row(method), norm_row(norm)
    runs_list, names = as_runs(runs)
    if qrels is not None and not isinstance(qrels, Mapping):
        from ..io import as_qrels

        qrels = as_qrels(qrels)
    p = resolve_params(m, params, runs, names, trained=qrels is not None)
    if depth is not None and (isinstance(depth, bool) or int(depth) < 1):
        raise ValueError(f"fusion: depth must be a positive integer or None, got {depth!r}")
    return fuse_runs(runs_list, names, m, nm, p, qrels, depth)


def normalize(run, norm: str = "min-max") -> dict:
    """One run with each query's list normalised (ranx's ``normalize``; ``borda`` needs the other runs: see fuse)."""
    nm = norm_row(norm)
    if nm is not None and nm.name == "borda":
        raise ValueError("fusion: borda normalises over the candidates of every run; use fuse(..., norm='borda')")
    runs_list, names = as_runs([run])
    pool = normalise_pool(build_pool(runs_list, names), nm)
    return pool.to_run(np.asarray(pool.scores[0]), None) if pool.n_runs else {}
