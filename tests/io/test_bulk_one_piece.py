"""The bulk reader (searchgrade.io.bulk) in one piece, against the strict line reader: large
regular files, irregular and generated ones, hypothesis-made messy lines, and a round trip. The same
reader cut into blocks, and the lines both readers must accept or refuse, are in test_bulk.py."""
from __future__ import annotations

import gzip
import io

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from searchgrade.io import FormatError, ReadReport, parse_run, read_run, write_run
from searchgrade.io import bulk as _trec_bulk
from searchgrade.io import text as _trec_text
from searchgrade.io.errors import SourceError
from tests.support.bulk import IRREGULAR, bulk_read, irregular
from tests.support.examples import examples
from tests.support.trec_texts import big_qrels_text, big_run_text


def test_big_fixtures_go_through_the_bulk_reader():
    run_raw, qrels_raw = big_run_text().encode(), big_qrels_text().encode()
    assert len(run_raw) >= _trec_bulk.MIN_BYTES and len(qrels_raw) >= _trec_bulk.MIN_BYTES
    assert bulk_read(run_raw, "run") == parsed_text(big_run_text())
    assert bulk_read(qrels_raw, "qrels") == _trec_text.read_qrels_text(big_qrels_text(), "x")


@pytest.mark.parametrize("layout", ["\t", "  ", " \t ", "\r\n", "lead"])
def test_other_whitespace_layouts_are_read_by_the_bulk_reader(layout):
    """Tabs, runs of spaces, CRLF line ends and leading blanks: split as C whitespace, by numpy alone."""
    text = big_run_text()
    if layout == "\r\n":
        odd = text.replace("\n", "\r\n")
    elif layout == "lead":
        odd = text.replace("\n", "\n \t")[:-2]
    else:
        odd = text.replace(" ", layout)
    got = bulk_read(odd.encode(), "run", block=4096)
    assert got is not None and got == parsed_text(odd) == parsed_text(text)


def parsed_text(text: str) -> tuple[dict, ReadReport]:
    """The strict reader's result on a run text (the reference the bulk reader must match)."""
    return _trec_text.read_run_text(text, "x")


# ================================================================= bulk reader == strict reader
@pytest.mark.parametrize("kind", IRREGULAR)
def test_bulk_reader_agrees_or_declines_on_irregular_files(kind):
    text = irregular(kind)
    got = bulk_read(text.encode(), "run")
    try:
        expected = parsed_text(text)
    except FormatError:
        assert got is None
        return
    assert got is None or got == expected
    if kind == "interleaved queries":  # regular enough for the bulk reader: one query in two blocks
        assert got == expected and list(got[0]["q0"])[-1] == "late"


@pytest.mark.parametrize("kind", ["tab separated", "double space", "leading space", "lone CR", "vertical tab"])
def test_whitespace_variants_read_like_trec_eval(kind):
    text = irregular(kind)  # a run of C whitespace is one separator, as in trec_eval
    assert read_run(io.BytesIO(text.encode())) == parse_run(big_run_text())


def pool(normal: list[str], odd: list[str]) -> st.SearchStrategy[str]:
    """Mostly normal tokens, sometimes odd ones (what pandas or Python might read differently)."""
    return st.sampled_from(normal * 30 + odd)


DOCNOS = st.one_of(st.builds("d{}".format, st.integers(0, 60)),
                   st.sampled_from(["d#3", "null", "nan", "NA", "True", "é", "가", "d\x1c", "d\u00a0x", "d\x1a",
                                    '"d', "d,e", "'", "#d"]))
