"""Open what the TREC readers read: a path (gzip or not), ``"-"`` for standard input, or an open file."""
from __future__ import annotations

import gzip
import os
import sys
import zlib
from pathlib import Path

from ._report import FormatError

STDIN = "-"
GZIP_MAGIC = b"\x1f\x8b"
_BOM = b"\xef\xbb\xbf"


def is_source(obj) -> bool:
    """True for what read_source opens: a str or PathLike path, ``"-"``, or an object with ``read``."""
    return isinstance(obj, (str, os.PathLike)) or callable(getattr(obj, "read", None))


def read_source(source) -> tuple[str, bytes | str]:
    """``(name, content)``: the name errors use and the raw bytes (or text, from a text stream)."""
    if isinstance(source, str) and source == STDIN:
        stream = sys.stdin
        return "<stdin>", getattr(stream, "buffer", stream).read()
    if isinstance(source, (str, os.PathLike)):
        return str(source), Path(source).read_bytes()
    if callable(getattr(source, "read", None)):
        name = getattr(source, "name", None)
        content = source.read()
        if not isinstance(content, (bytes, bytearray, str)):
            raise TypeError(f"{source!r}.read() returned {type(content).__name__}, not bytes or str")
        return (name if isinstance(name, str) else "<file>"), content
    raise TypeError(f"expected a path, '-' (standard input) or an open file, not {type(source).__name__}")


def raw_bytes(name: str, content: bytes | str) -> bytes | str:
    """Content as UTF-8 bytes without a byte-order mark, gunzipped if it starts with gzip's magic bytes.

    Text that cannot be encoded (lone surrogates) is returned as text, without its BOM.
    """
    if isinstance(content, str):
        content = content.removeprefix("\ufeff")
        try:
            return content.encode("utf-8")
        except UnicodeEncodeError:
            return content
    data = bytes(content)
    if data.startswith(GZIP_MAGIC):
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as err:
            raise FormatError(name, None, f"not a valid gzip file ({err})") from None
    return data[3:] if data.startswith(_BOM) else data


def decode(name: str, data: bytes | str) -> str:
    """UTF-8 bytes as text; bad bytes raise FormatError naming their line."""
    if isinstance(data, str):
        return data
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise FormatError(name, line, f"not valid UTF-8 ({err.reason})") from None
