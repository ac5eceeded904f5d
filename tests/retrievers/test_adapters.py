"""Retrievers recognised by their methods: functions, batch functions, LangChain and LlamaIndex retrievers.

The peers-marked tests build real objects (langchain-core's BaseRetriever, llama-index-core's
VectorStoreIndex over a stand-in embedding, no network) and check that each gives the run a plain
function gives, and that LlamaIndex's RetrieverEvaluator agrees with Success@k and RR@k.
"""
import hashlib
from types import SimpleNamespace

import numpy as np
import pytest

import searchgrade as sg
from searchgrade.retrievers.adapters import caller, kind_of

CORPUS = {
    "d1": "apple pie with a butter crust",
    "d2": "banana bread baked with walnuts",
    "d3": "a tart of apples and pears on puff pastry",
    "d4": "cherry pie for summer picnics",
    "d5": "bread flour and yeast make a dough",
    "d6": "pears poached in red wine",
    "d7": "walnut cake with coffee icing",
    "d8": "summer fruit salad with cherries and apples",
}
# no two of a query's top K + 1 documents tie (checked below), so every retriever has one order
QUERIES = {"q1": "pears and apples in red wine", "q2": "summer cherry pie with apples",
           "q3": "bread dough with yeast and walnuts", "q4": "fruit salad with cherries for a picnic",
           "q5": "apple pie with a butter crust for summer"}
QRELS = {"q1": {"d3": 1, "d6": 0}, "q2": {"d4": 1, "d8": 1}, "q3": {"d2": 1, "d7": 1}, "q4": {"d4": 1},
         "q5": {"d1": 1, "d3": 1}}
K = 3
MEASURES = [f"Success@{K}", f"RR@{K}", f"nDCG@{K}", f"R@{K}", "AP"]
DIM = 512


def embed(text: str) -> list[float]:
    """A stand-in embedding: hashed word counts (deterministic, no model, no network)."""
    vector = np.zeros(DIM)
    for word in text.lower().split():
        vector[int(hashlib.md5(word.encode()).hexdigest(), 16) % DIM] += 1.0
    return vector.tolist()


def cosine(a, b) -> float:
    """Cosine similarity, computed as llama-index-core's vector store computes it."""
    a, b = np.asarray(a), np.asarray(b)
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


def search(query: str):
    """The plain function: the top K documents by cosine similarity, as (id, score) pairs."""
    q = embed(query)
    scored = sorted(((cosine(q, embed(t)), d) for d, t in CORPUS.items()), key=lambda x: (-x[0], x[1]))
    return [(d, s) for s, d in scored[:K]]


def test_the_fixture_has_no_ties_near_the_cut():
    for text in QUERIES.values():
        sims = sorted((cosine(embed(text), embed(t)) for t in CORPUS.values()), reverse=True)[:K + 1]
        assert all(a > b for a, b in zip(sims, sims[1:])) and sims[-1] > 0


def test_kinds_are_recognised_by_their_methods():
    assert kind_of(search) == "function"
    assert kind_of(SimpleNamespace(invoke=search, batch=lambda qs: [search(q) for q in qs])) == "langchain"
    assert kind_of(SimpleNamespace(retrieve=search)) == "llamaindex"
    with pytest.raises(TypeError, match="cannot call a int as a retriever"):
        kind_of(3)
    with pytest.raises(ValueError, match="a LlamaIndex retriever has no batch method"):
        caller(SimpleNamespace(retrieve=search), batch=4)


def test_duck_typed_retrievers_give_the_functions_run():
    lc = SimpleNamespace(invoke=search, batch=lambda qs: [search(q) for q in qs])
    li = SimpleNamespace(retrieve=search)
    base = sg.retrieve(search, QUERIES, progress=False)
    assert sg.retrieve(lc, QUERIES, batch=2, progress=False) == base
    assert sg.retrieve(li, QUERIES, workers=2, progress=False) == base


# --------------------------------------------------------------------------- real objects (test extra)


def langchain_retriever():
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever

    class TableRetriever(BaseRetriever):
        """A LangChain retriever over the same table, with the similarity in the metadata."""

        def _get_relevant_documents(self, query, *, run_manager=None):
            return [Document(page_content=CORPUS[d], id=d, metadata={"score": s}) for d, s in search(query)]

    return TableRetriever()


def llamaindex_retriever():
    from llama_index.core import VectorStoreIndex
    from llama_index.core.embeddings import MockEmbedding
    from llama_index.core.schema import TextNode

    class HashEmbedding(MockEmbedding):
        """llama-index-core's mock embedding, made to tell texts apart."""

        def _get_text_embedding(self, text):
            return embed(text)

        def _get_query_embedding(self, query):
            return embed(query)

        async def _aget_text_embedding(self, text):
            return embed(text)

        async def _aget_query_embedding(self, query):
            return embed(query)

    nodes = [TextNode(text=t, id_=d) for d, t in CORPUS.items()]
    index = VectorStoreIndex(nodes, embed_model=HashEmbedding(embed_dim=DIM))
    return index.as_retriever(similarity_top_k=K)


@pytest.mark.peers
def test_langchain_llamaindex_and_a_function_give_one_run_and_one_table():
    lc, li = langchain_retriever(), llamaindex_retriever()
    assert (kind_of(lc), kind_of(li)) == ("langchain", "llamaindex")
    runs = {"function": sg.retrieve(search, QUERIES, k=K, progress=False),
            "langchain": sg.retrieve(lc, QUERIES, k=K, progress=False),
            "langchain batch": sg.retrieve(lc, QUERIES, k=K, batch=2, workers=2, progress=False),
            "llamaindex": sg.retrieve(li, QUERIES, k=K, workers=3, progress=False)}
    base = runs["function"]
    for name, run in runs.items():
        assert {q: list(r) for q, r in run.items()} == {q: list(r) for q, r in base.items()}, name
        for q in base:
            assert np.allclose(list(run[q].values()), list(base[q].values()), rtol=0, atol=1e-12), name
    tables = {name: sg.evaluate(QRELS, run, MEASURES) for name, run in runs.items()}
    for name, table in tables.items():
        assert table.equals(tables["function"]), name
    assert tables["function"][f"RR@{K}"].tolist() == [0.5, 1.0, 0.5, 0.0, 1.0]  # neither perfect nor hopeless


@pytest.mark.peers
def test_texts_come_back_from_documents_and_nodes():
    for retriever in (langchain_retriever(), llamaindex_retriever()):
        run, texts = sg.retrieve(retriever, QUERIES, k=K, texts=True, progress=False)
        assert all(texts[q][d] == CORPUS[d] for q in run for d in run[q])


@pytest.mark.peers
def test_llamaindex_retriever_evaluator_hit_rate_and_mrr_are_success_and_rr():
    from llama_index.core.evaluation import RetrieverEvaluator

    retriever = llamaindex_retriever()
    evaluator = RetrieverEvaluator.from_metric_names(["hit_rate", "mrr"], retriever=retriever)
    table = sg.evaluate_retriever(retriever, QRELS, QUERIES, [f"Success@{K}", f"RR@{K}"], k=K, progress=False)
    for qid, question in QUERIES.items():
        relevant = [d for d, g in QRELS[qid].items() if g > 0]
        theirs = evaluator.evaluate(query=question, expected_ids=relevant).metric_vals_dict
        assert theirs["hit_rate"] == table.loc[qid, f"Success@{K}"]
        assert theirs["mrr"] == table.loc[qid, f"RR@{K}"]
    assert set(table[f"RR@{K}"]) == {0.0, 0.5, 1.0} and set(table[f"Success@{K}"]) == {0.0, 1.0}
