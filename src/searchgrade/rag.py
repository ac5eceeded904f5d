"""Evidence-based RAG evaluation: items with verbatim evidence quotes, script-graded retrieval, answer grades.

An *evaluation item* is a question with the facts an answer must contain and
the evidence for them, recorded as a document id plus a verbatim quote::

    {"id": "q-012", "user_input": "...", "reference": "...",
     "reference_contexts": ["..."], "must_have": ["fact 1", "fact 2"],
     "evidence": [{"doc_id": "d1", "title": "...", "quote": "...",
                   "role": "bridge", "alt_doc_ids": []}, ...],
     "min_docs": 2, "reasoning": "...", "type": "bridge",
     "tags": ["multi_hop"], "query_style": "natural"}

Items are stored as JSON Lines (:func:`load_items`, :func:`write_items`) and
checked by :func:`validate` against the corpus they quote.

Quotes are matched, not chunk ids: a retrieved chunk *contains* a quote when
``normalise(quote)`` is a substring of ``normalise(chunk text)``, so an
evaluation set survives any change of chunking. ``alt_doc_ids`` lists other
documents that hold the same fact; an evidence document counts as retrieved
when it or one of its alternatives is retrieved.

Retrieval metrics for one item over a ranked list of chunks ``c_1, c_2, ...``
(each ``{"doc_id": ..., "text": ...}``), with evidence *groups*
``G_1..G_m`` (one per distinct evidence ``doc_id``: the id and the
``alt_doc_ids`` of every evidence entry with that id) and quotes ``q_1..q_n``
(quote ``q_j`` may be found only in a chunk of its own documents ``D_j`` =
its ``doc_id`` and ``alt_doc_ids``, unless ``quote_scope="any"``)::

    DocHit@k         = 1 if some c_r (r <= k) has doc in G_1 ∪ ... ∪ G_m
    AllDocs@k        = 1 if every G_i has a document among c_1..c_k
    EvidenceRecall@k = |{j : q_j in some c_r, r <= k, doc(c_r) in D_j}| / n
    AllEvidence@k    = 1 if EvidenceRecall@k = 1
    RR_doc           = 1 / (rank of the first chunk of an evidence document), 0 if none
    RR_evidence      = 1 / (rank of the first chunk containing an evidence quote), 0 if none

Their means over items are Doc Hit@k, All Docs@k, Evidence Recall@k,
All Evidence@k, MRR_doc and MRR_evidence. :func:`set_metrics` computes the
first four without ranks, for the whole set of chunks handed to an answer
writer. :func:`breakdown` averages per-item results over ALL, single,
composite (``min_docs >= 2``), each type and each tag.

Repeated measurement: :func:`run_summary` gives each metric's mean and
min-max over several runs of one condition; :func:`sign_test_runs` pairs two
conditions item by item on their run means.

Answer grading records (one per answer) carry a verdict per must-have fact
(yes = 1, partial = 0.5, no = 0), a correctness label (correct = 1,
partial = 0.5, incorrect = no_answer = 0) and a faithfulness label
(faithful, minor, major); :func:`validate_gradings` checks them against their
items and :func:`aggregate_gradings` gives Must-have Recall, Correctness and
the faithfulness distribution.

Where this module differs from the source article's code (seed 003): a quote
counts as found only in a chunk of one of its own documents (``doc_id`` or
``alt_doc_ids``); the article accepts any chunk, which ``quote_scope="any"``
reproduces. Normalisation also applies Unicode NFC and removes every HTML tag
(the article turns ``<br>`` into ``/``). MRR is computed twice, on the first
evidence document (the article's MRR) and on the first chunk with a quote.
"""
from __future__ import annotations

import html
import itertools
import json
import os
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import pandas as pd

from .stats import SignTestResult, sign_test

__all__ = [
    "TYPES",
    "QUERY_STYLES",
    "EVIDENCE_ROLES",
    "ITEM_FIELDS",
    "EVIDENCE_FIELDS",
    "VERDICT_SCORES",
    "CORRECTNESS_SCORES",
    "FAITHFULNESS_LABELS",
    "RANKED_METRICS",
    "SET_METRICS",
    "Problem",
    "EvalSetError",
    "normalise",
    "quote_in",
    "find_quote",
    "corpus_texts",
    "Gold",
    "gold",
    "is_composite",
    "min_documents",
    "check_item",
    "validate",
    "complete_alt_doc_ids",
    "item_counts",
    "load_items",
    "write_items",
    "ranked_metrics",
    "set_metrics",
    "evaluate_items",
    "evaluate_sets",
    "breakdown",
    "item_means",
    "run_summary",
    "sign_test_runs",
    "check_grading",
    "validate_gradings",
    "load_gradings",
    "write_gradings",
    "grading_scores",
    "aggregate_gradings",
]

