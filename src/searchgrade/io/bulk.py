"""The fast reader of regular TREC files: C tokenizers over blocks of lines, or None.

It reads a file only when every line is a plain data line (6 fields in a run, 4 in qrels;
blank lines only at the end), every score a finite number and every rank and grade a
64-bit integer, no document twice in a query.  On anything else it returns None and the
strict line-by-line reader of :mod:`searchgrade.io.text` reads the text (it defines the rules
and names the line of any error); a text of blank lines only it refuses itself, as the strict
reader would.  Both agree on what both read (``tests/test_io_inputs.py``, for each engine).

The text is read in blocks of about BLOCK bytes, each cut at a line end, so that no block's
parsed table, and no Python object per line, is ever held for the whole file: each block
becomes a few numpy columns (ids as int32 codes into that block's distinct ids) and is
freed; at the end the blocks' distinct ids are numbered once for the whole file (the only
Python objects made are one str per distinct id).

Engines, chosen per block: numpy alone (:mod:`searchgrade.io.fields`) for the usual layout
(UTF-8, fields separated by single spaces, lines ended by LF, decimal numbers: no parser library
is imported); where it declines, pyarrow's CSV reader when pyarrow is installed and fields
are separated by single spaces, else pandas' C reader (any run of spaces and tabs).
"""
from __future__ import annotations

import ctypes
import io
import re
import sys
import warnings
from collections.abc import Iterable, Iterator
from itertools import chain
from typing import NamedTuple

import numpy as np

from . import fields
from .errors import LineSet, ReadReport, SourceError
from .text import empty

MIN_BYTES = 1 << 15  # below this the line-by-line reader is faster than starting a bulk reader
BLOCK = 1 << 22  # bytes of text parsed at a time (cut at a line end): what the reading holds besides its columns
PIECE = 1 << 20  # bytes the numpy engine splits at a time (its arrays are about 8 times larger)
_THREADS_FROM = 1 << 21  # from 2 MB on, pyarrow parses parts of 1 MB on its threads
ENGINES = ("numpy", "arrow", "pandas")

_NAMES = {"run": ["qid", "iter", "docno", "rank", "score", "runid"], "qrels": ["qid", "iter", "docno", "rel"]}
_NUMBERS = {"rank": "int64", "score": "float64", "rel": "int64"}
# a field pyarrow may read as a hex integer: after a separator or a line end (the block's start is looked at
# apart: a pattern with no alternative at its start is searched about three times faster)
_HEX_FIELD, _HEX_START = re.compile(rb"[ \t\n][+-]?0[xX]"), re.compile(rb"[+-]?0[xX]")


class _Shape(NamedTuple):
    end: int  # bytes up to the end of the last data line (blank lines may follow); 0: only blank lines
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


class _Block(NamedTuple):
    """One block's columns: ids as parts (codes, that part's distinct ids), numbered for the file later."""

    qids: list  # [(codes, distinct ids: a pyarrow array, an object ndarray or a uint8 matrix of NUL-padded bytes)]
    docs: list
    values: np.ndarray
    run_ids: tuple  # in order of first appearance in the block
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
    while end and raw[end - 1] in b" \t\r\n" and len(raw) - end < 64:
        end -= 1
    end = len(raw.rstrip(b" \t\r\n")) if end and raw[end - 1] in b" \t\r\n" else end  # a long blank tail
    if not end:
        return _Shape(0, raw.count(b"\n") + (not raw.endswith(b"\n")), b"\t" in raw)
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


def _pandas():
    """pandas, imported on first use (reading with pyarrow does not need it)."""
    return __import__("pandas")


def _pandas_options(pd) -> dict:
    """read_csv options that depend on the pandas version."""
    if tuple(int(part) for part in pd.__version__.split(".")[:2]) < (3, 1):
        return {"float_precision": "round_trip"}  # before 3.1, pandas rounds some long decimals off by one ulp
    return {}


