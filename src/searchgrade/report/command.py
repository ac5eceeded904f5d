"""The command ``searchgrade report``: its options, its two forms, and its one-line errors.

::

    searchgrade report --collection NAME_OR_FOLDER --runs DIR --out report.html      # `searchgrade runs`' folder
    searchgrade report --qrels QRELS [--collection DIR] [--lang en|ko] [-c] --out page.html RUN [RUN ...]

The second form takes plain TREC run files from any system (:mod:`.files`: names, skipped queries,
the optional collection). ``-c`` scores a query without results 0 (trec_eval's ``-c``); without it the
query is left out of that run's means, as :func:`searchgrade.mean` does. Bad input gives exit status
2 and one ``error:`` line naming the file or the option, never a traceback, and leaves no file behind.
"""
from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Sequence

from .. import stats
from .data import MEASURES, PRIMARY
from .files import NAME_RULES, plain_collection, read_run_files
from .text import LANGS

__all__ = ["main"]

_FONT_EPILOG = ("The web font, converted once, is cached in $SEARCHGRADE_CACHE/webfont if $SEARCHGRADE_CACHE is "
                "set, else in $XDG_CACHE_HOME/searchgrade/webfont (default ~/.cache/searchgrade/webfont). Runs are "
                "named by their file names without the extension (bm25.run.gz: bm25), or by their run ids with "
                "--names runid.")


def _parser() -> argparse.ArgumentParser:
    """The options of ``searchgrade report`` (both forms)."""
    p = argparse.ArgumentParser(prog="searchgrade report", epilog=_FONT_EPILOG,
                                usage="%(prog)s --collection NAME_OR_FOLDER --runs DIR --out report.html [options]\n"
                                      "       %(prog)s --qrels QRELS [--collection DIR] [--lang en|ko] [-c] "
                                      "--out page.html RUN [RUN ...]",
                                description="One self-contained HTML page comparing runs (chapter 5's analyses): a "
                                            "folder that `searchgrade runs` wrote, or plain TREC run files.")
    p.add_argument("run_files", nargs="*", metavar="RUN", help="plain TREC run files (instead of --runs)")
    p.add_argument("--qrels", default=None, help="the judgments (TREC qrels; .gz too) of the run files")
    p.add_argument("--collection", default=None,
                   help="a collection name, beir:<folder> or a BEIR folder; optional with run files (without it "
                        "the viewer shows ids)")
    p.add_argument("--runs", default=None, help="the folder `searchgrade runs` wrote")
    p.add_argument("--out", required=True, help="the HTML file to write")
    p.add_argument("--lang", default="ko", choices=LANGS, help="the page's language (default: %(default)s)")
    p.add_argument("-c", dest="complete", action="store_true",
                   help="score a query without results 0 on every measure (trec_eval -c); by default it is left "
                        "out of that run's means, as trec_eval and searchgrade.evaluate do")
    p.add_argument("--names", default="file", choices=NAME_RULES,
                   help="name run files by file name (default) or by run id")
    p.add_argument("--split", default=None, help="qrels split of a BEIR folder (default: test)")
    p.add_argument("--retrievers", default=None, help="comma-separated runs of --runs to include (default: all)")
    p.add_argument("--intersect", action="store_true",
                   help="drop (and say) qrels lines naming queries or documents the folder lacks, as "
                        "`searchgrade runs --intersect` did")
    p.add_argument("--queries", default=None, metavar="FILE.jsonl",
                   help="the queries the runs were made on (default: the file `searchgrade runs --queries` "
                        "recorded in the folder, else the collection's)")
    p.add_argument("--baseline", default=None, metavar="DIR",
                   help="a second folder of the same line-up on another set of the collection's queries: each run "
                        "is compared with its namesake there, paired per query")
    p.add_argument("--measures", default=",".join(MEASURES),
                   help="comma-separated, in any spelling searchgrade reads (nDCG@10, ndcg_cut_10, MRR@10, "
                        "recip_rank, ...), printed as written (default: %(default)s)")
    p.add_argument("--primary", default=None,
                   help="picks the baseline and the distribution; any spelling of one of the measures "
                        f"(default: {PRIMARY} if among them, else the first measure)")
    p.add_argument("--viewer", default=None,
                   help="one to three comma-separated runs for the per-query viewer (default: the best three)")
    p.add_argument("--title", default=None)
    p.add_argument("--n-perm", type=int, default=10_000, help="permutations per test (default: %(default)s)")
    p.add_argument("--seed", type=int, default=stats.DEFAULT_SEED, help="seed of tests and draws (default: %(default)s)")
    p.add_argument("--alpha", type=float, default=0.05)
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--no-font", action="store_true",
                   help="do not embed the Korean web font (NanumGothic, about 2.3 MB; it needs the book extra): "
                        "the page is then readable only where a Korean system font is installed")
    return p