# ---------------------------------------------------------------------------
# Vocabulary

#: Question types, by how the evidence has to be combined (seed 003's eight types).
TYPES = ("single", "bridge", "comparison", "aggregation", "numeric", "rule_application", "causal", "temporal")
#: How the question is written: a clean sentence, a sentence with typos, or bare keywords.
QUERY_STYLES = ("natural", "typo", "keywords")
#: What an evidence quote does for the answer.
EVIDENCE_ROLES = ("answer", "bridge", "rule", "support")

#: Item fields and their JSON types (``list`` fields hold strings, except ``evidence``).
ITEM_FIELDS: dict[str, type] = {
    "id": str,
    "user_input": str,
    "reference": str,
    "reference_contexts": list,
    "must_have": list,
    "evidence": list,
    "min_docs": int,
    "reasoning": str,
    "type": str,
    "tags": list,
    "query_style": str,
}
#: Fields of one evidence entry.
EVIDENCE_FIELDS: dict[str, type] = {
    "doc_id": str,
    "title": str,
    "quote": str,
    "role": str,
    "alt_doc_ids": list,
}
#: Allowed number of must-have facts: single items 1-3, composite items 2-5 (seed 003).
MUST_HAVE_RANGE = {"single": (1, 3), "composite": (2, 5)}

#: Must-have verdict scores: yes = 1, partial = 0.5, no = 0 (seed 003).
VERDICT_SCORES = {"yes": 1.0, "partial": 0.5, "no": 0.0}
#: Correctness scores: correct = 1, partial = 0.5, incorrect = no_answer = 0 (seed 003).
CORRECTNESS_SCORES = {"correct": 1.0, "partial": 0.5, "incorrect": 0.0, "no_answer": 0.0}
#: Faithfulness labels, best first (seed 003).
FAITHFULNESS_LABELS = ("faithful", "minor", "major")
#: At most this many unsupported claims are listed per graded answer (seed 003).
MAX_UNSUPPORTED_CLAIMS = 5

#: Per-item ranked metrics, in column order (``@k`` is appended to the first four).
RANKED_METRICS = ("DocHit", "AllDocs", "EvidenceRecall", "AllEvidence", "RR_doc", "RR_evidence")
#: Unranked metrics over an evidence set.
SET_METRICS = ("DocHit", "AllDocs", "EvidenceRecall", "AllEvidence")

_TAG_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


# ---------------------------------------------------------------------------
# Problems and errors


@dataclass(frozen=True)
class Problem:
    """One problem found in an item or a grading record: the item id, a short code and a message."""

    item_id: str
    code: str
    message: str

    def __str__(self) -> str:
        """``"<item id>: [<code>] <message>"``."""
        return f"{self.item_id}: [{self.code}] {self.message}"


class EvalSetError(ValueError):
    """Bad evaluation-set or grading file; each entry of ``errors`` is ``(line, item_id, message)``."""

    def __init__(self, path: str | os.PathLike, errors: Sequence[tuple[int | None, str | None, str]]):
        self.path = str(path)
        self.errors = list(errors)
        lines = []
        for line, item_id, message in self.errors:
            where = self.path if line is None else f"{self.path}:{line}"
            who = "" if item_id is None else f" item {item_id!r}:"
            lines.append(f"{where}:{who} {message}")
        head = f"{len(self.errors)} problem(s) in {self.path}" if len(self.errors) > 1 else ""
        super().__init__("\n".join([head, *lines]) if head else lines[0] if lines else self.path)

    def __reduce__(self):
        return (type(self), (self.path, self.errors))


# ---------------------------------------------------------------------------
# Quote normalisation

_HTML_TAG = re.compile(r"<[A-Za-z/!?][^<>]*>")
_MD_LINK = re.compile(r"!?\[([^\[\]]*)\]\((?:[^()]|\([^()]*\))*\)")
_MD_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_MD_MARKERS = re.compile(r"[*`]+")
_SPACE = re.compile(r"[\s\u200b\u200c\u200d\u2060\ufeff]+")


