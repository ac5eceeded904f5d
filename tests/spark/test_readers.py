"""read_qrels and read_run: TREC text (checked line by line, a bad line named with its file) and Parquet;
what they read evaluates as sg.evaluate evaluates the same files."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import searchgrade as sg

# pyspark 4 warns that it does not fully support pandas 3 (the venv's) and calls a deprecated pandas
# keyword in toPandas; these tests check what it does
pytestmark = [pytest.mark.spark, pytest.mark.filterwarnings("ignore:PySpark does not yet fully support:FutureWarning"),
              pytest.mark.filterwarnings("ignore:The copy keyword is deprecated")]
sgs = pytest.importorskip("searchgrade.spark")
from searchgrade.io.errors import FormatError  # noqa: E402


@pytest.fixture(scope="module")
def files(tmp_path_factory, generate):
    """The generated qrels and run as TREC text and as Parquet."""
    folder = tmp_path_factory.mktemp("trec")
    qrels, run = generate(seed=3, queries=12)
    (folder / "qrels.txt").write_text("# judged by hand\n" + "".join(
        f"{q} 0 {d} {g}\n" for q, d, g in qrels.itertuples(index=False)) + "\n")
    (folder / "run.txt").write_text("".join(
        f"{q}\tQ0\t{d}\t{i}\t{s!r}\tbm25\n" for i, (q, d, s) in enumerate(run.itertuples(index=False))))
    qrels.to_parquet(folder / "qrels.parquet")
    run.to_parquet(folder / "run.parquet")
    return folder


def test_trec_text_evaluates_as_sg_evaluate_reads_the_files(spark, files):
    q = sgs.read_qrels(spark, files / "qrels.txt")
    r = sgs.read_run(spark, files / "run.txt")
    assert q.columns == ["query_id", "doc_id", "relevance"] and r.columns[:3] == ["query_id", "doc_id", "score"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        want = sg.evaluate(files / "qrels.txt", files / "run.txt", ["AP", "nDCG@10"])
        got = sgs.evaluate(q, r, ["AP", "nDCG@10"]).toPandas().set_index("query_id").loc[list(want.index)]
        parquet = sgs.mean(sgs.read_qrels(spark, files / "qrels.parquet"), sgs.read_run(spark, files / "run.parquet"),
                           ["AP"])
    np.testing.assert_array_equal(got["AP"].to_numpy(), want["AP"].to_numpy())
    assert parquet["AP"] == sg.aggregate(want, ["AP"], summation="exact")["AP"]


@pytest.mark.parametrize("kind, line, message", [
    ("run", "q1 Q0 d1 1 high bm25", "score 'high' is not a number"),
    ("run", "q1 Q0 d1 1 2.5", "expected 6 fields 'qid iter docno rank score runid', found 5"),
    ("run", "q1 Q0 d1 1 inf bm25", "score 'inf' is not a number"),
    ("qrels", "q1 0 d1 1.5", "relevance '1.5' is not an integer"),
    ("qrels", "q1 0 d1 1 extra", "expected 4 fields 'qid iter docno rel', found 5"),
])
def test_a_bad_line_is_refused_naming_the_file_and_the_line(spark, tmp_path, kind, line, message):
    good = "q0 Q0 d0 1 1.0 bm25\n" if kind == "run" else "q0 0 d0 1\n"
    path = tmp_path / f"{kind}.txt"
    path.write_text(good + line + "\n")
    reader = sgs.read_run if kind == "run" else sgs.read_qrels
    with pytest.raises(FormatError, match=message) as err:
        reader(spark, path)
    assert str(path) in str(err.value) and repr(line) in str(err.value)


def test_an_unknown_format_is_refused(spark, files):
    with pytest.raises(ValueError, match="format must be one of"):
        sgs.read_run(spark, files / "run.txt", format="csv")
