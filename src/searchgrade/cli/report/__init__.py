"""The command ``searchgrade report``: its two forms and its one-line errors (the page is :mod:`searchgrade.report`).

::

    searchgrade report --collection NAME_OR_FOLDER --runs DIR --out report.html      # `searchgrade runs`' folder
    searchgrade report --qrels QRELS [--collection DIR] [--lang en|ko] [-c] --out page.html RUN [RUN ...]

The second form takes plain TREC run files from any system (:mod:`searchgrade.report.files`: names,
skipped queries, the optional collection). ``-c`` scores a query without results 0 (trec_eval's
``-c``); without it the query is left out of that run's means, as :func:`searchgrade.mean` does. Bad
input gives exit status 2 and one ``error:`` line naming the file or the option, never a traceback,
and leaves no file behind. A page compares at most :data:`searchgrade.report.data.MAX_RUNS` runs
(counted before a file is read), and its work grows linearly with them
(:data:`searchgrade.report.data.ALL_PAIRS`). The options are in :mod:`.args` (those shared with
``searchgrade runs`` in :mod:`searchgrade.cli.options`); :mod:`searchgrade.report` is imported when the
command runs.
"""
from __future__ import annotations

import sys
import warnings
from collections.abc import Sequence

from ...places import user_cache
from .. import options
from .args import parser

__all__ = ["main"]


def _font(args) -> bool:
    """Embed the web font? Not with --no-font; not where the book extra's font tools are missing (said on stderr
    for a Korean page; an English page says nothing of a Korean font)."""
    if args.no_font:
        return False
    from ...report.webfont import available

    missing = available()
    if missing and args.lang == "ko":
        print(f"note: the Korean web font is not embedded ({missing}; the `book` extra installs it): the page uses "
              "the reader's fonts", file=sys.stderr)
    return not missing


def _options(args) -> dict:
    """The page's options shared by both forms."""
    return dict(measures=options.names(args.measures, "--measures"), primary=args.primary,
                viewer=options.names(args.viewer, "--viewer"), title=args.title, n_perm=args.n_perm, seed=args.seed,
                alpha=args.alpha, progress=not args.quiet, missing="zero" if args.complete else "ignore",
                lang=args.lang)


def _from_files(args, page_options: dict):
    """The second form: plain run files, judgments, an optional collection."""
    from ...collections import load_collection
    from ...report.data import check_run_count
    from ...report.files import plain_collection, read_run_files
    from ...report.page import build_report, write_page

    check_run_count(len(args.run_files))   # before reading them
    if args.runs or args.retrievers or args.baseline or args.queries or args.intersect:
        raise ValueError("run files are given: --runs, --retrievers, --baseline, --queries and --intersect are for "
                         "a folder of `searchgrade runs`; give one or the other")
    collection = load_collection(args.collection, args.split) if args.collection else None
    coll = plain_collection(args.qrels, collection)
    runs, skipped = read_run_files(args.run_files, coll.qrels, args.names)
    for name, n in skipped.items():
        if n:
            print(f"note: {name}: {n:,} run quer{'y is' if n == 1 else 'ies are'} not in the judgments and "
                  f"{'was' if n == 1 else 'were'} skipped", file=sys.stderr)
    coll.meta["skipped_run_queries"] = skipped
    text = build_report(coll, runs, source=", ".join(args.run_files), **page_options)
    return write_page(text, args.out)


def _from_folder(args, page_options: dict):
    """The first form: a folder of `searchgrade runs` on a collection."""
    from ...collections import load_collection
    from ...report import write_report

    if not args.collection or not args.runs:
        raise ValueError("give --runs DIR with --collection, or plain run files with --qrels (see --help)")
    if args.qrels:
        raise ValueError("--qrels is for plain run files; a folder of `searchgrade runs` is scored on its "
                         "collection's judgments")
    with user_cache():
        coll = load_collection(args.collection, args.split, args.intersect)
        options.say_dropped(coll)
        return write_report(coll, args.runs, args.out, retrievers=options.names(args.retrievers, "--retrievers"),
                            queries=args.queries, baseline=args.baseline, **page_options)


def main(argv: Sequence[str] | None = None) -> int:
    """``searchgrade report``: write the HTML page; 2 and one ``error:`` line on bad input."""
    from ...report.page import check_out

    args = parser().parse_args(argv)
    with warnings.catch_warnings():
        warnings.showwarning = _warning_to_stderr
        try:
            check_out(args.out)
            page_options = dict(_options(args), font=_font(args))
            out = _from_files(args, page_options) if args.run_files else _from_folder(args, page_options)
        except (*options.BAD_INPUT, KeyError) as err:
            return options.fail(err)
    print(f"wrote {out} ({out.stat().st_size:,} bytes)")
    return 0


def _warning_to_stderr(message, category, filename, lineno, file=None, line=None) -> None:
    """A reader's warning (skipped lines, ids that match only as text) as one ``warning:`` line."""
    print(f"warning: {message}", file=sys.stderr)