@lru_cache(maxsize=65536)
def normalise(text: str) -> str:
    """Shape a quote or a chunk for substring matching: NFC, HTML and Markdown stripped, no whitespace.

    Steps, in order: Unicode NFC; HTML entities unescaped (``&amp;`` -> ``&``);
    HTML tags removed (``<br/>``, ``<b>``, ``</td>``; a ``<`` not followed by a
    letter, ``/``, ``!`` or ``?`` is text); Markdown links and images
    ``[text](url)`` -> ``text``; Markdown escapes ``\\*`` -> ``*``; emphasis
    and code markers ``*`` and `````` removed; every whitespace character
    (and zero-width spaces) removed, since line breaks and table padding differ
    between a source page and an indexed chunk.
    """
    if not isinstance(text, str):
        raise TypeError(f"normalise() needs a str, got {type(text).__name__}")
    t = unicodedata.normalize("NFC", text)
    t = html.unescape(t)
    t = _HTML_TAG.sub("", t)
    t = _MD_LINK.sub(r"\1", t)
    t = _MD_ESCAPE.sub(r"\1", t)
    t = _MD_MARKERS.sub("", t)
    return _SPACE.sub("", t)


def quote_in(quote: str, text: str) -> bool:
    """True if ``normalise(quote)`` is a substring of ``normalise(text)``; an empty quote is an error."""
    q = normalise(quote)
    if not q:
        raise ValueError(f"quote {quote!r} is empty after normalisation")
    return q in normalise(text)


def corpus_texts(corpus: Any) -> tuple[dict[str, str], dict[str, str]]:
    """``(texts, titles)`` from ``{id: text}``, ``{id: {"text", "title"}}`` or an object with ``.corpus``."""
    if hasattr(corpus, "corpus"):
        corpus = corpus.corpus
    if not isinstance(corpus, Mapping):
        raise TypeError(f"corpus must be a mapping of document id to text, got {type(corpus).__name__}")
    texts: dict[str, str] = {}
    titles: dict[str, str] = {}
    for doc_id, doc in corpus.items():
        if isinstance(doc, str):
            texts[doc_id] = doc
        elif isinstance(doc, Mapping) and isinstance(doc.get("text"), str):
            texts[doc_id] = doc["text"]
            if isinstance(doc.get("title"), str):
                titles[doc_id] = doc["title"]
        else:
            raise TypeError(f"corpus document {doc_id!r} must be a str or a mapping with a 'text' str")
    return texts, titles


def find_quote(quote: str, corpus: Any) -> list[str]:
    """Ids of every corpus document whose normalised text contains the normalised quote, in corpus order."""
    q = normalise(quote)
    if not q:
        raise ValueError(f"quote {quote!r} is empty after normalisation")
    texts, _ = corpus_texts(corpus)
    return [d for d, t in texts.items() if q in normalise(t)]


# ---------------------------------------------------------------------------
# Gold evidence of an item


@dataclass(frozen=True)
class Gold:
    """An item's evidence for scoring: document groups and (normalised quote, allowed documents) pairs."""

    groups: tuple[frozenset[str], ...]
    quotes: tuple[tuple[str, frozenset[str]], ...]

    @property
    def any_doc(self) -> frozenset[str]:
        """Every evidence document and alternative."""
        return frozenset().union(*self.groups) if self.groups else frozenset()


def gold(item: Mapping) -> Gold:
    """Evidence groups (one per distinct ``doc_id``, with all its ``alt_doc_ids``) and normalised quotes."""
    groups: dict[str, set[str]] = {}
    quotes = []
    for ev in item["evidence"]:
        allowed = {ev["doc_id"], *(ev.get("alt_doc_ids") or [])}
        groups.setdefault(ev["doc_id"], set()).update(allowed)
        quotes.append((normalise(ev["quote"]), frozenset(allowed)))
    return Gold(tuple(frozenset(g) for g in groups.values()), tuple(quotes))


def is_composite(item: Mapping) -> bool:
    """An item is composite when it needs two or more documents (``min_docs >= 2``)."""
    return item["min_docs"] >= 2


