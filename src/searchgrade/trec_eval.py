"""A trec_eval-compatible command line: ``python -m searchgrade.trec_eval [options] QRELS RUN``.

Prints what trec_eval 10.0 prints, byte for byte (``%-22s\\t%s\\t%6.4f``; counts as integers;
``runid`` (the run's last line's) and ``num_q`` in the summary only; ``relstring`` per query
only; summary means summed in trec_eval's query order, then divided), for every measure of its
``official``, ``set`` and ``all_trec`` sets, with their parameters.  Options, as trec_eval's
getopt_long reads them (letters combine, ``-M5`` or ``-M 5``, long forms such as
``--measure=P.10`` or a unique prefix of one)::

    -q            also print every query's values
    -c            average over all qrels queries (missing ones scored on an empty ranking)
    -n            no summary ("all") lines
    -M N          evaluate only the first N documents of each query (after sorting)
    -l L          relevance level for binary measures
    -J            judged documents only (condensed lists)
    -N N          documents in the collection (utility's fourth coefficient)
    -o            accepted and ignored (obsolete in trec_eval 10.0 too)
    -m MEASURE    a measure, with trec_eval's parameter forms (P.5,10  ndcg_cut.10,23.4
                  iprec_at_recall.0.25,0.5  relstring.20  set_F.0.5  utility.2,-1,0,0
                  11pt_avg.0.25,0.5,0.75  rbp.p=0.95,2=4  rbp_resid.p=0.5  ndcg.1=3,2=9
                  ndcg_rel.2=5  Rndcg.1=2  G.3=9), or a set name (official, set, all_trec);
                  may be repeated
    -h, -v        help; version (on standard error)
    QRELS, RUN    files, read by searchgrade.io (``-`` for standard input, ``#`` comment
                  lines, fields after the run id ignored: see its docstring); what the
                  readers skip or ignore is reported on standard error

Every measure, its parameters, defaults, printed names and print order come from the measure
registry (:mod:`searchgrade.measures.registry`, :func:`searchgrade.measures.names.trec_expand`): a ``-m``
argument is read as trec_eval reads it, long cut-offs truncated (``23.4`` is 23), sorted,
each printed as ``root_k``; float cut-offs printed ``root_%3.2f``; other parameters printed
verbatim after ``root_`` (``set_F_0.5``, ``rbp_p=0.95``).  Gains per grade are set as
trec_eval's setup_gains sets them (grades given get their gain, the others keep gain = grade;
0 and negative gains allowed), and trec_eval's walk down its ideal ranking is reproduced,
including its order of gains closer than 1 (its comparator truncates their difference to an
integer, and glibc's qsort, a merge sort, then keeps them in list order: a trec_eval built on
another C library may order them otherwise).

Where trec_eval 10.0 itself fails, searchgrade does the sensible thing:

* a qrels query with no results and no ``-c``: 10.0 exits 4 with the wrong message
  "result qid not found in qrels"; searchgrade skips the query, as trec_eval 9.x did.
* ``-J`` leaving a query with no documents: 10.0 prints ``-nan`` (0/0) for
  ``iprec_at_recall`` levels below one relevant document and ``11pt_avg``, and ``-nan``
  in their summary lines; searchgrade prints 0 and averages the 0.
* ``Rndcg`` with gains under which the last of trec_eval's gain levels gains 0 or less
  (``Rndcg.1=0.5`` on binary qrels): its walk never starts and 10.0 prints ``-nan`` (0/0);
  searchgrade prints 0 (as 10.0's ndcg, ndcg_rel and G do there).
* a qrels query whose judgments are all negative (pooled, unjudged): 10.0 exits 4
  ("Can't calculate measure"); searchgrade scores it with R = 0.
* ``-c``: 10.0 scores a missing query on a phantom one-document ranking and zeroes
  only the values named exactly ``num_ret``, ``utility``, ``relstring``, ``unj*`` and
  ``rbp_resid``; so ``utility.a,b,c,d`` counts the phantom as a retrieved
  non-relevant document (b), ``rbp_resid.p=x`` prints 1 and ``relstring.N`` prints
  ``'-'``.  searchgrade scores the empty ranking: c * R, 0 and ``''``.
* ``#`` lines in the qrels: 10.0 crashes on a ``#`` line at the end and reads a second
  consecutive one as a judgment of query ``#``; a blank qrels line stops it
  ("Malformed line").  searchgrade.io skips both.
* ``rbp``: m_rbp.c reads its ``min`` and ``max`` before setting them (undefined
  behaviour: the values change with the other measures requested, on binary qrels
  too).  Built with zeroed locals it rescales the gains that lie outside [0, 1] by
  (gain - min) / (max - min), min and max taken with 0 (without gains per grade:
  grade / the query's largest grade), which is what searchgrade computes.

Where trec_eval 10.0 is followed although the Python API differs:

* ``-c`` with ``-l`` >= 2: trec_eval's ``num_rel`` summary line counts every qrels judgment
  with a grade above 0 (m_num_rel.c's average for -c reads the qrels file, not the queries'
  values), so it disagrees with the sum of its own per-query lines.  The command line prints
  trec_eval's count; ``sg.evaluate``/``sg.mean`` with ``NumRel(rel=2)`` keep the per-query
  values and their sum, the only number consistent with the level asked for.

What trec_eval does silently and searchgrade reports on standard error (its standard output stays
byte for byte trec_eval's): run queries without judgments, and, without ``-c``, qrels queries
without results, which are skipped.  A closed standard output (``... | head -1``) ends the
command quietly, killed by SIGPIPE as trec_eval is (status 141 when main() is called from Python).

What searchgrade refuses (a usage error naming the measure) where trec_eval reads something
it cannot mean or silently does something else: non-finite scores; ``P.5x``, ``P.1e3``,
``map.5`` and other parameters its atol/atof would misread or it would ignore; an unknown
``name=`` (``ndcg.p=2``: setup_gains skips names that are not integers); a gain given twice
for one grade, or a measure twice with different parameters (10.0 silently uses the first);
gains for negative grades (``ndcg.-1=3``: 10.0 gives them to the documents not in the qrels,
-1, or pooled but unjudged, -2); ``utility`` with a non-zero fourth coefficient and no
``-N``; ``11pt_avg`` levels out of order (its loop then skips levels); recall levels outside
[0, 1]; ``p`` outside (0, 1); ``set_F.x`` with x <= 0; ``-l 0``, ``-M 0`` and ``-N 0``.

Not supported: preferences and other input formats (``-R``, ``-T``), z-scores (``-Z``),
debug output (``-D``), and the measures ``dcg`` and ``ideal_dcg`` (which 10.0 computes as
ndcg), ``ndcg_p``, ``yaap`` and the ``prefs``/``avgjg`` families.
"""
from __future__ import annotations

