"""The options of ``searchgrade report``, both forms (those it shares with ``searchgrade runs`` come from :mod:`..options`)."""
from __future__ import annotations

import argparse

from ... import stats
from .. import options

__all__ = ["parser", "EPILOG"]

EPILOG = options.CACHE_HELP.format(what="The web font (converted once, in webfont/) and converted collections are") + (
    " Runs are named by their file names without the extension (bm25.run.gz: bm25), or by their run ids with "
    "--names runid.")

USAGE = ("%(prog)s --collection NAME_OR_FOLDER --runs DIR --out report.html [options]\n"
         "       %(prog)s --qrels QRELS [--collection DIR] [--lang en|ko] [-c] --out page.html RUN [RUN ...]")


def parser() -> argparse.ArgumentParser:
    """The options of ``searchgrade report`` (both forms); the measures' defaults come from :mod:`searchgrade.report`."""
    from ...report import MEASURES, PRIMARY
    from ...report.files import NAME_RULES
    from ...report.text import LANGS

    p = argparse.ArgumentParser(prog="searchgrade report", epilog=EPILOG, usage=USAGE,
                                description="One self-contained HTML page comparing runs (chapter 5's analyses): a "
                                            "folder that `searchgrade runs` wrote, or plain TREC run files.")
    p.add_argument("run_files", nargs="*", metavar="RUN", help="plain TREC run files (instead of --runs)")
    p.add_argument("--qrels", default=None, help="the judgments (TREC qrels; .gz too) of the run files")
    options.add_collection(p, "; optional with run files (without it the viewer shows ids)")
    p.add_argument("--runs", default=None, help="the folder `searchgrade runs` wrote")
    p.add_argument("--out", required=True, help="the HTML file to write")
    p.add_argument("--lang", default="ko", choices=LANGS, help="the page's language (default: %(default)s)")
    p.add_argument("-c", dest="complete", action="store_true",
                   help="score a query without results 0 on every measure (trec_eval -c); by default it is left "
                        "out of that run's means, as trec_eval and searchgrade.evaluate do")
    p.add_argument("--names", default="file", choices=NAME_RULES,
                   help="name run files by file name (default) or by run id")
    options.add_retrievers(p, "runs of --runs to include (default: all)")
    options.add_queries(p, "the queries the runs were made on (default: the file `searchgrade runs --queries` "
                           "recorded in the folder, else the collection's)")
    p.add_argument("--baseline", default=None, metavar="DIR",
                   help="a second folder of the same line-up on another set of the collection's queries: each run "
                        "is compared with its namesake there, paired per query")
    _page_options(p, MEASURES, PRIMARY)
    return p


def _page_options(p: argparse.ArgumentParser, measures, primary) -> None:
    """The page's own options: measures, primary, viewer, title, tests, progress bar, font."""
    p.add_argument("--measures", default=",".join(measures),
                   help="comma-separated, in any spelling searchgrade reads (nDCG@10, ndcg_cut_10, MRR@10, "
                        "recip_rank, ...), printed as written (default: %(default)s)")
    p.add_argument("--primary", default=None,
                   help="picks the baseline and the distribution; any spelling of one of the measures "
                        f"(default: {primary} if among them, else the first measure)")
    p.add_argument("--viewer", default=None,
                   help="one to three comma-separated runs for the per-query viewer (default: the best three)")
    p.add_argument("--title", default=None)
    p.add_argument("--n-perm", type=int, default=10_000, help="permutations per test (default: %(default)s)")
    p.add_argument("--seed", type=int, default=stats.DEFAULT_SEED, help="seed of tests and draws (default: %(default)s)")
    p.add_argument("--alpha", type=float, default=0.05)
    options.add_quiet(p)
    p.add_argument("--no-font", action="store_true",
                   help="do not embed the Korean web font (NanumGothic, about 2.3 MB; it needs the book extra): "
                        "the page is then readable only where a Korean system font is installed")
