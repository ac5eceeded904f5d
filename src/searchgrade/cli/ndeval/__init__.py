"""The ndeval command line (``python -m searchgrade.ndeval``; documented in :mod:`searchgrade.ndeval`).

It parses ndeval's arguments (:mod:`.args`), reads the qrels with
:func:`searchgrade.io.subtopics.subtopic_columns` into a
:class:`~searchgrade.measures.subtopics.SubtopicIndex`, reads each run a block of lines at a time,
ordered, checked and cut as ndeval does (:mod:`.lines`, :mod:`.docs`, :mod:`.files`), scores each
block of complete topics with the registry's diversity kernels, those of ``sg.evaluate``
(:mod:`.scoring`), keeping only each topic's values, and prints ndeval's CSV once the files are read
(:mod:`.printer`): as ndeval, it prints nothing when a line of a file is refused.
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
from ..main import typed_command
from .args import NDEVAL_VERSION, USAGE, Options, UsageError, parse_args
from .docs import JudgedDocs
from .files import RunReader, Ungrouped
from .printer import COLUMNS, csv_lines, run_label
from .scoring import planned, score_topics

__all__ = ["main", "run_ndeval", "topic_values", "measures", "UsageError"]


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


def _read_qrels(path) -> SubtopicIndex:
    """The qrels indexed (FormatError naming the line of a document judged twice for one subtopic)."""
    columns = subtopic_columns(path, ndeval=True, repeats=False)
    try:
        return SubtopicIndex.from_columns(*columns)  # indexed once, not nested: the engine's own form
    except ValueError:  # a document judged twice for one subtopic: read again, to name its line
        subtopic_columns(path, ndeval=True)
        raise


def _run_values(path, judged: JudgedDocs, measures: list, opts: Options) -> tuple[str, tuple]:
    """(run id, (topics, values)) of a run file, read and scored a block of topics at a time."""
    reader = RunReader(path, judged, traditional=opts.traditional, depth=opts.depth)
    try:
        values = score_topics(judged.index, measures, reader.blocks())
    except Ungrouped:  # a topic came back after another: read again, grouped by topic first
        values = score_topics(judged.index, measures, reader.blocks(grouped=False))
    finally:
        reader.close()
    return reader.runid, values


def run_ndeval(opts: Options) -> list[str]:
    """ndeval's output lines for parsed options (FormatError, OSError on bad files)."""
    judged = JudgedDocs(_read_qrels(opts.qrels))
    columns = planned(measures(opts.alpha, opts.beta))
    runid, values = _run_values(opts.run, judged, columns, opts)
    topics = set(judged.index.qids)
    count = len(topics) if opts.complete else sum(1 for t in values[0].tolist() if t in topics)
    base, label = None, runid
    if opts.baseline is not None:
        base_id, base = _run_values(opts.baseline, judged, columns, opts)
        label = run_label(runid, base_id, opts.risk_alpha_text)
    return list(csv_lines(label, values, base, count, opts.risk_alpha, opts.complete))


def main(argv: list[str] | None = None, help_text: str = "") -> int:
    """Entry point: prints ndeval's CSV; a bad command line or file is one line on standard error, status 1."""
    argv = sys.argv[1:] if argv is None else list(argv)
    prog = typed_command("ndeval")
    try:
        opts = parse_args(argv)
        if opts.help:
            lines = [USAGE.format(prog=prog), "", help_text.strip()]
        elif opts.version:
            lines = [f"{prog}: searchgrade's ndeval ({NDEVAL_VERSION} compatible)"]
        else:
            lines = run_ndeval(opts)
    except UsageError as err:
        print(f"{prog}: {err}\n{prog}: {USAGE.format(prog=prog)}", file=sys.stderr)
        return 1
    except (FormatError, OSError, ValueError) as err:
        where = f"{err.filename}: {err.strerror}" if isinstance(err, OSError) and err.filename else str(err)
        print(f"{prog}: {where}", file=sys.stderr)
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
