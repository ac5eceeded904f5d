"""``searchgrade report``: one self-contained HTML page with chapter 5's analyses for a folder of runs.

::

    searchgrade runs   --lineup my.toml --collection path/to/beir --out runs/mine
    searchgrade report --collection path/to/beir --runs runs/mine --out report.html
    searchgrade report --qrels qrels.txt --lang en --out page.html bm25.run splade.run   # any system's runs

(the command line is :mod:`searchgrade.cli.report`, plain run files are read by :mod:`.files`).

The page, in Korean (the book's language) or in English (``lang="en"``, :mod:`.text`), holds
for every run of the folder (in line-up order, :func:`searchgrade.io.runfolder.read_runs`):

1. the collection and the line-up, from the runs' own records;
2. the main table (:func:`searchgrade.report.analyses.main_table` means, equal to
   :func:`searchgrade.mean`'s: a query without results is left out of a run's means, as trec_eval
   does, or scores 0 with ``missing="zero"``, the command's ``-c``; the page says which)
   with significance markers against the best run on ``primary``:
   :func:`searchgrade.comparison.compare` with ``baseline=``, the paired permutation test and
   Holm's correction within each measure, and the differences from the best with their p-values;
3. the P@10 ceiling (:func:`~searchgrade.report.analyses.precision_ceiling`);
4. rank flips between measures (:func:`~searchgrade.report.analyses.rank_flips`) and which of them
   survive the test of both differences (:func:`searchgrade.report.analyses.check_flips`);
5. the per-query distribution of ``primary`` (:func:`~searchgrade.report.analyses.score_distribution`)
   as a table and inline SVG histograms;
6. for each second-stage run (its record says ``second_stage``, e.g. ``rerank``) whose first stage
   is in the folder, the second-stage ceiling
   (:func:`~searchgrade.report.analyses.candidate_ceiling`) and what the reordering changed;
7. the per-query viewer (:func:`searchgrade.report.viewer.query_viewer`) over one to three runs and
   every judged query, with a search box and groups of queries where the runs differ (a seeded draw).

It lives in :mod:`searchgrade.report`, which imports neither :mod:`searchgrade.book`, nor
:mod:`searchgrade.retrieval`, nor matplotlib (the book imports it: its chapter 5 tables and viewer
are this package's). A page from plain run files needs the core only (the ``report`` extra adds a
progress bar); the Korean web font embedded in the page is NanumGothic, the TTF that
koreanize-matplotlib ships (read as a file), converted with fontTools and brotli: the ``book`` extra (without it the command leaves the font out and says so).
The page needs no server and no network: inline CSS, the font and the viewer's script inline,
inline SVG. The same inputs give the same page (seeded tests, no time stamp).
"""
from __future__ import annotations

import os
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path

from .. import stats
from ..collections import Collection, collection_hash, dropped_note, load_collection, with_queries
from ..places import cache_root
from ..io.runfolder import QUERIES_RECORD, read_runs
from ..io.types import RunLike as Run
from .data import MEASURES, prepare
from .html import esc, page
from .sections import SECTIONS, baseline_section, viewer_section

__all__ = ["build_report", "write_report", "write_page", "check_out"]


# --------------------------------------------------------------------------- the page


