"""The bulk reader reads in blocks: cut anywhere at a line end, it accepts and refuses exactly what it
accepts and refuses in one piece (and what the strict reader does), and a file path is read a block at
a time without holding the whole file. Large files with odd lines are read alike by the bulk and the line
readers (issue 20, B4). The bulk reader in one piece: test_bulk_one_piece.py."""
from __future__ import annotations

import gzip
import io
import warnings

import numpy as np
import pytest

import searchgrade.io as sgio
from searchgrade.io import FormatError, load_qrels, load_run, parse_run, read_qrels
from searchgrade.io import bulk as _trec_bulk
from searchgrade.io import sources as _sources
from searchgrade.io.sources import split_blocks
from searchgrade.io import text as _trec_text
from tests.support.bulk import IRREGULAR, bulk_read, irregular
from tests.support.examples import spread
from tests.support.trec_texts import PAD_QRELS, PAD_RUN, QRELS_BAD, RUN_BAD, big_qrels_text, big_run_text


# ============================================ the bulk and line readers accept the same lines (issue 20, B4)
ODD_NUMBERS = ["0x3", "0X3", "-0x3", "+0x3", "0x", "0x10", "0b1", "0o7", "+3", "-0", "01", "1e3", "3.0", "٣", "1_0",
               "+-3", "--3", "3-", "0x1p3", "inf", "nan", "-Infinity", "1e400", ".5", "5.", "1e", "+.5e-3", "1,5",
               "True", "one", "9223372036854775807", "9223372036854775808", "-9223372036854775809",
               "00000000000000000000001", "1.5.2"]


def _cases() -> list[tuple[str, str]]:
    """(kind, text) of every malformed or unusual line the readers' tests hold, and odd numbers in each column."""
    cases = [("qrels", text) for text, _, _ in QRELS_BAD] + [("run", text) for text, _, _ in RUN_BAD]
    cases += [("qrels", f"q1 0 d2 {t}\n") for t in ODD_NUMBERS]
    cases += [("run", f"q1 Q0 d2 {t} 1.5 sys\n") for t in ODD_NUMBERS]  # rank: read or reported as odd
    cases += [("run", f"q1 Q0 d2 1 {t} sys\n") for t in ODD_NUMBERS]
    cases += [("qrels", "q1 0 d2 1\n\n"), ("qrels", "q1 0 d2 1\n \t\n"), ("qrels", "# note\nq1 0 d2 1\n"),
              ("qrels", "q1 0 d2 1\nq1 0 d2 0\n"), ("qrels", "q1 0 d2\t1\n"), ("qrels", "q1 0 d2 1\r\n"),
              ("run", "q1 Q0 d2 1 1.5 sys junk\n"), ("run", "q1 Q0 d2 1 1.5 \n"), ("run", "q1 Q0 d2 1 1.5 sys\x00\n")]
    return cases


def _outcome(read, *args):
    """What a reader gives: (result, report) or the error's (type, line, problem)."""
    try:
        return read(*args)
    except FormatError as err:
        return (type(err), err.line, err.problem)


@pytest.mark.parametrize("where", ["after", "before"])
@pytest.mark.parametrize("kind, case", spread(_cases()))
def test_bulk_and_line_readers_accept_and_refuse_the_same(kind, case, where):
    pad = PAD_QRELS if kind == "qrels" else PAD_RUN
    text = pad + case if where == "after" else case + pad
    raw = text.encode()
    assert len(raw) >= _trec_bulk.MIN_BYTES  # large enough for the bulk reader
    strict = _outcome(_trec_text.read_qrels_text if kind == "qrels" else _trec_text.read_run_text, text, "x")
    bulk = bulk_read(raw, kind)
    assert bulk is None or bulk == strict, case  # declined (the line reader reads it) or the same
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        load = load_qrels if kind == "qrels" else load_run
        through_io = _outcome(lambda: load(io.BytesIO(raw)))
    if isinstance(strict[0], type):  # refused: the same error, on the same line
        assert through_io == strict
    else:
        assert (through_io[0], through_io[-1].lines, through_io[-1].notes()) == (
            strict[0], strict[1].lines, [note.replace("x:", "<file>:") for note in strict[1].notes()])


def test_hex_grade_is_refused_in_a_large_qrels_file(tmp_path):
    path = tmp_path / "big.qrels"
    path.write_text(PAD_QRELS + "q1 0 d2 0x3\n")
    with pytest.raises(FormatError, match=r"big\.qrels:3001: relevance grade '0x3' is not an integer"):
        read_qrels(path)


