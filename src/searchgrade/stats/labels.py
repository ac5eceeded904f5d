"""Agreement between judges' labels: Cohen's kappa, Fleiss' kappa and Krippendorff's alpha, with bootstrap intervals.

All three ask how much more two or more judges agree than chance would make them agree:
``1 - observed disagreement / disagreement expected by chance``. 1 is perfect agreement,
0 is chance level, below 0 is worse than chance.

* :func:`cohen_kappa` (Cohen 1960): two judges, the same items. Chance comes from each
  judge's own label frequencies. ``weights="linear"`` or ``"quadratic"`` (Cohen 1968) make
  a near miss on an ordered scale cost less than a far one; the distance between two labels
  is the distance between their positions in the sorted list of labels seen (as in
  scikit-learn's ``cohen_kappa_score``, which it equals).
* :func:`fleiss_kappa` (Fleiss 1971): any number of judges, every item labelled by the same
  number of them (not necessarily the same people); chance from the pooled label
  frequencies. Takes items x raters and equals statsmodels' ``fleiss_kappa`` over
  ``aggregate_raters``.
* :func:`krippendorff_alpha` (Krippendorff 2004): any number of judges, labels may be
  missing (NaN), and the level of measurement chooses the distance: ``"nominal"`` (equal or
  not), ``"ordinal"`` (by ranks of the labels' frequencies), ``"interval"`` (squared
  difference), ``"ratio"`` (squared relative difference). Takes raters x items and equals
  the ``krippendorff`` package's ``alpha``. Integer labels stay exact at every level: beyond
  2**53, where a float no longer tells ``n`` from ``n + 1``, they are kept as Python integers
  (differences and sums taken exactly, then rounded once) instead of merging.

When chance agreement is already perfect (one category only), the statistic is 0 / 0:
the functions warn and return NaN, as scikit-learn does.

``ci=0.95`` (any level in (0, 1)) returns an :class:`AgreementResult` with a percentile
bootstrap interval: items are resampled with replacement ``n_boot`` times (seeded);
replicates where the statistic is undefined are left out and counted.
"""
from __future__ import annotations

import warnings
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from .inputs import _examples, _positive_int, _rng
from .results import DEFAULT_SEED

__all__ = ["AgreementResult", "LEVELS", "cohen_kappa", "fleiss_kappa", "krippendorff_alpha"]

LEVELS = ("nominal", "ordinal", "interval", "ratio")
"""Levels of measurement :func:`krippendorff_alpha` knows."""

WEIGHTS = (None, "linear", "quadratic")
"""Weightings :func:`cohen_kappa` knows."""

_FLOAT_EXACT = 2 ** 53
"""Every integer up to this size is a float exactly; larger integer labels are kept as Python integers."""


@dataclass(frozen=True)
class AgreementResult:
    """An agreement statistic with its percentile bootstrap interval (items resampled, seeded)."""

    statistic: str
    value: float
    low: float
    high: float
    level: float
    n_items: int
    n_boot: int
    n_undefined: int
    seed: int | None

    def __float__(self) -> float:
        return float(self.value)

    def as_dict(self) -> dict:
        """The fields as a plain dict."""
        return asdict(self)

    def __str__(self) -> str:
        return (f"{self.statistic} = {self.value:.4f}, {self.level:.0%} bootstrap interval "
                f"[{self.low:.4f}, {self.high:.4f}] ({self.n_items} items, {self.n_boot:,} resamples)")


# --------------------------------------------------------------------------- input checks


def _is_missing(v) -> bool:
    """True for None, NaN and pandas' NA."""
    return v is None or v is pd.NA or (isinstance(v, (float, np.floating)) and np.isnan(v))


def _missing_mask(values: np.ndarray) -> np.ndarray:
    """True where a label is missing (None or NaN), for any dtype."""
    if values.dtype.kind in "fc":
        return np.isnan(values)
    if values.dtype.kind == "O":
        return np.array([_is_missing(v) for v in values.ravel()], dtype=bool).reshape(values.shape)
    return np.zeros(values.shape, dtype=bool)


def _as_labels(x, label: str, ndim: int) -> np.ndarray:
    """x as a numpy array of the given dimension (a DataFrame or Series gives its values); clear errors."""
    if isinstance(x, (str, bytes)):
        raise TypeError(f"{label} must be an array of labels, not a string")
    values = x.to_numpy() if isinstance(x, (pd.Series, pd.DataFrame)) else np.asarray(x)
    if values.dtype.kind == "U" or values.dtype.kind == "S":
        values = values.astype(object)
    if values.ndim != ndim:
        shape = "one label per item" if ndim == 1 else "a 2-D table"
        raise ValueError(f"{label} must be {ndim}-dimensional ({shape}), got shape {values.shape}")
    if values.size == 0:
        raise ValueError(f"{label} is empty: no labels to compare")
    return values


