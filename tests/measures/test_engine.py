"""searchgrade.measures.engine's input step: what an evaluation refuses before it measures (issue 41 §3)."""
from __future__ import annotations

import pandas as pd
import pytest

import searchgrade as sg
from searchgrade.measures.engine import score_run

QRELS = {"q1": {"a": 1, "b": 0}}


@pytest.mark.parametrize("call", [sg.evaluate, sg.mean, score_run])
def test_an_empty_run_dict_is_an_error_as_an_empty_run_file_is(call, tmp_path):
    with pytest.raises(ValueError, match=r"^the run is empty: it has no query \(an empty run file is refused too\)$"):
        call(QRELS, {}, ["AP"])
    (tmp_path / "empty.run").write_text("")
    with pytest.raises(ValueError, match="empty file: no run lines"):
        call(QRELS, tmp_path / "empty.run", ["AP"])
    with pytest.raises(ValueError, match="the run is empty"):
        call(QRELS, pd.DataFrame({"query_id": [], "doc_id": [], "score": []}), ["AP"])


def test_a_run_whose_queries_retrieved_nothing_is_not_empty():
    assert sg.mean(QRELS, {"q1": {}}, ["AP"]).iloc[0] == 0.0
