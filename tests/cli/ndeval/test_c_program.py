"""searchgrade ndeval against the C program itself, when one is given (``SEARCHGRADE_NDEVAL``: a binary built from
ndeval.c, e.g. the one in pyndeval 0.0.8's sdist; this project never builds it, and without it these tests skip).

Seeded generated inputs with what ndeval reads and searchgrade used to refuse or misread (issue 41 D1, D2, D10):
hexadecimal and partial numbers in the options and in ``-traditional`` scores, ``inf`` scores, qrels lines
with a fifth field, run lines with a seventh, tabs and wide spaces, CRLF line ends, task prefixes, runs
not grouped by topic, duplicate ranks and docnos, ``-M``, ``-c``, a baseline with ``-riskAlpha``; each
in blocks of 4 MiB, of a few lines and of one line.  The output must be ndeval's byte for byte, and where
ndeval refuses a file searchgrade must refuse it too, naming the same duplicate.
"""
from __future__ import annotations

import io
import os
import random
import re
import subprocess
import sys

import pytest

from searchgrade.cli.ndeval import files
from searchgrade.ndeval import main

pytestmark = pytest.mark.peers

NDEVAL = os.environ.get("SEARCHGRADE_NDEVAL")
SCORES = ["1", "2", "2.5", "0x1p1", "1e", "1.5x", "3", "-1", "0x10", "1e1", "1_0"]


def _qrels(rng: random.Random, topics: list, docs: list) -> list:
    rows = [[str(t), str(s), d, str(rng.choice([0, 0, 1, 2]))] + (["x"] if rng.random() < 0.05 else [])
            for t in topics for s in range(1, rng.randint(2, 5))
            for d in rng.sample(docs, rng.randint(1, min(8, len(docs))))]
    if rng.random() < 0.3:
        rng.shuffle(rows)
    return rows


def _run(rng: random.Random, topics: list, docs: list, name: str) -> list:
    rows = []
    for t in rng.sample(topics, rng.randint(1, len(topics))) + ([99] if rng.random() < 0.2 else []):
        scores = SCORES + (["inf"] if rng.random() < 0.1 else [])
        shown = f"wt09-{t}" if rng.random() < 0.2 else str(t)
        k = rng.randint(1, min(25, len(docs) + 10))
        for d, r in zip(rng.sample(docs + [f"u{i}" for i in range(10)], k), rng.sample(range(1, 60), k)):
            rows.append([shown, "Q0", d, str(r), rng.choice(scores), name] + (["7"] if rng.random() < 0.05 else []))
    if rng.random() < 0.1:  # a docno or a rank given twice
        twice = list(rng.choice(rows))
        if rng.random() < 0.5:
            twice[2] = f"z{rng.randrange(100)}"  # the same rank again, another docno
        else:
            twice[3] = str(int(twice[3]) + 100)  # the same docno again, lower (a duplicate only within -M)
        rows.insert(rng.randrange(len(rows) + 1), twice)
    if rng.random() < 0.3:
        rng.shuffle(rows)
    return rows


def _write(path, rows: list, rng: random.Random) -> str:
    sep, end = rng.choice([" ", " ", "\t", "  "]), "\r\n" if rng.random() < 0.1 else "\n"
    path.write_bytes("".join(sep.join(r) + end for r in rows).encode())
    return str(path)


def _options(rng: random.Random, base: str) -> list:
    opts = ["-traditional"] if rng.random() < 0.5 else []
    opts += ["-M", str(rng.randint(1, 12))] if rng.random() < 0.3 else []
    opts += ["-c"] if rng.random() < 0.3 else []
    opts += ["-alpha", rng.choice(["0.3", "0x1p-1", "1", "0", ".7x"])] if rng.random() < 0.3 else []
    opts += ["-beta", rng.choice(["0.9", "0x1p-2", "1e-1"])] if rng.random() < 0.3 else []
    if rng.random() < 0.4:
        opts += ["-baseline", base] + (["-riskAlpha", rng.choice(["1", "0x1p1", "2.5x", "inf", "0"])]
                                       if rng.random() < 0.7 else [])
    return opts


def _ours(argv: list, monkeypatch) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    rc = main(argv)
    return rc, out.getvalue(), err.getvalue()


@pytest.mark.skipif(not NDEVAL, reason="SEARCHGRADE_NDEVAL names no ndeval binary (this project never builds it)")
@pytest.mark.parametrize("seed", range(60))
def test_the_c_programs_output(tmp_path, monkeypatch, seed):
    rng = random.Random(seed)
    topics, docs = rng.sample(range(1, 40), rng.randint(1, 5)), [f"d{i}" for i in range(rng.randint(3, 30))]
    qrels = _write(tmp_path / "q", _qrels(rng, topics, docs), rng)
    run = _write(tmp_path / "r", _run(rng, topics, docs, "r"), rng)
    argv = _options(rng, _write(tmp_path / "b", _run(rng, topics, docs, "b"), rng)) + [qrels, run]
    want = subprocess.run([NDEVAL, *argv], capture_output=True, text=True, timeout=60)
    dup = re.search(r"duplicate (rank|docno) \((.*?)\) for topic (\d+)", want.stderr)
    lines = files.BLOCK_LINES
    for block in (1 << 22, 64, 1):
        monkeypatch.setattr(files, "BLOCK_BYTES", block)
        monkeypatch.setattr(files, "BLOCK_LINES", 1 if block < 1000 else lines)
        rc, out, err = _ours(argv, monkeypatch)
        assert (rc, out) == (want.returncode, want.stdout), f"{argv} in blocks of {block}: {err}"
        if dup:
            kind = "rank" if dup.group(1) == "rank" else "document"
            shown = dup.group(2) if kind == "rank" else repr(dup.group(2))
            assert f"duplicate {kind} {shown} for topic {dup.group(3)}" in err, (want.stderr, err)
