"""The numpy engine's pieces (searchgrade.io.fields) against Python's own reading of the same text:
numbers as float() and int() read them, ids numbered in order of first appearance, and a hash
collision declined rather than two ids merged."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from searchgrade.io import bulk as _trec_bulk
from searchgrade.io import fields, parse_run
from searchgrade.io import text as _trec_text
from tests.support.bulk import bulk_read
from tests.support.trec_texts import big_run_text
from tests.support.examples import examples


def _line_fields(tokens: list[str]) -> tuple:
    """(a, starts, lengths) of tokens written one per line (a one-field file)."""
    a = np.frombuffer("".join(t + "\n" for t in tokens).encode(), dtype=np.uint8)
    starts, lengths = fields.field_bounds(a, 1)
    return a, starts[:, 0], lengths[:, 0]


def _python_float(token: str) -> float | None:
    try:
        return float(token)
    except ValueError:
        return None


NUMBER_CHARS = "0123456789" * 3 + ".+-eE"
DECIMALS = st.one_of(
    st.text(NUMBER_CHARS, min_size=1, max_size=24),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.builds("{}.{}".format, st.integers(0, 10**12), st.integers(0, 10**12)),
    st.integers(0, 30).flatmap(lambda places: st.decimals(allow_nan=False, allow_infinity=False,
                                                         places=places)).map(str),
)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(DECIMALS, min_size=1, max_size=30))
def test_decimals_are_what_float_reads(tokens):
    tokens = [t for t in tokens if t and " " not in t]
    if not tokens:
        return
    expected = [_python_float(t) for t in tokens]
    got = fields.decimals(*_line_fields(tokens))
    if any(value is None for value in expected):
        assert got is None
    else:
        assert got is not None and got.tobytes() == np.array(expected, dtype=np.float64).tobytes(), tokens


@pytest.mark.parametrize("token, value", [("-0", -0.0), ("0.1", 0.1), ("9007199254740993", 9007199254740992.0),
                                          ("1234567890123456.7", 1234567890123456.8), (".5", 0.5), ("5.", 5.0),
                                          ("1e400", float("inf")), ("0.0000000000000000000001", 1e-22)])
def test_decimals_at_the_edges_of_the_exact_path(token, value):
    got = fields.decimals(*_line_fields([token]))
    assert got.tobytes() == np.array([value]).tobytes()


@pytest.mark.parametrize("token", ["nan", "inf", "1_0", "0x10", "1,5", ".", "-", "1e", "1.2.3", "--1", "٣"])
def test_decimals_decline_what_float_or_the_strict_reader_refuses(token):
    a = np.frombuffer((token + "\n").encode(), dtype=np.uint8)
    bounds = fields.field_bounds(a, 1)
    assert bounds is None or fields.decimals(a, bounds[0][:, 0], bounds[1][:, 0]) is None


INTEGER_TOKENS = st.one_of(st.text("0123456789+-", min_size=1, max_size=22),
                           st.integers(-(2**64), 2**64).map(str))


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(INTEGER_TOKENS, min_size=1, max_size=30))
def test_integers_are_what_the_strict_reader_reads(tokens):
    def strict(token):
        try:
            return _trec_text.grade(token, "x", 1)
        except _trec_text.FormatError:
            return None

    expected = [strict(t) for t in tokens]
    got = fields.integers(*_line_fields(tokens))
    if any(value is None for value in expected):
        assert got is None
    else:
        assert got is not None and got.tolist() == expected, tokens
    assert fields.are_integers(*_line_fields(tokens)) == all(map(_trec_text.is_integer, tokens))


@pytest.mark.parametrize("width", [3, 7, 8, 30])  # one word per id (the key is the id), two words, four
def test_distinct_numbers_ids_in_order_of_first_appearance(width):
    rng = np.random.default_rng(width)
    names = [f"{i:0{width}d}" for i in range(50)]
    tokens = [names[i] for i in rng.integers(0, 50, 400)]
    a, starts, lengths = _line_fields(tokens)
    codes, rows = fields.distinct(fields.field_bytes(a, starts, lengths))
    first_seen = list(dict.fromkeys(tokens))
    assert fields.texts(rows) == first_seen
    assert [first_seen[c] for c in codes.tolist()] == tokens


def test_a_hash_collision_declines_instead_of_merging_ids(monkeypatch):
    tokens = ["a-long-document-id-1", "a-long-document-id-2"] * 3
    real = fields._keys  # ids of one word are their own key; longer ones all get key 0
    monkeypatch.setattr(fields, "_keys", lambda words: real(words) * np.uint64(words.shape[1] == 1))
    a, starts, lengths = _line_fields(tokens)
    assert fields.distinct(fields.field_bytes(a, starts, lengths)) is None
    text = big_run_text()  # the whole reader declines: the strict reader reads the file
    assert bulk_read(text.encode(), "run") is None
    assert parse_run(text) == _trec_text.read_run_text(text, "x")[0]


@pytest.mark.parametrize("raw, want", [(b"q\t0  d \t1\r\n", b"q 0 d 1\n"), (b" \tq 0 d 1 \n\t x y\n", b"q 0 d 1\nx y\n"),
                                       (b"q 0\n\nd 1\r\n", b"q 0\n\nd 1\n"), (b"a\tb", b"a b"), (b"  \n", b"\n")])
def test_squeezed_lays_out_c_whitespace_as_single_spaces(raw, want):
    got = fields.squeezed(np.frombuffer(raw, dtype=np.uint8))
    assert got.tobytes() == want
    assert [line.split() for line in got.tobytes().split(b"\n")] == [line.split() for line in raw.split(b"\n")]


@pytest.mark.parametrize("raw", [b"q 0 d 1\n", b"q 0 d 1", b"", b"q\n"])
def test_squeezed_leaves_the_usual_layout_alone(raw):
    assert fields.squeezed(np.frombuffer(raw, dtype=np.uint8)) is None


@pytest.mark.parametrize("line", [b"q 0 d 1\n", b"q 0 d 1", b"q 0 d 1\nq2 0 d 2\n"])
def test_field_bounds_of_regular_lines(line):
    starts, lengths = fields.field_bounds(np.frombuffer(line, dtype=np.uint8), 4)
    assert [line[s:s + n].decode() for s, n in zip(starts.ravel().tolist(), lengths.ravel().tolist())] \
        == line.decode().split()


@pytest.mark.parametrize("line", [b"q 0 d 1 x\n", b"q 0 d\n", b"q  0 d 1\n", b"q 0 d 1 \n", b" q 0 d 1\n",
                                  b"q 0 d 1\n\nq 0 e 1\n", b"q 0 d\n1\n", b""])
def test_field_bounds_decline_irregular_lines(line):
    assert fields.field_bounds(np.frombuffer(line, dtype=np.uint8), 4) is None


def test_utf8_ids_are_read_and_invalid_bytes_declined():
    text = big_run_text().replace("doc-0-", "문서-0-").replace("q1 ", "질문1 ")
    assert bulk_read(text.encode(), "run") == _trec_text.read_run_text(text, "x")
    raw = big_run_text().encode().replace(b"q3 Q0", b"q3 Q\xff", 1)  # not UTF-8, in a field nobody reads
    assert bulk_read(raw, "run") is None


def test_a_very_long_field_is_left_to_the_strict_reader():
    text = big_run_text().replace("doc-0-0 ", "d" * (fields.MAX_WIDTH + 1) + " ", 1)
    assert bulk_read(text.encode(), "run") is None  # no matrix padded to it


def test_ids_colliding_across_blocks_are_numbered_through_their_text(monkeypatch):
    ids = [["a-long-document-id-1", "a-long-document-id-2"], ["a-long-document-id-3", "a-long-document-id-1"]]
    parts = [fields.distinct(fields.field_bytes(*_line_fields(block)))[1] for block in ids]
    real = fields._keys
    monkeypatch.setattr(fields, "_keys", lambda words: real(words) * np.uint64(words.shape[1] == 1))
    numbering, distinct, folds = _trec_bulk._number_bytes(parts)  # every long id one key: a collision
    assert distinct == ["a-long-document-id-1", "a-long-document-id-2", "a-long-document-id-3"]
    assert folds is None  # no fold where the ids were numbered through their text
    assert numbering.tolist() == [0, 1, 2, 0]


def test_an_id_folds_to_one_number_whatever_the_width_of_its_matrix():
    """fold: equal ids, equal numbers, in matrices of any width (the qrels' and a run's differ)."""
    ids = ["d1", "doc-0000001", "a-much-longer-document-id-7", "d1x"]
    narrow = fields.field_bytes(*_line_fields(ids[:2]))
    wide = fields.field_bytes(*_line_fields(ids))
    assert narrow.shape[1] < wide.shape[1]
    assert fields.fold(narrow).tolist() == fields.fold(wide)[:2].tolist()
    assert len(set(fields.fold(wide).tolist())) == 4
