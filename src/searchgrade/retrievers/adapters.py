"""How a retriever is called: a function, a declared batch function, a LangChain or a LlamaIndex retriever.

Recognised by their methods, in this order, without importing either framework:

``invoke`` and ``batch``
    a LangChain retriever (any Runnable): ``invoke(query)``, or ``batch(queries)`` when a batch
    size is given;
``retrieve``
    a LlamaIndex retriever: ``retrieve(query)`` (it has no batch method: use ``workers=``);
callable
    a function ``f(query)``; with a batch size, ``f(list_of_queries)`` returning one result per
    query, in order. A batch function is declared (``batch=n``), never guessed.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

__all__ = ["Caller", "caller", "kind_of"]

#: Calls a retriever on a list of query texts and returns one raw result per text, in order.
Caller = Callable[[Sequence[str]], list]


def kind_of(retriever) -> str:
    """``"langchain"``, ``"llamaindex"`` or ``"function"``; anything else is a TypeError."""
    if callable(getattr(retriever, "invoke", None)) and callable(getattr(retriever, "batch", None)):
        return "langchain"
    if callable(getattr(retriever, "retrieve", None)):
        return "llamaindex"
    if callable(retriever):
        return "function"
    raise TypeError(f"cannot call a {type(retriever).__name__} as a retriever: pass a function f(query), a "
                    "LangChain retriever (invoke/batch) or a LlamaIndex retriever (retrieve)")


def caller(retriever, batch: int | None) -> Caller:
    """A function from a list of query texts to their raw results (one call per text, or one per batch)."""
    kind = kind_of(retriever)
    if batch is None:
        one = {"langchain": lambda q: retriever.invoke(q), "llamaindex": lambda q: retriever.retrieve(q),
               "function": retriever}[kind]
        return lambda texts: [one(q) for q in texts]
    if kind == "llamaindex":
        raise ValueError("a LlamaIndex retriever has no batch method: leave batch=None (workers= runs "
                         "queries in parallel)")
    many = retriever.batch if kind == "langchain" else retriever
    return lambda texts: _checked(many(list(texts)), len(texts))


def _checked(results, n: int) -> list:
    """A batch call's results as a list of ``n``; another count is an error."""
    if isinstance(results, (str, bytes)) or not hasattr(results, "__len__"):
        raise TypeError(f"a batch call must return a list with one result per query, got a "
                        f"{type(results).__name__}")
    if len(results) != n:
        raise ValueError(f"a batch call returned {len(results)} results for {n} queries")
    return list(results)