import contextlib
import math
import os
import signal
import sys
import warnings
from dataclasses import dataclass
from typing import Iterator

import numpy as np

from .measures import dispatch as _dispatch
from .measures.kernels.base import MIN_GEO_MEAN, _dense_rank
from .measures.names import LONG_MAX, Measure, _trec_float, trec_expand
from .measures.options import Options
from .measures.qrels import _few
from .measures.ranking import rank_columns
from .measures.registry import TREC_ORDER, TREC_SETS, trec_root
from .io import _load_columns

__all__ = ["main", "run_trec_eval", "UsageError"]

RELSTRING_LENGTH = 10.0  # relstring's default length (m_relstring.c); runid and relstring are not measures


class UsageError(ValueError):
    """A bad command line."""


# ====================================================================== -m arguments
@dataclass(frozen=True, eq=False)
class _Line:
    """One printed value: trec_eval's name, the measure behind it, and where and how it is printed.

    Compared and hashed by identity: each line of a plan is its own key, even where two print one name.
    """

    name: str
    measure: Measure | None = None  # None: runid, relstring
    kind: str = "float"  # "float" (%6.4f), "long" (%ld), "runid", "relstring"
    per_query: bool = True
    summary: bool = True
    agg: str = "mean"  # "mean", "sum", "gmean"
    length: int = 0  # relstring: how many ranks


