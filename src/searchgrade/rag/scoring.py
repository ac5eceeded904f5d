"""Retrieval metrics of items over ranked chunks or evidence sets, and their breakdown by kind, type and tag."""
from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pandas as pd

from .quotes import Gold, gold, is_composite, normalise
from .schema import SET_METRICS, TYPES


def _as_chunks(chunks: Sequence[Any], where: str) -> list[tuple[str, str]]:
    """``[(doc_id, normalised text)]`` from mappings (``text`` or ``content``) or ``(doc_id, text)`` pairs."""
    if isinstance(chunks, (str, bytes)) or not isinstance(chunks, Sequence):
        raise TypeError(f"{where}: chunks must be a list, got {type(chunks).__name__}")
    out = []
    for pos, c in enumerate(chunks, start=1):
        if isinstance(c, Mapping):
            text = c.get("text", c.get("content"))
            doc = c.get("doc_id")
            if "rank" in c and c["rank"] != pos:
                raise ValueError(f"{where}: chunk at position {pos} says rank {c['rank']}; list chunks in rank order")
        elif isinstance(c, (tuple, list)) and len(c) == 2:
            doc, text = c
        else:
            raise TypeError(f"{where}: chunk {pos} must be a mapping with doc_id and text, or a (doc_id, text) pair")
        if not isinstance(doc, str) or not isinstance(text, str):
            raise TypeError(f"{where}: chunk {pos} needs a str 'doc_id' and a str 'text' (or 'content')")
        out.append((doc, normalise(text)))
    return out


def _found(g: Gold, chunks: list[tuple[str, str]], quote_scope: str) -> list[bool]:
    if quote_scope == "evidence_docs":
        return [any(doc in allowed and q in text for doc, text in chunks) for q, allowed in g.quotes]
    return [any(q in text for _, text in chunks) for q, _ in g.quotes]


def _check_scope(quote_scope: str) -> None:
    if quote_scope not in ("evidence_docs", "any"):
        raise ValueError(f"quote_scope must be 'evidence_docs' or 'any', got {quote_scope!r}")


def _check_ks(ks: Sequence[int]) -> tuple[int, ...]:
    ks = tuple(ks)
    if not ks or any(isinstance(k, bool) or not isinstance(k, int) or k < 1 for k in ks):
        raise ValueError(f"ks must be positive integers, got {ks!r}")
    if len(set(ks)) != len(ks):
        raise ValueError(f"ks has duplicates: {ks!r}")
    return ks


def _set_scores(g: Gold, chunks: list[tuple[str, str]], quote_scope: str) -> dict[str, float]:
    docs = {d for d, _ in chunks}
    found = _found(g, chunks, quote_scope)
    return {
        "DocHit": float(bool(docs & g.any_doc)),
        "AllDocs": float(all(grp & docs for grp in g.groups)),
        "EvidenceRecall": sum(found) / len(found),
        "AllEvidence": float(all(found)),
    }


def ranked_metrics(item: Mapping, chunks: Sequence[Any], ks: Sequence[int] = (1, 3, 5, 10),
                   *, quote_scope: str = "evidence_docs") -> dict[str, float]:
    """DocHit@k, AllDocs@k, EvidenceRecall@k, AllEvidence@k for each k, RR_doc and RR_evidence (module doc)."""
    _check_scope(quote_scope)
    ks = _check_ks(ks)
    g = gold(item)
    cs = _as_chunks(chunks, f"item {item.get('id')!r}")
    out: dict[str, float] = {}
    per_k = {k: _set_scores(g, cs[:k], quote_scope) for k in ks}
    for name in SET_METRICS:
        for k in ks:
            out[f"{name}@{k}"] = per_k[k][name]
    gold_docs = g.any_doc
    out["RR_doc"] = next((1.0 / r for r, (d, _) in enumerate(cs, start=1) if d in gold_docs), 0.0)
    hit = (
        (lambda d, t: any(q in t and d in allowed for q, allowed in g.quotes))
        if quote_scope == "evidence_docs" else (lambda d, t: any(q in t for q, _ in g.quotes))
    )
    out["RR_evidence"] = next((1.0 / r for r, (d, t) in enumerate(cs, start=1) if hit(d, t)), 0.0)
    return out


def set_metrics(item: Mapping, chunks: Iterable[Any], *, quote_scope: str = "evidence_docs") -> dict[str, float]:
    """DocHit, AllDocs, EvidenceRecall, AllEvidence over an unranked evidence set (e.g. an answer writer's input)."""
    _check_scope(quote_scope)
    return _set_scores(gold(item), _as_chunks(list(chunks), f"item {item.get('id')!r}"), quote_scope)


