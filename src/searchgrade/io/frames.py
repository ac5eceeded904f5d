"""Qrels and runs from columns: DataFrames, records (ir_measures' namedtuples), and back to DataFrames.

Column names follow ir_measures (``query_id, doc_id, relevance`` / ``score``); trec-style
names (``qid, docno, rel``, pyterrier's ``label``) are found too when unambiguous, and
``columns={"query_id": "q", ...}`` names them explicitly.  Rows are named 0-based, by
position, with their index label: ``row 3 (index 'x')``.
"""
from __future__ import annotations

import gc
import math
import numbers
import operator
from collections.abc import Mapping
from contextlib import contextmanager
from itertools import islice, repeat

import numpy as np
import pandas as pd

from .errors import FormatError
from .text import GRADE_MAX, GRADE_MIN

QRELS_ROLES = {"query_id": ("query_id", "qid"), "doc_id": ("doc_id", "docno"),
               "relevance": ("relevance", "rel", "label")}
RUN_ROLES = {"query_id": ("query_id", "qid"), "doc_id": ("doc_id", "docno"), "score": ("score",)}


# ------------------------------------------------------------------------ columns to nested dicts
@contextmanager
def _gc_paused():
    """Pause the cyclic garbage collector (building many small dicts triggers it for nothing)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def nest(codes: np.ndarray, keys: list, docs: list, values: list) -> dict | None:
    """``{keys[code]: {doc: value}}`` from parallel columns, each query's rows in their order; None on a repeat.

    Rows are cut into runs of equal codes and each run becomes a dict in one C call; a
    query's later runs extend its dict.  None if a (query, doc) pair repeats.
    """
    n = len(docs)
    if n == 0:
        return {}
    cuts = np.flatnonzero(codes[1:] != codes[:-1]) + 1
    starts = np.concatenate(([0], cuts))
    lengths = np.diff(np.append(starts, n)).tolist()
    block_keys = [keys[code] for code in codes[starts].tolist()]
    with _gc_paused():
        d_iter, v_iter = iter(docs), iter(values)
        blocks = list(map(dict, map(zip, map(islice, repeat(d_iter), lengths), map(islice, repeat(v_iter), lengths))))
        if sum(map(len, blocks)) != n:
            return None
        nested = dict(zip(block_keys, blocks))
        if len(nested) == len(blocks):
            return nested
        nested = {}
        for key, block in zip(block_keys, blocks):
            docs_so_far = nested.setdefault(key, block)
            if docs_so_far is not block:
                before = len(docs_so_far)
                docs_so_far.update(block)
                if len(docs_so_far) != before + len(block):
                    return None
    return nested


def first_repeat(qids: list, docs: list) -> tuple[int, int]:
    """Positions (first, second) of the first (query, doc) pair that occurs twice."""
    seen: dict = {}
    for pos, pair in enumerate(zip(qids, docs)):
        first = seen.setdefault(pair, pos)
        if first != pos:
            return first, pos
    raise AssertionError("no repeated pair")  # pragma: no cover


# ----------------------------------------------------------------------------- DataFrames in
def plain(value):
    """A numpy scalar as the Python value it holds (for messages: 11, not np.int64(11))."""
    return value.item() if isinstance(value, np.generic) else value


class _Rows:
    """Names rows of a DataFrame (or records) in messages: ``row 3 (index 'x')``."""

    def __init__(self, source: str, index: pd.Index, word: str = "row"):
        self.source, self.index, self.word = source, index, word

    def name(self, pos: int) -> str:
        """'row 3 (index 17)', or 'record 3' for records."""
        if self.word == "record":
            return f"record {pos}"
        return f"row {pos} (index {plain(self.index[pos])!r})"

    def error(self, pos: int, problem: str) -> FormatError:
        """A FormatError about the row at position pos."""
        return FormatError(self.source, None, f"{self.name(pos)}: {problem}")


def pick_columns(available, roles: dict, columns: Mapping | None, source: str, index_names=()) -> dict:
    """``{role: column}``: the caller's ``columns`` first, else the one alias of each role present."""
    columns = dict(columns or {})
    unknown = set(columns) - set(roles)
    if unknown:
        raise ValueError(f"columns: unknown role(s) {sorted(unknown)}; the roles are {list(roles)}")
    available = list(available)
    picked = {}
    for role, aliases in roles.items():
        if role in columns:
            if columns[role] not in available:
                raise FormatError(source, None, f"no column {columns[role]!r} (columns={{{role!r}: ...}}); "
                                                f"its columns are {available}")
            picked[role] = columns[role]
            continue
        present = [name for name in aliases if name in available]
        if len(present) > 1:
            raise FormatError(source, None, f"both {present[0]!r} and {present[1]!r} could be the {role} column; "
                                            f"say which with columns={{{role!r}: ...}}")
        if not present:
            hint = "; it is in the index: call .reset_index() first" if set(aliases) & set(index_names) else ""
            raise FormatError(source, None, f"no {role} column (looked for {', '.join(map(repr, aliases))}); "
                                            f"its columns are {available}{hint}; name it with columns={{{role!r}: ...}}")
        picked[role] = present[0]
    return picked


