"""A judge against a labelled sample: agreement (accuracy, Cohen's kappa) overall and per group."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .base import GRADES, Judge


def _grades_array(values, name: str) -> np.ndarray:
    """Integer grades in GRADES, or a clear error."""
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a flat list of grades")
    if arr.size and (arr.dtype.kind not in "iu" or not np.isin(arr, GRADES).all()):
        bad = [v for v in arr.tolist() if v not in GRADES or isinstance(v, bool)]
        raise ValueError(f"{name} holds values outside the grades {GRADES}: {bad[:5]}")
    return arr.astype(np.int64)


def agreement(reference, predicted) -> dict:
    """How a judge's grades agree with reference (hand) labels on the 0/1/2 scale.

    Returns ``n``; ``accuracy`` (exact grade); Cohen's ``kappa`` = (p_o - p_e) / (1 - p_e)
    with p_e from the two marginal distributions (NaN when p_e = 1); ``answer_precision``
    = P(label 2 | judge 2) and ``answer_recall`` = P(judge 2 | label 2) (NaN when
    undefined); ``confusion``, a DataFrame (rows: reference label, columns: judge grade).
    """
    ref, pred = _grades_array(reference, "reference"), _grades_array(predicted, "predicted")
    if ref.size == 0:
        raise ValueError("agreement of an empty sample: there is nothing to compare")
    if ref.size != pred.size:
        raise ValueError(f"{ref.size} reference labels but {pred.size} judge grades: they must match one to one")
    n = ref.size
    confusion = pd.DataFrame(0, index=pd.Index(GRADES, name="label"), columns=pd.Index(GRADES, name="judge"))
    for r, p in zip(ref, pred):
        confusion.loc[int(r), int(p)] += 1
    p_o = float((ref == pred).mean())
    p_e = float(sum((ref == g).mean() * (pred == g).mean() for g in GRADES))
    kappa = (p_o - p_e) / (1 - p_e) if p_e < 1 else math.nan
    said2, is2 = pred == 2, ref == 2
    return {
        "n": int(n),
        "accuracy": p_o,
        "kappa": kappa,
        "answer_precision": float((is2 & said2).sum() / said2.sum()) if said2.any() else math.nan,
        "answer_recall": float((is2 & said2).sum() / is2.sum()) if is2.any() else math.nan,
        "confusion": confusion,
    }


def validate(judge: Judge, labels: pd.DataFrame, by: str = "source") -> pd.DataFrame:
    """A judge against a labelled sample, per group of ``by`` (default: the sample's source) and over all rows.

    Columns: n, accuracy, kappa, share the judge calls 2, share labelled 2,
    answer_precision, answer_recall (see :func:`agreement`).
    """
    if not isinstance(labels, pd.DataFrame):
        raise TypeError(f"labels must be a DataFrame with qid, docid and label columns, not {type(labels).__name__}")
    missing = [c for c in ("qid", "docid", "label", by) if c not in labels.columns]
    if missing:
        raise ValueError(f"labels lack the column(s) {', '.join(missing)}")
    if labels.empty:
        raise ValueError("the label sample is empty: a judge cannot be validated on no pairs")
    grades = judge.judge_many(list(zip(labels["qid"], labels["docid"])))
    rows = {}
    groups = [(g, labels[by] == g) for g in sorted(labels[by].unique())] + [("all", np.ones(len(labels), bool))]
    for name, mask in groups:
        mask = np.asarray(mask)
        a = agreement(labels["label"].to_numpy()[mask], grades[mask])
        rows[name] = {"n": a["n"], "accuracy": a["accuracy"], "kappa": a["kappa"],
                      "judge_2": float((grades[mask] == 2).mean()),
                      "label_2": float((labels["label"].to_numpy()[mask] == 2).mean()),
                      "answer_precision": a["answer_precision"], "answer_recall": a["answer_recall"]}
    out = pd.DataFrame(rows).T
    out["n"] = out["n"].astype(int)
    out.index.name = by
    return out
