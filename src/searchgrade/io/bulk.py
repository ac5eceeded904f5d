"""The fast reader of regular TREC files: one C tokenizer over the whole text, or None.

It reads a file only when every line is a plain data line (6 fields in a run, 4 in qrels;
blank lines only at the end), every score a finite number and every rank and grade a
64-bit integer, no document twice in a query.  On anything else it returns None and the
caller reads the text with the strict line-by-line reader of :mod:`searchgrade.io.text`,
which defines the rules and names the line of any error.  Both give identical results on
what both read (``tests/test_io_inputs.py`` checks this on generated text, for each engine).

Engines: pyarrow's CSV reader when pyarrow is installed and fields are separated by single
spaces (the usual layout; about three times faster), else pandas' C reader (any run of
spaces and tabs).
"""
from __future__ import annotations

import csv
import io
import re
import warnings
from itertools import chain
from typing import NamedTuple

import numpy as np
import pandas as pd

from .frames import nest
from .errors import LineSet, ReadReport

MIN_BYTES = 1 << 15  # below this the line-by-line reader is faster than starting a bulk reader
_THREADS_FROM = 1 << 23  # from 8 MB on, pyarrow parses blocks of 4 MB on its threads
ENGINES = ("arrow", "pandas")

_NAMES = {"run": ["qid", "iter", "docno", "rank", "score", "runid"], "qrels": ["qid", "iter", "docno", "rel"]}
_NUMBERS = {"rank": "int64", "score": "float64", "rel": "int64"}
_HEX_FIELD = re.compile(rb"(?:^|[ \t])[+-]?0[xX]", re.MULTILINE)  # a field pyarrow may read as a hex integer


class _Shape(NamedTuple):
    end: int  # bytes up to the end of the last data line (blank lines may follow)
    blank: int  # blank lines after it
    tabs: bool  # a tab separates fields somewhere


class Columns(NamedTuple):
    """A regular file's columns: query and document ids as codes into their distinct values."""

    codes: np.ndarray  # query code of each row
    keys: list  # query id of each code
    doc_codes: np.ndarray  # document code of each row
    doc_keys: list  # docno of each document code
    values: np.ndarray  # score (float64) or grade (int64) of each row
    run_ids: tuple  # distinct run ids in order of first appearance (runs)
    last_run_id: str | None

    @property
    def docs(self) -> list:
        """The docno of each row (the same str object for the same docno)."""
        return np.array(self.doc_keys, dtype=object)[self.doc_codes].tolist()


def _shape(raw: bytes) -> _Shape | None:
    """Where the data lines end, if a C tokenizer can split raw into lines and fields as trec_eval does.

    None if raw holds what the tokenizers split differently (a lone CR ends a line for them;
    VT and FF separate fields for trec_eval; NUL ends trec_eval's file) or comment lines.
    Single-byte searches only (they run at memory speed), and a look at the last bytes.
    """
    if b"\x00" in raw or b"\x0b" in raw or b"\x0c" in raw or (b"\r" in raw and raw.count(b"\r") != raw.count(b"\r\n")):
        return None
    if b"#" in raw and (raw.startswith(b"#") or b"\n#" in raw):  # comments: the strict reader reports them
        return None
    end = len(raw)
    while end and raw[end - 1] in b" \t\r\n":
        end -= 1
    if not end:
        return None
    blank = raw.count(b"\n", end) - 1 + (not raw.endswith(b"\n"))
    return _Shape(raw.find(b"\n", end) + 1 or len(raw), blank, b"\t" in raw)


def _pyarrow():
    """pyarrow with its CSV module, or None where pyarrow is not installed (searchgrade's core does not need it)."""
    try:
        import pyarrow
        import pyarrow.csv
    except ImportError:
        return None
    return pyarrow


def _dictionary(column) -> tuple[np.ndarray, list]:
    """(codes, distinct values) of a dictionary-encoded pyarrow column."""
    chunks = column.unify_dictionaries().chunks
    if not chunks:
        return np.zeros(0, dtype=np.int64), []
    codes = np.concatenate([chunk.indices.to_numpy(zero_copy_only=False) for chunk in chunks])
    return codes, chunks[0].dictionary.to_pylist()


