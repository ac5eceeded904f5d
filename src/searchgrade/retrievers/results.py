"""What a retriever returned for one query, read into hits: an id, a score or None, a text or None.

A result list is any iterable (a list, a generator; a mapping is read as ``{id: score}`` in its
order). Each of its items is one of:

* an id: a string or an integer;
* an ``(id, score)`` pair (a tuple or a list of two);
* a LlamaIndex ``NodeWithScore`` (it has ``node`` and ``score``): the id is ``node.node_id``,
  or ``node.ref_doc_id`` with ``id_key="ref_doc_id"``, or ``node.metadata[id_key]``; the text is
  ``node.get_content()``;
* a LangChain ``Document`` (it has ``page_content`` and ``metadata``): the id is ``Document.id``,
  or ``metadata[id_key]``; the score is ``metadata[score_key]`` when present; the text is
  ``page_content``;
* any other object with an ``id`` attribute (or the attribute ``id_key`` names), and optionally
  ``score`` and ``text``.

The frameworks are recognised by these attributes; neither is imported. Only the first ``k``
items are read. A returned string (or bytes), a result that is not iterable, an item of none of
these forms, an id that is missing, empty, a float or a bool, and a score that is not a finite
number are errors naming the query and the rank.
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping
from numbers import Integral, Real
from typing import NamedTuple

from ..io.errors import shown

__all__ = ["Hit", "read_hits"]


class Hit(NamedTuple):
    """One retrieved item: its id (a str or an int, as returned), its score (None if absent) and its text."""

    id: str | int
    score: float | None
    text: str | None


def read_hits(result, qid: str, k: int | None, id_key: str | None = None,
              score_key: str = "score") -> list[Hit]:
    """The first ``k`` items (all with ``k=None``) of one query's result, as hits in the retriever's order."""
    if isinstance(result, (str, bytes)):
        what = "a string" if isinstance(result, str) else "bytes"
        raise TypeError(f"query {qid!r}: the retriever returned {what} ({shown(str(result))}), not a list of "
                        "results (ids, (id, score) pairs or documents)")
    if isinstance(result, Mapping):
        result = result.items()
    if not isinstance(result, Iterable):
        raise TypeError(f"query {qid!r}: the retriever returned a value of type {type(result).__name__}, not a "
                        "list of results")
    return [_hit(item, qid, rank, id_key, score_key)
            for rank, item in enumerate(itertools.islice(result, k), 1)]


def _hit(item, qid: str, rank: int, id_key: str | None, score_key: str) -> Hit:
    """One item as a Hit (see the module docstring for the forms)."""
    where = f"query {qid!r}, rank {rank}"
    if isinstance(item, (str, Integral)) and not isinstance(item, bool):
        return Hit(_id(item, where), None, None)
    if isinstance(item, (tuple, list)):
        if len(item) != 2:
            raise ValueError(f"{where}: a result given as a sequence must be an (id, score) pair, "
                             f"got {len(item)} values")
        return Hit(_id(item[0], where), _score(item[1], where), None)
    if hasattr(item, "node") and hasattr(item, "score"):
        return _node_hit(item, where, id_key)
    if hasattr(item, "page_content") and hasattr(item, "metadata"):
        return _document_hit(item, where, id_key, score_key)
    attr = id_key or "id"
    if hasattr(item, attr):
        text = getattr(item, "text", None)
        return Hit(_id(getattr(item, attr), where, f"attribute {attr!r}"),
                   _score(getattr(item, "score", None), where), text if isinstance(text, str) else None)
    raise TypeError(f"{where}: cannot read an id from a {type(item).__name__}: expected an id, an (id, score) "
                    f"pair, a LangChain Document, a LlamaIndex NodeWithScore or an object with an "
                    f"{attr!r} attribute")


def _node_hit(item, where: str, id_key: str | None) -> Hit:
    """A LlamaIndex NodeWithScore: node_id, ref_doc_id or a metadata key; the node's content."""
    node = item.node
    if id_key in (None, "node_id"):
        value, source = getattr(node, "node_id", None), "node_id"
    elif id_key == "ref_doc_id":
        value, source = getattr(node, "ref_doc_id", None), "ref_doc_id"
    else:
        value, source = (getattr(node, "metadata", None) or {}).get(id_key), f"metadata[{id_key!r}]"
    content = node.get_content() if callable(getattr(node, "get_content", None)) else getattr(node, "text", None)
    return Hit(_id(value, where, f"the node's {source}"), _score(item.score, where),
               content if isinstance(content, str) else None)


def _document_hit(doc, where: str, id_key: str | None, score_key: str) -> Hit:
    """A LangChain Document: Document.id or metadata[id_key]; metadata[score_key] when present."""
    metadata = doc.metadata or {}
    if id_key is None:
        value, source = getattr(doc, "id", None), "Document.id"
    else:
        value, source = metadata.get(id_key), f"metadata[{id_key!r}]"
    return Hit(_id(value, where, source), _score(metadata.get(score_key), where),
               doc.page_content if isinstance(doc.page_content, str) else None)


def _id(value, where: str, source: str = "the id"):
    """A result id as returned: a non-empty str or an int; anything else is an error naming where."""
    if value is None:
        hint = " (pass id_key= to read the id from the metadata)" if source == "Document.id" else ""
        raise ValueError(f"{where}: the result has no id: {source} is None{hint}")
    if isinstance(value, bool) or not isinstance(value, (str, Integral)):
        raise TypeError(f"{where}: id {value!r} is a {type(value).__name__}; ids are strings or integers")
    if isinstance(value, str) and not value.strip():
        raise ValueError(f"{where}: the id is an empty string")
    return value if isinstance(value, str) else int(value)


def _score(value, where: str) -> float | None:
    """A score as a float, None if absent; a bool, a non-number or a non-finite number is an error."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{where}: score {value!r} is a {type(value).__name__}, not a number")
    score = float(value)
    if not math.isfinite(score):
        raise ValueError(f"{where}: score {value!r} is not finite")
    return score