def _names(text: str | None, option: str) -> list[str] | None:
    """A comma-separated option as a list (None when not given); one that names nothing is refused."""
    if text is None:
        return None
    names = [t.strip() for t in text.split(",") if t.strip()]
    if not names:
        raise ValueError(f"{option} {text!r} names nothing: give comma-separated names, or leave the option out")
    return names


def _font(args) -> bool:
    """Embed the web font? Not with --no-font; not (said on stderr) where the book extra's font tools are missing."""
    if args.no_font:
        return False
    from .webfont import available

    missing = available()
    if missing:
        print(f"note: the Korean web font is not embedded ({missing}; the `book` extra installs it): the page uses "
              "the reader's fonts", file=sys.stderr)
        return False
    return True


def _options(args) -> dict:
    """The page's options shared by both forms."""
    return dict(measures=_names(args.measures, "--measures"), primary=args.primary,
                viewer=_names(args.viewer, "--viewer"), title=args.title, n_perm=args.n_perm, seed=args.seed,
                alpha=args.alpha, progress=not args.quiet, missing="zero" if args.complete else "ignore",
                lang=args.lang)


def _from_files(args, options: dict):
    """The second form: plain run files, judgments, an optional collection."""
    from .page import build_report, write_page

    if args.runs or args.retrievers or args.baseline or args.queries or args.intersect:
        raise ValueError("run files are given: --runs, --retrievers, --baseline, --queries and --intersect are for "
                         "a folder of `searchgrade runs`; give one or the other")
    collection = None
    if args.collection:
        from ..retrieval.sources import load_collection

        collection = load_collection(args.collection, args.split)
    coll = plain_collection(args.qrels, collection)
    runs, skipped = read_run_files(args.run_files, coll.qrels, args.names)
    for name, n in skipped.items():
        if n:
            print(f"note: {name}: {n:,} run quer{'y is' if n == 1 else 'ies are'} not in the judgments and "
                  f"{'was' if n == 1 else 'were'} skipped", file=sys.stderr)
    coll.meta["skipped_run_queries"] = skipped
    text = build_report(coll, runs, source=", ".join(args.run_files), **options)
    return write_page(text, args.out)


def _from_folder(args, options: dict):
    """The first form: a folder of `searchgrade runs` on a collection."""
    from ..retrieval.cache import user_cache
    from .page import write_report

    if not args.collection or not args.runs:
        raise ValueError("give --runs DIR with --collection, or plain run files with --qrels (see --help)")
    if args.qrels:
        raise ValueError("--qrels is for plain run files; a folder of `searchgrade runs` is scored on its "
                         "collection's judgments")
    with user_cache():
        return write_report(args.collection, args.runs, args.out, retrievers=_names(args.retrievers, "--retrievers"),
                            split=args.split, queries=args.queries, baseline=args.baseline,
                            intersect=args.intersect, **options)


def main(argv: Sequence[str] | None = None) -> int:
    """``searchgrade report``: write the HTML page; 2 and one ``error:`` line on bad input."""
    from ..io import FormatError
    from .page import check_out

    args = _parser().parse_args(argv)
    with warnings.catch_warnings():
        warnings.showwarning = _warning_to_stderr
        try:
            check_out(args.out)
            options = dict(_options(args), font=_font(args))
            out = _from_files(args, options) if args.run_files else _from_folder(args, options)
        except (FormatError, ValueError, FileNotFoundError, IsADirectoryError, RuntimeError, ImportError,
                KeyError) as err:
            print(f"error: {_one_line(err)}", file=sys.stderr)
            return 2
    print(f"wrote {out} ({out.stat().st_size:,} bytes)")
    return 0


def _one_line(err: BaseException) -> str:
    """An exception as one line (a KeyError's message without its quotes)."""
    text = err.args[0] if isinstance(err, KeyError) and err.args else str(err)
    return " ".join(str(text).split())


def _warning_to_stderr(message, category, filename, lineno, file=None, line=None) -> None:
    """A reader's warning (skipped lines, ids that match only as text) as one ``warning:`` line."""
    print(f"warning: {message}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