def build_report(collection: Collection, runs: Mapping[str, Run], infos: Mapping[str, dict | None] | None = None, *,
                 measures: Sequence[str] = MEASURES, primary: str | None = None, viewer: Sequence[str] | None = None,
                 title: str | None = None, source: str = "", n_perm: int = 10_000, seed: int = stats.DEFAULT_SEED,
                 alpha: float = 0.05, progress: bool = False, font: bool = True,
                 font_cache: str | os.PathLike | None = None, baseline: tuple | None = None,
                 missing: str = "ignore", lang: str = "ko") -> str:
    """The report page (HTML text) for runs ``{name: run}`` on a collection, with their records where there are any.

    ``font`` embeds the Korean web font (:mod:`.webfont`; converted once into ``font_cache``, default
    ``$SEARCHGRADE_CACHE/webfont``), so that the page reads the same without Korean system fonts.
    ``baseline`` = (label, collection, runs): the same line-up on another set of the collection's
    queries (same corpus and judgments), compared run by run on the queries both sets hold.
    ``missing``: a query a run has no result for is left out of its means (``"ignore"``, the default
    of :func:`searchgrade.evaluate` and trec_eval) or scores 0 (``"zero"``, trec_eval ``-c``); the page
    states which. ``lang``: the page's own words, ``"ko"`` (default) or ``"en"`` (:mod:`.text`).
    """
    from .. import __version__

    d = prepare(collection, runs, infos, measures, primary, n_perm, seed, alpha, missing, lang)
    steps = [*[lambda f=f: f(d) for f in SECTIONS], lambda: baseline_section(d, baseline),
             lambda: viewer_section(d, viewer)]
    sections = [step() for step in _progress(steps, progress)]
    title = title or d.t("title", name=collection.name)
    plain = "_plain" if collection.meta.get("plain_runs") else ""   # a qrels file alone: judgments, not a collection
    lead = d.t("lead" + plain, name=esc(collection.name), queries=len(collection.queries), runs=len(d.runs))
    footer = (d.t("footer" + plain, version=esc(__version__), name=esc(collection.name),
                  hash=collection_hash(collection)[:16])
              + (d.t("footer_source", source=esc(source)) if source else "") + d.t("footer_end"))
    if font:
        from .webfont import licence_html

        footer += licence_html(lang)
    return page(title, lead, [s for s in sections if s], footer, _font_css(font, font_cache), lang)


def _progress(steps: list, progress: bool):
    """The steps, under a tqdm progress bar where asked for and tqdm is installed (the ``report`` extra)."""
    if progress:
        try:
            from tqdm.auto import tqdm
        except ImportError:
            return steps
        return tqdm(steps, desc="report", unit="section", leave=False)
    return steps


def _font_css(font: bool, cache) -> str:
    """The embedded web font's stylesheet, or '' when ``font`` is False."""
    if not font:
        return ""
    from .webfont import embedded_css

    return embedded_css(Path(cache) if cache else cache_root() / "webfont")


def write_report(collection, runs_dir: str | os.PathLike, out: str | os.PathLike, *,
                 retrievers: Sequence[str] | None = None, split: str | None = None,
                 queries: str | os.PathLike | None = None, baseline: str | os.PathLike | None = None,
                 intersect: bool = False, **options) -> Path:
    """Read a folder of runs (checked against the collection), build the report and write it to ``out``.

    ``queries`` replaces the collection's queries (default: the file ``searchgrade runs --queries``
    recorded in the folder); ``baseline`` is a second folder of the same line-up on another set of the
    collection's queries (its own recorded file), compared query by query. What ``intersect`` drops
    from a folder's judgments is said in a warning.
    """
    base = load_collection(collection, split, intersect)
    note = dropped_note(base) if intersect else ""
    if note:
        warnings.warn(note, stacklevel=2)
    coll = _queried(base, runs_dir, queries)
    folder = read_runs(runs_dir, collection_hash(coll), retrievers, collection_name=coll.name)
    if baseline is not None:
        queried = _queried(base, baseline, None)
        other = read_runs(baseline, collection_hash(queried), collection_name=queried.name)
        options["baseline"] = (Path(baseline).name, queried, other.runs)
    text = build_report(coll, folder.runs, folder.infos, source=str(runs_dir), **options)
    return write_page(text, out)


def check_out(out: str | os.PathLike) -> Path:
    """The page's path, refused (ValueError) when it names a folder: checked before any work is done."""
    out = Path(out)
    if out.is_dir():
        raise ValueError(f"--out {out}: is a folder; give the HTML file to write (e.g. {out / 'report.html'})")
    return out


def write_page(text: str, out: str | os.PathLike) -> Path:
    """Write the page to ``out`` through a temporary file beside it, removed again if anything fails."""
    out = check_out(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + f".tmp{os.getpid()}")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, out)
    except OSError as err:
        raise ValueError(f"--out {out}: cannot write the page ({err.strerror or err})") from None
    finally:
        tmp.unlink(missing_ok=True)
    return out


def _queried(coll: Collection, folder, queries) -> Collection:
    """The collection with the queries a folder's runs were made on: ``queries``, else its recorded file."""
    import json

    record = Path(folder) / QUERIES_RECORD
    if queries is None and record.is_file():
        queries = json.loads(record.read_text(encoding="utf-8"))["file"]
    return with_queries(coll, queries) if queries is not None else coll