def _numeric(values: np.ndarray, label: str, why: str) -> np.ndarray:
    """values as floats, or a clear error naming the first non-numeric label."""
    if values.dtype.kind in "biuf":
        return values.astype(float)
    flat = values.ravel()
    for pos, v in enumerate(flat):
        if _is_missing(v) or isinstance(v, (bool, np.bool_)):
            continue
        if not isinstance(v, (int, float, np.integer, np.floating)):
            raise ValueError(f"{label} holds the non-numeric label {v!r} (position {pos}); {why}")
    return np.array([np.nan if _is_missing(v) else float(v) for v in flat]).reshape(values.shape)


def _codes(values: np.ndarray, label: str) -> tuple[np.ndarray, np.ndarray]:
    """(sorted distinct labels, integer code of each label); labels must be comparable."""
    try:
        return np.unique(values, return_inverse=True)
    except TypeError:
        kinds = sorted({type(v).__name__ for v in values.ravel()})
        raise TypeError(f"{label} mixes label types that cannot be ordered ({', '.join(kinds)}): use one "
                        "type (all numbers or all strings)") from None


def _undefined(statistic: str) -> float:
    """Warn that the statistic is 0 / 0 and return NaN."""
    warnings.warn(f"{statistic} is undefined: every label falls in one category, so chance agreement is "
                  "already perfect; returning NaN", RuntimeWarning, stacklevel=3)
    return float("nan")


def _check_level(ci) -> float | None:
    """The confidence level, or None; refuse one outside (0, 1)."""
    if ci is None:
        return None
    if isinstance(ci, bool) or not isinstance(ci, (int, float)) or not 0 < ci < 1:
        raise ValueError(f"ci must be a confidence level strictly between 0 and 1 (e.g. 0.95), got {ci!r}")
    return float(ci)


# --------------------------------------------------------------------------- bootstrap


def _bootstrap(name: str, value: float, n_items: int, compute, ci: float, n_boot, seed) -> AgreementResult:
    """Percentile interval of compute(resampled item indices) over n_boot resamples of the items."""
    n_boot = _positive_int(n_boot, "n_boot")
    rng = _rng(seed)
    draws = np.empty(n_boot)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for r in range(n_boot):
            draws[r] = compute(rng.integers(0, n_items, n_items))
    defined = draws[np.isfinite(draws)]
    tail = (1 - ci) / 2
    low, high = (np.quantile(defined, [tail, 1 - tail]) if defined.size else (np.nan, np.nan))
    seed_value = int(seed) if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool) else None
    return AgreementResult(name, float(value), float(low), float(high), ci, n_items, n_boot,
                           int(n_boot - defined.size), seed_value)


# --------------------------------------------------------------------------- Cohen


def _cohen_from_codes(ca: np.ndarray, cb: np.ndarray, k: int, weights) -> float:
    """Cohen's kappa from two integer code vectors over k categories (NaN when undefined)."""
    confusion = np.zeros((k, k))
    np.add.at(confusion, (ca, cb), 1.0)
    expected = np.outer(confusion.sum(axis=1), confusion.sum(axis=0)) / confusion.sum()
    pos = np.arange(k)
    if weights is None:
        w = 1.0 - np.eye(k)
    elif weights == "linear":
        w = np.abs(pos[:, None] - pos[None, :]).astype(float)
    else:
        w = ((pos[:, None] - pos[None, :]) ** 2).astype(float)
    denominator = float((w * expected).sum())
    if denominator == 0:
        return float("nan")
    return float(1 - (w * confusion).sum() / denominator)


