"""Checking items: the schema of one item, the whole set against its corpus, and counts of items."""
from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pandas as pd

from .quotes import corpus_texts, gold, is_composite, min_documents, normalise
from .schema import (EVIDENCE_FIELDS, EVIDENCE_ROLES, ITEM_FIELDS, MUST_HAVE_RANGE, QUERY_STYLES, TYPES, _TAG_NAME,
                     Problem, _is_str_list, _type_name)
from .scoring import _as_chunks


def check_item(item: Any) -> list[Problem]:
    """Schema problems of one item (fields, types, vocabularies, counts); the corpus is not needed."""
    if not isinstance(item, Mapping):
        return [Problem("?", "not_object", f"an item must be a JSON object, got {type(item).__name__}")]
    item_id = item.get("id") if isinstance(item.get("id"), str) and item.get("id") else "?"
    out: list[Problem] = []

    def bad(code: str, message: str) -> None:
        """Record one problem of the current item."""
        out.append(Problem(item_id, code, message))

    _check_fields(item, bad)
    _check_string_lists(item, bad)
    _check_vocabulary(item, bad)
    _check_counts(item, bad)
    evidence = item.get("evidence")
    if isinstance(evidence, list):
        if not evidence:
            bad("empty_field", "field 'evidence' is an empty list")
        for i, ev in enumerate(evidence):
            _check_evidence_entry(f"evidence[{i}]", ev, bad)
    return out


_Bad = Callable[[str, str], None]


def _check_fields(item: Mapping, bad: _Bad) -> None:
    """Every field of ITEM_FIELDS present with its type (strings not blank), no unknown field."""
    for name, typ in ITEM_FIELDS.items():
        if name not in item:
            bad("missing_field", f"missing field {name!r}")
            continue
        value = item[name]
        if typ is int and (isinstance(value, bool) or not isinstance(value, int)):
            bad("wrong_type", f"field {name!r} must be an integer, got {type(value).__name__}")
        elif typ is not int and not isinstance(value, typ):
            bad("wrong_type", f"field {name!r} must be {_type_name(typ)}, got {type(value).__name__}")
        elif typ is str and not value.strip():
            bad("empty_field", f"field {name!r} is empty")
    for name in item:
        if name not in ITEM_FIELDS:
            bad("unknown_field", f"unknown field {name!r} (known: {', '.join(ITEM_FIELDS)})")


def _check_string_lists(item: Mapping, bad: _Bad) -> None:
    """reference_contexts, must_have and tags: lists of distinct non-blank strings; tags in lower_snake_case."""
    for name in ("reference_contexts", "must_have", "tags"):
        value = item.get(name)
        if isinstance(value, list):
            if not _is_str_list(value):
                bad("wrong_type", f"field {name!r} must be a list of strings")
            elif any(not v.strip() for v in value):
                bad("empty_field", f"field {name!r} holds an empty string")
            elif name != "tags" and not value:
                bad("empty_field", f"field {name!r} is an empty list")
            elif len(set(value)) != len(value):
                dup = sorted(v for v, c in Counter(value).items() if c > 1)
                bad("duplicate", f"field {name!r} repeats {dup}")
    tags = item.get("tags")
    if _is_str_list(tags):
        for tag in tags:
            if tag.strip() and not _TAG_NAME.match(tag):
                bad("bad_tag", f"tag {tag!r} must be lower_snake_case")


def _check_vocabulary(item: Mapping, bad: _Bad) -> None:
    """type and query_style from their vocabularies."""
    typ = item.get("type")
    if isinstance(typ, str) and typ.strip() and typ not in TYPES:
        bad("unknown_type", f"unknown type {typ!r} (known: {', '.join(TYPES)})")
    style = item.get("query_style")
    if isinstance(style, str) and style.strip() and style not in QUERY_STYLES:
        bad("unknown_query_style", f"unknown query_style {style!r} (known: {', '.join(QUERY_STYLES)})")


def _check_counts(item: Mapping, bad: _Bad) -> None:
    """min_docs agrees with the type (single 1, composite >= 2); the number of must_have facts fits the kind."""
    typ, min_docs = item.get("type"), item.get("min_docs")
    min_ok = isinstance(min_docs, int) and not isinstance(min_docs, bool)
    if min_ok and min_docs < 1:
        bad("min_docs", f"min_docs must be at least 1, got {min_docs}")
        min_ok = False
    if min_ok and typ in TYPES:
        if typ == "single" and min_docs != 1:
            bad("min_docs", f"a 'single' item needs min_docs = 1, got {min_docs}")
        if typ != "single" and min_docs < 2:
            bad("min_docs", f"a {typ!r} item is composite and needs min_docs >= 2, got {min_docs}")
    must = item.get("must_have")
    if min_ok and _is_str_list(must) and must:
        kind = "composite" if min_docs >= 2 else "single"
        lo, hi = MUST_HAVE_RANGE[kind]
        if not lo <= len(must) <= hi:
            bad("must_have_count", f"a {kind} item needs {lo}-{hi} must_have facts, got {len(must)}")