def _requests(requested: list[str]) -> list[tuple[str, str | None]]:
    """The -m arguments as (root, parameter text or None), one per root, in trec_eval's print order."""
    chosen: dict[str, str | None] = {}
    for arg in requested:
        if arg in TREC_SETS:
            for root in TREC_SETS[arg]:
                chosen.setdefault(root, None)
            continue
        root, dot, text = arg.partition(".")
        if root in TREC_SETS:
            raise UsageError(f"measure {arg!r}: {root} names a set of measures and takes no parameters")
        if root not in TREC_ORDER:
            known = ", ".join(list(TREC_SETS) + list(TREC_ORDER))
            raise UsageError(f"unknown measure {root!r}; known: {known}")
        if not dot:
            chosen.setdefault(root, None)
            continue
        if not text:
            raise UsageError(f"measure {arg!r}: no parameters after the '.'")
        old = chosen.get(root)
        if old is not None and old != text:
            raise UsageError(f"measure {root} is given twice with different parameters ({root}.{old} and "
                             f"{arg}); trec_eval 10.0 would silently use the first")
        chosen[root] = text
    return [(root, chosen[root]) for root in TREC_ORDER if root in chosen]


def _lines(root: str, text: str | None, rel: int, n_docs: int | None = None) -> list[_Line]:
    """The values one -m argument prints (names, measures and formats from the registry)."""
    where = root if text is None else f"{root}.{text}"
    if root == "runid":
        if text is not None:
            raise UsageError(f"measure runid takes no parameters (trec_eval 10.0 ignores {where})")
        return [_Line("runid", kind="runid", per_query=False)]
    if root == "relstring":
        length = RELSTRING_LENGTH
        if text is not None:
            values = text.split(",")
            if len(values) != 1:
                raise UsageError(f"measure {where}: one length expected")
            try:
                length = _trec_float(where, values[0])
            except ValueError as err:
                raise UsageError(str(err)) from None
            if not math.isfinite(length):
                raise UsageError(f"measure {where}: the length must be a finite number")
        return [_Line(root if text is None else f"{root}_{text}", kind="relstring", summary=False,
                      length=max(0, min(int(length), LONG_MAX)))]  # atol saturates at LONG_MAX
    try:
        expanded = trec_expand(root, text, rel, n_docs)
    except ValueError as err:
        message = str(err)
        raise UsageError(message if where in message else f"measure {where}: {message}") from None
    fam, spec = trec_root(root)
    return [_Line(printed, m, "long" if fam.integer else "float", spec.per_query, spec.summary, fam.agg)
            for printed, m in expanded]


def _plan(requested: list[str], rel: int, n_docs: int | None = None) -> list[_Line]:
    """Every printed value of the -m arguments, in trec_eval's order (-l: rel, -N: n_docs)."""
    return [line for root, text in _requests(requested) for line in _lines(root, text, rel, n_docs)]


# ===================================================================== computing
def _relstrings(ctx, n: int) -> list[str]:
    """trec_eval's relstring of every row: a digit per grade, '>' above 9, '-' not in the pool, '.' unjudged."""
    char = np.where(ctx.grade > 9, ord(">"), ord("0") + np.minimum(ctx.grade, 9))
    char = np.where(ctx.judged, char, np.where(ctx.nonpool, ord("-"), ord(".")))
    text = char[ctx.rank <= n].astype(np.uint8).tobytes().decode("ascii")
    ends = np.cumsum(np.minimum(ctx.nret, n)).tolist()
    return [text[a:b] for a, b in zip([0] + ends[:-1], ends)]


def _values(plan: list[_Line], options: Options, ctx) -> dict[_Line, np.ndarray]:
    """Per-query values of every measure of the plan, by line (each measure computed once).

    Keyed by the line, not its printed name: two parameters can print under one name
    (``iprec_at_recall.0.7453,0.75`` prints ``iprec_at_recall_0.75`` twice) and each keeps its value.
    """
    distinct = list({line.measure.key: line.measure for line in plan if line.measure is not None}.values())
    if not distinct:
        return {}
    planned = dict(zip([m.key for m in distinct], _dispatch.plan(distinct, options)))  # rel_level, -J filled in
    computed = {key: _dispatch.kernel_values(m, ctx) for key, m in planned.items()}
    return {line: computed[line.measure.key].astype(np.int64 if line.kind == "long" else np.float64)
            for line in plan if line.measure is not None}


