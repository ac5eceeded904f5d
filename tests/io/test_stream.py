"""The streaming reader (searchgrade.io.stream): whole queries a part at a time, one pass when the run is
grouped by query, else spilled to temporary files by query; what it reads, reports and refuses is what
load_run reads, reports and refuses, whatever the size of its parts and spill files."""
import gzip
import io
import logging

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from searchgrade.io import FormatError, load_run
from searchgrade.io import stream
from searchgrade.io.stream import Restart, RunParts, last_query
from tests.support.examples import examples


def read_parts(source, unit: int | None = None, spill: int | None = None) -> tuple[dict, RunParts, list]:
    """({qid: {docno: score}} of the parts after the last Restart, the reader, [queries of each part])."""
    parts = RunParts(source, unit_bytes=unit, spill_bytes=spill)
    run, each = {}, []
    for part in parts:
        if isinstance(part, Restart):
            run, each = {}, []
            continue
        docs = np.array(part.doc_keys, dtype=object)[part.doc_codes].tolist()
        for code, doc, score in zip(part.codes.tolist(), docs, part.values.tolist()):
            assert doc not in run.setdefault(part.keys[code], {})
            run[part.keys[code]][doc] = score
        each.append(list(part.keys))
    return run, parts, each


def sorted_run(run: dict) -> dict:
    """A run with each query's documents in one order (parts regroup an ungrouped query's lines)."""
    return {q: dict(sorted(docs.items())) for q, docs in sorted(run.items())}


def run_lines(n_queries: int, n_docs: int, seed: int = 0) -> list[str]:
    """A run's lines, grouped by query: ties, several run ids."""
    rng = np.random.default_rng(seed)
    return [f"{q} Q0 d{d} {i} {rng.integers(0, 4) / 4} r{q % 3}\n"
            for q in rng.permutation(n_queries).tolist() for i, d in enumerate(rng.permutation(n_docs)[:n_docs])]


@pytest.mark.parametrize("grouped", [True, False], ids=["grouped", "shuffled"])
@pytest.mark.parametrize("unit", [1, 50, 700, None])
@pytest.mark.parametrize("bulk", [False, True], ids=["strict", "bulk"])
def test_parts_hold_whole_queries_and_read_what_load_run_reads(tmp_path, monkeypatch, grouped, unit, bulk):
    monkeypatch.setattr(stream, "MIN_BYTES", 0 if bulk else 1 << 40)
    lines = run_lines(30, 20)
    if not grouped:
        lines = [lines[i] for i in np.random.default_rng(1).permutation(len(lines))]
    path = tmp_path / "run"
    path.write_text("".join(lines))
    run, parts, each = read_parts(path, unit, unit and 4 * unit)
    want, _, report = load_run(path)
    assert sorted_run(run) == sorted_run(want)
    assert parts.grouped is grouped and (parts.files > 0) is (not grouped)
    queries = [q for part in each for q in part]
    assert len(queries) == len(set(queries)) == len(want)  # every query in one part, once
    if unit == 1 and grouped:
        assert all(len(part) == 1 for part in each)  # a part of one line: each part is one query
    assert parts.report == report


IRREGULAR = ("# a comment first\n1 Q0 a 1 0.5 r\n\n1 Q0 b 2 0.25 r extra\n  # indented\n2\tQ0 a x 1.0 s\r\n"
             "2 Q0 c 3 0.5 s\n\n\n")


@pytest.mark.parametrize("unit", [1, 10, None])
@pytest.mark.parametrize("shuffle", [False, True])
def test_irregular_lines_are_read_and_reported_as_load_run_reads_them(tmp_path, unit, shuffle):
    text = IRREGULAR + ("1 Q0 z 9 0.1 r\n" if shuffle else "")  # query 1 again after query 2: not grouped
    path = tmp_path / "run"
    path.write_bytes(text.encode())
    run, parts, _ = read_parts(path, unit, 8)
    want, _, report = load_run(path)
    assert sorted_run(run) == sorted_run(want) and parts.report == report
    assert parts.grouped is not shuffle


# --------------------------------------------------------------------------- errors: the same line, the same words
def error_of(read) -> str | None:
    """The message of the FormatError read() raises, or None."""
    try:
        read()
    except FormatError as err:
        return str(err)
    return None


def streamed(path, unit, spill):
    return lambda: read_parts(path, unit, spill)


@st.composite
def damaged_runs(draw):
    """A run (grouped or shuffled, with comments), maybe a document twice, maybe a bad line, anywhere."""
    n_queries, n_docs = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    lines = [f"q{q} Q0 d{d} {d} {draw(st.sampled_from(['1', '0.5', '2e-3']))} r\n"
             for q in range(n_queries) for d in range(n_docs)]
    if draw(st.booleans()):
        lines = draw(st.permutations(lines))
    for _ in range(draw(st.integers(0, 2))):  # a document twice
        lines.insert(draw(st.integers(0, len(lines))), draw(st.sampled_from(lines)))
    if draw(st.booleans()):
        bad = draw(st.sampled_from(["q0 Q0 dx 1 high r\n", "q1 Q0 dy 1\n", "q0 Q0 dz 1 nan r\n", "# note\n", "\n"]))
        lines.insert(draw(st.integers(0, len(lines))), bad)
    return "".join(lines)


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=damaged_runs(), unit=st.sampled_from([1, 16, 64, 1 << 20]), spill=st.sampled_from([8, 40, 1 << 20]),
       bulk=st.booleans())