def cohen_kappa(a, b, *, weights=None, ci=None, n_boot: int = 2000, seed=DEFAULT_SEED):
    """Cohen's kappa of two judges' labels on the same items: (p_o - p_e) / (1 - p_e); weighted if asked.

    ``a``, ``b``: one label per item each, in the same item order (arrays, lists or Series
    with the same index). ``weights``: None, ``"linear"`` or ``"quadratic"`` (numeric labels
    only). Equals scikit-learn's ``cohen_kappa_score``. Returns a float, or an
    :class:`AgreementResult` with a bootstrap interval when ``ci`` is a level such as 0.95.
    """
    if weights not in WEIGHTS:
        raise ValueError(f"unknown weights {weights!r}: choose None, 'linear' or 'quadratic'")
    level = _check_level(ci)
    if isinstance(a, pd.Series) and isinstance(b, pd.Series) and not a.index.equals(b.index):
        raise ValueError("a and b are Series with different indexes: align them by item first "
                         "(e.g. b = b.reindex(a.index))")
    xa, xb = _as_labels(a, "a", 1), _as_labels(b, "b", 1)
    if xa.size != xb.size:
        raise ValueError(f"a has {xa.size} labels but b has {xb.size}: both judges must label the same items")
    for name, x in (("a", xa), ("b", xb)):
        missing = _missing_mask(x)
        if missing.any():
            where = _examples(np.flatnonzero(missing).tolist())
            raise ValueError(f"{name} has missing labels at position(s) {where}: kappa needs every item "
                             "labelled by both; krippendorff_alpha allows missing labels")
        if weights is not None:
            _numeric(x, name, f"{weights} weights need ordered numeric labels")
    _, codes = _codes(np.concatenate([xa, xb]), "a and b")
    ca, cb, k = codes[:xa.size], codes[xa.size:], int(codes.max()) + 1
    value = _cohen_from_codes(ca, cb, k, weights)
    if np.isnan(value):
        value = _undefined("Cohen's kappa")
    if level is None:
        return value
    return _bootstrap("Cohen's kappa", value, xa.size, lambda i: _cohen_from_codes(ca[i], cb[i], k, weights),
                      level, n_boot, seed)


# --------------------------------------------------------------------------- Fleiss


def _fleiss_from_counts(counts: np.ndarray) -> float:
    """Fleiss' kappa from an items x categories table of counts, every row summing to the same n (NaN when undefined)."""
    n_raters = counts.sum(axis=1).max()
    p_cat = counts.sum(axis=0) / counts.sum()
    p_item = ((counts * counts).sum(axis=1) - n_raters) / (n_raters * (n_raters - 1.0))
    p_chance = float((p_cat * p_cat).sum())
    if p_chance >= 1.0:
        return float("nan")
    return float((p_item.mean() - p_chance) / (1.0 - p_chance))


def fleiss_kappa(labels, *, ci=None, n_boot: int = 2000, seed=DEFAULT_SEED):
    """Fleiss' kappa of items labelled by the same number of raters each: (P_bar - P_e) / (1 - P_e).

    ``labels``: items x raters (one row per item, one label per rater; a DataFrame or a 2-D
    array), at least 2 raters and no missing label (use :func:`krippendorff_alpha` for
    those). Equals statsmodels' ``fleiss_kappa(aggregate_raters(labels)[0])``. Returns a
    float, or an :class:`AgreementResult` when ``ci`` is a level such as 0.95.
    """
    level = _check_level(ci)
    table = _as_labels(labels, "labels", 2)
    if table.shape[1] < 2:
        raise ValueError(f"labels has {table.shape[1]} rater column(s): Fleiss' kappa needs at least 2 "
                         "raters per item (labels are items x raters)")
    missing = _missing_mask(table)
    if missing.any():
        rows = np.flatnonzero(missing.any(axis=1)).tolist()
        raise ValueError(f"labels has missing labels in item row(s) {_examples(rows)}: Fleiss' kappa needs "
                         "every item labelled by every rater column; krippendorff_alpha allows missing labels")
    _, codes = _codes(table.ravel(), "labels")
    codes = codes.reshape(table.shape)
    counts = np.zeros((table.shape[0], int(codes.max()) + 1))
    np.add.at(counts, (np.repeat(np.arange(table.shape[0]), table.shape[1]), codes.ravel()), 1.0)
    value = _fleiss_from_counts(counts)
    if np.isnan(value):
        value = _undefined("Fleiss' kappa")
    if level is None:
        return value
    return _bootstrap("Fleiss' kappa", value, counts.shape[0], lambda i: _fleiss_from_counts(counts[i]),
                      level, n_boot, seed)


# --------------------------------------------------------------------------- Krippendorff


def _distances(domain: np.ndarray, n_v: np.ndarray, level: str) -> np.ndarray:
    """V x V squared distances between the domain's values at the given level of measurement."""
    if level == "nominal":
        return 1.0 - np.eye(domain.size)
    if level == "ordinal":
        cumulative = np.concatenate([[0.0], np.cumsum(n_v)])
        lo = np.minimum.outer(np.arange(domain.size), np.arange(domain.size))
        hi = np.maximum.outer(np.arange(domain.size), np.arange(domain.size))
        between = cumulative[hi + 1] - cumulative[lo]
        return (between - (n_v[:, None] + n_v[None, :]) / 2.0) ** 2
    if domain.dtype.kind == "O":                    # exact labels (integers beyond 2**53): Python arithmetic
        return _exact_distances(domain, level)
    diff = domain[:, None] - domain[None, :]
    if level == "interval":
        return diff ** 2
    total = domain[:, None] + domain[None, :]
    return np.divide(diff, total, out=np.zeros_like(diff), where=total != 0) ** 2


