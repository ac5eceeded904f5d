"""The ndeval command line (``python -m searchgrade.ndeval``; documented in :mod:`searchgrade.ndeval`).

It parses ndeval's arguments (:mod:`.args`), reads the qrels with
:func:`searchgrade.io.subtopics.subtopic_columns` and the runs as ndeval reads them
(:mod:`.files`), scores each run with the public :class:`searchgrade.metrics.Evaluator` -- the
engine of ``sg.evaluate``, with the diversity measures of the registry -- and prints ndeval's CSV
(:mod:`.printer`).
"""
from __future__ import annotations

import os
import signal
import sys
import warnings

from ...io.errors import FormatError
from ...io.subtopics import subtopic_columns
from ...measures.subtopics import SubtopicIndex
from ...metrics import Evaluator
from .args import NDEVAL_VERSION, USAGE, Options, UsageError, parse_args
from .files import read_ndeval_run
from .printer import COLUMNS, csv_lines, run_label

__all__ = ["main", "run_ndeval", "topic_values", "measures", "UsageError"]

PROG = "searchgrade ndeval"


def measures(alpha: float = 0.5, beta: float = 0.5) -> list[str]:
    """The searchgrade measures behind ndeval's 21 columns, in its column order."""
    return [spec.format(a=repr(float(alpha)), b=repr(float(beta))) for _, spec in COLUMNS]


def topic_values(evaluator: Evaluator, run: dict) -> dict:
    """{topic: [21 values]} of the run's topics that have judgments, and zeros for those without."""
    with warnings.catch_warnings():  # ndeval reports no unmatched topics; neither does its output here
        warnings.simplefilter("ignore")
        scores = evaluator.scores(run)
    columns = [scores.values[m.name].tolist() for m in evaluator.measures]
    out = {t: [0.0] * len(COLUMNS) for t in run}
    out.update({t: [col[i] for col in columns] for i, t in enumerate(scores.rows)})
    return out


def run_ndeval(opts: Options) -> list[str]:
    """ndeval's output lines for parsed options (FormatError, OSError on bad files)."""
    columns = subtopic_columns(opts.qrels, ndeval=True, repeats=False)
    try:
        qrels = SubtopicIndex.from_columns(*columns)  # indexed once, not nested: the engine's own form
    except ValueError:  # a document judged twice for one subtopic: read again, to name its line
        subtopic_columns(opts.qrels, ndeval=True)
        raise
    del columns
    ev = Evaluator(qrels, measures(opts.alpha, opts.beta), ties="trec")
    run = read_ndeval_run(opts.run, traditional=opts.traditional, depth=opts.depth)
    values = topic_values(ev, run.run)
    topics = set(qrels.qids)
    judged = len(topics) if opts.complete else sum(1 for t in run.run if t in topics)
    base, label = None, run.runid
    if opts.baseline is not None:
        baseline = read_ndeval_run(opts.baseline, traditional=opts.traditional, depth=opts.depth)
        base = topic_values(ev, baseline.run)
        label = run_label(run.runid, baseline.runid, opts.risk_alpha_text)
    return list(csv_lines(label, values, base, judged, opts.risk_alpha, opts.complete))


def main(argv: list[str] | None = None, help_text: str = "") -> int:
    """Entry point: prints ndeval's CSV; a bad command line or file is one line on standard error, status 1."""
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        opts = parse_args(argv)
        if opts.help or opts.version:
            print(help_text.strip() if opts.help else f"{PROG}: searchgrade's ndeval ({NDEVAL_VERSION} compatible)")
            return 0
        lines = run_ndeval(opts)
    except UsageError as err:
        print(f"{PROG}: {err}\n{PROG}: {USAGE.format(prog=PROG)}", file=sys.stderr)
        return 1
    except (FormatError, OSError, ValueError) as err:
        where = f"{err.filename}: {err.strerror}" if isinstance(err, OSError) and err.filename else str(err)
        print(f"{PROG}: {where}", file=sys.stderr)
        return 1
    text = "\n".join(lines) + "\n"
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:  # ... | head: end quietly, as a C program killed by SIGPIPE
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 128 + signal.SIGPIPE
    return 0