def _arrow_columns(raw: bytes, kind: str, shape: _Shape) -> Columns | None:
    """The columns as pyarrow reads them (one space between fields), or None if it refuses a line.

    Every line up to ``shape.end`` must be a row: a blank line has too few fields.  Ids are read
    dictionary-encoded (each distinct id becomes one Python str).
    """
    if (b"0x" in raw or b"0X" in raw) and _HEX_FIELD.search(raw, 0, shape.end):
        return None  # pyarrow reads the integer 0x3 as 3; trec_eval's atol reads 0, the strict reader refuses it
    pa = _pyarrow()
    pacsv = pa.csv
    names = _NAMES[kind]
    ids = pa.dictionary(pa.int32(), pa.string())
    types = {name: getattr(pa, _NUMBERS[name])() if name in _NUMBERS else ids for name in names}
    try:
        table = pacsv.read_csv(
            pa.BufferReader(pa.py_buffer(raw).slice(0, shape.end)),
            read_options=pacsv.ReadOptions(column_names=names, use_threads=len(raw) >= _THREADS_FROM,
                                           block_size=1 << 22),
            parse_options=pacsv.ParseOptions(delimiter=" ", quote_char=False, double_quote=False,
                                             escape_char=False, ignore_empty_lines=False),
            convert_options=pacsv.ConvertOptions(column_types=types, strings_can_be_null=False, null_values=[],
                                                 true_values=[], false_values=[]),
            memory_pool=pa.system_memory_pool())  # pyarrow's default (mimalloc) varied 0.1-0.8 s on one file
    except (ValueError, pa.lib.ArrowException):  # ArrowInvalid: fields, numbers, UTF-8, blank lines, block size
        return None
    codes, keys = _dictionary(table.column("qid"))
    if "" in _dictionary(table.column("iter"))[1]:
        return None
    run_ids, last = (), None
    if kind == "run":
        id_codes, id_keys = _dictionary(table.column("runid"))
        run_ids = tuple(np.array(id_keys, dtype=object)[pd.unique(id_codes)].tolist())
        last = id_keys[id_codes[-1]]
        if "" in run_ids:  # 5 fields and a space
            return None
    value = table.column("score" if kind == "run" else "rel").to_numpy()
    doc_codes, doc_keys = _dictionary(table.column("docno"))
    return Columns(codes, keys, doc_codes, doc_keys, value, run_ids, last)


_PANDAS = {"header": None, "index_col": False, "quoting": csv.QUOTE_NONE, "na_filter": False,
           "engine": "c", "encoding": "utf-8", "skip_blank_lines": False}
if tuple(int(part) for part in pd.__version__.split(".")[:2]) < (3, 1):
    _PANDAS["float_precision"] = "round_trip"  # before 3.1, pandas rounds some long decimals off by one ulp
_PANDAS_TYPES = {"qid": object, "iter": "category", "docno": object, "runid": "category"}


