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


def _risk(r: float, b: float, a: float) -> float:
    """ndeval's RiskBased(r, b, a)."""
    return r - b if r >= b else (a + 1) * (r - b)


def _fmt(x: float) -> str:
    """C's %.6f (a NaN as glibc prints x86's 0/0)."""
    return "-nan" if math.isnan(x) else f"{x:.6f}"


def _rows(run: dict, base: dict | None, complete: bool) -> Iterator[tuple[int, list | None, list | None]]:
    """(topic, run values or None, baseline values or None) in ndeval's row order."""
    rt, bt = sorted(run), sorted(base or ())
    i = j = 0
    while i < len(rt) or (j < len(bt) and complete):
        if i < len(rt) and j < len(bt):
            if rt[i] == bt[j]:
                yield rt[i], run[rt[i]], base[bt[j]]
                i, j = i + 1, j + 1
            elif rt[i] > bt[j]:
                if complete:
                    yield bt[j], None, base[bt[j]]
                j += 1
            else:
                yield rt[i], run[rt[i]], None
                i += 1
        elif i >= len(rt):
            yield bt[j], None, base[bt[j]]
            j += 1
        else:
            yield rt[i], run[rt[i]], None
            i += 1


def csv_lines(label: str, run: dict, base: dict | None, judged: int, risk_alpha: float,
              complete: bool) -> Iterator[str]:
    """ndeval's output lines: ``run``/``base`` map each topic to its 21 values (zeros when unjudged);
    ``judged`` is the denominator before the baseline's rule (topics judged and run, or -c's)."""
    yield HEADER
    zeros = [0.0] * len(COLUMNS)
    totals = [0.0] * len(COLUMNS)
    printed = 0
    for topic, r, b in _rows(run, base, complete):
        values = [_risk(x, y, risk_alpha) for x, y in zip(r or zeros, b or zeros)]
        totals = [t + v for t, v in zip(totals, values)]
        printed += 1
        yield f"{label},{topic}," + ",".join(map(_fmt, values))
    if base is not None and printed > judged:
        judged = printed
    yield f"{label},amean," + ",".join(_fmt(_mean(t, judged)) for t in totals)


def _mean(total: float, n: int) -> float:
    """total / n as C divides a double by an int (0/0: NaN, x/0: an infinity)."""
    if n:
        return total / n
    return math.nan if total == 0 or math.isnan(total) else math.copysign(math.inf, total)