def _ids(column: pd.Series, role: str, rows: _Rows) -> list[str]:
    """An id column as a list of str: str values as they are, integers written in decimal."""
    if column.dtype.kind in "iu":
        return list(map(str, column.tolist()))
    values = column.tolist()
    if set(map(type, values)) <= {str}:
        return values
    out = []
    for pos, value in enumerate(values):
        if isinstance(value, str):
            out.append(value)
        elif isinstance(value, (numbers.Integral, np.integer)) and not isinstance(value, (bool, np.bool_)):
            out.append(str(int(value)))
        else:
            missing = value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))
            what = "is missing (NaN or None)" if missing else f"{value!r} is a {type(value).__name__}, not a str"
            raise rows.error(pos, f"{role} {what}")
    return out


def _numbers(column: pd.Series, role: str, rows: _Rows) -> np.ndarray:
    """A numeric column as float64 (bool and non-numbers refused); NaN stays NaN for the caller to name."""
    kind = column.dtype.kind
    if kind in "iuf":
        return column.to_numpy(dtype=np.float64, na_value=np.nan)
    values = [np.nan if value is None or value is pd.NA else value for value in column.tolist()]
    for pos, value in enumerate(values):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
            raise rows.error(pos, f"{role} {plain(value)!r} is not a number")
    return np.array(values, dtype=np.float64)


def _scores(column: pd.Series, rows: _Rows) -> list[float]:
    """A score column as a list of finite floats."""
    scores = _numbers(column, "score", rows)
    bad = np.flatnonzero(~np.isfinite(scores))
    if len(bad):
        value = scores[bad[0]]
        raise rows.error(int(bad[0]), "score is missing (NaN)" if math.isnan(value) else f"score {value} is not finite")
    return scores.tolist()


def _grades(column: pd.Series, rows: _Rows) -> list[int]:
    """A relevance column as a list of int within trec_eval's 64-bit range."""
    if column.dtype.kind in "iu" and not column.hasnans:
        values = column.to_numpy()
        if column.dtype.kind == "u" and len(values) and values.max() > GRADE_MAX:
            pos = int(np.argmax(values > GRADE_MAX))
            raise rows.error(pos, f"relevance {values[pos]} is outside the 64-bit range {GRADE_MIN} to {GRADE_MAX}")
        return values.tolist()
    if column.dtype.kind == "O" and set(map(type, column.tolist())) <= {int}:
        values = column.tolist()
        for pos, value in enumerate(values):
            if not GRADE_MIN <= value <= GRADE_MAX:
                raise rows.error(pos, f"relevance {value} is outside the 64-bit range {GRADE_MIN} to {GRADE_MAX}")
        return values
    grades = _numbers(column, "relevance", rows)
    for test, problem in ((np.isnan, "is missing (NaN)"), (lambda g: g != np.floor(g), "is not an integer"),
                          (lambda g: (g < GRADE_MIN) | (g >= 2.0**63), "is outside the 64-bit range")):
        bad = np.flatnonzero(test(grades))
        if len(bad):
            raise rows.error(int(bad[0]), f"relevance {plain(column.iloc[bad[0]])!r} {problem}")
    return grades.astype(np.int64).tolist()