def _summary_text(line: _Line, x: np.ndarray) -> str:
    """The "all" value of one measure: trec_eval's sum in query order, then its mean or geometric mean."""
    n = len(x)
    if line.agg == "sum":
        return str(int(x.sum()))
    if line.agg == "gmean":
        total = 0.0
        for v in x.tolist():
            total += math.log(max(v, MIN_GEO_MEAN))
        return _printf(math.exp(total / n))
    total = float(np.cumsum(np.concatenate(([0.0], x.astype(np.float64))))[-1])  # sequential, as trec_eval
    return _printf(total / n)


# ------------------------------------------------------------------- per-query lines
# Every per-query line is `name`, padded to 22 characters, a tab, the query id, a tab and the value.  A block
# of queries is laid out as one byte matrix, a row per query, each field at a fixed place and padded with NUL
# bytes, which are then deleted (no printed text holds one): no Python call per printed value.
_BLOCK_BYTES = 1 << 24


def _cells(texts: list[str]) -> np.ndarray:
    """Texts as a NUL-padded byte matrix, a row per text."""
    encoded = [t.encode("utf-8") for t in texts]
    width = max(map(len, encoded), default=0)
    return np.frombuffer(b"".join(e.ljust(width, b"\0") for e in encoded), dtype=np.uint8).reshape(len(encoded),
                                                                                                   width)


def _printf(v: float) -> str:
    """C's printf("%6.4f", v): Python's rounding is the same; a NaN shows its sign as glibc prints it."""
    if v != v:
        return ("-nan" if math.copysign(1.0, v) < 0 else "nan").rjust(6)
    return f"{v:6.4f}"


def _distinct_cells(x: np.ndarray, fmt) -> np.ndarray:
    """The texts of values x (fmt: str or _printf), each distinct bit pattern formatted once."""
    key = x.view(np.int64) if x.dtype == np.float64 else x  # -0.0 and 0.0 print differently
    which = _dense_rank(key)
    shown = np.empty(int(which.max(initial=-1)) + 1, dtype=x.dtype)
    shown[which] = x
    return _cells([fmt(v) for v in shown.tolist()])[which]


_FOUR_DIGITS = np.frombuffer(b"".join(f"{i:04d}".encode() for i in range(10000)), dtype=np.uint8).reshape(10000, 4)


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
        texts = _distinct_cells(x[slow], _printf)
        out[slow] = 0
        out[slow + (slice(0, texts.shape[1]),)] = texts
    return out


def _float_width(x: np.ndarray) -> int:
    """The widest ``%6.4f`` text of the values x (6 unless one is negative, 10 or more, or not finite)."""
    odd = x[~((x >= 0) & (x < 9.99995))]
    return max([6] + [len(_printf(v)) for v in np.unique(odd).tolist()])


def _cell_width(line: _Line, values: dict) -> int:
    """The widest value text of one printed column other than relstring."""
    x = values[line]
    if line.kind == "long":
        return max(len(str(int(v))) for v in (x.min(initial=0), x.max(initial=0)))
    return _float_width(x)


def _query_lines(plan: list[_Line], rows: list, values: dict, strings: list | None) -> Iterator[bytes]:
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


