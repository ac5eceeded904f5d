"""Open what the TREC readers read: a path (gzip or not), ``"-"`` for standard input, or an open file.

:func:`open_source` gives a source's content a block at a time, cut at line ends, as often as a
reader asks for it from the start: gunzipped (gzip is recognised by its magic bytes, whatever the
name), without a UTF-8 byte-order mark, each line checked to be at most MAX_LINE bytes and each
block to be UTF-8 *after* inflating, so that a reader can stop at the first bad block without
reading on.  A regular file is opened again for each reading; a stream (standard input, a pipe, an
open file) is read on demand and kept as it came (gzip content stays compressed), so that it too can
be read again.  :func:`read_source` reads a source whole, for the readers that need all of it.
"""
from __future__ import annotations

import codecs
import gzip
import io
import os
import stat
import sys
import zlib
from collections.abc import Callable, Iterator
from typing import NamedTuple

from .errors import FormatError, SourceError

STDIN = "-"
GZIP_MAGIC = b"\x1f\x8b"
_BOM = b"\xef\xbb\xbf"
MAX_LINE = 1 << 20  # the longest line the readers take (bytes): a longer one is a binary file or no TREC file
_CHUNK = 1 << 16  # bytes read from a stream at a time


class Opened(NamedTuple):
    """A source ready to read: the name its errors use, ``blocks(size)``, its content from the start in
    blocks of about size bytes cut after line ends (bytes; a str for text that cannot be UTF-8 encoded),
    ``close()``, which closes what was opened here (call it when done), and ``size()``, the bytes it holds
    on disk (None where unknown: content already read)."""

    name: str
    blocks: Callable[[int], Iterator[bytes | str]]
    close: Callable[[], None] = lambda: None
    size: Callable[[], int | None] = lambda: None


def is_source(obj) -> bool:
    """True for what read_source opens: a str or PathLike path, ``"-"``, or an object with ``read``."""
    return isinstance(obj, (str, os.PathLike)) or callable(getattr(obj, "read", None))


def open_source(source, name: str | None = None) -> Opened:
    """A path, ``"-"`` or an open file (name None), or content already read (a str, which errors call name),
    ready to be read in blocks (see :class:`Opened`)."""
    if name is not None:
        return _content(name, source)
    if regular_file(source):
        return Opened(str(source), lambda size: file_blocks(source, size))
    name, stream, opened = _named_stream(source)
    first = stream.read(MAX_LINE)
    if isinstance(first, str):
        return _content(name, _read_text(stream, first, name))  # a text stream is never opened here
    kept = _Kept(stream, _checked_part(stream, first, bytes))
    blocks = lambda size: stream_blocks(kept.reader(), name, size)  # noqa: E731
    return Opened(name, blocks, stream.close) if opened else Opened(name, blocks)


def open_spooled(source, folder: Callable[[], str]) -> Opened:
    """A path, ``"-"`` or an open file, ready to be read in blocks as often as asked (see :class:`Opened`)
    without keeping a stream in memory: a regular file is opened again for each reading; a binary stream
    (standard input, a pipe) is copied to a file in ``folder()`` (a folder made when first asked for) as it
    is read the first time, and read from that file afterwards; a text stream is read at once, as
    :func:`open_source` reads it."""
    if regular_file(source):
        return Opened(str(source), lambda size: file_blocks(source, size), size=lambda: os.path.getsize(source))
    name, stream, opened = _named_stream(source)
    first = stream.read(MAX_LINE)
    if isinstance(first, str):
        try:
            return _content(name, _read_text(stream, first, name))
        finally:
            if opened:
                stream.close()
    spool = _Spool(stream, _checked_part(stream, first, bytes), os.path.join(folder(), "input"))

    def close() -> None:
        spool.file.close()
        if opened:
            stream.close()
    return Opened(name, lambda size: spool.blocks(name, size), close, spool.size)


class _Spool:
    """A binary stream copied to a file as it is read the first time; read from the file afterwards."""

    def __init__(self, stream, first: bytes, path: str):
        self.stream, self.first, self.path = stream, first, path
        self.file = open(path, "wb")
        self.file.write(first)
        self.read_once = False

    def blocks(self, name: str, size: int) -> Iterator[bytes]:
        """The stream's content in blocks (see :func:`stream_blocks`): from the stream, copied as it comes,
        the first time; from the copy (the rest of the stream copied first) afterwards."""
        if not self.read_once:
            self.read_once = True
            yield from stream_blocks(io.BufferedReader(_Tee(self)), name, size)
            return
        self.copy_rest()
        yield from file_blocks(self.path, size)

    def copy_rest(self) -> None:
        """Copy what the stream still holds to the file."""
        while part := _checked_part(self.stream, self.stream.read(_CHUNK), bytes):
            self.file.write(part)
        self.file.flush()

    def size(self) -> int:
        """The bytes copied so far."""
        self.file.flush()
        return os.path.getsize(self.path)


