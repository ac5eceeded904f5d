"""``searchgrade report``: one self-contained HTML page with chapter 5's analyses for a folder of runs.

::

    searchgrade runs   --lineup my.toml --collection path/to/beir --out runs/mine
    searchgrade report --collection path/to/beir --runs runs/mine --out report.html

The page, in Korean (the book's language, which the per-query viewer it embeds also speaks), holds
for every run of the folder (in line-up order, :func:`searchgrade.retrieval.runfolder.read_runs`):

1. the collection and the line-up, from the runs' own records;
2. the main table (:func:`searchgrade.report.analyses.main_table` means, missing results scoring 0)
   with significance markers against the best run on ``primary``:
   :func:`searchgrade.comparison.compare` with ``baseline=``, the paired permutation test and
   Holm's correction within each measure, and the differences from the best with their p-values;
3. the P@10 ceiling (:func:`~searchgrade.report.analyses.precision_ceiling`);
4. rank flips between measures (:func:`~searchgrade.report.analyses.rank_flips`) and which of them
   survive the test of both differences (:func:`searchgrade.report.analyses.check_flips`);
5. the per-query distribution of ``primary`` (:func:`~searchgrade.report.analyses.score_distribution`)
   as a table and inline SVG histograms;
6. for each ``rerank`` run whose first stage is in the folder, the second-stage ceiling
   (:func:`~searchgrade.report.analyses.candidate_ceiling`) and what the reordering changed;
7. the per-query viewer (:func:`searchgrade.report.viewer.query_viewer`) over one to three runs and
   every judged query, with a search box and groups of queries where the runs differ (a seeded draw).

It lives in :mod:`searchgrade.report`, which imports neither :mod:`searchgrade.book` nor matplotlib
(the book imports it: its chapter 5 tables and viewer are this package's). Reading a folder of runs
needs the ``retrieval`` extra; the Korean web font embedded in the page is NanumGothic, the TTF that
koreanize-matplotlib ships (read as a file), converted with fontTools and brotli: the ``book`` extra.
The page needs no server and no network: inline CSS, the font and the viewer's script inline,
inline SVG. The same inputs give the same page (seeded tests, no time stamp).
"""
from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path


from .. import stats
from ..collections import Collection
from ..io.types import RunLike as Run
from .data import MEASURES, PRIMARY, STAGE_MEASURES, VIEWER_MEASURES, prepare  # noqa: F401  (STAGE/VIEWER re-exported)
from .html import esc, page
from .sections import SECTIONS, baseline_section, viewer_section

__all__ = ["MEASURES", "PRIMARY", "build_report", "write_report", "main"]


# --------------------------------------------------------------------------- the page


def build_report(collection: Collection, runs: Mapping[str, Run], infos: Mapping[str, dict | None] | None = None, *,
                 measures: Sequence[str] = MEASURES, primary: str | None = None, viewer: Sequence[str] | None = None,
                 title: str | None = None, source: str = "", n_perm: int = 10_000, seed: int = stats.DEFAULT_SEED,
                 alpha: float = 0.05, progress: bool = False, font: bool = True,
                 font_cache: str | os.PathLike | None = None, baseline: tuple | None = None) -> str:
    """The report page (HTML text) for runs ``{name: run}`` on a collection, with their records where there are any.

    ``font`` embeds the Korean web font (:mod:`.webfont`; converted once into ``font_cache``, default
    ``$SEARCHGRADE_CACHE/webfont``), so that the page reads the same without Korean system fonts.
    ``baseline`` = (label, collection, runs): the same line-up on another set of the collection's
    queries (same corpus and judgments), compared run by run on the queries both sets hold.
    """
    from tqdm.auto import tqdm

    from .. import __version__
    from ..retrieval.sources import collection_hash

    d = prepare(collection, runs, infos, measures, primary, n_perm, seed, alpha)
    steps = [*[lambda f=f: f(d) for f in SECTIONS], lambda: baseline_section(d, baseline),
             lambda: viewer_section(d, viewer)]
    sections = [step() for step in tqdm(steps, desc="report", unit="section", disable=not progress, leave=False)]
    title = title or f"검색기 비교: {collection.name}"
    lead = (f"컬렉션 {esc(collection.name)}의 질문 {len(collection.queries):,}개에서 검색기 {len(d.runs)}개를 "
            "<a href=\"#main-table\">본 결과표</a>, <a href=\"#ceiling\">천장</a>, <a href=\"#flips\">뒤집힘</a>, "
            "<a href=\"#distribution\">분포</a>, <a href=\"#viewer\">질문별 보기</a>로 비교한다.")
    footer = (f"searchgrade {esc(__version__)}로 만들었다. 컬렉션 {esc(collection.name)} (문서와 질문의 해시 "
              f"<code>{collection_hash(collection)[:16]}</code>)" + (f", 실행 결과 {esc(source)}" if source else "")
              + ". 같은 입력이면 같은 쪽이 나온다.")
    if font:
        from .webfont import licence_html

        footer += licence_html()
    return page(title, lead, [s for s in sections if s], footer, _font_css(font, font_cache))


def _font_css(font: bool, cache) -> str:
    """The embedded web font's stylesheet, or '' when ``font`` is False."""
    if not font:
        return ""
    from ..retrieval.dense import cache_root
    from .webfont import embedded_css

    return embedded_css(Path(cache) if cache else cache_root() / "webfont")