def _numpy(array) -> np.ndarray:
    """A pyarrow array of numbers without nulls as a numpy view of its buffer.

    pyarrow's own to_numpy imports pandas (0.3 s and, with pandas 3, 50 MB), which reading
    with pyarrow does not need.
    """
    dtype = np.dtype(array.type.to_pandas_dtype())
    if not len(array):
        return np.zeros(0, dtype=dtype)
    return np.frombuffer(array.buffers()[1], dtype=dtype, count=len(array), offset=array.offset * dtype.itemsize)


def _first_seen(codes: np.ndarray, keys: list) -> tuple:
    """The keys that codes use, in order of first use."""
    used, first = np.unique(codes, return_index=True)
    return tuple(keys[i] for i in used[np.argsort(first)].tolist())


def _arrow_block(raw: bytes, kind: str, shape: _Shape) -> _Block | None:
    """A block's columns as pyarrow reads them (one space between fields), or None if it refuses a line.

    Every line up to ``shape.end`` must be a row: a blank line has too few fields.  Ids are read
    dictionary-encoded; their codes are kept without a copy and the table is freed on return.
    """
    if (b"0x" in raw or b"0X" in raw) and (_HEX_START.match(raw) or _HEX_FIELD.search(raw, 0, shape.end)):
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
                                           block_size=1 << 20),
            parse_options=pacsv.ParseOptions(delimiter=" ", quote_char=False, double_quote=False,
                                             escape_char=False, ignore_empty_lines=False),
            convert_options=pacsv.ConvertOptions(column_types=types, strings_can_be_null=False, null_values=[],
                                                 true_values=[], false_values=[]),
            memory_pool=pa.system_memory_pool())  # pyarrow's default (mimalloc) varied 0.1-0.8 s on one file
    except (ValueError, pa.lib.ArrowException):  # ArrowInvalid: fields, numbers, UTF-8, blank lines, block size
        return None
    if any("" in chunk.dictionary.to_pylist() for chunk in table.column("iter").chunks):
        return None
    run_ids, last = (), None
    if kind == "run":
        seen: dict = {}
        for chunk in table.column("runid").chunks:
            id_codes, id_keys = _numpy(chunk.indices), chunk.dictionary.to_pylist()
            seen.update(dict.fromkeys(_first_seen(id_codes, id_keys)))
            last = id_keys[id_codes[-1]] if len(id_codes) else last
        run_ids = tuple(seen)
        if "" in seen:  # 5 fields and a space
            return None
    parts = {name: [(_numpy(chunk.indices), chunk.dictionary) for chunk in table.column(name).chunks]
             for name in ("qid", "docno")}
    chunks = [_numpy(chunk) for chunk in table.column("score" if kind == "run" else "rel").chunks]
    value = chunks[0] if len(chunks) == 1 else np.concatenate(chunks)
    return _Block(parts["qid"], parts["docno"], value, run_ids, last)


def _numpy_block(raw: bytes, kind: str, shape: _Shape) -> _Block | None:
    """A block's columns split by numpy alone (:mod:`searchgrade.io.fields`), or None where it declines.

    The block is split in pieces of about PIECE bytes, whose arrays stay in the processor's cache.
    """
    if shape.tabs or b"\r" in raw:
        return None
    pieces = [_numpy_piece(np.frombuffer(raw, dtype=np.uint8, count=end - start, offset=start), kind)
              for start, end in cuts(raw, PIECE, shape.end)]  # views of raw, not copies
    if not pieces or any(piece is None for piece in pieces):
        return None
    values = pieces[0].values if len(pieces) == 1 else np.concatenate([piece.values for piece in pieces])
    run_ids = tuple(dict.fromkeys(chain.from_iterable(piece.run_ids for piece in pieces)))
    return _Block([part for piece in pieces for part in piece.qids], [part for piece in pieces for part in piece.docs],
                  values, run_ids, pieces[-1].last_run_id)