def min_documents(item: Mapping, limit: int | None = None) -> tuple[int, tuple[str, ...]]:
    """Fewest documents that together hold every evidence group, and one such set (a minimum hitting set).

    With ``limit``, the search stops at sets of ``limit`` documents: the result
    is then ``(limit, ())`` when no smaller set exists.
    """
    groups = gold(item).groups
    if not groups:
        return 0, ()
    candidates = sorted(frozenset().union(*groups))
    top = len(groups) if limit is None else min(limit, len(groups))
    for size in range(1, top + 1):
        for combo in itertools.combinations(candidates, size):
            chosen = set(combo)
            if all(g & chosen for g in groups):
                return size, combo
    return top, ()


# ---------------------------------------------------------------------------
# Checking items


def _is_str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _type_name(t: type) -> str:
    return {str: "a string", int: "an integer", list: "a list"}[t]


def check_item(item: Any) -> list[Problem]:
    """Schema problems of one item (fields, types, vocabularies, counts); the corpus is not needed."""
    if not isinstance(item, Mapping):
        return [Problem("?", "not_object", f"an item must be a JSON object, got {type(item).__name__}")]
    item_id = item.get("id") if isinstance(item.get("id"), str) and item.get("id") else "?"
    out: list[Problem] = []

    def bad(code: str, message: str) -> None:
        """Record one problem of the current item."""
        out.append(Problem(item_id, code, message))

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

    typ = item.get("type")
    if isinstance(typ, str) and typ.strip() and typ not in TYPES:
        bad("unknown_type", f"unknown type {typ!r} (known: {', '.join(TYPES)})")
    style = item.get("query_style")
    if isinstance(style, str) and style.strip() and style not in QUERY_STYLES:
        bad("unknown_query_style", f"unknown query_style {style!r} (known: {', '.join(QUERY_STYLES)})")

    min_docs = item.get("min_docs")
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

    evidence = item.get("evidence")
    if isinstance(evidence, list):
        if not evidence:
            bad("empty_field", "field 'evidence' is an empty list")
        for i, ev in enumerate(evidence):
            where = f"evidence[{i}]"
            if not isinstance(ev, Mapping):
                bad("wrong_type", f"{where} must be an object, got {type(ev).__name__}")
                continue
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
    return out


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
        schema = check_item(item)
        problems.extend(schema)
        if not isinstance(item, Mapping):
            continue
        item_id = item.get("id") if isinstance(item.get("id"), str) and item.get("id") else "?"
        if seen[item.get("id")] > 1 and item_id not in reported_dup:
            reported_dup.add(item_id)
            problems.append(Problem(item_id, "duplicate_id", f"id {item_id!r} is used by {seen[item_id]} items"))
        if not _evidence_ok(item):
            continue

        def bad(code: str, message: str) -> None:
            """Record one problem of the current item."""
            problems.append(Problem(item_id, code, message))

        for i, ev in enumerate(item["evidence"]):
            where = f"evidence[{i}]"
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

        evidence_docs = {d for ev in item["evidence"] for d in [ev["doc_id"], *(ev.get("alt_doc_ids") or [])]}
        contexts = item.get("reference_contexts")
        if _is_str_list(contexts):
            for j, ctx in enumerate(contexts):
                c = normalise(ctx)
                if c and not any(c in norm_texts[d] for d in evidence_docs if d in norm_texts):
                    bad("context_not_found", f"reference_contexts[{j}] {ctx[:40]!r} is in no evidence document")

        min_docs = item.get("min_docs")
        if isinstance(min_docs, int) and not isinstance(min_docs, bool) and min_docs >= 1:
            need, cover = min_documents(item, limit=min_docs)
            if need < min_docs:
                distinct = len(gold(item).groups)
                bad("min_docs",
                    f"min_docs is {min_docs} but the evidence ({distinct} distinct document(s)) "
                    f"is covered by {need} document(s): {list(cover)}")

        if retrieve is not None and isinstance(min_docs, int) and min_docs >= 2 \
                and isinstance(item.get("user_input"), str):
            chunks = _as_chunks(retrieve(item["user_input"], k), f"retrieve({item_id!r})")[:k]
            quotes = [q for q, _ in gold(item).quotes]
            for rank, (doc, text) in enumerate(chunks, start=1):
                if all(q in text for q in quotes):
                    bad("single_chunk",
                        f"all {len(quotes)} evidence quotes sit in one chunk (rank {rank}, document {doc!r}) "
                        f"of the top {k} retrieved for the question: not a composite item")
                    break
    return problems


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


