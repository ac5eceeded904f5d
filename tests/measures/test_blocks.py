"""The trec_eval command scores a block of queries at a time (searchgrade.measures.blocks): tiny blocks print
byte for byte what one block prints, and the blocks' values and summaries are score_run's, bit for bit."""
import math
import warnings

import numpy as np
import pytest

from searchgrade.measures import blocks
from searchgrade.metrics import score_run
from searchgrade.trec_eval import run_trec_eval
from tests.support.examples import spread


def _files(tmp_path, seed: int) -> tuple:
    """Qrels and a run: tied scores, rows of very different lengths (some empty of relevant documents),
    ids whose text order is not their number's, run lines out of query order, qrels queries the run lacks
    (missing) and run queries the qrels lack, grades 0-3 and -1."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in rng.permutation(60).tolist():
        qid = f"{q}" if q % 3 else f"q{q}"
        docs = rng.choice(500, size=int(rng.choice([1, 2, 5, 30, 120])), replace=False)
        scores = rng.integers(0, 4, size=len(docs)) / 4  # few distinct scores: long tie groups
        if q % 7:  # a qrels query the run lacks every 7th
            run += [f"{qid} Q0 D{d} {i} {s} r{seed}\n" for i, (d, s) in enumerate(zip(docs.tolist(), scores.tolist()))]
        if q % 11:  # a run query the qrels lack every 11th
            judged = rng.choice(500, size=int(rng.integers(1, 40)), replace=False)
            grades = rng.integers(-1, 4, size=len(judged))
            qrels += [f"{qid} 0 D{d} {g}\n" for d, g in zip(judged.tolist(), grades.tolist())]
    lines = np.array(run, dtype=object)
    tail = rng.permutation(len(lines) // 5) + len(lines) - len(lines) // 5  # the last lines out of order
    lines[len(lines) - len(tail):] = lines[tail]
    (tmp_path / "qrels").write_text("".join(qrels))
    (tmp_path / "run").write_text("".join(lines.tolist()))
    return str(tmp_path / "qrels"), str(tmp_path / "run")


OPTIONS = [
    {},
    {"complete": True},
    {"judged_only": True, "rel_level": 2},
    {"max_docs": 7, "complete": True},
    {"complete": True, "judged_only": True, "max_docs": 20, "rel_level": 2},
]


@pytest.mark.parametrize("seed", spread([1, 2, 3]))
@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: "-".join(o) or "plain")
def test_tiny_blocks_print_what_one_block_prints(tmp_path, monkeypatch, seed, options):
    qrels, run = _files(tmp_path, seed)

    def printed(rows_per_block: int) -> str:
        monkeypatch.setattr(blocks, "ROWS_PER_BLOCK", rows_per_block)
        monkeypatch.setattr(blocks, "LINES_PER_BLOCK", 1 << 40)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return run_trec_eval(qrels, run, ("all_trec", "relstring.8"), query=True, **options)

    whole = printed(10**9)
    assert "gm_map" in whole and "relstring_8" in whole and whole.count("\tall\t") > 50
    for per in (1, 2, 7):
        assert printed(per) == whole, per


@pytest.mark.parametrize("seed", [4, 5])
def test_the_blocks_are_score_run_in_pieces(tmp_path, seed):
    qrels, run = _files(tmp_path, seed)
    measures = ["AP", "GMAP", "gm_bpref", "P@5", "nDCG@10", "NumRel", "NumRelRet", "Rprec"]
    options = dict(missing="zero", judged_only=False, rel_level=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        whole = score_run(qrels, run, measures, summary=True, relstring=4, **options)
        parts = list(blocks.score_run_blocks(qrels, run, measures, summary=True, relstring=4, block_rows=3,
                                             **options))
    assert len(parts) == -(-len(whole.rows) // 3)
    assert [q for p in parts for q in p.rows] == [whole.rows[i] for i in whole.order.tolist()]
    assert [s for p in parts for s in p.relstrings] == [whole.relstrings[i] for i in whole.order.tolist()]
    for name, x in whole.values.items():
        got = np.concatenate([p.values[name] for p in parts])
        assert got.dtype == x.dtype and np.array_equal(got, x[whole.order]), name
    assert all(p.summaries is None for p in parts[:-1])
    for name, value in whole.summaries.items():  # the same float, not a close one
        got = parts[-1].summaries[name]
        assert type(got) is type(value) and (got == value or math.isnan(got) and math.isnan(value)), name
    assert sum(p.positive_judgments for p in parts) == whole.positive_judgments


def test_no_row_is_one_empty_block(tmp_path):
    (tmp_path / "qrels").write_text("1 0 a 1\n")
    (tmp_path / "run").write_text("2 Q0 a 1 1.0 r\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parts = list(blocks.score_run_blocks(str(tmp_path / "qrels"), str(tmp_path / "run"), ["AP"], summary=True))
    assert len(parts) == 1 and parts[0].rows == [] and math.isnan(parts[0].summaries["AP"])