def _numpy_piece(a: np.ndarray, kind: str) -> _Block | None:
    """Lines of bytes as a block's columns, or None (see _numpy_block)."""
    bounds = fields.field_bounds(a, len(_NAMES[kind])) if _utf8(a) else None
    if bounds is None:
        return None
    field = {name: (a, bounds[0][:, i], bounds[1][:, i]) for i, name in enumerate(_NAMES[kind])}
    qids = fields.distinct(fields.field_bytes(*field["qid"]), grouped=True)
    docs = fields.distinct(fields.field_bytes(*field["docno"]))
    if qids is None or docs is None:
        return None
    run_ids, last = (), None
    if kind == "run":
        values = fields.decimals(*field["score"])
        if values is None or not fields.are_integers(*field["rank"]):
            return None
        run_ids, last = _numpy_run_ids(*field["runid"])
        if last is None:
            return None
    else:
        values = fields.integers(*field["rel"])
        if values is None:
            return None
    return _Block([qids], [docs], values, run_ids, last)


def _utf8(a: np.ndarray) -> bool:
    """Whether bytes are valid UTF-8 (ASCII at a glance; else decoded once and dropped)."""
    if a.max(initial=0) < 128:
        return True
    try:
        a.tobytes().decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _numpy_run_ids(a: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> tuple[tuple, str | None]:
    """(distinct run ids in order of first appearance, the last line's), or ((), None) on a hash collision."""
    ids = fields.distinct(fields.field_bytes(a, starts, lengths), grouped=True)
    if ids is None:
        return (), None
    names = fields.texts(ids[1])
    return tuple(names), names[ids[0][-1]]


_PANDAS = {"header": None, "index_col": False, "quoting": 3, "na_filter": False,  # 3: csv.QUOTE_NONE
           "engine": "c", "encoding": "utf-8", "skip_blank_lines": False}
_PANDAS_TYPES = {"qid": object, "iter": "category", "docno": object, "runid": "category"}


def _pandas_block(raw: bytes, kind: str, shape: _Shape) -> _Block | None:
    """A block's columns as pandas' C reader reads them, or None if it refuses a line or reads a number differently.

    Every line up to ``shape.end`` is a row (a blank one of empty fields, declined later).
    One space between fields (as many spaces as that gives, no tab) is read in pandas'
    faster single-character mode, where a miscount only declines the file.
    """
    pd = _pandas()
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
                                **_PANDAS, **_pandas_options(pd))
    except (ValueError, OverflowError, UnicodeError, pd.errors.ParserWarning):  # ParserError is a ValueError
        return None
    del data
    kinds = {name: table[name].dtype.kind for name in names if name in _NUMBERS}
    if len(table) != rows or kinds.get("rank", "i") != "i" or kinds.get("rel", "i") != "i" \
            or kinds.get("score", "f") not in "fi" or "" in table["iter"].array.categories:
        return None
    run_ids, last = (), None
    if kind == "run":
        runid = table["runid"].array
        if "" in runid.categories:  # a line of 5 fields
            return None
        run_ids = tuple(runid.categories.take(pd.unique(runid.codes)).tolist())
        last = runid.categories[runid.codes[-1]]
    value = table["score"].to_numpy(dtype=np.float64) if kind == "run" else table["rel"].to_numpy()
    parts = {}
    for name in ("qid", "docno"):
        codes, keys = pd.factorize(table.pop(name))
        parts[name] = [(codes.astype(np.int32), np.asarray(keys, dtype=object))]
    return _Block(parts["qid"], parts["docno"], value, run_ids, last)


def _number(parts: list, total: int) -> tuple[np.ndarray, list]:
    """(codes, distinct ids) for the whole file from the blocks' parts, ids numbered in order of first appearance.

    The parts' distinct ids are numbered once (in pyarrow where every part came from it, else
    by pandas), and each part's codes are mapped through that numbering: no object per row.
    """
    out = np.empty(total, dtype=np.int32 if total < 2**31 else np.int64)
    if not parts:
        return out, []
    dictionaries = [keys for _, keys in parts]
    if all(_is_bytes(keys) for keys in dictionaries):
        numbering, distinct = _number_bytes(dictionaries)
    elif all(not isinstance(keys, np.ndarray) for keys in dictionaries):
        pa = _pyarrow()
        encoded = pa.concat_arrays(dictionaries).dictionary_encode()
        numbering, distinct = _numpy(encoded.indices), encoded.dictionary.to_pylist()
    else:
        pd = _pandas()
        objects = [np.array(fields.texts(keys), dtype=object) if _is_bytes(keys)
                   else keys if isinstance(keys, np.ndarray) else np.array(keys.to_pylist(), dtype=object)
                   for keys in dictionaries]
        numbering, distinct = pd.factorize(np.concatenate(objects))
        distinct = distinct.tolist()
    row = first = 0
    for codes, keys in parts:
        out[row:row + len(codes)] = numbering[first:first + len(keys)][codes]
        row, first = row + len(codes), first + len(keys)
    return out, distinct


