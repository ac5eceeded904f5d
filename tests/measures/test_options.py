"""The missing-query warning is structured: the API emits MissingQueriesWarning with the ids, and a command
line writes its own words from its attributes (trec_eval's speak of -c, not of missing=)."""
import warnings

import pytest

import searchgrade as sg
from searchgrade.cli.trec_eval import main


def test_the_api_warns_with_the_missing_ids():
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}, "q10": {"c": 1}, 3: {"d": 1}}
    with pytest.warns(sg.MissingQueriesWarning) as got:
        sg.evaluate(qrels, {"q1": {"a": 1.0}, "3": {"d": 1.0}}, ["P@1"])
    (w,) = [w.message for w in got if isinstance(w.message, sg.MissingQueriesWarning)]
    assert isinstance(w, UserWarning)
    assert w.queries == [3, "q2", "q10"] and w.count == 3 and w.listed == "3, 'q2', 'q10'"
    assert "1 of them differ from a run query id only in" in w.note
    assert str(w).startswith("3 qrels queries are not in the run and get no row (missing='ignore'")
    assert str(w).endswith(w.listed + w.note)


def test_missing_zero_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error", sg.MissingQueriesWarning)
        sg.evaluate({"q1": {"a": 1}, "q2": {"b": 1}}, {"q1": {"a": 1.0}}, ["P@1"], missing="zero")


@pytest.mark.parametrize("n, words", [(1, "1 qrels query is not in the run and is left out of the means (as "
                                              "trec_eval does without -c; use -c to score it on an empty ranking): 2"),
                                      (2, "2 qrels queries are not in the run and are left out of the means (as "
                                              "trec_eval does without -c; use -c to score them on an empty "
                                              "ranking): 2, 3")])
def test_the_trec_eval_command_writes_its_own_words(tmp_path, capsys, n, words):
    (tmp_path / "q").write_text("".join(f"{q} 0 d{q} 1\n" for q in range(1, n + 2)), encoding="utf-8")
    (tmp_path / "r").write_text("1 Q0 d1 1 1.0 r\n", encoding="utf-8")
    assert main(["-m", "P.1", str(tmp_path / "q"), str(tmp_path / "r")]) == 0
    err = capsys.readouterr().err
    assert err == f"trec_eval: warning: {words}\n"
