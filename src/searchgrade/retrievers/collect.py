"""Any retriever to a run: :func:`retrieve` asks it every query and keeps its order; :func:`evaluate_retriever`.

How the run is made, query by query:

* the first ``k`` results are read (:mod:`.results`), in the retriever's order;
* a repeated id keeps its first rank; later copies are dropped and counted in one warning;
* scores: when every result has a score and the scores strictly decrease down the list, they are
  kept. Otherwise (no scores, a tie, or scores that rise somewhere, as distances do) the ``n``
  results score ``n, n - 1, ..., 1`` from the top, so that trec_eval's tie-break (score, then
  document id descending) cannot reorder the list; queries whose given scores rose somewhere
  are counted in a warning. The retriever's order is the run's order in every case;
* a query with no results stays in the run with no documents: it scores 0 on every measure, as
  :func:`searchgrade.evaluate` scores an empty ranking, and it is listed in a warning;
* ids are strings; integer ids are written in decimal (``7`` becomes ``"7"``). A run whose ids
  mix strings and integers is refused (``"7"`` and ``7`` would be one document to the qrels).

An exception raised by the retriever becomes a :class:`RetrieverError` naming the query (the
original is chained as its ``__cause__``); ``on_error="skip"`` leaves such queries out of the run
instead and lists them in a warning. ``workers=n`` calls the retriever from ``n`` threads (for
retrievers that wait on a network); results are taken in the queries' order, so the run, the
warnings and the error raised are the same for any number of workers. A progress bar is shown
on standard error when tqdm is installed (``progress=False`` hides it).
"""
from __future__ import annotations

import os
import warnings
from contextlib import closing
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor

from ..io import write_run
from ..io.errors import shown
from ..metrics import evaluate
from .adapters import Caller, caller
from .queries import read_queries
from .results import Hit, read_hits

__all__ = ["retrieve", "evaluate_retriever", "RetrieverError", "RetrieverWarning", "ON_ERROR"]

#: What :func:`retrieve` does when the retriever raises: re-raise as RetrieverError, or skip the query.
ON_ERROR = ("raise", "skip")
_SHOWN = 5
_KINDS = {str: ("a string", "strings"), int: ("an integer", "integers")}


class RetrieverError(RuntimeError):
    """The retriever raised on a query; ``qids`` names the query (or the batch), ``__cause__`` is the original."""

    def __init__(self, qids: Sequence[str], text: str, cause: BaseException):
        self.qids = list(qids)
        which = (f"query {qids[0]!r} ({shown(text)})" if len(qids) == 1
                 else f"the batch of {len(qids)} queries from {qids[0]!r}")
        super().__init__(f"the retriever failed on {which}: {type(cause).__name__}: {cause}")


class RetrieverWarning(UserWarning):
    """Something :func:`retrieve` changed or left out: duplicates, empty results, re-scored or skipped queries."""


def _examples(values: Sequence) -> str:
    shown_ = ", ".join(repr(v) for v in values[:_SHOWN])
    return shown_ + (", ..." if len(values) > _SHOWN else "")


def _check_options(k, batch, workers, on_error) -> None:
    """Refuse k, batch, workers or on_error out of range before anything is retrieved."""
    if k is not None and (isinstance(k, bool) or not isinstance(k, int) or k < 1):
        raise ValueError(f"k must be a positive integer (or None for every result), got {k!r}")
    if batch is not None and (isinstance(batch, bool) or not isinstance(batch, int) or batch < 1):
        raise ValueError(f"batch must be a positive integer (queries per call) or None, got {batch!r}")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a positive integer, got {workers!r}")
    if on_error not in ON_ERROR:
        raise ValueError(f"on_error must be 'raise' or 'skip', got {on_error!r}")


