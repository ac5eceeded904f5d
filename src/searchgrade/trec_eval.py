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
    --stream_info searchgrade's own (no trec_eval option starts so): say on standard
                  error how the run was read (one pass, or spilled, and why)
    QRELS, RUN    files, read by searchgrade.io (``-`` for standard input, ``#`` comment
                  lines, fields after the run id ignored: see its docstring); what the
                  readers skip or ignore is reported on standard error

The run is read in memory bounded by the qrels and a part of the run, never by the whole run
(:mod:`searchgrade.io.stream`).  A run grouped by query (each query's lines together, the queries
in any order: Anserini's, Pyserini's and trec_eval's own files) is read in one pass, about 4 MB at a
time; a run that is not grouped is found out at the first query that comes back, then read again
from its start and spilled to temporary files by query (in the system's temporary folder, ``TMPDIR``;
they take about the run's size on disk while the command runs), each file read back as whole
queries; standard input is copied to a temporary file as it is read, so that it can be read again.
Each query's values (a number per measure) are held to the end of the run (in a temporary file past
8 MB), since trec_eval prints the queries in its own order (query ids compared as text) whatever the
file's order; nothing is printed before the last line is read, so that a bad line stops the command
before its output starts, as trec_eval does.  ``--stream_info`` says which way a run went.

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
* ``relstring.x`` with x at or beyond 2**63 (``relstring.1e19``): 10.0 converts the double to a
  long, which is undefined behaviour (x86-64 gives LONG_MIN, and it prints ``''``);
  searchgrade saturates at 2**63 - 1, as its atol does for cut-offs, and prints the whole string.

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
Gains per grade (``ndcg.1=3``, ``ndcg_rel``, ``Rndcg`` and ``G`` with parameters) on qrels with a
grade above 65536 are refused too, though 10.0 evaluates them: its setup_gains keeps an entry for
every grade from 0 to the largest, and searchgrade's reproduction of its walk stops there.

Not supported: preferences and other input formats (``-R``, ``-T``), z-scores (``-Z``),
debug output (``-D``, which in trec_eval 10.0 prints to standard output and, as ``-D n.qid``, evaluates
one query only: ``--stream_info`` is searchgrade's word on the reading instead), and the measures ``dcg`` and ``ideal_dcg`` (which 10.0 computes as
ndcg), ``ndcg_p``, ``yaap`` and the ``prefs``/``avgjg`` families.
"""
from __future__ import annotations

import sys

from .cli.trec_eval import UsageError, output, run_trec_eval
from .cli.trec_eval import main as _main

__all__ = ["main", "run_trec_eval", "UsageError", "output"]


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point (``searchgrade-trec-eval``, ``python -m searchgrade.trec_eval``); the exit status."""
    return _main(argv, help_text=__doc__ or "")


if __name__ == "__main__":
    sys.exit(main())
