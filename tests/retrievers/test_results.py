"""The forms a retriever's results take: ids, pairs, mappings, Documents, NodeWithScores, objects."""
import math
from types import SimpleNamespace

import numpy as np
import pytest

from searchgrade.retrievers.results import Hit, read_hits


def doc(page_content, id=None, **metadata):
    """A stand-in with a LangChain Document's attributes."""
    return SimpleNamespace(page_content=page_content, metadata=metadata, id=id)


class Node:
    """A stand-in with a LlamaIndex TextNode's attributes."""

    def __init__(self, node_id, text, ref_doc_id=None, **metadata):
        self.node_id, self.text, self.ref_doc_id, self.metadata = node_id, text, ref_doc_id, metadata

    def get_content(self):
        return self.text


def test_ids_pairs_and_mappings():
    assert read_hits(["a", 3], "q", None) == [Hit("a", None, None), Hit(3, None, None)]
    assert read_hits([("a", 2), ["b", np.float32(1.5)]], "q", None) == [Hit("a", 2.0, None), Hit("b", 1.5, None)]
    assert read_hits({"a": 0.5, "b": 0.25}, "q", 1) == [Hit("a", 0.5, None)]
    assert read_hits([np.int64(4)], "q", None) == [Hit(4, None, None)]


def test_documents_by_id_or_metadata_with_their_scores():
    docs = [doc("first text", id="c1", source="s1", score=0.7), doc("second", id="c2", source="s2")]
    assert read_hits(docs, "q", None) == [Hit("c1", 0.7, "first text"), Hit("c2", None, "second")]
    assert [h.id for h in read_hits(docs, "q", None, id_key="source")] == ["s1", "s2"]
    assert read_hits([doc("t", id="c", relevance_score=3)], "q", None, score_key="relevance_score")[0].score == 3.0


def test_nodes_by_node_id_ref_doc_id_or_metadata():
    nodes = [SimpleNamespace(node=Node("n1", "text one", ref_doc_id="doc1", page=4), score=0.9)]
    assert read_hits(nodes, "q", None) == [Hit("n1", 0.9, "text one")]
    assert read_hits(nodes, "q", None, id_key="ref_doc_id")[0].id == "doc1"
    assert read_hits(nodes, "q", None, id_key="page")[0].id == 4


def test_objects_with_an_id_attribute():
    hit = SimpleNamespace(id="x", score=1, text="t")
    assert read_hits([hit], "q", None) == [Hit("x", 1.0, "t")]
    assert read_hits([SimpleNamespace(doc_id="y")], "q", None, id_key="doc_id") == [Hit("y", None, None)]


@pytest.mark.parametrize("result, message", [
    (b"d1", "query 'q': the retriever returned bytes"),
    (42, "query 'q': the retriever returned a value of type int, not a list of results"),
    ([("a", 1, 2)], "query 'q', rank 1: a result given as a sequence must be an (id, score) pair, got 3 values"),
    ([1.5], "query 'q', rank 1: cannot read an id from a float"),
    ([("a", "high")], "query 'q', rank 1: score 'high' is a str, not a number"),
    ([("a", math.nan)], "query 'q', rank 1: score nan is not finite"),
    ([("a", True)], "query 'q', rank 1: score True is a bool, not a number"),
    ([(2.0, 1)], "query 'q', rank 1: id 2.0 is a float; ids are strings or integers"),
    (["ok", ""], "query 'q', rank 2: the id is an empty string"),
    ([doc("no id")], "query 'q', rank 1: the result has no id: Document.id is None (pass id_key= to read the id "
                     "from the metadata)"),
    ([SimpleNamespace(node=Node("n", "t"), score=None)], None),
])
def test_bad_results_are_one_line(result, message):
    if message is None:
        assert read_hits(result, "q", None)[0].score is None
        return
    with pytest.raises((TypeError, ValueError)) as err:
        read_hits(result, "q", None)
    assert str(err.value).startswith(message) and "\n" not in str(err.value)