class _Tee(io.RawIOBase):
    """A reader of a :class:`_Spool`'s stream that copies what it reads to the spool's file."""

    def __init__(self, spool: _Spool):
        super().__init__()
        self.spool = spool

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        part, self.spool.first = self.spool.first, b""
        if not part:
            part = _checked_part(self.spool.stream, self.spool.stream.read(len(buffer)), bytes)
            self.spool.file.write(part)
        n = min(len(buffer), len(part))
        buffer[:n] = part[:n]
        if n < len(part):  # the first part was longer than the buffer: the rest is served next
            self.spool.first = part[n:]
        return n


def _named_stream(source) -> tuple[str, object, bool]:
    """(name, open stream, whether it was opened here) of ``"-"``, a path that is no regular file (a pipe, a
    device) or an open file."""
    if isinstance(source, str) and source == STDIN:
        stream = sys.stdin
        return "<stdin>", getattr(stream, "buffer", stream), False
    if isinstance(source, (str, os.PathLike)):
        return str(source), open(source, "rb"), True
    if callable(getattr(source, "read", None)):
        name = getattr(source, "name", None)
        return (name if isinstance(name, str) else "<file>"), source, False
    raise TypeError(f"expected a path, '-' (standard input) or an open file, not {type(source).__name__}")


def _content(name: str, content: bytes | str) -> Opened:
    """Content read already, in blocks (text that cannot be encoded is one block of text)."""
    data = raw_bytes(name, content)
    if isinstance(data, str):
        return Opened(name, lambda size: iter([data]))
    return Opened(name, lambda size: split_blocks(data, size))


def _checked_part(stream, part, kind: type):
    """What stream.read() returned, if it is of the stream's kind (bytes or str)."""
    if part is None or not isinstance(part, (bytearray, kind)):
        raise TypeError(f"{stream!r}.read() returned {type(part).__name__}, not bytes or str")
    return part


class _Kept:
    """A binary stream read on demand, everything read kept, so that it can be read again from its start."""

    def __init__(self, stream, first: bytes):
        self.stream, self.data, self.done = stream, bytearray(first), not first

    def more(self) -> bool:
        """Read the next part of the stream; False at its end."""
        if not self.done:
            part = _checked_part(self.stream, self.stream.read(_CHUNK), bytes)
            self.data += part
            self.done = not part
        return not self.done

    def reader(self) -> io.BufferedReader:
        """A reader of everything the stream gives, from its start."""
        return io.BufferedReader(_KeptReader(self))


class _KeptReader(io.RawIOBase):
    """A reader of a :class:`_Kept` stream from its start."""

    def __init__(self, kept: _Kept):
        super().__init__()
        self.kept, self.at = kept, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        while self.at >= len(self.kept.data) and self.kept.more():
            pass
        n = min(len(buffer), len(self.kept.data) - self.at)
        with memoryview(self.kept.data) as data:  # released before the data grows again
            buffer[:n] = data[self.at:self.at + n]
        self.at += n
        return n


def read_source(source) -> tuple[str, bytes | str]:
    """``(name, content)``: the name errors use and the raw bytes (or text, from a text stream), for
    :func:`raw_bytes` to gunzip.

    A regular file is read at once and its lines checked; a stream is checked as it comes, gzip
    content after inflating (UTF-8, lines of at most MAX_LINE bytes), so that junk stops the reading
    at its first block.
    """
    if regular_file(source):
        with open(source, "rb") as fh:
            return str(source), check_lines(fh.read(), str(source))
    name, stream, opened = _named_stream(source)
    try:
        first = stream.read(MAX_LINE)
        if isinstance(first, str):
            return name, _read_text(stream, first, name)
        kept = _Kept(stream, _checked_part(stream, first, bytes))
        for _ in stream_blocks(kept.reader(), name, MAX_LINE):  # the checks, a block at a time
            pass
        return name, bytes(kept.data)
    finally:
        if opened:
            stream.close()