@pytest.mark.parametrize("kind", IRREGULAR)
def test_irregular_large_runs_read_alike_through_io(kind):
    text = irregular(kind)
    strict = _outcome(_trec_text.read_run_text, text, "<file>")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = _outcome(lambda: load_run(io.BytesIO(text.encode())))
    if isinstance(strict[0], type):
        assert got == strict
    else:
        assert (got[0], got[2]) == strict


# ================================================================= blocks
BLOCKS = [997, 4096, 1 << 22]  # bytes per block: a few lines (cut anywhere), more lines, one block
CUTS = [4096, 30011]  # for the many small cases: cuts inside the padding and near the odd line


def _strict(kind: str, text: str):
    return _outcome(_trec_text.read_qrels_text if kind == "qrels" else _trec_text.read_run_text, text, "x")


@pytest.mark.parametrize("block", BLOCKS)
def test_blocks_give_the_same_columns_as_the_strict_reader(block):
    for kind, text in [("run", big_run_text()), ("qrels", big_qrels_text())]:
        got = bulk_read(text.encode(), kind, block=block)
        assert got is not None and got == _strict(kind, text), kind


@pytest.mark.parametrize("block", CUTS)
@pytest.mark.parametrize("where", ["after", "before"])
def test_blocks_accept_and_refuse_what_the_strict_reader_does(block, where):
    for kind, case in spread(_cases()):
        pad = PAD_QRELS if kind == "qrels" else PAD_RUN
        text = pad + case if where == "after" else case + pad
        got = bulk_read(text.encode(), kind, block=block)
        assert got is None or got == _strict(kind, text), case


@pytest.mark.parametrize("block", CUTS)
@pytest.mark.parametrize("kind", IRREGULAR)
def test_blocks_agree_or_decline_on_irregular_runs(kind, block):
    text = irregular(kind)
    got = bulk_read(text.encode(), "run", block=block)
    assert got is None or got == _strict("run", text)


@pytest.mark.parametrize("block", CUTS)
def test_blank_lines_at_the_end_are_counted_across_blocks(block):
    text = big_run_text() + "\n  \n\t\n\n"
    got = bulk_read(text.encode(), "run", block=block)
    assert got == _strict("run", text) and got[1].blank.count == 4


def test_blocks_with_tabs_and_crlf_are_read_beside_blocks_of_single_spaces():
    lines = big_run_text().splitlines(keepends=True)
    text = ("".join(lines[:700]) + "".join(line.replace(" ", "\t") for line in lines[700:1500])
            + "".join(line.replace("\n", "\r\n") for line in lines[1500:]))
    got = bulk_read(text.encode(), "run", block=4096)
    assert got is not None and got == _strict("run", text)


def _columns(text: str, block: int) -> _trec_bulk.Columns:
    return _trec_bulk.read_blocks(split_blocks(text.encode(), block), "x", "run")[0]


def test_ids_are_numbered_for_the_whole_file_in_order_of_first_appearance():
    text = big_run_text(n_queries=10, n_docs=300)
    one, many = _columns(text, 1 << 22), _columns(text, 1000)
    assert many.keys == one.keys and many.doc_keys == one.doc_keys
    assert np.array_equal(many.codes, one.codes) and np.array_equal(many.doc_codes, one.doc_codes)
    assert np.array_equal(many.values, one.values)


