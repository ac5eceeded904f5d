"""The trec_eval command line (``python -m searchgrade.trec_eval``; documented in :mod:`searchgrade.trec_eval`).

It parses trec_eval's arguments (:mod:`.args`), turns the ``-m`` arguments into the lines
trec_eval prints (:mod:`.plan`), scores the run in one call to the engine,
:func:`searchgrade.measures.blocks.score_run_blocks` -- the same reading, ranking, query rows and
summaries as ``sg.evaluate`` / ``sg.aggregate``; the run file read a part at a time in bounded memory
(one pass when it is grouped by query, else spilled to temporary files by query), its queries' values
held to its end and then handed out a block of queries at a time in trec_eval's order -- and prints
byte for byte what trec_eval prints (:mod:`.printer`) from each :class:`~searchgrade.metrics.Scores` it
yields.  ``--stream_info`` (searchgrade's own option) says on standard error how the run was read.
"""
from __future__ import annotations

import contextlib
import os
import signal
import sys
import warnings
from typing import Iterator

import numpy as np

from ...measures.blocks import score_run_blocks
from ...metrics import MissingQueriesWarning, Scores
from .args import USAGE, TREC_EVAL_VERSION, UsageError, parse_args
from ...measures.names import TrecValue
from .plan import distinct_measures, plan
from .printer import query_lines, summary_lines

__all__ = ["main", "run_trec_eval", "output", "UsageError"]


def output(qrels_path, run_path, measures, query, complete, max_docs, rel_level, judged_only,
           summary, n_docs=None) -> Iterator[bytes]:
    """trec_eval's output, in chunks of bytes (the arguments as in :func:`run_trec_eval`)."""
    lines = plan(list(measures), rel_level, n_docs)
    if str(qrels_path) == "-" and str(run_path) == "-":
        raise UsageError("only one of QRELS and RUN can be read from standard input ('-')")
    lengths = [line.length for line in lines if line.kind == "relstring"]
    blocks = score_run_blocks(qrels_path, run_path, distinct_measures(lines), summary=summary,
                              relstring=lengths[0] if query and lengths else None, ties="trec",
                              missing="zero" if complete else "ignore", rel_level=rel_level,
                              judged_only=judged_only, max_docs=max_docs)
    positive, summaries, runid = 0, {}, ""
    for scores in blocks:  # a block of queries at a time, in trec_eval's order: printed as it comes
        if not scores.rows:
            raise ValueError(f"no query has both results ({run_path}) and relevance judgments ({qrels_path})")
        positive += scores.positive_judgments
        rows, values, strings, summaries, runid = _printed(scores, lines, query, complete, positive)
        del scores
        if query:
            yield from query_lines(lines, rows, values, strings)
        del rows, values, strings
    if summary:
        yield from summary_lines(lines, summaries, runid)


def _printed(scores: Scores, lines: list[TrecValue], query: bool, complete: bool, positive: int) -> tuple:
    """What the printer needs of a block, in trec_eval's query order: (rows, {line: values}, relstrings,
    {line: summary}, runid), read from what the engine returned; its per-query arrays are handed over one at
    a time.  ``positive``: the judgments above 0 of the rows so far (-c's num_rel, with the last block's
    summaries)."""
    names = list(scores.values)  # the engine's column of each distinct measure (-l and -J filled in)
    column = {line: names[line.column] for line in lines if line.measure is not None}
    summaries = {}
    if scores.summaries is not None:
        summaries = {line: scores.summaries[col] for line, col in column.items()}
        if complete:
            summaries.update(_complete_num_rel(lines, positive))
    order = scores.order  # trec_eval's query order (strcmp), for printing as for its sums
    rows = [scores.rows[i] for i in order.tolist()]
    strings = None if scores.relstrings is None else [scores.relstrings[i] for i in order.tolist()]
    values, shown = {}, {}
    if query:
        for line, col in column.items():
            if col not in shown:
                shown[col] = _typed(scores.values.pop(col), line)[order]
            values[line] = shown[col]
    return rows, values, strings, summaries, scores.report.last_run_id if scores.report else ""


