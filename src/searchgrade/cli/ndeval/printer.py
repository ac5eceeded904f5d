"""ndeval's CSV: the header, one row per topic and ``amean``, with its risk-sensitive form against a baseline.

Rows follow ndeval's outputMeasures: the run's topics in ascending order (a topic without
judgments prints zeros); with a baseline, a topic of both prints ``RiskBased(run, base)``, a
run-only topic its run values, and a baseline-only topic (only with ``-c``) the risk of a zero
run.  ``RiskBased(r, b) = r - b`` if ``r >= b`` else ``(1 + a) (r - b)``.  The mean divides the
sums (taken in row order) by the topics judged and run (``-c``: every qrels topic; with a
baseline: at least the rows printed).  Values print as C's ``%.6f`` (a NaN as x86 glibc
prints ndeval's 0/0: ``-nan``).
"""
from __future__ import annotations

import math
from typing import Iterator

import numpy as np

__all__ = ["HEADER", "COLUMNS", "csv_lines", "run_label"]

#: ndeval's columns, each with the measure searchgrade computes for it ({a}: alpha, {b}: beta).
COLUMNS = (
    ("ERR-IA@5", "ERR_IA(alpha={a})@5"), ("ERR-IA@10", "ERR_IA(alpha={a})@10"),
    ("ERR-IA@20", "ERR_IA(alpha={a})@20"), ("nERR-IA@5", "nERR_IA(alpha={a})@5"),
    ("nERR-IA@10", "nERR_IA(alpha={a})@10"), ("nERR-IA@20", "nERR_IA(alpha={a})@20"),
    ("alpha-DCG@5", "alpha_DCG(alpha={a})@5"), ("alpha-DCG@10", "alpha_DCG(alpha={a})@10"),
    ("alpha-DCG@20", "alpha_DCG(alpha={a})@20"), ("alpha-nDCG@5", "alpha_nDCG(alpha={a})@5"),
    ("alpha-nDCG@10", "alpha_nDCG(alpha={a})@10"), ("alpha-nDCG@20", "alpha_nDCG(alpha={a})@20"),
    ("NRBP", "NRBP(alpha={a},beta={b})"), ("nNRBP", "nNRBP(alpha={a},beta={b})"), ("MAP-IA", "AP_IA"),
    ("P-IA@5", "P_IA@5"), ("P-IA@10", "P_IA@10"), ("P-IA@20", "P_IA@20"),
    ("strec@5", "StRecall@5"), ("strec@10", "StRecall@10"), ("strec@20", "StRecall@20"),
)
HEADER = "runid,topic," + ",".join(name for name, _ in COLUMNS)


def run_label(runid: str, base_runid: str | None, risk_text: str) -> str:
    """The run id column: the run's id, or its risk-sensitive form against a baseline."""
    if base_runid is None:
        return runid
    return f"{runid} (rel to. {base_runid}; rs=1+a; a={risk_text})"


def _fmt(x: float) -> str:
    """C's %.6f (a NaN as glibc prints x86's 0/0)."""
    return "-nan" if math.isnan(x) else f"{x:.6f}"


def _printed(run: tuple, base: tuple | None, complete: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(topics printed, run values, baseline values) in ndeval's row order: the run's topics, and with -c the
    baseline's too; a side without the topic gives zeros."""
    rt, rv = run
    bt, bv = base if base is not None else (np.zeros(0, np.int64), np.zeros((0, rv.shape[1])))
    topics = np.union1d(rt, bt) if complete else rt
    out = []
    for t, v in ((rt, rv), (bt, bv)):
        at = np.minimum(np.searchsorted(t, topics), max(len(t) - 1, 0))
        found = (t[at] == topics) if len(t) else np.zeros(len(topics), dtype=bool)
        out.append(np.where(found[:, None], v[at] if len(t) else 0.0, 0.0))
    return topics, out[0], out[1]


def csv_lines(label: str, run: tuple, base: tuple | None, judged: int, risk_alpha: float,
              complete: bool) -> Iterator[str]:
    """ndeval's output lines: ``run``/``base`` are (topics ascending, values: a row of 21 a topic; zeros when
    unjudged); ``judged`` is the denominator before the baseline's rule (topics judged and run, or -c's)."""
    yield HEADER
    topics, r, b = _printed(run, base, complete)
    with np.errstate(invalid="ignore", over="ignore"):  # RiskBased(r, b, a) element by element, as C computes
        values = np.where(r >= b, r - b, (risk_alpha + 1) * (r - b))  # every row (b = 0 without a baseline)
    row = ",".join(["%.6f"] * len(COLUMNS))
    for topic, v in zip(topics.tolist(), values.tolist()):
        text = row % tuple(v)
        yield f"{label},{topic}," + (text.replace("nan", "-nan") if "nan" in text else text)
    totals = np.cumsum(values, axis=0)[-1] if len(values) else np.zeros(len(COLUMNS))  # added in row order, as C adds
    if base is not None and len(topics) > judged:
        judged = len(topics)
    yield f"{label},amean," + ",".join(_fmt(_mean(t, judged)) for t in totals.tolist())


def _mean(total: float, n: int) -> float:
    """total / n as C divides a double by an int (0/0: NaN, x/0: an infinity)."""
    if n:
        return total / n
    return math.nan if total == 0 or math.isnan(total) else math.copysign(math.inf, total)
