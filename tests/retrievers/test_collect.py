"""searchgrade.retrieve and evaluate_retriever: order, scores from ranks, duplicates, empties, errors, threads."""
import random
import sys
import threading
import time
import warnings

import pytest

import searchgrade as sg
from searchgrade.retrievers import RetrieverError, RetrieverWarning

QRELS = {"q1": {"d1": 1, "d3": 2}, "q2": {"d2": 1}, "q3": {"d9": 1}}
QUERIES = {"q1": "apple pie", "q2": "banana bread", "q3": "cherry tart"}
RESULTS = {"apple pie": ["d3", "d1", "d4"], "banana bread": [("d5", 0.9), ("d2", 0.4)], "cherry tart": ["d9"]}


def lookup(query):
    """A retriever: ids, or (id, score) pairs, from a table."""
    return RESULTS[query]


def test_evaluating_a_function_takes_three_lines_after_the_imports():
    def search(query): return RESULTS[query]  # noqa: E704 - the user's whole retriever, one line
    table = sg.evaluate_retriever(search, QRELS, QUERIES, ["nDCG@10", "RR@10"], progress=False)
    assert table.loc["q2", "RR@10"] == 0.5
    run = sg.retrieve(search, QUERIES, progress=False)
    assert table.equals(sg.evaluate(QRELS, run, ["nDCG@10", "RR@10"]))


def test_order_is_kept_and_absent_scores_come_from_ranks():
    run = sg.retrieve(lookup, QUERIES, progress=False)
    assert run["q1"] == {"d3": 3.0, "d1": 2.0, "d4": 1.0}
    assert run["q2"] == {"d5": 0.9, "d2": 0.4}  # strictly decreasing scores are kept
    assert list(sg.io.trec_order(run["q1"])) == ["d3", "d1", "d4"]


def test_tied_scores_come_from_ranks_so_trec_eval_cannot_reorder():
    tied = {"q1": "x"}
    run = sg.retrieve(lambda q: [("a", 0.5), ("b", 0.5), ("c", 0.1)], tied, progress=False)
    assert list(sg.io.trec_order(run["q1"])) == ["a", "b", "c"]
    rr = sg.evaluate({"q1": {"a": 1}}, run, ["RR"])["RR"]["q1"]
    assert rr == 1.0  # with the tied scores kept, trec_eval's order (docid descending) would put b first
    assert sg.evaluate({"q1": {"a": 1}}, {"q1": {"a": 0.5, "b": 0.5}}, ["RR"])["RR"]["q1"] == 0.5


def test_rising_scores_keep_the_order_and_are_reported():
    with pytest.warns(RetrieverWarning, match="1 queries had scores that rise") as record:
        run = sg.retrieve(lambda q: [("near", 0.1), ("far", 0.8)], {"q1": "x"}, progress=False)
    assert list(sg.io.trec_order(run["q1"])) == ["near", "far"]
    assert "'q1'" in str(record[0].message)


def test_duplicates_keep_their_first_rank_and_are_counted():
    with pytest.warns(RetrieverWarning, match=r"3 duplicate result\(s\) in 2 queries"):
        run = sg.retrieve(lambda q: ["a", "b", "a", "a"] if q == "x" else ["c", "c"], {"1": "x", "2": "y"},
                          progress=False)
    assert run == {"1": {"a": 2.0, "b": 1.0}, "2": {"c": 1.0}}


def test_empty_results_score_zero_and_are_reported():
    with pytest.warns(RetrieverWarning, match="1 queries got no results and score 0: 'q3'"):
        table = sg.evaluate_retriever(lambda q: [] if q == "cherry tart" else RESULTS[q], QRELS, QUERIES,
                                      ["R@10", "nDCG@10"], progress=False)
    assert table.loc["q3"].tolist() == [0.0, 0.0]
    assert len(table) == 3


def test_k_cuts_each_list():
    run = sg.retrieve(lookup, QUERIES, k=1, progress=False)
    assert {q: list(r) for q, r in run.items()} == {"q1": ["d3"], "q2": ["d5"], "q3": ["d9"]}
    assert len(sg.retrieve(lambda q: (f"d{i}" for i in range(10**6)), {"q": "x"}, k=5, progress=False)["q"]) == 5


@pytest.mark.parametrize("k", [0, -1, 1.5, True, "10"])
def test_bad_k_is_one_line(k):
    with pytest.raises(ValueError, match=r"^k must be a positive integer") as err:
        sg.retrieve(lookup, QUERIES, k=k)
    assert "\n" not in str(err.value)


def test_a_returned_string_is_one_line():
    with pytest.raises(TypeError) as err:
        sg.retrieve(lambda q: "d1 d2", QUERIES, progress=False)
    assert str(err.value) == ("query 'q1': the retriever returned a string ('d1 d2'), not a list of results (ids, "
                              "(id, score) pairs or documents)")


def test_mixed_id_types_are_one_line():
    with pytest.raises(TypeError) as err:
        sg.retrieve(lambda q: [1, 2] if q == "apple pie" else ["d2"], QUERIES, progress=False)
    assert str(err.value) == ("query 'q2', rank 1: id 'd2' is a string, but the ids before it are integers (from "
                              "query 'q1'): ids of mixed types cannot be matched to the qrels; return one type")


