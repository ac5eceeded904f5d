"""searchgrade.io.readers over sources that inflate: line lengths are checked after inflating, and the first
error stops the reading (issue 41, D7: a gzip run on standard input, a gzip bomb of one repeated line)."""
from __future__ import annotations

import gzip
import io
import sys
import zlib

import pytest

from searchgrade.io import FormatError, load_columns, read_run, sources
from searchgrade.trec_eval import main

LINE = b"q1 Q0 d1 1 1.0 sys\n"
BOMB_ERROR = "duplicate document: query q1 document d1 is already on line 1"


class _EndlessBomb:
    """A gzip stream that never ends: one run line repeated (inflating to as much as is read), counting the
    compressed bytes read; reading 16 MB of it (several GB inflated) is reading on."""

    def __init__(self, line: bytes = LINE):
        self.zip = zlib.compressobj(1, zlib.DEFLATED, 31)  # 31: a gzip header and trailer
        self.chunk, self.pending, self.read_bytes = line * ((1 << 20) // len(line)), b"", 0

    def read(self, n: int = -1) -> bytes:
        n = 1 << 16 if n is None or n < 0 else n
        while len(self.pending) < n:
            self.pending += self.zip.compress(self.chunk)
        part, self.pending = self.pending[:n], self.pending[n:]
        self.read_bytes += len(part)
        assert self.read_bytes <= 16 << 20, "read 16 MB of a gzip bomb past its error on line 2"
        return part


class _Endless:
    """An uncompressed stream of one run line, forever (see _EndlessBomb)."""

    def __init__(self):
        self.read_bytes = 0

    def read(self, n: int = -1) -> bytes:
        n = 1 << 16 if n is None or n < 0 else n
        self.read_bytes += n
        assert self.read_bytes <= 64 << 20, "read 64 MB past an error on line 2"
        return (LINE * (n // len(LINE) + 1))[:n]


@pytest.mark.parametrize("stream", [_EndlessBomb, _Endless])
def test_an_endless_repeated_line_stops_at_the_duplicate_on_line_2(stream):
    source = stream()
    with pytest.raises(FormatError, match=rf"^<file>:2: {BOMB_ERROR}$"):
        read_run(source)
    with pytest.raises(FormatError, match=rf"^<file>:2: {BOMB_ERROR}$"):
        load_columns(stream(), "run")  # what the trec_eval command reads
    assert source.read_bytes <= (1 << 20 if stream is _EndlessBomb else 16 << 20)


def test_a_bomb_on_standard_input_gets_the_duplicate_from_the_trec_eval_command(tmp_path, monkeypatch, capsys):
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 d1 1\n")
    bomb = _EndlessBomb()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(_Raw(bomb))))
    assert main(["-m", "map", str(qrels), "-"]) == 1
    assert f"<stdin>:2: {BOMB_ERROR}" in capsys.readouterr().err
    assert bomb.read_bytes <= 1 << 20


class _Raw(io.RawIOBase):
    """A raw binary stream over an object with read(n) (what standard input's buffer reads from)."""

    def __init__(self, source):
        super().__init__()
        self.source = source

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        part = self.source.read(len(buffer))
        buffer[:len(part)] = part
        return len(part)


def test_a_bomb_file_is_read_a_block_or_two_per_reader(tmp_path, monkeypatch):
    """A regular file: the bulk reader declines at the first block holding a document twice, the strict
    reader stops at line 2 of its first block; neither inflates the rest (counted as gzip gives it)."""
    path = tmp_path / "bomb.run.gz"
    path.write_bytes(gzip.compress(LINE * ((64 << 20) // len(LINE)), compresslevel=1))  # 64 MB inflated
    inflated = []
    real = gzip.GzipFile.read

    def counted(self, size=-1):
        part = real(self, size)
        inflated.append(len(part))
        return part

    monkeypatch.setattr(gzip.GzipFile, "read", counted)
    with pytest.raises(FormatError, match=rf"bomb\.run\.gz:2: {BOMB_ERROR}$"):
        read_run(path)
    assert 0 < sum(inflated) <= 16 << 20


def test_a_gzip_run_on_standard_input_is_checked_after_inflating(monkeypatch, capsys, tmp_path):
    """The compressed bytes of a regular run can go on longer than a line may without a newline byte; only
    the inflated lines are checked (here with MAX_LINE made small enough for a small file to show it)."""
    text = b"".join(b"q%d Q0 d%d %d %d.5 sys\n" % (i // 100, i, i % 100 + 1, 1000 - i % 100) for i in range(200_000))
    packed = gzip.compress(text, compresslevel=1, mtime=0)
    monkeypatch.setattr(sources, "MAX_LINE", 8192)
    assert max(map(len, packed.split(b"\n"))) > sources.MAX_LINE > max(map(len, text.split(b"\n")))
    expected = read_run(io.BytesIO(text))
    assert read_run(io.BytesIO(packed)) == expected
    qrels = tmp_path / "qrels"
    qrels.write_text("q0 0 d1 1\nq1 0 d150 1\n")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(packed)))
    assert main(["-m", "num_ret", str(qrels), "-"]) == 0
    assert capsys.readouterr().out.split() == ["num_ret", "all", "200"]  # the two judged queries' documents


def test_a_stream_is_read_again_from_its_start_for_a_document_twice_in_two_blocks(monkeypatch):
    """The strict reader names the first line of a document found again in a later block: it reads the stream
    (kept as it came) again from its start."""
    from searchgrade.io import bulk

    monkeypatch.setattr(bulk, "BLOCK", 1 << 15)
    lines = [b"q%d Q0 d%d 1 1.5 sys\n" % (i // 50, i) for i in range(5000)]
    packed = gzip.compress(b"".join(lines + [lines[3]]))
    with pytest.raises(FormatError, match=r"^<file>:5001: duplicate document: query q0 document d3 is already on "
                                          r"line 4$"):
        read_run(io.BytesIO(packed))