class _RunBuilder:
    """Collects one query's hits after another into the run, the texts and the counts the warnings report."""

    def __init__(self, k, id_key, score_key):
        self.k, self.id_key, self.score_key = k, id_key, score_key
        self.run: dict[str, dict[str, float]] = {}
        self.texts: dict[str, dict[str, str | None]] = {}
        self.id_type: tuple[type, str] | None = None
        self.duplicates: dict[str, int] = {}
        self.empty: list[str] = []
        self.rescored: list[str] = []
        self.skipped: list[str] = []
        self.first_error: BaseException | None = None

    def add(self, qid: str, result) -> None:
        hits = self._distinct(qid, read_hits(result, qid, self.k, self.id_key, self.score_key))
        if not hits:
            self.empty.append(qid)
        self.run[qid] = dict(zip((str(h.id) for h in hits), self._scores(qid, hits)))
        self.texts[qid] = {str(h.id): h.text for h in hits}

    def skip(self, qids: Sequence[str], error: BaseException) -> None:
        self.skipped.extend(qids)
        self.first_error = self.first_error or error

    def _distinct(self, qid: str, hits: list[Hit]) -> list[Hit]:
        """The hits with one id type over the whole run, each id once (its first rank)."""
        seen: dict[str, Hit] = {}
        for rank, hit in enumerate(hits, 1):
            kind = str if isinstance(hit.id, str) else int
            if self.id_type is None:
                self.id_type = (kind, qid)
            elif kind is not self.id_type[0]:
                raise TypeError(f"query {qid!r}, rank {rank}: id {hit.id!r} is {_KINDS[kind][0]}, but the ids "
                                f"before it are {_KINDS[self.id_type[0]][1]} (from query {self.id_type[1]!r}): "
                                "ids of mixed types cannot be matched to the qrels; return one type")
            if str(hit.id) in seen:
                self.duplicates[qid] = self.duplicates.get(qid, 0) + 1
            else:
                seen[str(hit.id)] = hit
        return list(seen.values())

    def _scores(self, qid: str, hits: list[Hit]) -> list[float]:
        """The given scores if all present and strictly decreasing, else n, n - 1, ..., 1 from the top."""
        given = [h.score for h in hits]
        if None not in given:
            if all(a > b for a, b in zip(given, given[1:])):
                return given
            if any(a < b for a, b in zip(given, given[1:])):
                self.rescored.append(qid)
        return [float(len(hits) - i) for i in range(len(hits))]

    def messages(self) -> list[str]:
        """One warning per kind of change, each counting the queries and naming a few."""
        out = []
        if self.duplicates:
            first = next(iter(self.duplicates))
            out.append(f"{sum(self.duplicates.values())} duplicate result(s) in {len(self.duplicates)} queries were "
                       f"dropped, each id keeping its first rank (e.g. query {first!r})")
        if self.empty:
            out.append(f"{len(self.empty)} queries got no results and score 0: {_examples(self.empty)}")
        if self.rescored:
            out.append(f"{len(self.rescored)} queries had scores that rise down the list (distances?): their "
                       f"scores come from the ranks, keeping the retriever's order: {_examples(self.rescored)}")
        if self.skipped:
            err = self.first_error
            out.append(f"on_error='skip': {len(self.skipped)} queries left out of the run: "
                       f"{_examples(self.skipped)}; first error: {type(err).__name__}: {err}")
        return out


def _outcomes(call: Caller, groups: list[list[str]], queries: dict[str, str],
              workers: int) -> Iterator[tuple[list[str], list | None, BaseException | None]]:
    """``(qids, results, None)`` or ``(qids, None, exception)`` per group of queries, in the groups' order."""
    def one(qids: list[str]):
        try:
            return qids, call([queries[q] for q in qids]), None
        except Exception as err:  # noqa: BLE001 - handed to the caller, which re-raises or skips
            return qids, None, err

    if workers == 1:
        yield from map(one, groups)
        return
    pool = ThreadPoolExecutor(max_workers=workers)
    try:
        yield from pool.map(one, groups)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _progress(total: int, enabled: bool):
    """A tqdm bar over the queries when tqdm is installed and ``enabled``; else None."""
    if not enabled:
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=total, desc="retrieving", unit="query")