def test_integer_ids_become_their_decimal_text():
    assert sg.retrieve(lambda q: [7, 3], {"q": "x"}, progress=False) == {"q": {"7": 2.0, "3": 1.0}}


def failing(query):
    if query == "banana bread":
        raise KeyError("index offline")
    return RESULTS[query]


def test_an_exception_names_the_query_and_chains_the_original():
    with pytest.raises(RetrieverError) as err:
        sg.retrieve(failing, QUERIES, progress=False)
    assert str(err.value) == "the retriever failed on query 'q2' ('banana bread'): KeyError: 'index offline'"
    assert isinstance(err.value.__cause__, KeyError) and err.value.qids == ["q2"]


def test_on_error_skip_leaves_the_query_out_and_says_so():
    with pytest.warns(RetrieverWarning, match=r"on_error='skip': 1 queries left out of the run: 'q2'; "
                                              r"first error: KeyError: 'index offline'"):
        run = sg.retrieve(failing, QUERIES, on_error="skip", progress=False)
    assert list(run) == ["q1", "q3"]
    with pytest.raises(ValueError, match="on_error must be 'raise' or 'skip'"):
        sg.retrieve(failing, QUERIES, on_error="ignore")


def slow_random(query):
    """Ids after a random wait: threads finish out of order."""
    rng = random.Random(query)
    time.sleep(rng.random() / 50)
    if query.endswith("7"):
        raise ValueError(f"no index for {query}")
    return [f"d{rng.randrange(20)}" for _ in range(8)]


def test_the_same_run_warnings_and_error_whatever_the_number_of_workers():
    queries = {f"q{i}": f"query {i}" for i in range(40)}
    outcomes = []
    for workers in (1, 3, 8):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            run = sg.retrieve(slow_random, queries, workers=workers, on_error="skip", progress=False)
        outcomes.append((run, [str(w.message) for w in caught]))
        with pytest.raises(RetrieverError, match="query 'q7'"):
            sg.retrieve(slow_random, queries, workers=workers, progress=False)
    assert outcomes[0] == outcomes[1] == outcomes[2]
    assert [list(r) for r in (outcomes[0][0],)][0] == [q for q in queries if not q.endswith("7")]


def test_workers_run_in_threads():
    seen = set()

    def record(query):
        seen.add(threading.get_ident())
        time.sleep(0.01)
        return ["d1"]

    sg.retrieve(record, {str(i): "x" for i in range(16)}, workers=4, progress=False)
    assert len(seen) > 1


def test_a_declared_batch_function_gets_lists():
    calls = []

    def many(queries):
        calls.append(list(queries))
        return [RESULTS[q] for q in queries]

    assert sg.retrieve(many, QUERIES, batch=2, progress=False) == sg.retrieve(lookup, QUERIES, progress=False)
    assert calls == [["apple pie", "banana bread"], ["cherry tart"]]
    with pytest.raises(RetrieverError, match=r"the batch of 2 queries from 'q1': ValueError: a batch call "
                                             r"returned 1 results for 2 queries"):
        sg.retrieve(lambda qs: [[]], QUERIES, batch=2, progress=False)


def test_save_writes_the_trec_run(tmp_path):
    path = tmp_path / "runs" / "mine.run"
    run = sg.retrieve(lookup, QUERIES, save=path, name="mine", progress=False)
    assert sg.read_run(path) == run
    assert path.read_text().splitlines()[0] == "q1 Q0 d3 1 3.0 mine"


def test_queries_from_files_in_the_collections_forms(tmp_path):
    beir = tmp_path / "queries.jsonl"
    beir.write_text('{"_id": "q1", "text": "apple pie"}\n{"_id": 2, "text": "banana bread"}\n', encoding="utf-8")
    miracl = tmp_path / "queries_clean.jsonl"
    miracl.write_text('{"qid": "q1", "text": "apple pie"}\n', encoding="utf-8")
    tsv = tmp_path / "topics.tsv"
    tsv.write_text("q1\tapple pie\nq3\tcherry tart\n", encoding="utf-8")
    assert sg.retrieve(lookup, beir, progress=False) == {"q1": {"d3": 3.0, "d1": 2.0, "d4": 1.0},
                                                         "2": {"d5": 0.9, "d2": 0.4}}
    assert list(sg.retrieve(lookup, miracl, progress=False)) == ["q1"]
    assert list(sg.retrieve(lookup, tsv, progress=False)) == ["q1", "q3"]


def test_a_progress_bar_where_tqdm_is_installed(capsys, monkeypatch):
    pytest.importorskip("tqdm")
    sg.retrieve(lookup, QUERIES)
    assert "retrieving" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "tqdm", None)  # as if tqdm were not installed
    assert sg.retrieve(lookup, QUERIES) == sg.retrieve(lookup, QUERIES, progress=False)
    assert "retrieving" not in capsys.readouterr().err


def test_evaluate_options_pass_through():
    table = sg.evaluate_retriever(lookup, QRELS, QUERIES, ["P@2"], ties="input", progress=False)
    assert table.equals(sg.evaluate(QRELS, sg.retrieve(lookup, QUERIES, progress=False), ["P@2"], ties="input"))