def test_a_document_twice_in_a_piece_declines_without_reading_on():
    line = "q1 Q0 d1 1 1.0 sys\n"
    read = []

    def blocks():
        for i in range(100):  # a block of 2 MB, again and again: what a gzip bomb of one line inflates to
            read.append(i)
            yield line.encode() * ((1 << 21) // len(line))

    assert _trec_bulk.read_blocks(blocks(), "x", "run") is None
    assert read == [0]


# ------------------------------------------------------------------------------- files
@pytest.mark.parametrize("packed", ["plain", "gzip"])
def test_file_blocks_are_the_whole_content_cut_at_line_ends(tmp_path, packed):
    raw = b"\xef\xbb\xbf" + big_run_text().encode() + b"q9 Q0 last 1 1 sys"  # a BOM; no final line end
    path = tmp_path / "run"
    path.write_bytes(gzip.compress(raw) if packed == "gzip" else raw)
    blocks = list(_sources.file_blocks(path, 1000))
    assert b"".join(blocks) == raw[3:]
    assert len(blocks) > 10 and all(b.endswith(b"\n") for b in blocks[:-1])


def test_file_blocks_refuse_a_long_line_where_check_lines_does(tmp_path, monkeypatch):
    monkeypatch.setattr(_sources, "MAX_LINE", 64)
    raw = b"q1 Q0 d 1 1 s\n" * 40 + b"x" * 100 + b"\n" + b"q1 Q0 e 1 1 s\n"
    path = tmp_path / "run"
    path.write_bytes(raw)
    for size in (7, 50, 4096):
        with pytest.raises(FormatError) as err:
            list(_sources.file_blocks(path, size))
        assert err.value.line == 41
    with pytest.raises(FormatError) as whole:
        _sources.check_lines(raw, str(path))
    assert whole.value.line == 41


def test_a_large_file_is_never_read_whole(tmp_path, monkeypatch):
    path = tmp_path / "run"
    path.write_text(big_run_text())
    monkeypatch.setattr(_trec_bulk, "BLOCK", 4096)
    expected = load_run(path)
    monkeypatch.setattr(_sources, "read_source", lambda source: pytest.fail("read whole"))
    monkeypatch.setattr(_sources, "raw_bytes", lambda *a: pytest.fail("read whole"))
    assert load_run(path) == expected and sgio.load_columns(path, "run")[1] == expected.report


def test_a_file_declined_in_a_later_block_gets_the_strict_readers_error(tmp_path, monkeypatch):
    lines = big_run_text().splitlines(keepends=True)
    path = tmp_path / "run"
    path.write_text("".join(lines + [lines[3]]))  # the 4th line again, at the end
    monkeypatch.setattr(_trec_bulk, "BLOCK", 4096)
    with pytest.raises(FormatError) as err:
        sgio.load_columns(path, "run")
    assert err.value.line == len(lines) + 1 and "already on line 4" in str(err.value)


@pytest.mark.parametrize("kind", ["run", "qrels"])
def test_paths_and_open_files_read_the_same(tmp_path, monkeypatch, kind):
    text = big_run_text() if kind == "run" else big_qrels_text()
    path = tmp_path / kind
    path.write_bytes(gzip.compress(text.encode()))
    monkeypatch.setattr(_trec_bulk, "BLOCK", 5000)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        from_path = sgio.load_columns(path, kind)
        with open(path, "rb") as fh:
            from_file = sgio.load_columns(fh, kind)
    assert from_path[0].keys == from_file[0].keys and from_path[0].doc_keys == from_file[0].doc_keys
    assert np.array_equal(from_path[0].values, from_file[0].values)
    load = load_run if kind == "run" else load_qrels
    assert load(path)[0] == (parse_run(text) if kind == "run" else _trec_text.read_qrels_text(text, "x")[0])


def _imported_while_reading(path) -> list[str]:
    """Reading path's run in a fresh process: [rows, whether pandas was imported, whether pyarrow was]."""
    import subprocess
    import sys

    code = ("import sys; from searchgrade.io import load_columns; cols, _ = load_columns(sys.argv[1], 'run'); "
            "print(len(cols.values), 'pandas' in sys.modules, 'pyarrow' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True)
    return out.stdout.split()


def test_a_regular_file_is_read_by_numpy_alone(tmp_path):
    path = tmp_path / "run"
    path.write_text(big_run_text())
    assert _imported_while_reading(path) == ["2000", "False", "False"]


def test_other_layouts_are_read_by_numpy_alone(tmp_path):
    path = tmp_path / "run"
    path.write_bytes(big_run_text().replace("\n", "\r\n").replace(" ", "\t").encode())  # CRLF and tabs
    assert _imported_while_reading(path) == ["2000", "False", "False"]


@pytest.mark.parametrize("n_docs", [3, 5000])  # few documents: a table of pairs; many: sorted keys
def test_has_repeats_finds_a_pair_twice_either_way(n_docs):
    rng = np.random.default_rng(5)
    codes = np.repeat(np.arange(40, dtype=np.int32), 3)
    docs = np.concatenate([rng.choice(n_docs, 3, replace=False) for _ in range(40)]).astype(np.int32)
    cols = _trec_bulk.Columns(codes, [f"q{i}" for i in range(40)], docs, [f"d{i}" for i in range(n_docs)],
                              np.zeros(120), (), None)
    assert not _trec_bulk.has_repeats(cols)  # with 3 documents, every query holds the same three: no repeat
    docs[61] = docs[60]  # query 20 holds one document twice
    assert _trec_bulk.has_repeats(cols._replace(doc_codes=docs))