def _typed(x: np.ndarray, line: TrecValue) -> np.ndarray:
    """Values as printed: integers for %ld lines, floats for %6.4f lines."""
    return x.astype(np.int64 if line.kind == "long" else np.float64, copy=False)


def _complete_num_rel(lines: list[TrecValue], positive: int) -> dict:
    """trec_eval 10.0's ``num_rel`` summary under -c: every qrels line with a grade above 0, whatever -l says.

    m_num_rel.c's average for -c counts the judgments with ``rel > 0`` in the whole qrels file instead of
    summing the queries' values, so with ``-l 2`` its ``all`` line also counts the grade-1 documents that
    its per-query lines do not.  Under -c every qrels query is a row, so the count is the engine's
    ``positive_judgments`` (the rows' judged grades above 0), added up over the blocks.  The command line prints that; the Python API
    (``NumRel(rel=2)``) keeps the sum of the per-query values.
    """
    return {line: positive for line in lines if line.name == "num_rel"}


def run_trec_eval(qrels_path, run_path, measures=("official",), query=False, complete=False,
                  max_docs=None, rel_level=1, judged_only=False, summary=True, n_docs=None) -> str:
    """trec_eval's output for a qrels file and a run file, as one string.

    The arguments are trec_eval's options: ``measures`` its ``-m`` arguments, ``query`` -q, ``complete``
    -c, ``max_docs`` -M, ``rel_level`` -l, ``judged_only`` -J, ``summary=False`` -n, ``n_docs`` -N.
    """
    return b"".join(output(qrels_path, run_path, measures, query, complete, max_docs, rel_level,
                           judged_only, summary, n_docs)).decode("utf-8")


def main(argv: list[str] | None = None, help_text: str = "") -> int:
    """Command-line entry point (help_text: what -h prints after the usage line); returns the exit status."""
    program = argv is None  # run as the program (python -m, the script), not called from Python
    argv = sys.argv[1:] if argv is None else argv
    with warnings.catch_warnings(), _small_pages():  # what the readers report goes to stderr
        warnings.showwarning = _warning_to_stderr
        try:
            return _run(argv, help_text)
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
    """Print a warning as ``trec_eval: warning: ...`` on standard error, in the command's terms (``-c``)."""
    text = str(message)
    if isinstance(message, MissingQueriesWarning):
        n = message.count
        text = (f"{n} qrels quer{'y is' if n == 1 else 'ies are'} not in the run and "
                f"{'is' if n == 1 else 'are'} left out of the means (as trec_eval does without -c; use -c to "
                f"score {'it' if n == 1 else 'them'} on an empty ranking): {message.listed}{message.note}")
    print(f"trec_eval: warning: {text}", file=sys.stderr)


def _run(argv: list[str], help_text: str) -> int:
    """Parse argv, print trec_eval's output; the exit status."""
    try:
        o = parse_args(argv)
        if o["help"]:
            print(USAGE)
            print(help_text)
            return 0
        if o["version"]:
            from ... import __version__

            print(f"searchgrade.trec_eval (searchgrade {__version__}): the output of trec_eval version "
                  f"{TREC_EVAL_VERSION}", file=sys.stderr)
            return 0
        chunks = output(o["qrels_path"], o["run_path"], o["measures"], o["query"], o["complete"],
                        o["max_docs"], o["rel_level"], o["judged_only"], o["summary"], o["n_docs"])
        with _stream_info(o["stream_info"]):
            first = next(chunks, b"")  # the run is read and scored here: errors surface before anything is printed
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


STREAM_LOGGER = "searchgrade.io.stream"  # the streaming reader's log: how a run is read


@contextlib.contextmanager
def _stream_info(on: bool):
    """With ``--stream_info``: the streaming reader's INFO lines (one pass, or spilled to how many temporary
    files, and why) on standard error as ``trec_eval: ...``, while the command runs."""
    if not on:
        yield
        return
    import logging  # only here: the command does not log otherwise (start-up time)

    logger = logging.getLogger(STREAM_LOGGER)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("trec_eval: %(message)s"))
    saved = logger.level, logger.propagate
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.level, logger.propagate = saved


def _chain(first: bytes, rest: Iterator[bytes]) -> Iterator[bytes]:
    """first, then the rest."""
    yield first
    yield from rest
