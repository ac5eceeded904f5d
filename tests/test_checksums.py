"""Tests for searchgrade.checksums: the real data/raw verifies, and each kind of damage is reported."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from searchgrade.checksums import main, sha256, verify

RAW = Path(__file__).resolve().parents[1] / "data" / "raw"


@pytest.fixture
def raw_copy(tmp_path: Path) -> Path:
    """A private copy of data/raw that a test may damage."""
    root = tmp_path / "raw"
    shutil.copytree(RAW, root)
    assert verify(root) == []
    return root


def test_data_raw_verifies_clean():
    assert verify(RAW) == []


def test_sha256_of_known_bytes(tmp_path):
    path = tmp_path / "abc"
    path.write_bytes(b"abc")
    assert sha256(path) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"


def test_every_listed_file_exists_and_every_file_is_listed():
    lines = (RAW / "SHA256SUMS").read_text().splitlines()
    listed = {line.split("  ", 1)[1].removeprefix("./") for line in lines if line}
    present = {p.relative_to(RAW).as_posix() for p in RAW.rglob("*") if p.is_file()} - {"SHA256SUMS"}
    assert listed == present
    assert "trec_eval_test/qrels.test" in listed and "cranfield/cranqrel" in listed


def test_one_changed_byte_is_reported(raw_copy):
    path = raw_copy / "trec_eval_test" / "results.test"
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))
    problems = verify(raw_copy)
    assert len(problems) == 1
    assert "trec_eval_test/results.test" in problems[0]
    assert "does not match" in problems[0]


def test_missing_file_is_reported(raw_copy):
    (raw_copy / "cranfield" / "cranqrel").unlink()
    problems = verify(raw_copy)
    assert len(problems) == 1
    assert "cranfield/cranqrel" in problems[0]
    assert "missing" in problems[0]


def test_extra_unlisted_file_is_reported(raw_copy):
    (raw_copy / "cranfield" / "notes.txt").write_text("not part of the collection\n")
    problems = verify(raw_copy)
    assert len(problems) == 1
    assert "cranfield/notes.txt" in problems[0]
    assert "not listed" in problems[0]


def test_command_line_exit_status(raw_copy, capsys):
    assert main([str(raw_copy)]) == 0
    assert "every file matches" in capsys.readouterr().out
    (raw_copy / "trec_eval_test" / "LICENSE.md").write_text("changed\n")
    assert main([str(raw_copy)]) == 1
    assert "trec_eval_test/LICENSE.md" in capsys.readouterr().err