# ---------------------------------------------------------------------------
# JSON Lines files


def _read_jsonl(path: str | os.PathLike) -> tuple[list[tuple[int, Any]], list[tuple[int | None, str | None, str]]]:
    """``[(line number, parsed object)]`` and parse errors; blank lines are skipped."""
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"{p}: no such file")
    rows, errors = [], []
    with open(p, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                rows.append((lineno, json.loads(line)))
            except json.JSONDecodeError as exc:
                errors.append((lineno, None, f"not valid JSON: {exc.msg} (column {exc.colno})"))
    return rows, errors


def _load_records(path, check: Callable[[Any], list[Problem]], key: Callable[[Mapping], Any], what: str) -> list:
    rows, errors = _read_jsonl(path)
    first_line: dict[Any, int] = {}
    records = []
    for lineno, obj in rows:
        if not isinstance(obj, dict):
            errors.append((lineno, None, f"each line must hold one {what} as a JSON object, got {type(obj).__name__}"))
            continue
        rid = obj.get("id") if isinstance(obj.get("id"), str) and obj.get("id") else None
        for prob in check(obj):
            errors.append((lineno, rid, f"[{prob.code}] {prob.message}"))
        if rid is not None:
            k = key(obj)
            if k in first_line:
                errors.append((lineno, rid, f"[duplicate_id] {what} already defined on line {first_line[k]}"))
            else:
                first_line[k] = lineno
        records.append(obj)
    if errors:
        raise EvalSetError(path, sorted(errors, key=lambda e: (e[0] or 0)))
    return records


def load_items(path: str | os.PathLike) -> list[dict]:
    """Read items from JSON Lines, one per line; every schema problem raises, naming file, line and id."""
    return _load_records(path, check_item, lambda o: o["id"], "item")


def _write_jsonl(records: Iterable[Mapping], path: str | os.PathLike) -> None:
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        for rec in records:
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")


def write_items(items: Iterable[Mapping], path: str | os.PathLike) -> None:
    """Write items as UTF-8 JSON Lines with fields in schema order; refuses items with schema problems."""
    items = list(items)
    problems = [p for it in items for p in check_item(it)]
    if problems:
        raise ValueError("refusing to write invalid items:\n" + "\n".join(map(str, problems)))
    ordered = [{name: it[name] for name in ITEM_FIELDS} for it in items]
    for it in ordered:
        it["evidence"] = [{name: ev[name] for name in EVIDENCE_FIELDS} for ev in it["evidence"]]
    _write_jsonl(ordered, path)


# ---------------------------------------------------------------------------
# Retrieval metrics


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


# ---------------------------------------------------------------------------
# Repeated measurement


def _check_runs(runs: Sequence[pd.DataFrame], what: str) -> None:
    if not runs:
        raise ValueError(f"{what}: no runs given")
    first = runs[0]
    for i, r in enumerate(runs[1:], start=2):
        if set(r.index) != set(first.index):
            raise ValueError(f"{what}: run {i} scores other items than run 1 "
                             f"({len(set(r.index) ^ set(first.index))} ids differ)")
        if list(r.columns) != list(first.columns):
            raise ValueError(f"{what}: run {i} has columns {list(r.columns)}, run 1 has {list(first.columns)}")


def item_means(runs: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """Per-item mean of each metric over several runs of one condition (same items, same columns)."""
    _check_runs(runs, "item_means")
    stacked = pd.concat([r.loc[runs[0].index] for r in runs], keys=range(len(runs)), names=["run"])
    return stacked.groupby(level=1, sort=False).mean().loc[runs[0].index]


def run_summary(runs: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """Per metric: the mean over runs of the run's item mean, its min and max, and the number of runs."""
    _check_runs(runs, "run_summary")
    means = pd.DataFrame([r.select_dtypes("number").mean() for r in runs])
    out = pd.DataFrame({"mean": means.mean(), "min": means.min(), "max": means.max()})
    out["runs"] = len(runs)
    out.index.name = "metric"
    return out


def sign_test_runs(runs_a: Sequence[pd.DataFrame], runs_b: Sequence[pd.DataFrame], metric: str) -> SignTestResult:
    """Sign test on per-item run means of ``metric``, B (after) against A (before), paired by item.

    ``up`` counts items whose mean rose from A to B, ``down`` those that fell;
    ties are dropped and ``p = min(1, 2 * sum_{i<=min(up,down)} C(n, i) / 2^n)``
    with ``n = up + down`` (:func:`searchgrade.stats.sign_test`).
    """
    a = item_means(runs_a)
    b = item_means(runs_b)
    if set(a.index) != set(b.index):
        raise ValueError("the two conditions score different items; a paired test needs the same items")
    for name, df in (("A", a), ("B", b)):
        if metric not in df.columns:
            raise KeyError(f"metric {metric!r} is not a column of condition {name} (columns: {list(df.columns)})")
    return sign_test(b[metric].rename("B"), a[metric].rename("A"))


# ---------------------------------------------------------------------------
# Answer grading records

GRADING_FIELDS: dict[str, type] = {
    "id": str,
    "must_have": list,
    "correctness": str,
    "faithfulness": str,
}
GRADING_OPTIONAL: dict[str, type] = {
    "run": str,
    "answer": str,
    "answer_by": str,
    "graded_by": str,
    "unsupported_claims": list,
    "notes": str,
}


def check_grading(rec: Any) -> list[Problem]:
    """Schema problems of one grading record (fields, verdict labels, internal consistency)."""
    if not isinstance(rec, Mapping):
        return [Problem("?", "not_object", f"a grading record must be a JSON object, got {type(rec).__name__}")]
    rid = rec.get("id") if isinstance(rec.get("id"), str) and rec.get("id") else "?"
    out: list[Problem] = []

    def bad(code: str, message: str) -> None:
        """Record one problem of the current item."""
        out.append(Problem(rid, code, message))

    for name, typ in {**GRADING_FIELDS, **GRADING_OPTIONAL}.items():
        if name not in rec:
            if name in GRADING_FIELDS:
                bad("missing_field", f"missing field {name!r}")
        elif not isinstance(rec[name], typ):
            bad("wrong_type", f"field {name!r} must be {_type_name(typ)}, got {type(rec[name]).__name__}")
    for name in rec:
        if name not in GRADING_FIELDS and name not in GRADING_OPTIONAL:
            bad("unknown_field", f"unknown field {name!r}")
    verdicts = []
    if isinstance(rec.get("must_have"), list):
        if not rec["must_have"]:
            bad("empty_field", "field 'must_have' is an empty list")
        for j, v in enumerate(rec["must_have"]):
            if not isinstance(v, Mapping) or not isinstance(v.get("fact"), str) or "verdict" not in v:
                bad("wrong_type", f"must_have[{j}] must be an object with 'fact' (str) and 'verdict'")
                continue
            extra = set(v) - {"fact", "verdict", "wrong"}
            if extra:
                bad("unknown_field", f"must_have[{j}] has unknown field(s) {sorted(extra)}")
            if "wrong" in v and not isinstance(v["wrong"], str):
                bad("wrong_type", f"must_have[{j}].wrong must be a string")
            if v["verdict"] not in VERDICT_SCORES:
                bad("bad_verdict", f"must_have[{j}].verdict {v['verdict']!r} is not one of {list(VERDICT_SCORES)}")
            else:
                verdicts.append(v["verdict"])
    corr = rec.get("correctness")
    if isinstance(corr, str) and corr not in CORRECTNESS_SCORES:
        bad("bad_correctness", f"correctness {corr!r} is not one of {list(CORRECTNESS_SCORES)}")
    faith = rec.get("faithfulness")
    if isinstance(faith, str) and faith not in FAITHFULNESS_LABELS:
        bad("bad_faithfulness", f"faithfulness {faith!r} is not one of {list(FAITHFULNESS_LABELS)}")
    claims = rec.get("unsupported_claims")
    if isinstance(claims, list):
        if not _is_str_list(claims):
            bad("wrong_type", "field 'unsupported_claims' must be a list of strings")
        elif len(claims) > MAX_UNSUPPORTED_CLAIMS:
            bad("too_many_claims", f"at most {MAX_UNSUPPORTED_CLAIMS} unsupported claims, got {len(claims)}")
        elif claims and faith == "faithful":
            bad("inconsistent", "faithfulness is 'faithful' but unsupported_claims is not empty")
    all_listed = isinstance(rec.get("must_have"), list) and len(verdicts) == len(rec["must_have"])
    if corr == "correct" and all_listed and any(v != "yes" for v in verdicts):
        bad("inconsistent", "correctness is 'correct' but not every must_have verdict is 'yes'")
    return out


def validate_gradings(records: Sequence[Mapping], items: Sequence[Mapping]) -> list[Problem]:
    """Problems of grading records against their items: unknown id, facts not the item's (same text, order, count)."""
    by_id = {it["id"]: it for it in items}
    problems: list[Problem] = []
    keys: Counter = Counter()
    for rec in records:
        problems.extend(check_grading(rec))
        if not isinstance(rec, Mapping) or not isinstance(rec.get("id"), str):
            continue
        rid = rec["id"]
        keys[(rec.get("run"), rid)] += 1
        if keys[(rec.get("run"), rid)] == 2:
            problems.append(Problem(rid, "duplicate_id", f"item graded more than once in run {rec.get('run')!r}"))
        if rid not in by_id:
            problems.append(Problem(rid, "unknown_item", f"no item with id {rid!r}"))
            continue
        facts = by_id[rid]["must_have"]
        graded = rec.get("must_have")
        if not isinstance(graded, list):
            continue
        got = [v.get("fact") if isinstance(v, Mapping) else None for v in graded]
        if len(got) != len(facts):
            problems.append(Problem(rid, "fact_count", f"{len(got)} must_have verdicts for {len(facts)} facts"))
        elif got != facts:
            if sorted(map(str, got)) == sorted(facts):
                problems.append(Problem(rid, "fact_order", "must_have verdicts are not in the item's fact order"))
            else:
                diff = [j for j, (a, b) in enumerate(zip(got, facts)) if a != b]
                problems.append(Problem(rid, "fact_mismatch",
                                        f"must_have[{diff[0]}] fact {got[diff[0]]!r} is not the item's "
                                        f"{facts[diff[0]]!r}"))
    return problems


def load_gradings(path: str | os.PathLike) -> list[dict]:
    """Read grading records from JSON Lines; schema problems raise, naming file, line and item id."""
    return _load_records(path, check_grading, lambda o: (o.get("run"), o["id"]), "grading record")


def write_gradings(records: Iterable[Mapping], path: str | os.PathLike) -> None:
    """Write grading records as UTF-8 JSON Lines; refuses records with schema problems."""
    records = list(records)
    problems = [p for r in records for p in check_grading(r)]
    if problems:
        raise ValueError("refusing to write invalid grading records:\n" + "\n".join(map(str, problems)))
    _write_jsonl(records, path)


def grading_scores(records: Sequence[Mapping], items: Sequence[Mapping] | None = None) -> pd.DataFrame:
    """Per record: run, id, must-have recall ``(1/M) sum_j s_j`` (yes 1, partial 0.5, no 0), correctness score, labels.

    With ``items``, records are first validated against them and any problem raises.
    """
    problems = validate_gradings(records, items) if items is not None else \
        [p for r in records for p in check_grading(r)]
    if problems:
        raise ValueError("invalid grading records:\n" + "\n".join(map(str, problems)))
    rows = []
    for r in records:
        scores = [VERDICT_SCORES[v["verdict"]] for v in r["must_have"]]
        rows.append({
            "run": r.get("run", ""),
            "item_id": r["id"],
            "must_have_recall": sum(scores) / len(scores),
            "correctness": CORRECTNESS_SCORES[r["correctness"]],
            "correctness_label": r["correctness"],
            "faithfulness": r["faithfulness"],
        })
    return pd.DataFrame(rows, columns=["run", "item_id", "must_have_recall", "correctness",
                                       "correctness_label", "faithfulness"])


def aggregate_gradings(records: Sequence[Mapping], items: Sequence[Mapping] | None = None) -> pd.Series:
    """``n``, Must-have Recall ``(1/N) sum_i (1/M_i) sum_j s_ij``, mean Correctness, share of each faithfulness label."""
    df = grading_scores(records, items)
    if df.empty:
        raise ValueError("no grading records to aggregate")
    out = {"n": len(df), "MustHaveRecall": df["must_have_recall"].mean(), "Correctness": df["correctness"].mean()}
    for label in FAITHFULNESS_LABELS:
        out[f"faithfulness:{label}"] = float((df["faithfulness"] == label).mean())
    return pd.Series(out, dtype=object)
