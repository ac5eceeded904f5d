"""The paired tests' shared input checks: two score samples aligned by query, finite, and seeds and counts."""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from .results import _N_EXAMPLES


def _label(x, default: str) -> str:
    """'a' or "a ('bm25')" for error messages."""
    name = getattr(x, "name", None)
    return f"{default} ({name!r})" if name is not None else default


def _examples(values) -> str:
    """A few values for an error message: "'q1', 'q2', 'q3', ...". """
    values = list(values)
    try:
        values = sorted(values)
    except TypeError:
        pass
    shown = ", ".join(repr(v) for v in values[:_N_EXAMPLES])
    return shown + (", ..." if len(values) > _N_EXAMPLES else "")


def _as_series_or_array(x, label: str):
    """x as a float Series (labelled input) or a 1-D float array (positional input)."""
    if isinstance(x, pd.DataFrame):
        raise TypeError(
            f"{label} is a DataFrame with columns {list(x.columns)[:8]}: pass one column of "
            f"per-query scores, e.g. df[{str(x.columns[0])!r}]" if len(x.columns) else
            f"{label} is an empty DataFrame: pass a Series of per-query scores")
    if isinstance(x, Mapping) and not isinstance(x, pd.Series):
        x = pd.Series(dict(x), dtype=object)
    if isinstance(x, pd.Series):
        if x.index.has_duplicates:
            dup = x.index[x.index.duplicated()].unique()
            raise ValueError(f"{label} has {len(dup)} duplicated query id(s) ({_examples(dup)}): "
                             "each query must be scored once")
        try:
            values = x.to_numpy(dtype=float, na_value=np.nan)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{label} must hold numeric scores ({exc})") from None
        return pd.Series(values, index=x.index, name=x.name)
    if isinstance(x, (str, bytes)):
        raise TypeError(f"{label} must be per-query scores, not a string")
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{label} must be a Series, a {{qid: score}} dict or an array of numbers ({exc})") from None
    if arr.ndim != 1:
        raise ValueError(f"{label} must be one-dimensional (one score per query), got shape {arr.shape}")
    return arr


def _check_finite(values: np.ndarray, ids, label: str) -> None:
    """Raise if any score is NaN or infinite, naming a few offending queries."""
    bad = ~np.isfinite(values)
    if bad.any():
        where = (f"query id(s) {_examples(np.asarray(ids, dtype=object)[bad])}" if ids is not None
                 else f"position(s) {_examples(np.flatnonzero(bad).tolist())}")
        kinds = "NaN" if np.isnan(values[bad]).all() else "NaN/infinite"
        raise ValueError(
            f"{label} has {kinds} scores for {int(bad.sum())} queries ({where}): a missing score is "
            "not a zero; fill it deliberately (e.g. evaluate(..., missing='zero')) or drop those "
            "queries from both systems")


def _paired_systems(systems, name_a: str, name_b: str, on: str = "strict"):
    """:func:`_paired` of two systems of a table, an unnamed Series taking its system's name (for messages)."""
    sa, sb = systems[name_a], systems[name_b]
    if isinstance(sa, pd.Series) and sa.name is None:
        sa = sa.rename(name_a)
    if isinstance(sb, pd.Series) and sb.name is None:
        sb = sb.rename(name_b)
    return _paired(sa, sb, on)


def _paired(a, b, on: str = "strict") -> tuple[np.ndarray, np.ndarray, pd.Index | None]:
    """Two score vectors aligned query by query, checked; (x, y, query ids or None)."""
    if on not in ("strict", "intersection"):
        raise ValueError(f"on must be 'strict' or 'intersection', not {on!r}")
    la, lb = _label(a, "a"), _label(b, "b")
    xa, xb = _as_series_or_array(a, la), _as_series_or_array(b, lb)
    labelled_a, labelled_b = isinstance(xa, pd.Series), isinstance(xb, pd.Series)
    if labelled_a != labelled_b:
        which = la if labelled_a else lb
        raise TypeError(
            f"{which} is labelled by query id but the other is a plain array: pass both as Series "
            "(aligned by query id) or both as arrays (aligned by position)")
    if labelled_a:
        only_a = xa.index.difference(xb.index)
        only_b = xb.index.difference(xa.index)
        if len(only_a) or len(only_b):
            if on == "strict":
                parts = []
                if len(only_a):
                    parts.append(f"{len(only_a)} id(s) only in {la} (e.g. {_examples(only_a)})")
                if len(only_b):
                    parts.append(f"{len(only_b)} id(s) only in {lb} (e.g. {_examples(only_b)})")
                shared = len(xa.index.intersection(xb.index))
                raise ValueError(
                    f"the two systems were scored on different queries: {len(only_a) + len(only_b)} "
                    f"query ids differ; {'; '.join(parts)}. Pass on='intersection' to compare on the "
                    f"{shared} shared queries on purpose, or score both on the same queries "
                    "(e.g. evaluate(..., missing='zero'))")
            index = xa.index.intersection(xb.index, sort=False)
        else:
            index = xa.index
        if len(index) == 0:
            raise ValueError(f"empty sample: {la} and {lb} have no query ids in common"
                             if len(xa) and len(xb) else
                             f"empty sample: {la if not len(xa) else lb} has no queries")
        x = xa.reindex(index).to_numpy()
        y = xb.reindex(index).to_numpy()
        ids = index
    else:
        if xa.size != xb.size:
            raise ValueError(f"{la} has {xa.size} scores but {lb} has {xb.size}: paired arrays must "
                             "have one score per query each, in the same query order")
        if xa.size == 0:
            raise ValueError("empty sample: no queries to compare")
        x, y, ids = xa, xb, None
    _check_finite(x, ids, la)
    _check_finite(y, ids, lb)
    return x, y, ids


def _differences(a, b, on: str) -> np.ndarray:
    """d_i = a_i - b_i over the checked, aligned queries."""
    x, y, _ = _paired(a, b, on)
    return x - y


def _rng(seed) -> np.random.Generator:
    """A numpy Generator from an int seed, None (fresh) or an existing Generator."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))):
        raise TypeError(f"seed must be an int, None or a numpy Generator, not {seed!r}")
    return np.random.default_rng(seed)


def _seed_value(seed) -> int | None:
    """The seed to record in a result (None when a Generator or fresh randomness was used)."""
    return int(seed) if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool) else None


def _positive_int(value, name: str, minimum: int = 1) -> int:
    """value as an int >= minimum, or a clear error."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, not {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return int(value)