def _is_bytes(keys) -> bool:
    """Whether a part's distinct ids are the numpy engine's matrix of NUL-padded bytes."""
    return isinstance(keys, np.ndarray) and keys.dtype == np.uint8


def _number_bytes(dictionaries: list) -> tuple[np.ndarray, list]:
    """(number of each part's distinct id, distinct ids) where every part came from the numpy engine."""
    width = max(keys.shape[1] for keys in dictionaries)
    mat = np.zeros((sum(map(len, dictionaries)), width), dtype=np.uint8)
    row = 0
    for keys in dictionaries:
        mat[row:row + len(keys), :keys.shape[1]] = keys
        row += len(keys)
    got = fields.distinct(mat)
    if got is None:  # two ids with one key across blocks: numbered through their text instead
        numbering, distinct = _pandas().factorize(np.array(fields.texts(mat), dtype=object))
        return numbering, distinct.tolist()
    return got[0], fields.texts(got[1])


def _block(raw: bytes, kind: str, engine: str | None, shape: _Shape) -> _Block | None:
    """A block of data lines as columns, or None for the strict reader (engine None: numpy, then pyarrow or pandas)."""
    block = None
    for name in ("numpy", "arrow") if engine is None else (engine,):
        if name == "arrow" and (shape.tabs or _pyarrow() is None):  # imported only when numpy declines
            name = "pandas"
        block = _READERS[name](raw, kind, shape)
        if block is not None:
            break
    if block is not None and kind == "run" and not np.isfinite(block.values).all():
        return None
    return block


_READERS = {"numpy": _numpy_block, "arrow": _arrow_block, "pandas": _pandas_block}


def _malloc_trim():
    """glibc's malloc_trim, or None elsewhere."""
    try:
        return ctypes.CDLL(None).malloc_trim
    except (AttributeError, OSError):
        return None


_TRIM = _malloc_trim() if sys.platform.startswith("linux") else None


def _give_back() -> None:
    """Return the memory a block's parsing freed to the system (glibc keeps it in the arenas of pyarrow's threads).

    Without it each parser thread's arena keeps the block's freed table (2,000,000 run lines: 70 MB more peak).
    """
    if _TRIM is not None:
        _TRIM(0)


def cuts(raw: bytes, size: int, n: int | None = None) -> Iterator[tuple[int, int]]:
    """(start, end) of blocks of about size bytes of raw[:n], each cut after a line end (the last may have none)."""
    start, n = 0, len(raw) if n is None else n
    while start < n:
        end = n if n - start <= size else raw.rfind(b"\n", start, start + size) + 1
        if end <= start:  # a line longer than size
            end = raw.find(b"\n", start + size, n) + 1 or n
        yield start, end
        start = end


def split_blocks(raw: bytes, size: int = BLOCK) -> Iterator[bytes]:
    """raw in blocks of about size bytes, each cut after a line end (the last one may have none)."""
    for start, end in cuts(raw, size):
        yield raw[start:end]


def read_blocks(blocks: Iterable[bytes], source: str, kind: str,
                engine: str | None = None) -> tuple[Columns, ReadReport] | None:
    """A regular run or qrels text, given in blocks that end at line ends, as ``(columns, report)``; or None.

    A (query, document) pair twice is not checked here: :func:`read_bulk` declines such a file
    (the strict reader names both lines), and so must any other caller.  Blank blocks are counted
    and dropped: blank lines only (64 MB of newlines) cost a block and raise "empty file" (SourceError).
    """
    got: list[_Block] = []
    rows = blank = 0
    for raw in blocks:
        shape = _shape(raw) if raw else _Shape(0, 0, False)
        if shape is None or (shape.end and blank):  # data after blank lines: the strict reader reports them
            return None
        if not shape.end:
            blank += shape.blank
            continue
        block = _block(raw, kind, engine, shape)
        del raw
        _give_back()
        if block is None:
            return None
        got.append(block)
        rows, blank = rows + len(block.values), shape.blank
    if not rows:
        raise empty(source, kind, LineSet(blank), LineSet(), SourceError)
    result = _finish(got, rows, blank, source, kind)
    _give_back()
    return result