def _pandas_columns(raw: bytes, kind: str, shape: _Shape) -> Columns | None:
    """The columns as pandas' C reader reads them, or None if it refuses a line or reads a number differently.

    Every line up to ``shape.end`` is a row (a blank one of empty fields, declined later).
    One space between fields (as many spaces as that gives, no tab) is read in pandas'
    faster single-character mode, where a miscount only declines the file.
    """
    names = _NAMES[kind]
    data = raw if shape.end == len(raw) else raw[:shape.end]
    rows = data.count(b"\n") + (not data.endswith(b"\n"))
    sep = " " if not shape.tabs and data.count(b" ") == (len(names) - 1) * rows else r"\s+"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", pd.errors.ParserWarning)  # fields beyond the names on line 1
            warnings.simplefilter("ignore", pd.errors.DtypeWarning)  # mixed types: declined below
            table = pd.read_csv(io.BytesIO(data), sep=sep, names=names,
                                dtype={name: _PANDAS_TYPES[name] for name in names if name in _PANDAS_TYPES},
                                **_PANDAS)
    except (ValueError, OverflowError, UnicodeError, pd.errors.ParserWarning):  # ParserError is a ValueError
        return None
    kinds = {name: table[name].dtype.kind for name in names if name in _NUMBERS}
    if len(table) != rows or kinds.get("rank", "i") != "i" or kinds.get("rel", "i") != "i" \
            or kinds.get("score", "f") not in "fi" or "" in table["iter"].array.categories:
        return None
    codes, keys = pd.factorize(table["qid"])
    run_ids, last = (), None
    if kind == "run":
        runid = table["runid"].array
        if "" in runid.categories:  # a line of 5 fields
            return None
        run_ids = tuple(runid.categories.take(pd.unique(runid.codes)).tolist())
        last = runid.categories[runid.codes[-1]]
    value = table["score"].to_numpy(dtype=np.float64) if kind == "run" else table["rel"].to_numpy()
    doc_codes, doc_keys = pd.factorize(table["docno"])
    return Columns(codes, keys.tolist(), doc_codes, doc_keys.tolist(), value, run_ids, last)


def _columns(raw: bytes, kind: str, engine: str | None) -> tuple[Columns, _Shape] | None:
    """The checked columns of a regular file and its shape, or None for the strict reader."""
    shape = _shape(raw)
    if shape is None:
        return None
    if engine is None:
        engine = "arrow" if _pyarrow() is not None else "pandas"
    read = _arrow_columns if engine == "arrow" and not shape.tabs else _pandas_columns
    cols = read(raw, kind, shape)
    if cols is None or "" in cols.doc_keys or any(key.startswith("#") or not key for key in cols.keys):
        return None  # a comment after leading blanks; an empty field (two spaces in a row) under sep " "
    if kind == "run" and not np.isfinite(cols.values).all():
        return None
    return cols, shape


def columns_of(nested: dict, dtype) -> Columns:
    """The columns of nested dicts ``{qid: {docno: value}}``, in their order (values as dtype)."""
    lengths = np.fromiter(map(len, nested.values()), dtype=np.int64, count=len(nested))
    codes = np.repeat(np.arange(len(nested), dtype=np.int64), lengths)
    docs = list(chain.from_iterable(nested.values()))
    doc_codes, doc_keys = pd.factorize(pd.Series(docs, dtype=object)) if docs else (np.zeros(0, np.int64), [])
    values = np.fromiter(chain.from_iterable(d.values() for d in nested.values()), dtype=dtype, count=len(docs))
    return Columns(codes, list(nested), np.asarray(doc_codes, dtype=np.int64), list(doc_keys), values, (), None)


def has_repeats(cols: Columns) -> bool:
    """Whether a (query, document) pair occurs twice."""
    key = np.sort(cols.codes.astype(np.int64) * max(len(cols.doc_keys), 1) + cols.doc_codes)
    return bool((key[1:] == key[:-1]).any())


def read_bulk(raw: bytes, source: str, kind: str, engine: str | None = None) -> tuple[dict, ReadReport] | None:
    """A regular run or qrels file as ``(nested dict, report)``, or None for the strict reader."""
    got = read_columns(raw, source, kind, engine)
    if got is None:
        return None
    cols, report = got
    nested = nest(cols.codes, cols.keys, cols.docs, cols.values.tolist())
    return None if nested is None else (nested, report)


def read_columns(raw: bytes, source: str, kind: str, engine: str | None = None) -> tuple[Columns, ReadReport] | None:
    """A regular run or qrels file as ``(columns, report)``, or None for the strict reader.

    A (query, document) pair twice is not checked here: :func:`read_bulk` declines such a file
    (the strict reader names both lines), and so must any other caller.
    """
    got = _columns(raw, kind, engine)
    if got is None:
        return None
    cols, shape = got
    rows = len(cols.doc_codes)
    blank = LineSet.of(range(rows + 1, rows + shape.blank + 1))
    return cols, ReadReport(source, kind, rows + shape.blank, rows, len(cols.keys), blank=blank,
                            run_ids=cols.run_ids, last_run_id=cols.last_run_id)
