"""Retrievers in, runs out: any retriever object or function evaluated as a run, and relevance without ids.

A practitioner has a retriever, not a run file. :func:`retrieve` asks it every query and returns
the run ``{qid: {docid: score}}`` that every function of searchgrade takes;
:func:`evaluate_retriever` is the one-line form (:func:`searchgrade.evaluate` on that run)::

    import searchgrade as sg
    table = sg.evaluate_retriever(my_search, qrels, "queries.jsonl", ["nDCG@10", "R@100"])

It takes a function ``f(query)``, a declared batch function, a LangChain retriever or a LlamaIndex
retriever, recognised by their methods: neither framework is imported. How ties, duplicates,
empty results, exceptions and threads are handled is in :mod:`.collect`; the result forms in
:mod:`.results`; the calls in :mod:`.adapters`; queries files in :mod:`.queries`.

When the retriever's ids are not the qrels' ids (chunks renamed by a chunker),
:mod:`.text_relevance` grades the retrieved *texts* against the judged passages (the text key
of chapter 8) or against reference texts by Kiwi-tokenised ROUGE (ranx-k's method, :mod:`.rouge`).

To add a kind of retriever: recognise it by its methods in :func:`.adapters.kind_of` and call it in
:func:`.adapters.caller`; to add a form of result (an object with ids), read it in :mod:`.results`.
"""
from .collect import ON_ERROR, RetrieverError, RetrieverWarning, evaluate_retriever, retrieve
from .queries import read_queries
from .text_relevance import Graded, by_passages, by_rouge, text_keys

__all__ = ["retrieve", "evaluate_retriever", "read_queries", "RetrieverError", "RetrieverWarning", "ON_ERROR",
           "Graded", "text_keys", "by_passages", "by_rouge"]