def _finish(got: list[_Block], rows: int, blank: int, source: str, kind: str) -> tuple[Columns, ReadReport] | None:
    """The blocks as one file's columns and report, or None if an id is empty or a query id starts with '#'."""
    codes, keys = _number([part for block in got for part in block.qids], rows)
    doc_codes, doc_keys = _number([part for block in got for part in block.docs], rows)
    if "" in doc_keys or any(key.startswith("#") or not key for key in keys):
        return None  # a comment after leading blanks; an empty field (two spaces in a row) under sep " "
    values = np.concatenate([block.values for block in got])  # one array of its own (blocks may be views)
    run_ids = tuple(dict.fromkeys(chain.from_iterable(block.run_ids for block in got)))
    last = got[-1].last_run_id
    del got
    cols = Columns(codes, keys, doc_codes, doc_keys, values, run_ids, last)
    report = ReadReport(source, kind, rows + blank, rows, len(keys), blank=LineSet.of(range(rows + 1, rows + blank + 1)),
                        run_ids=run_ids, last_run_id=last)
    return cols, report


def read_columns(raw: bytes, source: str, kind: str, engine: str | None = None,
                 block: int = BLOCK) -> tuple[Columns, ReadReport] | None:
    """A regular run or qrels file's bytes as ``(columns, report)``, or None for the strict reader (see read_blocks)."""
    return read_blocks(split_blocks(raw, block), source, kind, engine)


def columns_of(nested: dict, dtype) -> Columns:
    """The columns of nested dicts ``{qid: {docno: value}}``, in their order (values as dtype), without pandas
    (the trec_eval command reads a small file so: importing pandas would be most of its start-up)."""
    lengths = np.fromiter(map(len, nested.values()), dtype=np.int64, count=len(nested))
    codes = np.repeat(np.arange(len(nested), dtype=np.int64), lengths)
    docs = list(chain.from_iterable(nested.values()))
    number = dict(zip(dict.fromkeys(docs), range(len(docs))))  # docno -> code, in order of first appearance
    doc_codes = np.fromiter(map(number.__getitem__, docs), dtype=np.int64, count=len(docs))
    values = np.fromiter(chain.from_iterable(d.values() for d in nested.values()), dtype=dtype, count=len(docs))
    return Columns(codes, list(nested), doc_codes, list(number), values, (), None)


def has_repeats(cols: Columns) -> bool:
    """Whether a (query, document) pair occurs twice.

    One key per row; marked in a table of every pair where that table takes at most about
    8 bytes a row (ten times faster than sorting 2,000,000 keys), else sorted in place.
    """
    n_docs = max(len(cols.doc_keys), 1)
    n_keys = max(len(cols.keys), 1) * n_docs
    key = cols.codes.astype(np.int32 if n_keys < 2**31 else np.int64)
    key *= n_docs
    key += cols.doc_codes
    if n_keys <= 8 * len(key) + (1 << 20):
        seen = np.zeros(n_keys, dtype=bool)
        seen[key] = True
        return int(np.count_nonzero(seen)) != len(key)
    key.sort()
    return bool((key[1:] == key[:-1]).any())


def nested(cols: Columns) -> dict | None:
    """Columns as ``{qid: {docno: value}}`` in file order, or None if a (query, document) pair repeats."""
    from .frames import nest
    return nest(cols.codes, cols.keys, cols.docs, cols.values.tolist())


def read_bulk(raw: bytes, source: str, kind: str, engine: str | None = None,
              block: int = BLOCK) -> tuple[dict, ReadReport] | None:
    """A regular run or qrels file as ``(nested dict, report)``, or None for the strict reader."""
    got = read_columns(raw, source, kind, engine, block)
    if got is None:
        return None
    cols, report = got
    result = nested(cols)
    return None if result is None else (result, report)

