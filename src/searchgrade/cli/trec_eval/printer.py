"""trec_eval's output, byte for byte: per-query lines a block of queries at a time, then the summary lines."""
from __future__ import annotations

import math
from typing import Iterator

import numpy as np

from ...measures.names import TrecValue

__all__ = ["query_lines", "summary_lines", "printf"]


# ------------------------------------------------------------------- per-query lines
# Every per-query line is `name`, padded to 22 characters, a tab, the query id, a tab and the value.  A block
# of queries is laid out as one byte matrix, a row per query, each field at a fixed place and padded with NUL
# bytes, which are then deleted (no printed text holds one): no Python call per printed value.  A block of about
# 1 MB keeps its matrix and the temporaries of its numbers small beside the values (16 MB blocks cost 70 MB more
# peak memory on 20,000 x 10, and were no faster).
_BLOCK_BYTES = 1 << 20


def _cells(texts: list[str]) -> np.ndarray:
    """Texts as a NUL-padded byte matrix, a row per text."""
    encoded = [t.encode("utf-8") for t in texts]
    width = max(map(len, encoded), default=0)
    return np.frombuffer(b"".join(e.ljust(width, b"\0") for e in encoded), dtype=np.uint8).reshape(len(encoded),
                                                                                                   width)


def printf(v: float) -> str:
    """C's printf("%6.4f", v): Python's rounding is the same; a NaN shows its sign as glibc prints it."""
    if v != v:
        return ("-nan" if math.copysign(1.0, v) < 0 else "nan").rjust(6)
    return f"{v:6.4f}"


def _distinct_cells(x: np.ndarray, fmt) -> np.ndarray:
    """The texts of values x (fmt: str or printf), each distinct bit pattern formatted once."""
    key = x.view(np.int64) if x.dtype == np.float64 else x  # -0.0 and 0.0 print differently
    which = np.unique(key, return_inverse=True)[1].reshape(-1)
    shown = np.empty(int(which.max(initial=-1)) + 1, dtype=x.dtype)
    shown[which] = x
    return _cells([fmt(v) for v in shown.tolist()])[which]