def _nest_rows(qids: list, docs: list, values: list, rows: _Rows) -> dict:
    """Nested dicts from checked columns; a repeated (query, doc) pair is an error naming both rows."""
    codes, keys = pd.factorize(pd.Series(qids, dtype=object))
    nested = nest(codes, keys.tolist(), docs, values)
    if nested is None:
        first, second = first_repeat(qids, docs)
        raise rows.error(second, f"duplicate: query {qids[second]} document {docs[second]} "
                                 f"is already on {rows.name(first)}")
    return nested


def qrels_from_frame(frame: pd.DataFrame, columns=None, source="qrels DataFrame", word="row") -> dict:
    """``{qid: {docid: grade}}`` from a DataFrame (checked: ids present, grades integers)."""
    picked = pick_columns(frame.columns, QRELS_ROLES, columns, source, frame.index.names)
    rows = _Rows(source, frame.index, word)
    qids = _ids(frame[picked["query_id"]], "query_id", rows)
    docs = _ids(frame[picked["doc_id"]], "doc_id", rows)
    return _nest_rows(qids, docs, _grades(frame[picked["relevance"]], rows), rows)


def run_from_frame(frame: pd.DataFrame, columns=None, source="run DataFrame", word="row") -> dict:
    """``{qid: {docid: score}}`` from a DataFrame, each query's rows in their order (checked: finite scores)."""
    picked = pick_columns(frame.columns, RUN_ROLES, columns, source, frame.index.names)
    rows = _Rows(source, frame.index, word)
    qids = _ids(frame[picked["query_id"]], "query_id", rows)
    docs = _ids(frame[picked["doc_id"]], "doc_id", rows)
    return _nest_rows(qids, docs, _scores(frame[picked["score"]], rows), rows)


# ----------------------------------------------------------------------------- records in
def records_frame(items, roles: dict, columns, source: str) -> pd.DataFrame:
    """The fields of records (namedtuples such as ir_measures.Qrel, or dicts) as a DataFrame, one column per role."""
    items = list(items)
    if not items:
        return pd.DataFrame({role: [] for role in roles})
    first = items[0]
    if hasattr(first, "_fields"):
        fields, get = first._fields, getattr
    elif isinstance(first, Mapping):
        fields, get = list(first), operator.getitem
    else:
        raise TypeError(f"{source}: expected namedtuples (such as ir_measures.Qrel / ScoredDoc) or dicts, "
                        f"not {type(first).__name__}")
    picked = pick_columns(fields, roles, columns, source)
    data = {}
    for role, name in picked.items():
        try:
            data[role] = [get(item, name) for item in items]
        except (AttributeError, KeyError, TypeError):
            pos = next(i for i, item in enumerate(items) if not _has(item, name, get))
            raise FormatError(source, None, f"record {pos}: no field {name!r} ({item_repr(items[pos])})") from None
    return pd.DataFrame(data, dtype=object)


def _has(item, name, get) -> bool:
    """True if get(item, name) works."""
    try:
        get(item, name)
    except (AttributeError, KeyError, TypeError):
        return False
    return True


def item_repr(item) -> str:
    """A short repr of a record for messages."""
    text = repr(item)
    return text if len(text) <= 80 else text[:77] + "..."


# ----------------------------------------------------------------------------- DataFrames out
def frame_of(nested: Mapping, value_name: str, dtype) -> pd.DataFrame:
    """``{qid: {docid: value}}`` as a DataFrame ``query_id, doc_id, <value_name>``, in dict order."""
    counts = [len(docs) for docs in nested.values()]
    qids = np.repeat(np.array(list(nested), dtype=object), counts)
    docs = [doc for docs in nested.values() for doc in docs]
    values = np.fromiter((v for docs in nested.values() for v in docs.values()), dtype=dtype, count=sum(counts))
    return pd.DataFrame({"query_id": qids, "doc_id": np.array(docs, dtype=object), value_name: values})