def _match_ids(items: Sequence[Mapping], results: Mapping[str, Any], missing: str, what: str) -> None:
    if missing not in ("error", "empty"):
        raise ValueError(f"missing must be 'error' or 'empty', got {missing!r}")
    ids = [it["id"] for it in items]
    dup = sorted(i for i, c in Counter(ids).items() if c > 1)
    if dup:
        raise ValueError(f"duplicate item ids: {dup}")
    unknown = sorted(set(results) - set(ids))
    if unknown:
        raise ValueError(f"{what} for unknown item ids: {unknown[:10]}{' ...' if len(unknown) > 10 else ''}")
    absent = [i for i in ids if i not in results]
    if absent and missing == "error":
        raise ValueError(f"no {what} for {len(absent)} item(s): {absent[:10]}{' ...' if len(absent) > 10 else ''}"
                         " (pass missing='empty' to score them on an empty list)")


def evaluate_items(items: Sequence[Mapping], retrieved: Mapping[str, Sequence[Any]],
                   ks: Sequence[int] = (1, 3, 5, 10), *, missing: str = "error",
                   quote_scope: str = "evidence_docs") -> pd.DataFrame:
    """Per-item ranked metrics: index ``item_id``, columns as :func:`ranked_metrics`; items in input order.

    ``retrieved`` maps item id to its ranked chunks. An item without a
    ranking is an error, or with ``missing="empty"`` scored on an empty list.
    """
    ks = _check_ks(ks)
    _match_ids(items, retrieved, missing, "rankings")
    rows = [ranked_metrics(it, retrieved.get(it["id"], []), ks, quote_scope=quote_scope) for it in items]
    cols = [f"{m}@{k}" for m in SET_METRICS for k in ks] + ["RR_doc", "RR_evidence"]
    return pd.DataFrame(rows, index=pd.Index([it["id"] for it in items], name="item_id"), columns=cols)


def evaluate_sets(items: Sequence[Mapping], evidence_sets: Mapping[str, Iterable[Any]], *,
                  missing: str = "error", quote_scope: str = "evidence_docs") -> pd.DataFrame:
    """Per-item unranked metrics (:func:`set_metrics`) for the evidence sets handed to an answer writer."""
    _match_ids(items, evidence_sets, missing, "evidence sets")
    rows = [set_metrics(it, evidence_sets.get(it["id"], []), quote_scope=quote_scope) for it in items]
    return pd.DataFrame(rows, index=pd.Index([it["id"] for it in items], name="item_id"), columns=list(SET_METRICS))


def breakdown(items: Sequence[Mapping], per_item: pd.DataFrame) -> pd.DataFrame:
    """Mean of each metric over ALL, single, composite, each ``type:<t>`` and each ``tag:<t>``, with ``n``.

    ``single`` and ``composite`` split by ``min_docs`` (composite: >= 2);
    an item counts in every group it belongs to. Columns ``RR_*`` become
    ``MRR_*`` (their mean). Groups without items are left out.
    """
    ids = [it["id"] for it in items]
    missing = [i for i in ids if i not in per_item.index]
    if missing:
        raise ValueError(f"per-item results lack {len(missing)} item(s): {missing[:10]}")
    extra = [i for i in per_item.index if i not in set(ids)]
    if extra:
        raise ValueError(f"per-item results hold {len(extra)} id(s) that are not items: {extra[:10]}")
    buckets: dict[str, list[str]] = defaultdict(list)
    for it in items:
        buckets["ALL"].append(it["id"])
        buckets["composite" if is_composite(it) else "single"].append(it["id"])
    for t in TYPES:
        for it in items:
            if it["type"] == t:
                buckets[f"type:{t}"].append(it["id"])
    for tag in sorted({tag for it in items for tag in it.get("tags") or []}):
        for it in items:
            if tag in (it.get("tags") or []):
                buckets[f"tag:{tag}"].append(it["id"])
    order = ["ALL", "single", "composite"] + [k for k in buckets if k.startswith(("type:", "tag:"))]
    numeric = per_item.select_dtypes("number")
    rows = {}
    for name in order:
        if name in buckets:
            rows[name] = {"n": len(buckets[name]), **numeric.loc[buckets[name]].mean().to_dict()}
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "group"
    out["n"] = out["n"].astype(int)
    return out.rename(columns={c: "M" + c for c in out.columns if c.startswith("RR_")})
