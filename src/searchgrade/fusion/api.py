"""The front door of fusion: :func:`fuse` and :func:`normalize`; their arguments checked (:mod:`.checks`)."""
from __future__ import annotations

import difflib
import os
from collections.abc import Mapping, Sequence

import numpy as np

from .checks import check_depth, check_params, check_ties
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


def _name(i: int, run) -> str:
    """How messages name the i-th (0-based) run of a list: its path as given, or its place counted from 1."""
    return repr(os.fspath(run)) if isinstance(run, (str, os.PathLike)) else str(i + 1)


def as_runs(runs) -> tuple[list[Mapping], list[str]]:
    """Runs (a list, or a ``{name: run}`` mapping) as a list, and how messages name them (a mapping's keys,
    a path as given, or ``1``, ``2``, ... by place in the list)."""
    if isinstance(runs, Mapping):
        names, items = [repr(n) for n in runs], list(runs.values())
    elif isinstance(runs, Sequence) and not isinstance(runs, (str, bytes)):
        items = list(runs)
        names = [_name(i, run) for i, run in enumerate(items)]
    else:
        raise TypeError("fusion: pass a list of runs or a {name: run} mapping, "
                        f"not {type(runs).__name__}")
    if not items:
        raise ValueError("fusion: no runs to fuse")
    from ..io import as_run

    out = [run if isinstance(run, Mapping) else as_run(run) for run in items]
    empty = [name for name, run in zip(names, out) if not len(run)]
    if empty:
        raise ValueError(f"fusion: run {empty[0]} is empty (no query), as an empty run file would be")
    return out, names


def resolve_params(method: Method, params: Mapping | None, runs, names: list[str], trained: bool) -> dict:
    """The method's parameters: the defaults, what the caller gave, each checked (:mod:`.checks`)."""
    if params is not None and not isinstance(params, Mapping):
        raise TypeError(f"fusion {method.name}: params must be a dict {{name: value}}, "
                        f"not {type(params).__name__} {str(params)[:60]}")
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
    return check_params(method.name, out, given, runs, names)


def prepare(runs_list: list[Mapping], names: list[str], norm: Norm | None, method: Method, warn: bool,
            ties: str = "trec") -> Pool:
    """The pool of the runs, normalised, ranked when the method reads ranks."""
    pool = build_pool(runs_list, names, ties)
    if warn:
        warn_missing_queries(pool)
    pool = normalise_pool(pool, norm)
    return pool.ranked() if method.needs_ranks or method.learns else pool


def fuse_runs(runs_list: list[Mapping], names: list[str], method: Method, norm: Norm | None, params: dict,
              qrels: Mapping | None = None, depth: int | None = None, warn: bool = True,
              ties: str = "trec") -> dict:
    """:func:`fuse` on checked arguments (``warn=False``: no warning about queries some runs lack)."""
    pool = prepare(runs_list, names, norm, method, warn, ties)
    if qrels is not None and method.learns:
        params = learn(method, pool, qrels, params)
    return pool.to_run(apply(method, pool, params), depth)


def fuse(runs, method: str = "wsum", norm: str | None = "min-max", params: Mapping | None = None,
         qrels=None, *, depth: int | None = None, ties: str = "trec") -> dict:
    """Fuse runs into one, by any of ranx 0.3.21's methods and normalisations, with ranx's values.

    ``runs`` is a list of runs ``{qid: {docid: score}}`` (or anything :func:`searchgrade.as_run`
    reads) or a ``{name: run}`` mapping. ``method`` and ``params`` use ranx's names
    (:data:`searchgrade.fusion.METHODS`: ``rrf`` with ``k``, ``wsum`` with ``weights``, ...);
    ``norm`` is one of :data:`searchgrade.fusion.NORMALISATIONS` or None. Each run's list for a
    query is normalised on its own, then the method fuses the normalised lists. The trained
    methods (``probfuse``, ``segfuse``, ``slidefuse``, ``mapfuse``, ``posfuse``, ``bayesfuse``)
    learn from ``qrels=`` what ranx's ``*_train`` functions learn, on the normalised runs.

    Ranks are trec_eval's: score descending, ties by document id descending. ``ties="input"``
    ranks a run's tied documents in the order the run lists them instead, as the evaluation's
    ``ties="input"`` does: ranx's runs list tied documents in the order ranx's sort leaves them
    (its own, not the file's, for lists of more than 15 documents), so
    ``fuse([r.to_dict() for r in ranx_runs], ..., ties="input")`` gives ranx's values on tied
    input. The fused run lists each query's documents in trec_eval's order, and keeps its
    ``depth`` best (None: all). Queries are the union of the runs' queries: when the runs do
    not all have the same queries a UserWarning names the missing ones (each run by its name,
    its path, or its place in the list counted from 1) and each query is fused over the runs
    that have it (a run without the query counts as an empty list). An unknown method or
    normalisation, a parameter of the wrong kind (:mod:`searchgrade.fusion.checks`), weights
    of the wrong length, an empty run and a trained method without ``qrels=`` are errors of
    one line that say so.
    """
    m, nm = method_row(method), norm_row(norm)
    runs_list, names = as_runs(runs)
    if qrels is not None and not isinstance(qrels, Mapping):
        from ..io import as_qrels

        qrels = as_qrels(qrels)
    p = resolve_params(m, params, runs, names, trained=qrels is not None)
    return fuse_runs(runs_list, names, m, nm, p, qrels, check_depth(depth), ties=check_ties(ties))


def normalize(run, norm: str = "min-max", *, ties: str = "trec") -> dict:
    """One run with each query's list normalised (ranx's ``normalize``; ``borda`` needs the other runs: see fuse).

    ``ties`` as in :func:`fuse` (it matters to ``rank``).
    """
    nm = norm_row(norm)
    if nm is not None and nm.name == "borda":
        raise ValueError("fusion: borda normalises over the candidates of every run; use fuse(..., norm='borda')")
    runs_list, names = as_runs([run])
    pool = normalise_pool(build_pool(runs_list, names, check_ties(ties)), nm)
    return pool.to_run(np.asarray(pool.scores[0]), None) if pool.n_runs else {}
