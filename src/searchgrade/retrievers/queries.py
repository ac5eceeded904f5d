"""The questions a retriever is asked: ``{qid: text}``, or a queries file in the forms the collections use.

Files (UTF-8):

``.jsonl`` / ``.json``
    one JSON object per line with an id and a text: BEIR's ``{"_id", "text"}``, MIRACL-ko's
    ``{"qid", "text"}``; the id may also be called ``query_id`` or ``id``, the text ``query``.
``.tsv`` / ``.txt``
    ``qid<TAB>text`` lines (ir_datasets' and MS MARCO's topics files).

A query id is a non-empty string (JSON integers are read as their decimal text) without
whitespace, so that the run can be written as a TREC file; a text is a non-empty string; an id
given twice is an error naming the file and the line.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from numbers import Integral
from pathlib import Path

from ..io import FormatError
from ..io.errors import shown
from ..io.jsonl import read_jsonl

__all__ = ["read_queries", "ID_KEYS", "TEXT_KEYS"]

#: Names a queries file may give the query id, in the order they are looked for.
ID_KEYS = ("_id", "qid", "query_id", "id")
#: Names a queries file may give the query text.
TEXT_KEYS = ("text", "query")


def read_queries(source) -> dict[str, str]:
    """``{qid: text}`` from a mapping, or from a ``.jsonl`` / ``.tsv`` queries file (see the module docstring)."""
    if isinstance(source, Mapping):
        return _from_mapping(source)
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if not path.is_file():
            raise FileNotFoundError(f"{path}: no such queries file")
        if path.suffix.lower() in (".jsonl", ".json"):
            return _from_jsonl(path)
        if path.suffix.lower() in (".tsv", ".txt"):
            return _from_tsv(path)
        raise ValueError(f"{path}: a queries file is .jsonl (an id and a text per line) or .tsv (qid<TAB>text)")
    raise TypeError(f"queries must be {{qid: text}} or the path of a queries file, not {type(source).__name__}")


def _qid(value, where: str) -> str:
    """A query id as text: a string or an integer, non-empty, without whitespace."""
    if isinstance(value, bool) or not isinstance(value, (str, Integral)):
        raise TypeError(f"{where}: query id {value!r} is a {type(value).__name__}, not a string")
    text = str(value)
    if text.split() != [text]:
        raise ValueError(f"{where}: query id {value!r} is empty or contains whitespace")
    return text


def _text(value, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{where}: the query text is not a non-empty string: {shown(str(value))}")
    return value


def _add(out: dict[str, str], qid: str, text: str, where: str, first: dict[str, str]) -> None:
    if qid in out:
        raise ValueError(f"{where}: query {qid!r} given twice (first {first[qid]})")
    out[qid] = text
    first[qid] = where


def _from_mapping(queries: Mapping) -> dict[str, str]:
    out: dict[str, str] = {}
    first: dict[str, str] = {}
    for qid, text in queries.items():
        key = _qid(qid, "queries")
        _add(out, key, _text(text, f"query {key!r}"), f"query {qid!r}", first)
    if not out:
        raise ValueError("no queries")
    return out


def _pick(obj: dict, keys: tuple[str, ...], what: str, path: Path, lineno: int):
    for key in keys:
        if key in obj:
            return obj[key]
    raise FormatError(path, lineno, f"no {what} (a key among {', '.join(keys)})")


def _from_jsonl(path: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    first: dict[str, str] = {}
    for lineno, obj in read_jsonl(path, required=()):
        where = f"{path}:{lineno}"
        try:
            qid = _qid(_pick(obj, ID_KEYS, "query id", path, lineno), where)
            _add(out, qid, _text(_pick(obj, TEXT_KEYS, "query text", path, lineno), where), where, first)
        except (TypeError, ValueError) as err:
            if isinstance(err, FormatError):
                raise
            raise FormatError(path, lineno, str(err).removeprefix(f"{where}: ")) from None
    if not out:
        raise FormatError(path, None, "no queries (the file is empty)")
    return out


def _from_tsv(path: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    first: dict[str, str] = {}
    with open(path, "rb") as fh:
        for lineno, raw in enumerate(fh, 1):
            try:
                line = raw.decode("utf-8-sig" if lineno == 1 else "utf-8").rstrip("\r\n")
            except UnicodeDecodeError as err:
                raise FormatError(path, lineno, f"not valid UTF-8 ({err.reason})") from None
            if not line.strip():
                continue
            qid, tab, text = line.partition("\t")
            where = f"{path}:{lineno}"
            if not tab:
                raise FormatError(path, lineno, "expected 'qid<TAB>text'")
            try:
                _add(out, _qid(qid, where), _text(text, where), where, first)
            except (TypeError, ValueError) as err:
                raise FormatError(path, lineno, str(err).removeprefix(f"{where}: ")) from None
    if not out:
        raise FormatError(path, None, "no queries (the file is empty)")
    return out
