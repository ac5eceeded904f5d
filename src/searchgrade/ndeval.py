"""An ndeval-compatible command line: ``python -m searchgrade.ndeval [options] QRELS RUN``.

Prints what ndeval 4.5 (the TREC Web track's novelty and diversity evaluator) prints, byte for
byte: a CSV with the columns ``runid,topic,ERR-IA@5,ERR-IA@10,ERR-IA@20,nERR-IA@5,...,
alpha-DCG@5,...,alpha-nDCG@5,...,NRBP,nNRBP,MAP-IA,P-IA@5,...,strec@5,strec@10,strec@20``, one
row per topic of the run and an ``amean`` row.  Options (before the two files, as ndeval reads
them)::

    -alpha A          redundancy intolerance of alpha-(n)DCG, (n)ERR-IA and (n)NRBP (default 0.5)
    -beta B           patience of (n)NRBP (default 0.5)
    -traditional      order by score, then docno descending (trec_eval's order), not by rank
    -c                average over every qrels topic
    -M DEPTH          evaluate the first DEPTH documents of each topic
    -baseline FILE    risk-sensitive values relative to a baseline run; the run id then reads
                      "RUN (rel to. BASE; rs=1+a; a=R)"
    -riskAlpha R      weight 1 + R of a loss against the baseline (default 0)
    -help, -h, --help, -version, --version

QRELS lines are ``topic subtopic docno judgment`` (any judgment above 0 counts as 1, a subtopic
without a relevant document is dropped); RUN lines ``topic Q0 docno rank score runid`` (a topic
may carry a task prefix ending in ``-``, as ``wt09-5``).  Fields after the fourth of a qrels line
and after the sixth of a run line are ignored, as ndeval ignores them.  Numbers are read as
ndeval's ``sscanf`` reads them (:mod:`searchgrade.io.cnumbers`): ``-alpha 0x1p-1`` is 0.5, ``0.5x``
is 0.5 and ``-riskAlpha inf`` is infinite, and so are the scores under ``-traditional`` (``0x10``
is 16, ``1e`` is 1, ``1_000`` is 1).  Every value is computed by the measure registry's diversity
kernels, those ``sg.evaluate`` calls, on the ranking ndeval makes: with ``-traditional`` the
per-topic values are ``sg.evaluate``'s (ties="trec") for ``ERR_IA@5``, ``alpha_nDCG@20``, ``NRBP``,
``AP_IA``, ``StRecall@10`` and the others (:func:`searchgrade.cli.ndeval.measures` lists them).
The run is read a block of lines at a time and each block's complete topics are scored as they
come, so the memory held is a block, the longest topic and 21 numbers a topic (a run whose topics
are not grouped is read again, whole); the output is printed once the files are read.

A topic of the run without judgments prints zeros and is not counted in the mean (as in
ndeval).  What ndeval refuses is refused here as one line on standard error naming the file and
line, with status 1: a line with too few fields, a non-numeric topic, subtopic or rank, a
negative judgment, a rank or (within ``-M``) a document given twice for one topic, an empty file.
Where ndeval reads something it cannot mean, searchgrade refuses it too; these are its only
differences from ndeval:

* a value of ``-alpha``, ``-beta``, ``-riskAlpha`` or ``-M`` that ``sscanf`` reads nothing of
  (``abc``, ``0x``, ``infinit``: ndeval keeps the default) or reads as NaN (ndeval then prints
  ``nan`` for every value that uses it);
* under ``-traditional``, a score ``sscanf`` reads nothing of (``abc``, fullwidth digits: ndeval
  orders by an uninitialised value) or reads as NaN (ndeval's order is then its qsort's accident);
* a document judged twice for one subtopic (ndeval's result then depends on its qsort);
* a NUL character, as the trec_eval command refuses it: a C string ends there, so ndeval reads
  the line cut short (and its line reader loses the next line);
* a carriage return followed by more fields on its line (CR-only line ends): ndeval reads the
  whole file as one line and keeps its first record;
* blank and ``#`` lines in the qrels are skipped (ndeval refuses them), and ``-h``, ``--help``
  and ``--version`` are read as ``-help`` and ``-version`` (ndeval's ``-help`` prints nothing;
  here it prints the usage and this text).
"""
from __future__ import annotations

import sys

from .cli.ndeval import UsageError, measures, run_ndeval, topic_values
from .cli.ndeval import main as _main

__all__ = ["main", "run_ndeval", "measures", "topic_values", "UsageError"]


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point (``searchgrade ndeval``, ``python -m searchgrade.ndeval``); the exit status."""
    return _main(argv, help_text=__doc__ or "")


if __name__ == "__main__":
    sys.exit(main())