def _check_evidence_entry(where: str, ev: Any, bad: _Bad) -> None:
    """One evidence entry: its fields and types, a quote left after normalisation, a known role, its alt_doc_ids."""
    if not isinstance(ev, Mapping):
        bad("wrong_type", f"{where} must be an object, got {type(ev).__name__}")
        return
    for name, t in EVIDENCE_FIELDS.items():
        if name not in ev:
            bad("missing_field", f"{where} is missing field {name!r}")
        elif not isinstance(ev[name], t):
            bad("wrong_type", f"{where}.{name} must be {_type_name(t)}, got {type(ev[name]).__name__}")
        elif t is str and not ev[name].strip():
            bad("empty_field", f"{where}.{name} is empty")
    for name in ev:
        if name not in EVIDENCE_FIELDS:
            bad("unknown_field", f"{where} has unknown field {name!r}")
    quote = ev.get("quote")
    if isinstance(quote, str) and quote.strip() and not normalise(quote):
        bad("empty_field", f"{where}.quote is empty after normalisation")
    role = ev.get("role")
    if isinstance(role, str) and role.strip() and role not in EVIDENCE_ROLES:
        bad("unknown_role", f"{where}.role {role!r} is unknown (known: {', '.join(EVIDENCE_ROLES)})")
    alts = ev.get("alt_doc_ids")
    if isinstance(alts, list):
        if not _is_str_list(alts) or any(not a.strip() for a in alts):
            bad("wrong_type", f"{where}.alt_doc_ids must be a list of non-empty strings")
        else:
            if ev.get("doc_id") in alts:
                bad("alt_doc_ids", f"{where}.alt_doc_ids repeats its own doc_id {ev.get('doc_id')!r}")
            if len(set(alts)) != len(alts):
                bad("duplicate", f"{where}.alt_doc_ids has duplicates")


def _evidence_ok(item: Mapping) -> bool:
    """True if every evidence entry is well-formed enough to score (types checked)."""
    ev = item.get("evidence")
    return isinstance(ev, list) and bool(ev) and all(
        isinstance(e, Mapping)
        and isinstance(e.get("doc_id"), str)
        and isinstance(e.get("quote"), str)
        and bool(normalise(e["quote"]))
        and _is_str_list(e.get("alt_doc_ids", []))
        for e in ev
    )


def validate(
    items: Sequence[Mapping],
    corpus: Any,
    retrieve: Callable[[str, int], Sequence[Any]] | None = None,
    *,
    k: int = 10,
    check_alts: bool = True,
) -> list[Problem]:
    """Every problem of an evaluation set, each naming its item: schema, quotes, documents, composite checks.

    Checks: :func:`check_item`'s schema checks; unique ids; every evidence
    document and alternative exists in the corpus (and, where the corpus has
    titles, ``title`` is the document's title); each quote is found, after
    :func:`normalise`, in its document or one of its ``alt_doc_ids``; with
    ``check_alts``, every other document containing the quote is listed in
    ``alt_doc_ids`` (otherwise a retriever that finds the fact there would be
    scored as missing it); each reference context is found in an evidence
    document; the fewest documents holding all evidence groups
    (:func:`min_documents`) is at least ``min_docs``. With ``retrieve(question, k)``
    (returning ranked chunks ``{"doc_id", "text"}``) the *single-chunk check*
    runs: a composite item whose quotes all sit in one of its question's top-k
    chunks can be answered from one chunk and is reported.
    """
    texts, titles = corpus_texts(corpus)
    norm_texts = {d: normalise(t) for d, t in texts.items()}
    problems: list[Problem] = []
    seen: Counter = Counter(it.get("id") for it in items if isinstance(it, Mapping) and isinstance(it.get("id"), str))
    reported_dup = set()
    for item in items:
        problems.extend(check_item(item))
        if not isinstance(item, Mapping):
            continue
        item_id = item.get("id") if isinstance(item.get("id"), str) and item.get("id") else "?"
        if seen[item.get("id")] > 1 and item_id not in reported_dup:
            reported_dup.add(item_id)
            problems.append(Problem(item_id, "duplicate_id", f"id {item_id!r} is used by {seen[item_id]} items"))
        if not _evidence_ok(item):
            continue

        def bad(code: str, message: str, item_id: str = item_id) -> None:
            """Record one problem of the current item."""
            problems.append(Problem(item_id, code, message))

        for i, ev in enumerate(item["evidence"]):
            _check_quote_in_corpus(f"evidence[{i}]", ev, texts, titles, norm_texts, check_alts, bad)
        _check_contexts(item, norm_texts, bad)
        _check_min_docs(item, bad)
        if retrieve is not None:
            _check_single_chunk(item, item_id, retrieve, k, bad)
    return problems