def _exact_distances(domain: np.ndarray, level: str) -> np.ndarray:
    """Interval or ratio distances of exact labels: differences and sums in Python numbers, then one rounding."""
    values = [int(v) if isinstance(v, (int, np.integer)) else float(v) for v in domain]
    if level == "interval":
        return np.array([[float((a - b) ** 2) for b in values] for a in values])
    return np.array([[((a - b) / (a + b)) ** 2 if a + b != 0 else 0.0 for b in values] for a in values])


def _alpha_from_counts(value_counts: np.ndarray, domain: np.ndarray, level: str) -> float:
    """Krippendorff's alpha from units x values counts: 1 - D_o / D_e over pairable values (NaN when undefined)."""
    m_u = value_counts.sum(axis=1)
    pairable = value_counts[m_u >= 2]
    if pairable.shape[0] == 0:
        return float("nan")
    weights = 1.0 / (pairable.sum(axis=1) - 1.0)
    o = np.einsum("u,uc,uk->ck", weights, pairable, pairable) - np.diag(weights @ pairable)
    n_v = o.sum(axis=0)
    n = n_v.sum()
    e = (np.outer(n_v, n_v) - np.diag(n_v)) / (n - 1.0)
    d = _distances(domain, n_v, level)
    expected = float((e * d).sum())
    if expected == 0:
        return float("nan")
    return float(1.0 - (o * d).sum() / expected)


def _beyond_float(table: np.ndarray, missing: np.ndarray) -> bool:
    """True when an integer label is too large for a float to hold it exactly (|label| > 2**53)."""
    if table.dtype.kind in "iu":
        return bool(table.size) and (int(table.max()) > _FLOAT_EXACT or int(table.min()) < -_FLOAT_EXACT)
    if table.dtype.kind != "O":
        return False
    return any(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) and abs(int(v)) > _FLOAT_EXACT
               for v in table[~missing])


def _alpha_counts(table: np.ndarray, level: str) -> tuple[np.ndarray, np.ndarray]:
    """(value domain, units x values counts) from raters x items labels with missing ones skipped."""
    missing = _missing_mask(table)
    if level != "nominal":
        numbers = _numeric(table, "data", f"the {level} level needs numeric labels (use level='nominal' "
                           "for categories)")
        if _beyond_float(table, missing):
            table = table.astype(object)            # keep 2**53 and 2**53 + 1 apart: exact Python numbers
        else:
            table, missing = numbers, np.isnan(numbers)
    present = table[~missing]
    if present.size == 0:
        raise ValueError("data has no labels at all (every entry is missing)")
    domain, codes = _codes(present, "data")
    item = np.broadcast_to(np.arange(table.shape[1]), table.shape)[~missing]
    counts = np.zeros((table.shape[1], domain.size))
    np.add.at(counts, (item, codes), 1.0)
    return domain, counts


def krippendorff_alpha(data, *, level: str = "nominal", ci=None, n_boot: int = 2000, seed=DEFAULT_SEED):
    """Krippendorff's alpha of raters' labels with missing entries: 1 - D_o / D_e at a level of measurement.

    ``data``: raters x items (one row per rater, one column per item; a DataFrame or a 2-D
    array), NaN or None where a rater did not label an item. Items labelled once or not at
    all carry no pair and are skipped. ``level``: ``"nominal"``, ``"ordinal"``,
    ``"interval"`` or ``"ratio"`` (the last three need numeric labels). Equals the
    ``krippendorff`` package's ``alpha(data, level_of_measurement=level)``. Returns a float,
    or an :class:`AgreementResult` when ``ci`` is a level such as 0.95.
    """
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}: choose one of {', '.join(map(repr, LEVELS))}")
    ci_level = _check_level(ci)
    table = _as_labels(data, "data", 2)
    domain, counts = _alpha_counts(table, level)
    if (counts.sum(axis=1) < 2).all():
        raise ValueError("no item has labels from two raters or more: alpha needs pairs of labels "
                         "(data is raters x items; transpose it if items are rows)")
    value = _alpha_from_counts(counts, domain, level)
    if np.isnan(value):
        value = _undefined("Krippendorff's alpha")
    if ci_level is None:
        return value
    return _bootstrap("Krippendorff's alpha", value, counts.shape[0],
                      lambda i: _alpha_from_counts(counts[i], domain, level), ci_level, n_boot, seed)