def _read_text(stream, first: str, name: str) -> str:
    """All of a text stream, read MAX_LINE characters at a time; FormatError at a line longer than MAX_LINE.

    A stream without line ends is refused after MAX_LINE characters instead of being read until
    memory runs out.
    """
    parts: list[str] = []
    tail = 0  # length of the unterminated line so far
    part = first
    while part:
        parts.append(part)
        at = part.find("\n")
        if tail + (len(part) if at < 0 else at) > MAX_LINE:
            raise _too_long(name, sum(p.count("\n") for p in parts[:-1]) + 1)
        tail = len(part) - 1 - part.rfind("\n") if at >= 0 else tail + len(part)
        part = _checked_part(stream, stream.read(MAX_LINE), str)
    return "".join(parts)


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
    """data, if no line in it is longer than MAX_LINE (one search per MAX_LINE bytes), else SourceError.

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
    SourceError at a line longer than MAX_LINE (the error :func:`check_lines` gives), at bytes that
    are not UTF-8 and at a broken gzip stream.
    """
    with open(path, "rb") as raw:
        yield from stream_blocks(raw, str(path), size)


def stream_blocks(raw, name: str, size: int) -> Iterator[bytes]:
    """What :func:`file_blocks` gives, from an open binary stream with ``peek`` (a file, io.BufferedReader).

    The stream is read (and inflated) at most MAX_LINE bytes at a time, each part checked as it comes
    to be UTF-8 and to hold no line longer than MAX_LINE (a part is no longer, so only a line running
    across parts can be), so that junk fails at its first MiB; parts are joined into blocks of about
    size bytes, cut after their last line end.
    """
    stream = gzip.GzipFile(fileobj=raw) if raw.peek(2)[:2] == GZIP_MAGIC else raw
    utf8 = Utf8Check(name)
    pending: list[bytes] = []
    have = tail = 0  # bytes pending; bytes of the line not ended yet
    first = True
    while part := _inflated(stream, min(size, MAX_LINE), name):
        if first:
            part, first = part.removeprefix(_BOM), False
        at = part.find(b"\n")
        if tail + (len(part) if at < 0 else at) > MAX_LINE:
            raise _too_long(name, utf8.line)
        tail = len(part) - 1 - part.rfind(b"\n") if at >= 0 else tail + len(part)
        utf8(part)
        pending.append(part)
        have += len(part)
        if have >= size and at >= 0:  # a block, cut after this part's last line end (one copy: the join)
            cut = len(part) - tail
            pending[-1] = memoryview(part)[:cut]
            yield b"".join(pending)
            pending, have = [part[cut:]], tail
    if have:
        yield b"".join(pending)


def _inflated(stream, size: int, name: str) -> bytes:
    """The next size bytes of a stream (gunzipped where it is a GzipFile); SourceError for a broken gzip stream."""
    try:
        return stream.read(size)
    except (OSError, EOFError, zlib.error) as err:
        if not isinstance(stream, gzip.GzipFile):
            raise
        raise SourceError(name, None, f"not a valid gzip file ({err})") from None


def cuts(raw: bytes, size: int, n: int | None = None) -> Iterator[tuple[int, int]]:
    """(start, end) of blocks of about size bytes of raw[:n], each cut after a line end (the last may have none)."""
    start, n = 0, len(raw) if n is None else n
    while start < n:
        end = n if n - start <= size else raw.rfind(b"\n", start, start + size) + 1
        if end <= start:  # a line longer than size
            end = raw.find(b"\n", start + size, n) + 1 or n
        yield start, end
        start = end


def split_blocks(raw: bytes, size: int) -> Iterator[bytes]:
    """raw in blocks of about size bytes, each cut after a line end (the last one may have none)."""
    for start, end in cuts(raw, size):
        yield raw[start:end]


def _too_long(name: str, line: int) -> SourceError:
    """The error for a line without a line end within MAX_LINE bytes (every reader's error)."""
    return SourceError(name, line, f"no line end within {MAX_LINE // 2**20} MiB (is this a binary file?)")


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
        return b"".join(stream_blocks(io.BufferedReader(io.BytesIO(data)), name, MAX_LINE))
    return data[3:] if data.startswith(_BOM) else data


def decode(name: str, data: bytes | str, first_line: int = 1) -> str:
    """UTF-8 bytes as text; bad bytes raise FormatError naming their line (data starts at line first_line)."""
    if isinstance(data, str):
        return data
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = first_line + data.count(b"\n", 0, err.start)
        raise FormatError(name, line, f"not valid UTF-8 ({err.reason})") from None
