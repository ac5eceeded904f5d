"""The fast reader of regular TREC files: one C tokenizer over the whole text, or None.

It reads a file only when every line is a plain data line (6 fields in a run, 4 in qrels;
blank lines only at the end), every score a finite number and every rank and grade a
64-bit integer, no document twice in a query.  On anything else it returns None and the
caller reads the text with the strict line-by-line reader of :mod:`searchgrade._trec_text`,
which defines the rules and names the line of any error.  Both give identical results on
what both read (``tests/test_io_inputs.py`` checks this on generated text, for each engine).

Engines: pyarrow's CSV reader when pyarrow is installed and fields are separated by single
spaces (the usual layout; about three times faster), else pandas' C reader (any run of
spaces and tabs).
"""
from __future__ import annotations

import csv
import io
import warnings
from typing import NamedTuple

import numpy as np
import pandas as pd

from ._frames import nest
from ._report import LineSet, ReadReport

MIN_BYTES = 1 << 15  # below this the line-by-line reader is faster than starting a bulk reader
ENGINES = ("arrow", "pandas")

_NAMES = {"run": ["qid", "iter", "docno", "rank", "score", "runid"], "qrels": ["qid", "iter", "docno", "rel"]}
_NUMBERS = {"rank": "int64", "score": "float64", "rel": "int64"}


class _Shape(NamedTuple):
    end: int  # bytes up to the end of the last data line (blank lines may follow)
    blank: int  # blank lines after it
    tabs: bool  # a tab separates fields somewhere


class _Columns(NamedTuple):
    codes: np.ndarray  # query code of each row
    keys: list  # query id of each code
    docs: list  # docno of each row
    values: np.ndarray  # score (float64) or grade (int64) of each row
    run_ids: tuple  # distinct run ids in order of first appearance (runs)
    last_run_id: str | None


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


def _arrow_columns(raw: bytes, kind: str, shape: _Shape) -> _Columns | None:
    """The columns as pyarrow reads them (one space between fields), or None if it refuses a line.

    Every line up to ``shape.end`` must be a row: a blank line has too few fields.
    """
    pa = _pyarrow()
    pacsv = pa.csv
    names = _NAMES[kind]
    types = {name: getattr(pa, _NUMBERS[name])() if name in _NUMBERS else pa.string() for name in names}
    try:
        table = pacsv.read_csv(
            pa.BufferReader(pa.py_buffer(raw).slice(0, shape.end)),
            read_options=pacsv.ReadOptions(column_names=names, use_threads=False),
            parse_options=pacsv.ParseOptions(delimiter=" ", quote_char=False, double_quote=False,
                                             escape_char=False, ignore_empty_lines=False),
            convert_options=pacsv.ConvertOptions(column_types=types, strings_can_be_null=False, null_values=[],
                                                 true_values=[], false_values=[]))
    except (ValueError, pa.lib.ArrowException):  # ArrowInvalid: fields, numbers, UTF-8, blank lines, block size
        return None
    qid = table.column("qid").combine_chunks().dictionary_encode()
    if "" in table.column("iter").unique().to_pylist():
        return None
    run_ids, last = (), None
    if kind == "run":
        run_ids = tuple(table.column("runid").unique().to_pylist())
        last = table.column("runid")[-1].as_py()
        if "" in run_ids:  # 5 fields and a space
            return None
    value = table.column("score" if kind == "run" else "rel").to_numpy()
    return _Columns(qid.indices.to_numpy(), qid.dictionary.to_pylist(), table.column("docno").to_pylist(),
                    value, run_ids, last)


_PANDAS = {"header": None, "index_col": False, "quoting": csv.QUOTE_NONE, "na_filter": False,
           "engine": "c", "encoding": "utf-8", "skip_blank_lines": False}
if tuple(int(part) for part in pd.__version__.split(".")[:2]) < (3, 1):
    _PANDAS["float_precision"] = "round_trip"  # before 3.1, pandas rounds some long decimals off by one ulp
_PANDAS_TYPES = {"qid": object, "iter": "category", "docno": object, "runid": "category"}


def _pandas_columns(raw: bytes, kind: str, shape: _Shape) -> _Columns | None:
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
    return _Columns(codes, keys.tolist(), table["docno"].tolist(), value, run_ids, last)


def _columns(raw: bytes, kind: str, engine: str | None) -> tuple[_Columns, _Shape] | None:
    """The checked columns of a regular file and its shape, or None for the strict reader."""
    shape = _shape(raw)
    if shape is None:
        return None
    if engine is None:
        engine = "arrow" if _pyarrow() is not None else "pandas"
    read = _arrow_columns if engine == "arrow" and not shape.tabs else _pandas_columns
    cols = read(raw, kind, shape)
    if cols is None or "" in cols.docs or any(key.startswith("#") or not key for key in cols.keys):
        return None  # a comment after leading blanks; an empty field (two spaces in a row) under sep " "
    if kind == "run" and not np.isfinite(cols.values).all():
        return None
    return cols, shape


def read_bulk(raw: bytes, source: str, kind: str, engine: str | None = None) -> tuple[dict, ReadReport] | None:
    """A regular run or qrels file as ``(nested dict, report)``, or None for the strict reader."""
    got = _columns(raw, kind, engine)
    if got is None:
        return None
    cols, shape = got
    nested = nest(cols.codes, cols.keys, cols.docs, cols.values.tolist())
    if nested is None:
        return None
    rows = len(cols.docs)
    blank = LineSet.of(range(rows + 1, rows + shape.blank + 1))
    return nested, ReadReport(source, kind, rows + shape.blank, rows, len(nested), blank=blank,
                              run_ids=cols.run_ids, last_run_id=cols.last_run_id)