def write_report(collection, runs_dir: str | os.PathLike, out: str | os.PathLike, *,
                 retrievers: Sequence[str] | None = None, split: str | None = None,
                 queries: str | os.PathLike | None = None, baseline: str | os.PathLike | None = None,
                 intersect: bool = False, **options) -> Path:
    """Read a folder of runs (checked against the collection), build the report and write it to ``out``.

    ``queries`` replaces the collection's queries (default: the file ``searchgrade runs --queries``
    recorded in the folder); ``baseline`` is a second folder of the same line-up on another set of the
    collection's queries (its own recorded file), compared query by query.
    """
    from ..retrieval.runfolder import read_runs
    from ..retrieval.sources import load_collection

    from ..retrieval.command import say_dropped

    base = load_collection(collection, split, intersect)
    say_dropped(base)
    coll = _queried(base, runs_dir, queries)
    folder = read_runs(runs_dir, coll, retrievers)
    if baseline is not None:
        other = read_runs(baseline, _queried(base, baseline, None))
        options["baseline"] = (Path(baseline).name, _queried(base, baseline, None), other.runs)
    text = build_report(coll, folder.runs, folder.infos, source=str(runs_dir), **options)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + f".tmp{os.getpid()}")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, out)
    return out


def _queried(coll: Collection, folder, queries) -> Collection:
    """The collection with the queries a folder's runs were made on: ``queries``, else its recorded file."""
    import json

    from ..retrieval.sources import QUERIES_RECORD, with_queries

    record = Path(folder) / QUERIES_RECORD
    if queries is None and record.is_file():
        queries = json.loads(record.read_text(encoding="utf-8"))["file"]
    return with_queries(coll, queries) if queries is not None else coll


def _names(text: str | None) -> list[str] | None:
    """A comma-separated option as a list (None when not given)."""
    return [t.strip() for t in text.split(",") if t.strip()] if text else None


def main(argv: Sequence[str] | None = None) -> int:
    """``searchgrade report``: write the HTML report of a folder of runs; 2 on bad input."""
    from ..io import FormatError

    parser = argparse.ArgumentParser(prog="searchgrade report",
                                     description="One self-contained HTML page comparing a folder of runs (chapter 5's analyses).",
                                     epilog="The web font, converted once, is cached in $SEARCHGRADE_CACHE/webfont if "
                                            "$SEARCHGRADE_CACHE is set, else in $XDG_CACHE_HOME/searchgrade/webfont "
                                            "(default ~/.cache/searchgrade/webfont).")
    parser.add_argument("--collection", required=True, help="a collection name, beir:<folder> or a BEIR folder")
    parser.add_argument("--runs", required=True, help="the folder `searchgrade runs` wrote")
    parser.add_argument("--out", required=True, help="the HTML file to write")
    parser.add_argument("--split", default=None, help="qrels split of a BEIR folder (default: test)")
    parser.add_argument("--retrievers", default=None, help="comma-separated runs to include (default: all)")
    parser.add_argument("--intersect", action="store_true",
                        help="drop (and say) qrels lines naming queries or documents the folder lacks, as "
                             "`searchgrade runs --intersect` did")
    parser.add_argument("--queries", default=None, metavar="FILE.jsonl",
                        help="the queries the runs were made on (default: the file `searchgrade runs --queries` "
                             "recorded in the folder, else the collection's)")
    parser.add_argument("--baseline", default=None, metavar="DIR",
                        help="a second folder of the same line-up on another set of the collection's queries "
                             "(e.g. the original questions): each run is compared with its namesake there, "
                             "paired per query")
    parser.add_argument("--measures", default=",".join(MEASURES),
                        help="comma-separated, in any spelling searchgrade reads (nDCG@10, ndcg_cut_10, MRR@10, "
                             "recip_rank, ...), printed as written (default: %(default)s)")
    parser.add_argument("--primary", default=None,
                        help="picks the baseline and the distribution; any spelling of one of the measures "
                             f"(default: {PRIMARY} if among them, else the first measure)")
    parser.add_argument("--viewer", default=None,
                        help="one to three comma-separated runs for the per-query viewer (default: the best three)")
    parser.add_argument("--title", default=None)
    parser.add_argument("--n-perm", type=int, default=10_000, help="permutations per test (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=stats.DEFAULT_SEED, help="seed of tests and draws (default: %(default)s)")
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--no-font", action="store_true",
                        help="do not embed the Korean web font (NanumGothic, about 2.3 MB): the page is then "
                             "readable only where a Korean system font is installed")
    args = parser.parse_args(argv)
    try:
        from ..retrieval.cache import user_cache

        with user_cache():
            out = write_report(args.collection, args.runs, args.out, retrievers=_names(args.retrievers),
                               split=args.split, queries=args.queries, baseline=args.baseline,
                               intersect=args.intersect, measures=_names(args.measures), primary=args.primary,
                               viewer=_names(args.viewer), title=args.title, n_perm=args.n_perm, seed=args.seed,
                               alpha=args.alpha, progress=not args.quiet, font=not args.no_font)
    except (FormatError, ValueError, FileNotFoundError, RuntimeError, ImportError, KeyError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(f"wrote {out} ({out.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