FIELDS = {
    "run": [pool(["q1", "q2", "q10"], ["#q", "NA", "1", "가", "q\u00a0x", '"q', "q'"]),
            pool(["Q0", "0"], ["iter", "#", "nan"]),
            DOCNOS,
            pool(["1", "2", "30"], ["-1", "+3", "01", "1.0", "x", "9223372036854775808", "1_0"]),
            pool(["0.5", "1", "-2.25", "3.0e-5", "17.000000000000004"],
                 ["-0", "1e-400", "5e-324", "1e400", "nan", "NaN", "inf", "-Infinity", "1_0", "٣", "0x10", "True",
                  ".5", "5.", "+.5e-3", "1,5", "1e", ""]),
            pool(["r", "run"], ["NA", '"r', "#"])],
    "qrels": [pool(["q1", "q2", "q10"], ["#q", "NA", "1", "가", '"q']),
              pool(["0", "Q0"], ["iter", "#"]),
              DOCNOS,
              pool(["0", "1", "2", "-1"], ["+3", "01", "1.0", "x", "٣", "1_0", "9223372036854775808",
                                           "-9223372036854775809", "1e3", "True", ""])],
}
SEPS = st.sampled_from([" "] * 30 + ["\t", "  ", " \t"])


@st.composite
def messy_lines(draw, kind: str):
    """Text of lines that are mostly regular, with odd tokens, separators, line ends and lines."""
    fields = FIELDS[kind]
    out = []
    for _ in range(draw(st.integers(1, 12))):
        shape = draw(st.sampled_from(["regular"] * 30 + ["short", "long", "blank", "comment"]))
        tokens = [draw(field) for field in fields]
        if shape == "short":
            tokens = tokens[:-1]
        elif shape == "long":
            tokens.append(draw(st.sampled_from(["junk", "#", "1"])))
        elif shape == "blank":
            tokens = []
        elif shape == "comment":
            tokens = ["#", *tokens]
        lead = draw(st.sampled_from([""] * 30 + [" ", "\t"]))
        end = draw(st.sampled_from(["\n"] * 30 + ["\r\n", " \n", "\r", "\x0b\n"]))
        out.append(lead + draw(SEPS).join(tokens) + end)
    text = "".join(out)
    return text if draw(st.booleans()) else text.rstrip("\n")


def agree(kind, text):
    """The bulk reader either declines or gives exactly the strict reader's result (or its error, for a
    text of blank lines only, which it raises itself as a SourceError)."""
    try:
        got = bulk_read(text.encode(), kind)
    except SourceError as err:
        got = err
    strict_reader = _trec_text.read_run_text if kind == "run" else _trec_text.read_qrels_text
    try:
        expected = strict_reader(text, "x")
    except FormatError as err:
        assert got is None or (isinstance(got, SourceError) and str(got) == str(err)), (text, got)
        return
    assert not isinstance(got, SourceError), (text, got)
    if got is not None:
        assert got == expected, text
        assert [list(d) for d in got[0].values()] == [list(d) for d in expected[0].values()]


@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=messy_lines("run"))
def test_bulk_run_reader_never_disagrees_with_the_strict_one(text):
    agree("run", text)


@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=messy_lines("qrels"))
def test_bulk_qrels_reader_never_disagrees_with_the_strict_one(text):
    agree("qrels", text)


def test_bulk_reader_reads_generated_regular_files_exactly():
    rng = np.random.default_rng(7)
    scores = np.concatenate([rng.normal(size=3000) * 10.0 ** rng.integers(-300, 300, size=3000),
                             [5e-324, -0.0, 1.7976931348623157e308, 2.2250738585072011e-308]])
    text = "".join(f"q{i % 7} Q0 d{i} {i} {s!r} r\n" for i, s in enumerate(scores.tolist()))
    got = bulk_read(text.encode(), "run")
    assert got is not None and got == parsed_text(text)
    back = [v for docs in got[0].values() for v in docs.values()]
    assert sorted(map(float.hex, back)) == sorted(map(float.hex, scores.tolist()))  # bit for bit


def test_large_round_trip_through_the_bulk_reader(tmp_path):
    rng = np.random.default_rng(11)
    run = {f"q{q}": {f"d{q}-{d}": float(s) for d, s in enumerate(rng.normal(size=200))} for q in range(30)}
    path = tmp_path / "big.run.gz"
    write_run(run, tmp_path / "big.run")
    path.write_bytes(gzip.compress((tmp_path / "big.run").read_bytes()))
    assert bulk_read(gzip.decompress(path.read_bytes()), "run") is not None
    assert read_run(path) == run