def test_a_damaged_run_stops_where_load_run_stops(tmp_path_factory, monkeypatch, text, unit, spill, bulk):
    monkeypatch.setattr(stream, "MIN_BYTES", 0 if bulk else 1 << 40)
    path = tmp_path_factory.mktemp("run") / "run"
    path.write_text(text)
    want = error_of(lambda: load_run(path))
    assert error_of(streamed(path, unit, spill)) == want
    if want is None:
        assert sorted_run(read_parts(path, unit, spill)[0]) == sorted_run(load_run(path).run)


def test_a_document_twice_before_a_bad_line_of_a_run_not_grouped(tmp_path):
    """The duplicate (lines 1 and 4, found only when its spill file is read back) comes before the bad line 6."""
    path = tmp_path / "run"
    path.write_text("a Q0 d 1 1 r\nb Q0 d 1 1 r\nb Q0 e 2 1 r\na Q0 d 2 1 r\nb Q0 f 3 1 r\nb Q0 g 4 x r\n")
    want = error_of(lambda: load_run(path))
    assert want == f"{path}:4: duplicate document: query a document d is already on line 1"
    for unit in (1, 13, None):
        assert error_of(streamed(path, unit, 16)) == want


def test_a_query_longer_than_a_part_is_read_whole_and_checked_as_it_grows(tmp_path):
    path = tmp_path / "run"
    path.write_text("".join(f"q Q0 d{i} {i} 1.0 r\n" for i in range(500)) + "q Q0 d3 501 1 r\n")
    assert error_of(streamed(path, 64, None)) == error_of(lambda: load_run(path)) == \
        f"{path}:501: duplicate document: query q document d3 is already on line 4"


def test_long_ids_in_a_spill_file_keep_their_line_numbers(tmp_path):
    """Ids the bulk reader does not take (over 256 bytes) are read back by the strict reader, lines renumbered."""
    long = "x" * 300
    path = tmp_path / "run"
    path.write_text(f"{long} Q0 a 1 1 r\nb Q0 a 1 1 r\n{long} Q0 b 2 1 r\nb Q0 c 2 1 r\n{long} Q0 a 3 1 r\n")
    want = error_of(lambda: load_run(path))
    assert "5: duplicate document" in want and "already on line 1" in want
    assert error_of(streamed(path, 1, 8)) == want


def test_an_empty_run_is_refused_as_load_run_refuses_it(tmp_path):
    for text in ("", "\n\n\n", "# only a comment\n\n"):
        path = tmp_path / "run"
        path.write_text(text)
        assert error_of(streamed(path, 1, None)) == error_of(lambda: load_run(path)) is not None


# ------------------------------------------------------------------------------------- streams, spill files
@pytest.mark.parametrize("compressed", [False, True])
def test_a_stream_not_grouped_is_read_again_from_its_copy(compressed):
    lines = run_lines(20, 10)
    text = "".join(lines[i] for i in np.random.default_rng(2).permutation(len(lines))).encode()
    data = gzip.compress(text) if compressed else text
    run, parts, _ = read_parts(io.BufferedReader(io.BytesIO(data)), 100, 200)
    assert not parts.grouped and sorted_run(run) == sorted_run(load_run(io.BytesIO(text)).run)
    assert parts.report.lines == len(lines) and parts.name == "<file>"


def test_spill_files_too_large_are_spilled_again(tmp_path, caplog):
    lines = run_lines(200, 5)
    path = tmp_path / "run"
    path.write_text("".join(lines[i] for i in np.random.default_rng(3).permutation(len(lines))))
    with caplog.at_level(logging.INFO, logger="searchgrade.io.stream"):
        stream.MAX_FILES, old = 2, stream.MAX_FILES
        try:
            run, parts, _ = read_parts(path, 256, 64)
        finally:
            stream.MAX_FILES = old
    assert sorted_run(run) == sorted_run(load_run(path).run) and parts.files == 2
    assert "spilled again" in caplog.text and "is not grouped by query" in caplog.text


def test_the_temporary_files_are_gone_after_the_reading(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    path = tmp_path / "run"
    lines = run_lines(10, 10)
    path.write_text("".join(lines[::2] + lines[1::2]))
    read_parts(path, 50, 50)
    assert list((tmp_path / "tmp").iterdir()) == []


@pytest.mark.parametrize("unit, known, known_qid, want", [
    (b"a 1\na 2\nb 1\nb 2\n", 0, None, (8, b"b")),
    (b"a 1\n# c\n\nb 1\n  b 2\n", 0, None, (9, b"b")),  # comments and blank lines before it stay in front
    (b"b 1\nb 2\n", 0, None, (0, b"b")),  # one query: nothing complete yet
    (b"b 1\nb 2\nb 3", 4, b"b", (0, b"b")),  # the first 4 bytes are known to be b's
    (b"# c\n\n", 0, None, (5, None)),  # no data line: all complete
    (b"bb 1\nb 2\n", 0, None, (5, b"b")),  # ids compared whole, not as prefixes
    (b"b\t1\nb 2\n", 0, None, (0, b"b")),  # any C whitespace ends the id
])
def test_last_query(unit, known, known_qid, want):
    assert last_query(unit, known, known_qid) == want