def _fill(view: np.ndarray, run: list[_Line], prefix: np.ndarray, width: int, qids: np.ndarray, values: dict,
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


def _summary_lines(plan: list[_Line], values: dict, runid: str, given: dict | None = None) -> Iterator[bytes]:
    """The "all" lines (given: texts that replace the computed summary of some lines)."""
    out = []
    for line in plan:
        if not line.summary:
            continue
        text = runid if line.kind == "runid" else (given or {}).get(line) or _summary_text(line, values[line])
        out.append(f"{line.name:<22s}\tall\t{text}\n")
    if out:
        yield "".join(out).encode("utf-8")


# ======================================================================= reading
def _read(qrels_path, run_path):
    """The qrels and the run as columns, and trec_eval's runid (the last line's); ``-`` may stand for one."""
    if str(qrels_path) == "-" and str(run_path) == "-":
        raise UsageError("only one of QRELS and RUN can be read from standard input ('-')")
    qrels, _ = _load_columns(qrels_path, "qrels", warn=True)
    run, report = _load_columns(run_path, "run", warn=True)
    return qrels, run, report.last_run_id


def _output(qrels_path, run_path, measures, query, complete, max_docs, rel_level, judged_only,
            summary, n_docs=None) -> Iterator[bytes]:
    """trec_eval's output, in chunks of bytes."""
    plan = _plan(list(measures), rel_level, n_docs)
    options = Options("trec", "zero" if complete else "ignore", rel_level, judged_only, max_docs)
    qrels, run, runid = _read(qrels_path, run_path)
    _skipped(qrels, run, qrels_path, run_path, complete)
    rows, ctx = rank_columns(qrels, run, complete=complete, max_docs=max_docs, judged_only=judged_only)
    if not rows:
        raise ValueError(f"no query has both results ({run_path}) and relevance judgments ({qrels_path})")
    values = _values(plan, options, ctx)
    if query:
        lengths = [line.length for line in plan if line.kind == "relstring"]
        strings = _relstrings(ctx, lengths[0]) if lengths else None
        yield from _query_lines(plan, rows, values, strings)
    if summary:
        yield from _summary_lines(plan, values, runid, _complete_num_rel(plan, qrels) if complete else None)


def _complete_num_rel(plan: list[_Line], qrels) -> dict:
    """trec_eval 10.0's ``num_rel`` summary under -c: every qrels line with a grade above 0, whatever -l says.

    m_num_rel.c's average for -c counts the judgments with ``rel > 0`` in the whole qrels file instead of
    summing the queries' values, so with ``-l 2`` its ``all`` line also counts the grade-1 documents that
    its per-query lines do not.  The command line prints that; the Python API (``NumRel(rel=2)``) keeps
    the sum of the per-query values.
    """
    count = str(int(np.count_nonzero(np.asarray(qrels.values) > 0)))
    return {line: count for line in plan if line.name == "num_rel"}


def _skipped(qrels, run, qrels_path, run_path, complete: bool) -> None:
    """Warn about the queries trec_eval skips: run queries without qrels; qrels queries without results (no -c)."""
    qrels_ids, run_ids = set(qrels.keys), set(run.keys)
    orphans = [q for q in run.keys if q not in qrels_ids]
    if orphans:
        n = len(orphans)
        warnings.warn(f"{n} quer{'y' if n == 1 else 'ies'} of {run_path} {'has' if n == 1 else 'have'} no "
                      f"judgments in {qrels_path} and {'is' if n == 1 else 'are'} skipped: {_few(orphans)}")
    absent = [] if complete else [q for q in qrels.keys if q not in run_ids]
    if absent:
        n = len(absent)
        warnings.warn(f"{n} quer{'y' if n == 1 else 'ies'} of {qrels_path} {'has' if n == 1 else 'have'} no "
                      f"results in {run_path} and {'is' if n == 1 else 'are'} skipped (-c scores "
                      f"{'it' if n == 1 else 'them'} on an empty ranking): {_few(absent)}")


def run_trec_eval(qrels_path, run_path, measures=("official",), query=False, complete=False,
                  max_docs=None, rel_level=1, judged_only=False, summary=True, n_docs=None) -> str:
    """trec_eval's output for a qrels file and a run file, as one string.

    The arguments are trec_eval's options: ``measures`` its ``-m`` arguments, ``query`` -q, ``complete``
    -c, ``max_docs`` -M, ``rel_level`` -l, ``judged_only`` -J, ``summary=False`` -n, ``n_docs`` -N.
    """
    return b"".join(_output(qrels_path, run_path, measures, query, complete, max_docs, rel_level,
                            judged_only, summary, n_docs)).decode("utf-8")


# ==================================================================== command line
# trec_eval's getopt_long options: short letter -> (long name, takes a value); "unsupported" ones are refused
_OPTIONS = {"h": ("help", False), "v": ("version", False), "q": ("query_eval_wanted", False),
            "m": ("measure", True), "c": ("complete_rel_info_wanted", False), "l": ("level_for_rel", True),
            "n": ("nosummary", False), "D": ("Debug_level", True), "J": ("Judged_docs_only", False),
            "N": ("Number_docs_in_coll", True), "M": ("Max_retrieved_per_topic", True),
            "R": ("Rel_info_format", True), "T": ("Results_format", True), "o": ("Output_old_results_format", False),
            "Z": ("Zscore", True)}
_UNSUPPORTED = {"D": "debug output", "R": "other qrels formats (prefs, qrels_jg)", "T": "other results formats",
                "Z": "z-scores"}


def _long_option(text: str) -> str:
    """The option letter of ``--name`` or an unambiguous prefix of it (getopt_long's rule)."""
    exact = [c for c, (name, _) in _OPTIONS.items() if name == text]
    found = exact or [c for c, (name, _) in _OPTIONS.items() if name.startswith(text)]
    if len(found) != 1:
        raise UsageError(f"{'ambiguous' if found else 'unknown'} option --{text}")
    return found[0]


def _options(argv: list[str]) -> tuple[list[tuple[str, str | None]], list[str]]:
    """getopt_long's reading of argv: (option letter, value) pairs and the other arguments, options anywhere.

    Short options combine (``-qc``, ``-qmmap``), a value follows its letter or comes next (``-M5``,
    ``-M 5``); long options are ``--measure=P.10``, ``--measure P.10`` or a unique prefix (``--meas``).
    """
    args, opts, files = list(argv), [], []
    while args:
        a = args.pop(0)
        if a == "--":
            files.extend(args)
            break
        if not a.startswith("-") or a == "-":
            files.append(a)
            continue
        if a.startswith("--"):
            name, eq, value = a[2:].partition("=")
            letter = _long_option(name)
            if _OPTIONS[letter][1] and not eq:
                if not args:
                    raise UsageError(f"option --{_OPTIONS[letter][0]} needs a value")
                value = args.pop(0)
            elif not _OPTIONS[letter][1] and eq:
                raise UsageError(f"option --{_OPTIONS[letter][0]} takes no value")
            opts.append((letter, value if _OPTIONS[letter][1] else None))
            continue
        i = 1
        while i < len(a):
            letter = a[i]
            if letter not in _OPTIONS:
                raise UsageError(f"unknown option -{letter}")
            if not _OPTIONS[letter][1]:
                opts.append((letter, None))
                i += 1
                continue
            value = a[i + 1:]
            if not value:
                if not args:
                    raise UsageError(f"option -{letter} needs a value")
                value = args.pop(0)
            opts.append((letter, value))
            break
    return opts, files


def _positive(letter: str, text: str) -> int:
    """The integer value of -l, -M or -N (at least 1)."""
    try:
        value = int(text)
    except ValueError:
        raise UsageError(f"option -{letter} needs an integer, not {text!r}") from None
    if value < 1:
        raise UsageError(f"option -{letter} must be at least 1, not {value}")
    return min(value, LONG_MAX)  # atol saturates at LONG_MAX


def _parse_args(argv: list[str]) -> dict:
    """trec_eval's command line: ``-q -c -n -J -o``, ``-M N``, ``-l L``, ``-N N``, ``-m X`` (long forms too)."""
    o = {"measures": [], "query": False, "complete": False, "max_docs": None, "rel_level": 1,
         "judged_only": False, "summary": True, "n_docs": None, "help": False, "version": False}
    pairs, files = _options(argv)
    for letter, value in pairs:
        if letter in _UNSUPPORTED:
            raise UsageError(f"option -{letter} ({_UNSUPPORTED[letter]}) is not supported")
        if letter == "m":
            o["measures"].append(value)
        elif letter in "lMN":
            o[{"l": "rel_level", "M": "max_docs", "N": "n_docs"}[letter]] = _positive(letter, value)
        elif letter != "o":  # -o: obsolete in trec_eval 10.0 too, and without effect
            key = {"q": "query", "c": "complete", "n": "summary", "J": "judged_only", "h": "help", "v": "version"}
            o[key[letter]] = letter != "n"
    if o["help"] or o["version"]:
        return o
    if len(files) != 2:
        raise UsageError("expected two files: QRELS RUN")
    o["qrels_path"], o["run_path"] = files
    if not o["measures"]:
        o["measures"] = ["official"]
    return o


USAGE = ("usage: python -m searchgrade.trec_eval [-h] [-v] [-q] [-c] [-n] [-J] [-o] [-M N] [-l L] [-N N] "
         "[-m MEASURE[.params]]... QRELS RUN")
TREC_EVAL_VERSION = "10.0-rc3"  # the trec_eval whose output is reproduced


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the exit status."""
    program = argv is None  # run as the program (python -m, the script), not called from Python
    argv = sys.argv[1:] if argv is None else argv
    with warnings.catch_warnings(), _small_pages():  # what the readers report goes to stderr
        warnings.showwarning = _warning_to_stderr
        try:
            return _run(argv)
        except BrokenPipeError:
            return _broken_pipe(program)


SIGPIPE_STATUS = 128 + 13  # the shell's status of a program killed by SIGPIPE


def _broken_pipe(program: bool) -> int:
    """The reader of standard output went away (``| head -1``): end quietly, as a Unix filter does.

    trec_eval is killed by SIGPIPE there, silently.  Run as the program, this process dies the
    same way (its standard output first pointed at /dev/null, so that nothing more fails when
    Python exits); called from Python, main returns 141, the shell's status for that death.
    """
    if not program:
        return SIGPIPE_STATUS
    with contextlib.suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGPIPE)
    return SIGPIPE_STATUS


@contextlib.contextmanager
def _small_pages():
    """numpy's advice to back arrays of 4 MB and more with huge pages, turned off while the command runs.

    Where the kernel compacts memory for each such allocation (transparent huge pages with
    defrag=madvise), the command's many short-lived arrays spend more system time in the
    kernel than the huge pages save: measured on the project's machine, ranking a million
    documents took 1.1 s with the advice and 0.25 s without.  The previous setting is restored.
    """
    setter = getattr(getattr(np, "_core", np).multiarray, "_set_madvise_hugepage", None)
    previous = setter(False) if setter is not None else None
    try:
        yield
    finally:
        if setter is not None:
            setter(previous)


def _warning_to_stderr(message, category, filename, lineno, file=None, line=None) -> None:
    """Print a warning as ``trec_eval: warning: ...`` on standard error."""
    print(f"trec_eval: warning: {message}", file=sys.stderr)


def _run(argv: list[str]) -> int:
    """Parse argv, print trec_eval's output; the exit status."""
    try:
        o = _parse_args(argv)
        if o["help"]:
            print(USAGE)
            print(__doc__)
            return 0
        if o["version"]:
            from . import __version__

            print(f"searchgrade.trec_eval (searchgrade {__version__}): the output of trec_eval version "
                  f"{TREC_EVAL_VERSION}", file=sys.stderr)
            return 0
        chunks = _output(o["qrels_path"], o["run_path"], o["measures"], o["query"], o["complete"],
                         o["max_docs"], o["rel_level"], o["judged_only"], o["summary"], o["n_docs"])
        first = next(chunks, b"")  # errors in the input surface before anything is printed
        buffer = getattr(sys.stdout, "buffer", None)
        if buffer is not None:  # bytes as trec_eval writes them, whatever the locale's encoding
            sys.stdout.flush()
            for chunk in _chain(first, chunks):
                buffer.write(chunk)
            buffer.flush()
        else:
            for chunk in _chain(first, chunks):
                sys.stdout.write(chunk.decode("utf-8"))
    except UsageError as err:
        print(f"trec_eval: {err}\n{USAGE}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        raise
    except (ValueError, OSError) as err:
        print(f"trec_eval: {err}", file=sys.stderr)
        return 1
    return 0


def _chain(first: bytes, rest: Iterator[bytes]) -> Iterator[bytes]:
    """first, then the rest."""
    yield first
    yield from rest


if __name__ == "__main__":
    sys.exit(main())
