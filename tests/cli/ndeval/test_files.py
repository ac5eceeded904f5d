"""The ndeval command reads a run a block at a time (issue 40 §4): the same output whatever the block size, for
grouped and ungrouped runs, and ndeval's order of errors (a line it cannot read first, then duplicates)."""
from __future__ import annotations

import io
import random
import sys

import pytest
from tests.support.golden import golden_folder, load_cases

from searchgrade.cli.ndeval import files
from searchgrade.cli.ndeval.docs import JudgedDocs
from searchgrade.io.subtopics import subtopic_columns
from searchgrade.measures.subtopics import SubtopicIndex
from searchgrade.ndeval import main

GOLDEN = golden_folder("SEARCHGRADE_NDEVAL_GOLDEN", "ndeval_golden")
CASES = load_cases(GOLDEN)


def _stdout(argv, monkeypatch) -> tuple[int, bytes]:
    out = io.BytesIO()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(out, encoding="utf-8", newline=""))
    rc = main(list(argv))
    sys.stdout.flush()
    return rc, out.getvalue()


def test_golden_cases_in_blocks_of_a_line_or_two(monkeypatch):
    """Blocks of 64 bytes: most topics run across blocks.  One case in five (each block costs every kernel a
    call; tests/cli/ndeval/test_golden.py runs them all in blocks of 4 MiB)."""
    assert CASES, f"no ndeval golden cases in {GOLDEN}"
    monkeypatch.chdir(GOLDEN)
    monkeypatch.setattr(files, "BLOCK_BYTES", 64)
    monkeypatch.setattr(files, "BLOCK_LINES", 1)
    for case in CASES[::5]:
        rc, out = _stdout(case["args"], monkeypatch)
        assert (rc, out) == (case["returncode"], case["stdout"].encode("utf-8")), case["name"]


def _run_text(rng: random.Random, topics: list, shuffle: bool) -> str:
    lines = [f"wt09-{t} Q0 d{d} {r} {rng.choice([1, 2, 2.5])} sys\n" for t in topics
             for r, d in enumerate(rng.sample(range(60), 40), 1)]
    if shuffle:
        rng.shuffle(lines)
    return "".join(lines)


@pytest.mark.parametrize("block", [1 << 22, 300, 1])
@pytest.mark.parametrize("extra", [[], ["-traditional"], ["-M", "7", "-c"]])
def test_an_ungrouped_run_prints_what_its_grouped_lines_print(tmp_path, monkeypatch, block, extra):
    rng = random.Random(7)
    (tmp_path / "q").write_text("".join(f"{t} {s} d{d} {rng.choice([0, 1, 2])}\n" for t in (3, 11, 25)
                                        for s in (1, 2, 3) for d in rng.sample(range(60), 12)))
    (tmp_path / "grouped").write_text(_run_text(random.Random(1), [25, 3, 11, 40], False))
    (tmp_path / "shuffled").write_text(_run_text(random.Random(1), [25, 3, 11, 40], True))
    monkeypatch.setattr(files, "BLOCK_BYTES", block)
    monkeypatch.setattr(files, "BLOCK_LINES", 1 if block < 1000 else files.BLOCK_LINES)
    grouped = _stdout([*extra, str(tmp_path / "q"), str(tmp_path / "grouped")], monkeypatch)
    assert grouped[0] == 0 and grouped == _stdout([*extra, str(tmp_path / "q"), str(tmp_path / "shuffled")],
                                                  monkeypatch)


def _reader(tmp_path, run: str, **kw) -> files.RunReader:
    (tmp_path / "q").write_text("1 1 a 1\n2 1 b 1\n3 1 c 1\n")
    (tmp_path / "r").write_text(run)
    index = SubtopicIndex.from_columns(*subtopic_columns(tmp_path / "q", ndeval=True, repeats=False))
    return files.RunReader(tmp_path / "r", JudgedDocs(index), **kw)


def test_blocks_hold_complete_topics_as_they_come(tmp_path, monkeypatch):
    monkeypatch.setattr(files, "BLOCK_BYTES", 40)
    monkeypatch.setattr(files, "BLOCK_LINES", 1)
    run = "".join(f"{t} Q0 {d}{i} {i} 1 r\n" for t, d in ((2, "b"), (1, "a"), (3, "c")) for i in range(1, 6))
    blocks = list(_reader(tmp_path, run).blocks())
    assert len(blocks) >= 3 and [t for b in blocks for t in b.topics.tolist()] == [2, 1, 3]
    assert all(b.lengths.tolist() == [5] * len(b.topics) for b in blocks)
    found = [(int(b.topics[s]), p, d) for b in blocks for s, p, d in zip(b.seg, b.pos.tolist(), b.doc.tolist())]
    assert found == []  # no docno of the run is judged: a1 is not a


def test_a_topic_that_comes_back_is_ungrouped(tmp_path):
    reader = _reader(tmp_path, "1 Q0 a 1 1 r\n2 Q0 b 1 1 r\n1 Q0 c 2 1 r\n")
    with pytest.raises(files.Ungrouped):
        list(reader.blocks())
    blocks = list(reader.blocks(grouped=False))
    assert [t for b in blocks for t in b.topics.tolist()] == [1, 2]
    assert [(int(b.topics[s]), p) for b in blocks for s, p in zip(b.seg, b.pos.tolist())] == [(1, 1), (2, 1)]


@pytest.mark.parametrize("run, line, what", [
    # ndeval reads every line before it looks for duplicates: a line it cannot read is the error
    ("1 Q0 a 1 1 r\n1 Q0 b 1 1 r\n" + "2 Q0 b 1 1 r\n" * 0 + "3 Q0 c 1\n", 3, "expected 6 fields"),
    # a duplicate rank anywhere before a duplicate document; each in the smallest topic
    ("1 Q0 a 1 1 r\n1 Q0 a 2 1 r\n3 Q0 c 1 1 r\n3 Q0 d 1 1 r\n", 4, "duplicate rank 1 for topic 3"),
    ("3 Q0 c 1 1 r\n3 Q0 c 2 1 r\n1 Q0 a 1 1 r\n1 Q0 a 2 1 r\n", 4, "duplicate document 'a' for topic 1"),
])
@pytest.mark.parametrize("block", [1 << 22, 1])
def test_errors_come_in_ndevals_order(tmp_path, monkeypatch, run, line, what, block):
    monkeypatch.setattr(files, "BLOCK_BYTES", block)
    monkeypatch.setattr(files, "BLOCK_LINES", 1 if block < 1000 else files.BLOCK_LINES)
    with pytest.raises(ValueError, match=what) as err:
        list(_reader(tmp_path, run).blocks())
    assert err.value.line == line


def test_a_topic_longer_than_a_block(tmp_path, monkeypatch):
    """Its lines are gathered until the topic ends (and joined once), then ordered and cut as one topic."""
    monkeypatch.setattr(files, "BLOCK_BYTES", 50)
    monkeypatch.setattr(files, "BLOCK_LINES", 2)
    run = "".join(f"1 Q0 x{i} {300 - i} 1 r\n" for i in range(200)) + "1 Q0 a 301 1 r\n2 Q0 b 1 1 r\n"
    blocks = list(_reader(tmp_path, run, depth=250).blocks())
    assert [b.topics.tolist() for b in blocks] == [[1], [2]] and [b.lengths.tolist() for b in blocks] == [[201], [1]]
    assert [(int(b.topics[s]), p) for b in blocks for s, p in zip(b.seg, b.pos.tolist())] == [(1, 201), (2, 1)]