def _collect(retriever, queries, k, id_key, score_key, batch, workers, on_error, progress) -> _RunBuilder:
    """Every query asked, in order (groups of ``batch``, ``workers`` threads), into a _RunBuilder."""
    _check_options(k, batch, workers, on_error)
    queries = read_queries(queries)
    call = caller(retriever, batch)
    qids = list(queries)
    size = batch or 1
    groups = [qids[i:i + size] for i in range(0, len(qids), size)]
    builder = _RunBuilder(k, id_key, score_key)
    bar = _progress(len(qids), progress)
    try:
        with closing(_outcomes(call, groups, queries, workers)) as outcomes:
            for group, results, error in outcomes:
                if error is not None:
                    if on_error == "raise":
                        raise RetrieverError(group, queries[group[0]], error) from error
                    builder.skip(group, error)
                else:
                    for qid, result in zip(group, results):
                        builder.add(qid, result)
                if bar is not None:
                    bar.update(len(group))
    finally:
        if bar is not None:
            bar.close()
    return builder


def _finish(builder: _RunBuilder, save, name: str) -> None:
    """Warn (at the user's call) about what was changed or left out, then write the run if asked."""
    for message in builder.messages():
        warnings.warn(message, RetrieverWarning, stacklevel=3)
    if save is not None:
        write_run(builder.run, save, name=name)


def retrieve(retriever, queries, k: int | None = 100, *, id_key: str | None = None, score_key: str = "score",
             batch: int | None = None, workers: int = 1, on_error: str = "raise", progress: bool = True,
             save: str | os.PathLike | None = None, name: str = "searchgrade", texts: bool = False):
    """Ask ``retriever`` every query and return the run ``{qid: {docid: score}}`` in its order.

    ``retriever``: a function ``f(query)`` returning ids, ``(id, score)`` pairs or objects with an
    id (a batch function ``f(list_of_queries)`` with ``batch=n``), a LangChain retriever or a
    LlamaIndex retriever (:mod:`searchgrade.retrievers.adapters`, :mod:`.results`). ``queries``:
    ``{qid: text}`` or a queries file (:func:`searchgrade.retrievers.read_queries`). ``k``: results
    kept per query (None: all). ``id_key``: where the id is read (a metadata key, or
    ``"ref_doc_id"`` for LlamaIndex); ``score_key``: the LangChain metadata key of the score.
    ``save=path`` writes the run as a TREC file named ``name``. ``texts=True`` returns
    ``(run, texts)``, ``texts`` being ``{qid: {docid: text or None}}`` for grading by text
    (:mod:`searchgrade.retrievers.text_relevance`). Ties, duplicates, empty results, errors and
    workers: see :mod:`searchgrade.retrievers.collect`.
    """
    builder = _collect(retriever, queries, k, id_key, score_key, batch, workers, on_error, progress)
    _finish(builder, save, name)
    return (builder.run, builder.texts) if texts else builder.run


def evaluate_retriever(retriever, qrels, queries, measures, k: int | None = 100, *, id_key: str | None = None,
                       score_key: str = "score", batch: int | None = None, workers: int = 1,
                       on_error: str = "raise", progress: bool = True, save: str | os.PathLike | None = None,
                       name: str = "searchgrade", **options):
    """:func:`retrieve`, then :func:`searchgrade.evaluate` on the run: the same per-query table ``evaluate`` gives.

    ``options`` (``missing=``, ``ties=``, ``rel_level=``, ...) go to :func:`searchgrade.evaluate`;
    the other arguments are :func:`retrieve`'s.
    """
    builder = _collect(retriever, queries, k, id_key, score_key, batch, workers, on_error, progress)
    _finish(builder, save, name)
    return evaluate(qrels, builder.run, measures, **options)
