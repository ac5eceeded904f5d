"""Qrels and runs from any input form: dicts as they are, DataFrames, records (ir_measures' namedtuples), files.

:func:`as_qrels` and :func:`as_run` take a dict, a pandas DataFrame, an iterable of records or a
source the readers read (:mod:`searchgrade.io.readers`); :func:`qrels_frame` and :func:`run_frame`
give any of them back as a DataFrame.  pandas is imported only for DataFrames and records
(:mod:`searchgrade.io.frames`).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

import numpy as np

from .readers import read_qrels, read_run
from .sources import is_source
from .types import Qrels, Run

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["as_qrels", "as_run", "qrels_frame", "run_frame"]


def as_qrels(obj, *, columns: Mapping[str, str] | None = None) -> Qrels:
    """Qrels ``{qid: {docid: grade}}`` from any input form; a dict is returned as it is.

    Accepted: a dict; a pandas DataFrame with columns ``query_id, doc_id, relevance``
    (ir_measures) or ``qid, docno, rel`` / ``label`` (trec, pyterrier), or named by
    ``columns={"query_id": ..., "doc_id": ..., "relevance": ...}``; an iterable of
    ``ir_measures.Qrel`` (or other namedtuples or dicts with those fields); a path,
    ``"-"`` or an open file (:func:`read_qrels`).  DataFrame ids must be str or integers
    (written in decimal), grades integers (integral floats too) in the 64-bit range.
    """
    return _as(obj, columns, "qrels")


def as_run(obj, *, columns: Mapping[str, str] | None = None) -> Run:
    """A run ``{qid: {docid: score}}`` from any input form; a dict is returned as it is.

    Accepted: a dict; a pandas DataFrame with columns ``query_id, doc_id, score``
    (ir_measures) or ``qid, docno, score`` (trec, pyterrier), or named by ``columns=``;
    an iterable of ``ir_measures.ScoredDoc`` (or other namedtuples or dicts with those
    fields); a path, ``"-"`` or an open file (:func:`read_run`).  Each query keeps its
    rows' order (the "input" tie order); scores must be finite numbers.
    """
    return _as(obj, columns, "run")


def _as(obj, columns, kind: str) -> dict:
    """The dispatcher behind as_qrels and as_run."""
    if isinstance(obj, Mapping) or is_source(obj):
        if columns is not None:
            raise ValueError(f"columns= names DataFrame or record columns; {type(obj).__name__} has none")
        if isinstance(obj, Mapping):
            return obj
        return read_qrels(obj) if kind == "qrels" else read_run(obj)
    from . import frames as _frames

    from_frame = _frames.qrels_from_frame if kind == "qrels" else _frames.run_from_frame
    if isinstance(obj, _frames.pd.DataFrame):
        return from_frame(obj, columns)
    if isinstance(obj, Iterable) and not isinstance(obj, (bytes, bytearray)):
        roles = _frames.QRELS_ROLES if kind == "qrels" else _frames.RUN_ROLES
        source = f"{kind} records"
        return from_frame(_frames.records_frame(obj, roles, columns, source), None, source, "record")
    shape = "{qid: {docid: grade}}" if kind == "qrels" else "{qid: {docid: score}}"
    raise TypeError(f"{kind} must be a dict {shape}, a DataFrame, records, a path, '-' or an open file, "
                    f"not {type(obj).__name__}")


def qrels_frame(obj, *, columns: Mapping[str, str] | None = None) -> pd.DataFrame:
    """Qrels (anything :func:`as_qrels` takes) as a DataFrame ``query_id, doc_id, relevance``."""
    from . import frames as _frames

    return _frames.frame_of(as_qrels(obj, columns=columns), "relevance", np.int64)


def run_frame(obj, *, columns: Mapping[str, str] | None = None) -> pd.DataFrame:
    """A run (anything :func:`as_run` takes) as a DataFrame ``query_id, doc_id, score``, in the run's order."""
    from . import frames as _frames

    return _frames.frame_of(as_run(obj, columns=columns), "score", np.float64)
