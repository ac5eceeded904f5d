"""Open what the TREC readers read: a path (gzip or not), ``"-"`` for standard input, or an open file."""
from __future__ import annotations

import codecs
import gzip
import io
import os
import stat
import sys
import zlib
from collections.abc import Iterator

from .errors import FormatError, SourceError

STDIN = "-"
GZIP_MAGIC = b"\x1f\x8b"
_BOM = b"\xef\xbb\xbf"
MAX_LINE = 1 << 20  # the longest line the readers take (bytes): a longer one is a binary file or no TREC file


def is_source(obj) -> bool:
    """True for what read_source opens: a str or PathLike path, ``"-"``, or an object with ``read``."""
    return isinstance(obj, (str, os.PathLike)) or callable(getattr(obj, "read", None))


def read_source(source) -> tuple[str, bytes | str]:
    """``(name, content)``: the name errors use and the raw bytes (or text, from a text stream)."""
    if isinstance(source, str) and source == STDIN:
        stream = sys.stdin
        return "<stdin>", read_lines(getattr(stream, "buffer", stream), "<stdin>")
    if isinstance(source, (str, os.PathLike)):
        with open(source, "rb") as fh:
            if stat.S_ISREG(os.fstat(fh.fileno()).st_mode):  # a regular file: one read, then a look at its lines
                return str(source), check_lines(fh.read(), str(source))
            return str(source), read_lines(fh, str(source))  # a pipe or a device: read until MAX_LINE passes
    if callable(getattr(source, "read", None)):
        name = getattr(source, "name", None)
        name = name if isinstance(name, str) else "<file>"
        return name, read_lines(source, name)
    raise TypeError(f"expected a path, '-' (standard input) or an open file, not {type(source).__name__}")


def read_lines(stream, name: str) -> bytes | str:
    """All of a stream (bytes or text), read MAX_LINE at a time; FormatError at a line longer than MAX_LINE.

    A file without line ends (``/dev/zero``, a binary file) is refused after MAX_LINE bytes
    instead of being read until memory runs out.
    """
    parts: list = []
    tail = 0  # length of the unterminated line so far
    check = None
    while True:
        part = stream.read(MAX_LINE)
        if part is None or not isinstance(part, (bytes, bytearray, str)):
            raise TypeError(f"{stream!r}.read() returned {type(part).__name__}, not bytes or str")
        if not part:
            break
        if check is None:  # gzip bytes are checked once unzipped
            check = Utf8Check(name) if isinstance(part, (bytes, bytearray)) and part[:2] != GZIP_MAGIC else False
        if check:
            check(part)  # junk fails here, at its first block, not after the whole stream is read
        parts.append(part)
        newline = "\n" if isinstance(part, str) else b"\n"
        first = part.find(newline)
        if tail + (len(part) if first < 0 else first) > MAX_LINE:
            raise _too_long(name, sum(p.count(newline) for p in parts[:-1]) + 1)
        tail = len(part) - 1 - part.rfind(newline) if first >= 0 else tail + len(part)
    return parts[0][:0].join(parts) if parts else b""


class Utf8Check:
    """Checks that consecutive pieces of a byte stream are UTF-8 (a character may straddle two pieces);
    SourceError naming the line of the first bad byte."""

    def __init__(self, name: str):
        self.name, self.line = name, 1
        self.decoder = codecs.getincrementaldecoder("utf-8")()

    def __call__(self, part: bytes) -> None:
        if self.decoder.getstate()[0] or not part.isascii():  # ASCII between characters: nothing to decode
            try:
                self.decoder.decode(part)
            except UnicodeDecodeError as err:
                line = self.line + err.object.count(b"\n", 0, err.start)
                raise SourceError(self.name, line, f"not valid UTF-8 ({err.reason})") from None
        self.line += part.count(b"\n")


def check_lines(data: bytes, name: str, first_line: int = 1) -> bytes:
    """data, if no line in it is longer than MAX_LINE (one search per MAX_LINE bytes), else FormatError.

    first_line: the number of data's first line in its source (data starts at a line start).
    """
    start, size = 0, len(data)
    while size - start > MAX_LINE:
        end = data.rfind(b"\n", start, start + MAX_LINE + 1)
        if end < 0:
            raise _too_long(name, first_line + data.count(b"\n", 0, start))
        start = end + 1
    return data


def regular_file(source) -> bool:
    """True if source is a path (not ``"-"``) to a regular file."""
    if not isinstance(source, (str, os.PathLike)) or (isinstance(source, str) and source == STDIN):
        return False
    try:
        return stat.S_ISREG(os.stat(source).st_mode)
    except (OSError, ValueError):
        return False


def file_blocks(path, size: int) -> Iterator[bytes]:
    """A regular file's content in blocks of about size bytes, each cut after a line end (the last may have none).

    What :func:`raw_bytes` makes of the whole file, a block at a time, so the file is never held
    whole: gunzipped when it starts with gzip's magic bytes, without a UTF-8 byte-order mark;
    FormatError at a line longer than MAX_LINE (the error :func:`check_lines` gives).  A broken
    gzip stream raises what :mod:`gzip` raises (OSError, EOFError, zlib.error).
    """
    with open(path, "rb") as raw:
        yield from stream_blocks(raw, str(path), size)


def stream_blocks(raw, name: str, size: int) -> Iterator[bytes]:
    """What :func:`file_blocks` gives, from an open binary stream with ``peek`` (a file, io.BufferedReader);
    each block is checked to be UTF-8 as it comes (SourceError at the first that is not)."""
    stream = gzip.GzipFile(fileobj=raw) if raw.peek(2)[:2] == GZIP_MAGIC else raw
    utf8 = Utf8Check(name)
    carry, line, first = b"", 1, True
    while part := stream.read(size):
        if first:
            part, first = part.removeprefix(_BOM), False
        cut = part.rfind(b"\n") + 1
        if not cut:
            carry = check_lines(carry + part, name, line)
            continue
        block = b"".join((carry, memoryview(part)[:cut])) if carry or cut < len(part) else part
        carry = part[cut:]
        del part
        check_lines(block, name, line)
        utf8(block)
        line += block.count(b"\n")
        yield block
        del block
    if carry:
        utf8(carry)
        yield check_lines(carry, name, line)


def _too_long(name: str, line: int) -> FormatError:
    """The error for a line without a line end within MAX_LINE bytes."""
    return FormatError(name, line, f"no line end within {MAX_LINE // 2**20} MiB (is this a binary file?)")


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
            with gzip.GzipFile(fileobj=io.BytesIO(data)) as unzipped:
                data = read_lines(unzipped, name)
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
