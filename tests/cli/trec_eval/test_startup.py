"""The trec_eval command's start-up (issue 33): a small input is scored without importing pandas, pyarrow or scipy.

Its time and memory are measured by ``benchmarks/bench_trec_eval.py`` (never by a timed test); this checks
the cause of most of its cost, the libraries the command line imports.
"""
import subprocess
import sys

import pytest

from searchgrade.io import bulk

CODE = ("import sys; from searchgrade.trec_eval import main; status = main(sys.argv[1:]); "
        "print(status, *(name in sys.modules for name in ('pandas', 'pyarrow', 'scipy')), file=sys.stderr)")


@pytest.mark.parametrize("args", [[], ["-q", "-m", "all_trec"], ["-c", "-q", "-m", "ndcg_cut.10"]])
def test_a_small_input_imports_no_parser_library(tmp_path, args):
    (tmp_path / "qrels").write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 2\n")
    (tmp_path / "run").write_text("q1 Q0 d1 1 1.5 r\nq1 Q0 d3 2 1.5 r\n")
    out = subprocess.run([sys.executable, "-c", CODE, *args, str(tmp_path / "qrels"), str(tmp_path / "run")],
                         capture_output=True, text=True, check=True)
    assert "map" in out.stdout or "ndcg_cut_10" in out.stdout
    assert out.stderr.splitlines()[-1].split() == ["0", "False", "False", "False"]


def test_columns_of_numbers_documents_in_order_of_first_appearance():
    """The small reader's columns (read without pandas) as the bulk reader numbers them."""
    cols = bulk.columns_of({"q2": {"b": 1.0, "a": 2.0}, "q1": {"a": 3.0, "c": 4.0}, "q3": {}}, float)
    assert cols.keys == ["q2", "q1", "q3"] and cols.doc_keys == ["b", "a", "c"]
    assert cols.codes.tolist() == [0, 0, 1, 1] and cols.doc_codes.tolist() == [0, 1, 1, 2]
    assert cols.values.tolist() == [1.0, 2.0, 3.0, 4.0] and cols.docs == ["b", "a", "a", "c"]
    empty = bulk.columns_of({}, int)
    assert empty.keys == [] and empty.doc_keys == [] and len(empty.codes) == len(empty.doc_codes) == 0