def _check_quote_in_corpus(where: str, ev: Mapping, texts: dict[str, str], titles: dict[str, str],
                           norm_texts: dict[str, str], check_alts: bool, bad: _Bad) -> None:
    """An evidence entry's documents exist, its title matches, its quote is in them (and in no unlisted one)."""
    doc_id = ev["doc_id"]
    alts = list(ev.get("alt_doc_ids") or [])
    known = [d for d in [doc_id, *alts] if d in texts]
    for d in [doc_id, *alts]:
        if d not in texts:
            bad("unknown_doc", f"{where} names document {d!r}, which is not in the corpus")
    title = ev.get("title")
    if doc_id in titles and isinstance(title, str) and title != titles[doc_id]:
        bad("title_mismatch", f"{where}.title {title!r} is not the title of {doc_id!r} ({titles[doc_id]!r})")
    q = normalise(ev["quote"])
    holders = [d for d in known if q in norm_texts[d]]
    if known and not holders:
        bad("quote_not_found",
            f"{where}.quote {ev['quote'][:60]!r} is not in {doc_id!r}"
            + (f" nor in its alt_doc_ids {alts}" if alts else "") + " (after normalisation)")
    if check_alts and holders:
        listed = {doc_id, *alts}
        extra = [d for d, t in norm_texts.items() if d not in listed and q in t]
        if extra:
            bad("alt_missing",
                f"{where}.quote {ev['quote'][:40]!r} is also in {extra}, not listed in alt_doc_ids")


def _check_contexts(item: Mapping, norm_texts: dict[str, str], bad: _Bad) -> None:
    """Each reference context occurs in one of the item's evidence documents."""
    evidence_docs = {d for ev in item["evidence"] for d in [ev["doc_id"], *(ev.get("alt_doc_ids") or [])]}
    contexts = item.get("reference_contexts")
    if _is_str_list(contexts):
        for j, ctx in enumerate(contexts):
            c = normalise(ctx)
            if c and not any(c in norm_texts[d] for d in evidence_docs if d in norm_texts):
                bad("context_not_found", f"reference_contexts[{j}] {ctx[:40]!r} is in no evidence document")


def _check_min_docs(item: Mapping, bad: _Bad) -> None:
    """The fewest documents covering every evidence group is at least min_docs."""
    min_docs = item.get("min_docs")
    if isinstance(min_docs, int) and not isinstance(min_docs, bool) and min_docs >= 1:
        need, cover = min_documents(item, limit=min_docs)
        if need < min_docs:
            distinct = len(gold(item).groups)
            bad("min_docs",
                f"min_docs is {min_docs} but the evidence ({distinct} distinct document(s)) "
                f"is covered by {need} document(s): {list(cover)}")


def _check_single_chunk(item: Mapping, item_id: str, retrieve: Callable[[str, int], Sequence[Any]], k: int,
                        bad: _Bad) -> None:
    """A composite item whose quotes all sit in one of its question's top-k chunks is reported."""
    min_docs = item.get("min_docs")
    if not (isinstance(min_docs, int) and min_docs >= 2 and isinstance(item.get("user_input"), str)):
        return
    chunks = _as_chunks(retrieve(item["user_input"], k), f"retrieve({item_id!r})")[:k]
    quotes = [q for q, _ in gold(item).quotes]
    for rank, (doc, text) in enumerate(chunks, start=1):
        if all(q in text for q in quotes):
            bad("single_chunk",
                f"all {len(quotes)} evidence quotes sit in one chunk (rank {rank}, document {doc!r}) "
                f"of the top {k} retrieved for the question: not a composite item")
            break


def complete_alt_doc_ids(item: Mapping, corpus: Any) -> dict:
    """A copy of the item whose evidence ``alt_doc_ids`` list every other document containing the quote."""
    texts, _ = corpus_texts(corpus)
    norm_texts = {d: normalise(t) for d, t in texts.items()}
    new = json.loads(json.dumps(item))
    for ev in new["evidence"]:
        q = normalise(ev["quote"])
        alts = list(ev.get("alt_doc_ids") or [])
        for d, t in norm_texts.items():
            if d != ev["doc_id"] and d not in alts and q in t:
                alts.append(d)
        ev["alt_doc_ids"] = alts
    return new


def item_counts(items: Sequence[Mapping]) -> dict[str, pd.Series]:
    """Counts of items by ``kind`` (single/composite), ``type``, ``query_style`` and ``tag`` (an item counts once per tag)."""
    kind = Counter("composite" if is_composite(it) else "single" for it in items)
    types = Counter(it["type"] for it in items)
    styles = Counter(it["query_style"] for it in items)
    tags = Counter(t for it in items for t in it.get("tags") or [])
    return {
        "kind": pd.Series({k: kind.get(k, 0) for k in ("single", "composite")}, name="n", dtype=int),
        "type": pd.Series({t: types.get(t, 0) for t in TYPES}, name="n", dtype=int),
        "query_style": pd.Series({s: styles.get(s, 0) for s in QUERY_STYLES}, name="n", dtype=int),
        "tag": pd.Series(dict(sorted(tags.items())), name="n", dtype=int),
    }