# the ASCII digits of 0000 .. 9999, a row each (arithmetic, not 10,000 formatted strings: start-up time)
_FOUR_DIGITS = (48 + np.arange(10000)[:, None] // np.array([1000, 100, 10, 1]) % 10).astype(np.uint8)


def _float_cells(x: np.ndarray, width: int = 6) -> np.ndarray:
    """``%6.4f`` texts of x (any shape) as bytes on a last axis of ``width`` (>= 6, NUL-padded).

    printf rounds the exact binary value to 4 decimals (ties to even); for 0 <= x < 9.99995 not within
    1e-6 of a tie at the 5th decimal, rounding x * 10^4 to an integer gives the same digits, computed here
    in numpy.  The others (ties such as 1/32, negatives, larger values, nan) are formatted by Python,
    which rounds as printf does; :func:`_float_width` says how wide they are.
    """
    scaled = x * 10000.0
    fast = (scaled >= 0) & (scaled < 99999.5) & ~np.signbit(x) & (np.abs(scaled - np.floor(scaled) - 0.5) > 1e-6)
    r = np.floor(np.where(fast, scaled, 0.0) + 0.5).astype(np.int64)
    out = np.zeros(x.shape + (width,), dtype=np.uint8)
    out[..., 0] = 48 + r // 10000
    out[..., 1] = ord(".")
    out[..., 2:6] = _FOUR_DIGITS[r % 10000]
    slow = np.nonzero(~fast)
    if len(slow[0]):
        texts = _distinct_cells(x[slow], printf)
        out[slow] = 0
        out[slow + (slice(0, texts.shape[1]),)] = texts
    return out


def _float_width(x: np.ndarray) -> int:
    """The widest ``%6.4f`` text of the values x (6 unless one is negative, 10 or more, or not finite)."""
    odd = x[~((x >= 0) & (x < 9.99995) & ~np.signbit(x))]  # -0.0 prints as -0.0000, 7 wide
    if odd.dtype == np.float64:  # distinct bit patterns: np.unique would keep one of 0.0 and -0.0
        odd = np.unique(odd.view(np.int64)).view(np.float64)
    return max([6] + [len(printf(v)) for v in odd.tolist()])


def _cell_width(line: TrecValue, values: dict) -> int:
    """The widest value text of one printed column other than relstring."""
    x = values[line]
    if line.kind == "long":
        return max(len(str(int(v))) for v in (x.min(initial=0), x.max(initial=0)))
    return _float_width(x)


def query_lines(plan: list[TrecValue], rows: list, values: dict, strings: list | None) -> Iterator[bytes]:
    """Per-query lines (-q), a block of queries at a time, as bytes.

    A block is one byte matrix, a row per query: for each run of columns between relstring columns a
    (queries, columns, line) block of fixed fields (the name padded by %-22s and a tab, the query id, a
    tab, the value, a newline), each NUL-padded to the run's widest; the runs side by side in print
    order; then the NUL bytes deleted.
    """
    printed = [line for line in plan if line.per_query]
    if not printed:
        return
    qids = _cells([str(q) for q in rows])
    runs, current = [], []
    for line in printed:
        if line.kind == "relstring":
            runs += [current, [line]] if current else [[line]]
            current = []
        else:
            current.append(line)
    if current:
        runs.append(current)
    layout = []  # (lines, prefix matrix, cell width, start in the row, line length)
    at = 0
    for run in runs:
        prefix = _cells([f"{line.name:<22s}\t" for line in run])
        if run[0].kind == "relstring":  # sized by the run's longest string, not by N
            width = max(map(len, strings or []), default=0) + 2
        else:
            width = max(_cell_width(line, values) for line in run)
        length = prefix.shape[1] + qids.shape[1] + width + 2
        layout.append((run, prefix, width, at, length))
        at += length * len(run)
    block = max(1, _BLOCK_BYTES // max(at, 1))
    for lo in range(0, len(rows), block):
        hi = min(lo + block, len(rows))
        out = np.zeros((hi - lo, at), dtype=np.uint8)
        for run, prefix, width, start, length in layout:
            view = out[:, start: start + length * len(run)].reshape(hi - lo, len(run), length)
            _fill(view, run, prefix, width, qids[lo:hi], values, strings, lo, hi)
        yield out.tobytes().replace(b"\0", b"")


def _fill(view: np.ndarray, run: list[TrecValue], prefix: np.ndarray, width: int, qids: np.ndarray, values: dict,
          strings: list | None, lo: int, hi: int) -> None:
    """Write the lines of one run of columns, queries lo..hi, into view (queries, columns, line bytes)."""
    p, q = prefix.shape[1], qids.shape[1]
    view[:, :, :p] = prefix
    view[:, :, p: p + q] = qids[:, None, :]
    view[:, :, p + q] = ord("\t")
    view[:, :, -1] = ord("\n")
    cells = view[:, :, p + q + 1: p + q + 1 + width]
    if run[0].kind == "relstring":
        texts = _cells([f"'{s}'" for s in strings[lo:hi]])
        cells[:, 0, : texts.shape[1]] = texts
        return
    floats = [i for i, line in enumerate(run) if line.kind == "float"]
    if floats:
        matrix = np.stack([values[run[i]][lo:hi] for i in floats], axis=1)
        if len(floats) == len(run):
            cells[...] = _float_cells(matrix, width)
        else:
            cells[:, floats, :] = _float_cells(matrix, width)
    for i, line in enumerate(run):
        if line.kind == "long":
            texts = _distinct_cells(values[line][lo:hi], str)
            cells[:, i, : texts.shape[1]] = texts


def summary_lines(plan: list[TrecValue], summaries: dict, runid: str) -> Iterator[bytes]:
    """The "all" lines: each line's summary value (an int printed as %ld, a float as %6.4f), runid's name."""
    out = []
    for line in plan:
        if not line.summary:
            continue
        value = runid if line.kind == "runid" else summaries[line]
        text = value if isinstance(value, str) else str(value) if isinstance(value, int) else printf(value)
        out.append(f"{line.name:<22s}\tall\t{text}\n")
    if out:
        yield "".join(out).encode("utf-8")
