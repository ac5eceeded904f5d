"""The per-query viewer that ``searchgrade report`` embeds and chapter 5 shows.

:func:`query_viewer`: choose a query (optionally through named filters) and see the judged relevant
documents beside the top documents of one to three runs, with judgments, per-query scores and, where
the collection has answer strings, the answer highlighted. :func:`query_viewer_data` is what it
embeds, :func:`viewer_query_html` what it shows for one query, :func:`viewer_mark` a judgment's label.

Every number the viewer shows is computed by the package (``evaluate``) when it is built, rounded to
4 decimals (:func:`searchgrade.report.widget.quantise`) and embedded; the page's JavaScript
(``assets/viewer.js``) only looks values up, and the ipywidgets version reads the same tables. It is
a widget of :mod:`.widget` (kernel-free HTML). This module imports neither :mod:`searchgrade.book`
nor matplotlib.
"""
from __future__ import annotations

import json
import re
import unicodedata
from typing import Mapping, Sequence

import pandas as pd

from .. import judges, metrics
from ..io import trec_order
from .html import esc
from .text import VIEWER, VIEWER_PAGE, check_lang
from .widget import (SCALE, asset, check_int, display_html, format_value, json_for_script, quantise, resolve_mode,
                     widget_html, widget_id)

__all__ = ["query_viewer_data", "query_viewer", "viewer_query_html", "viewer_mark"]


def _viewer_qids(queries, qrels, filters: dict, qids) -> list[str]:
    """The queries the viewer embeds: `qids` (or every query) plus every filter's members, judged ones only."""
    for label, members in filters.items():
        if isinstance(members, str):
            raise ValueError(f"filter {label!r}: give a list of query ids, not the string {members!r}")
        unknown = [q for q in members if q not in queries]
        if unknown:
            raise ValueError(f"filter {label!r}: query ids not in `queries`: {unknown[:10]}")
    in_filters = [q for m in filters.values() for q in m]
    if qids is None:
        qids = list(queries) if not filters else list(dict.fromkeys(in_filters))
    else:
        unknown = [q for q in qids if q not in queries]
        if unknown:
            raise ValueError(f"qids not in `queries`: {unknown[:10]}")
        qids = list(dict.fromkeys(list(qids) + in_filters))
    if not qids:
        raise ValueError("query_viewer: no query to show (the filters are empty and no qids were given)")
    unjudged = [q for q in qids if q not in qrels]
    if unjudged:
        raise ValueError(f"queries without judgments in `qrels`: {unjudged[:10]}")
    return qids


def _viewer_scores(runs, qrels, qids, scores, measures) -> tuple[list[str], dict]:
    """(measure names, {run: DataFrame}): the given per-query scores, checked, or computed with `evaluate`."""
    names = [str(name) for name in runs]
    if scores is None:
        measures = [metrics.parse_measure(m).name for m in measures]
        sub = {q: qrels[q] for q in qids}
        return measures, {str(name): metrics.evaluate(sub, {q: run[q] for q in qids if run.get(q)}, measures,
                                                      missing="zero") for name, run in runs.items()}
    if set(map(str, scores)) != set(names):
        raise ValueError(f"scores must have one DataFrame per run {names}, got {list(scores)}")
    scores = {str(k): v for k, v in scores.items()}
    measures = list(next(iter(scores.values())).columns)
    for name, df in scores.items():
        if list(df.columns) != measures:
            raise ValueError(f"scores[{name!r}] has columns {list(df.columns)}, expected {measures}")
        absent = [q for q in qids if q not in df.index]
        if absent:
            raise ValueError(f"scores[{name!r}] has no row for queries {absent[:10]}")
    return measures, scores


def _viewer_answers(answers, qids) -> dict[str, list[str]]:
    """{qid: answer texts} for the shown queries that have answers (the collection's `meta["answers"]`)."""
    if answers is None:
        return {}
    if not isinstance(answers, Mapping):
        raise ValueError(f"answers must be a dict {{qid: [answer texts]}}, not {type(answers).__name__}")
    picked = {}
    for q in qids:
        texts = answers.get(q)
        if texts is None:
            continue
        if isinstance(texts, str) or not all(isinstance(t, str) for t in texts):
            raise ValueError(f"answers[{q!r}] must be a list of strings, got {texts!r}")
        texts = [t for t in texts if t.split()]
        if texts:
            picked[q] = list(dict.fromkeys(texts))
    return picked


def _answer_pattern(texts: Sequence[str]):
    """A regex finding any of the answer texts (case-insensitive, any whitespace run for a space), or None."""
    parts = sorted({r"\s+".join(map(re.escape, t.split())) for t in texts}, key=len, reverse=True)
    return re.compile("|".join(parts), re.IGNORECASE) if parts else None


def _passage(entry: Mapping, pattern, chars: int) -> tuple[str, list[list[int]]]:
    """(snippet, answer spans in it) of a document: its first `chars` characters, or a window on the answer."""
    text = " ".join(unicodedata.normalize("NFC", str(entry.get("text") or "")).split())
    found = pattern.search(text) if pattern is not None else None
    begin = 0
    if found is not None and found.end() > chars:
        begin = max(0, min(found.start() - chars // 3, len(text) - chars))
    end = min(len(text), begin + chars)
    lead = "\u2026" if begin > 0 else ""
    snippet = lead + text[begin:end] + ("\u2026" if end < len(text) else "")
    spans = [] if pattern is None else [
        [m.start() - begin + len(lead), m.end() - begin + len(lead)]
        for m in pattern.finditer(text) if m.start() >= begin and m.end() <= end]
    return snippet, spans


def _viewer_query(q: str, runs, qrels, corpus, answers, judge, opts: dict, titles: dict) -> dict:
    """What the viewer shows for one query: each run's top documents, the judged relevant ones, passages."""
    pattern = _answer_pattern(answers.get(q, ()))

    def passage(d: str, where: str, chars: int) -> list:
        if d not in corpus:
            raise ValueError(f"{where}: document {d!r} is not in the corpus")
        titles.setdefault(d, str(corpus[d].get("title") or "").strip() or d)
        snippet, spans = _passage(corpus[d], pattern, chars)
        return [snippet, spans, None if q not in answers else judge.judge(q, d) > 0]

    orders = {name: trec_order(run.get(q, {})) for name, run in runs.items()}
    top, passages = [], {}
    for name, order in orders.items():
        ranked = order[:opts["depth"]]
        for d in ranked:
            if d not in passages:
                passages[d] = passage(d, f"run {name!r}, query {q!r}", opts["snippet_chars"])
        top.append([[d, (int(qrels[q][d]) if d in qrels[q] else None)] for d in ranked])
    relevant = sorted(((d, int(g)) for d, g in qrels[q].items() if g >= opts["rel_level"]),
                      key=lambda p: (-p[1], p[0]))
    gold = []
    for d, g in relevant[:opts["max_relevant_shown"]]:
        ranks = [order.index(d) + 1 if d in order else None for order in orders.values()]
        gold.append([d, g, *passage(d, f"qrels, query {q!r}", opts["gold_chars"]), ranks])
    return {"top": top, "passages": passages, "relevant": [list(p) for p in relevant], "gold": gold}


def query_viewer_data(queries: Mapping[str, str], runs: Mapping[str, Mapping], qrels: Mapping,
                      corpus: Mapping[str, Mapping[str, str]], scores: Mapping[str, pd.DataFrame] | None = None,
                      filters: Mapping[str, Sequence[str]] | None = None, *, qids: Sequence[str] | None = None,
                      measures: Sequence[str] = ("nDCG@10", "RR", "R@10"), depth: int = 5,
                      snippet_chars: int = 120, gold_chars: int = 360, rel_level: int = 1,
                      max_relevant_shown: int = 5, answers: Mapping[str, Sequence[str]] | None = None,
                      start: str | None = None, max_bytes: int = 300_000, lang: str = "ko") -> dict:
    """Validated, size-checked data of the per-query viewer (top `depth` of one to three runs per query).

    `answers` ({qid: [answer texts]}, e.g. KorQuAD's ``meta["answers"]``) highlights the answers and marks
    the documents that hold one; `start` is the query shown first (default: the first one), and when it
    is given the filter menu opens on the first group holding it."""
    if not isinstance(runs, Mapping) or not 1 <= len(runs) <= 3:
        got = list(runs) if isinstance(runs, Mapping) else type(runs).__name__
        raise ValueError(f"query_viewer needs one to three runs {{name: run}}, got "
                         f"{len(got) if isinstance(runs, Mapping) else 0}: {got}")
    if not queries:
        raise ValueError("query_viewer needs at least one query in `queries`")
    opts = {"depth": check_int("depth", depth, 1, 20), "rel_level": rel_level,
            "snippet_chars": check_int("snippet_chars", snippet_chars, 0, 2000),
            "gold_chars": check_int("gold_chars", gold_chars, 0, 4000),
            "max_relevant_shown": check_int("max_relevant_shown", max_relevant_shown, 0, 50)}
    filters = {} if filters is None else dict(filters)
    qids = _viewer_qids(queries, qrels, filters, qids)
    filters = {str(label): list(members) for label, members in filters.items()}
    chosen, start = start is not None, qids[0] if start is None else start
    if start not in qids:
        raise ValueError(f"start query {start!r} is not among the viewer's queries (give it in `qids` or a filter)")
    answers = _viewer_answers(answers, qids)
    judge = judges.AnswerJudge(answers, corpus) if answers else None
    measures, scores = _viewer_scores(runs, qrels, qids, scores, measures)
    titles, per_query = {}, {q: None for q in qids}
    for q in qids:
        per_query[q] = _viewer_query(q, runs, qrels, corpus, answers, judge, opts, titles)
    graded = any(g > 1 for q in qids for g in qrels[q].values())
    data = {"scale": SCALE, "runs": [str(name) for name in runs], "measures": list(measures), "order": qids,
            "queries": {q: str(queries[q]) for q in qids}, "filters": [[label, m] for label, m in filters.items()],
            "scores": {q: [[None if pd.isna(v) else quantise(v) for v in scores[name].loc[q, measures]]
                           for name in map(str, runs)] for q in qids},
            **{key: {q: per_query[q][key] for q in qids} for key in ("top", "passages", "relevant", "gold")},
            "titles": titles, "answers": answers, "relLevel": rel_level, "graded": graded,
            "text": VIEWER[check_lang(lang)], "start": start,
            "startFilter": next((i for i, (_, m) in enumerate(filters.items()) if chosen and start in m), -1)}
    size = len(json_for_script(data).encode("utf-8"))
    if size > max_bytes:
        raise ValueError(f"query_viewer data is {size:,} bytes (limit {max_bytes:,}): pass fewer `qids`, "
                         "narrower filters or a smaller snippet_chars / gold_chars")
    return data


def viewer_mark(data: dict, grade: int | None) -> str:
    """The judgment label of a document: 정답 (with its grade on a graded scale), 오답 or 판정되지 않음."""
    t = data["text"]
    if grade is None:
        return t["unjudged"]
    if grade >= data["relLevel"]:
        return t["graded"].replace("{g}", str(grade)) if data["graded"] else t["relevant"]
    return t["nonrelevant"]


def _mark_html(data: dict, grade: int | None) -> str:
    """The judgment badge of a document."""
    kind = "unj" if grade is None else "rel" if grade >= data["relLevel"] else "non"
    return f'<span class="sg-mark sg-mark-{kind}">{esc(viewer_mark(data, grade))}</span>'


def _highlight_html(text: str, spans) -> str:
    """Escaped text with the answer spans wrapped in <mark class="sg-hl">."""
    out, at = [], 0
    for a, b in spans:
        out.append(f'{esc(text[at:a])}<mark class="sg-hl">{esc(text[a:b])}</mark>')
        at = b
    return "".join(out) + esc(text[at:])


def _doc_html(data: dict, d: str, grade, snippet: str, spans, has_answer) -> str:
    """One document of a list: judgment, title, id (unless the title is the id), answer badge and snippet."""
    badge = f'<span class="sg-mark sg-mark-ans">{esc(data["text"]["answer"])}</span>' if has_answer else ""
    title = data["titles"][d]
    docid = "" if title == d else f' <span class="sg-docid">({esc(d)})</span>'
    return (f'{_mark_html(data, grade)}<span class="sg-doc-title">{esc(title)}</span>{docid}{badge}'
            f'<span class="sg-snippet">{_highlight_html(snippet, spans)}</span>')


def _gold_html(data: dict, qid: str) -> str:
    """The section with the query's judged relevant documents and where each run ranked them."""
    t, rel, gold = data["text"], data["relevant"][qid], data["gold"][qid]
    items = []
    for d, g, snippet, spans, has_answer, ranks in gold:
        where = ", ".join(f"{esc(name)} {t['rank'].replace('{r}', str(r)) if r else t['absent']}"
                          for name, r in zip(data["runs"], ranks))
        items.append(f'<li data-docid="{esc(d)}" data-grade="{g}">{_doc_html(data, d, g, snippet, spans, has_answer)}'
                     f'<span class="sg-ranks">{esc(t["ranks"])} {where}</span></li>')
    more = len(rel) - len(gold)
    title = esc(t["gold_one" if len(rel) == 1 else "gold"].replace("{n}", str(len(rel))))
    more_text = esc(t["more_one" if more == 1 else "more"].replace("{n}", str(max(more, 0))))
    return (f'<section class="sg-gold" aria-label="{title}"><p class="sg-relevant">{title}</p>'
            f'<ol class="sg-gold-docs">{"".join(items)}</ol>'
            f'<p class="sg-note sg-more"{"" if more > 0 else " hidden"}>{more_text}</p>'
            "</section>")


def _column_html(data: dict, qid: str, j: int) -> str:
    """One run's column: per-query scores and its top documents."""
    name = data["runs"][j]
    rows = "".join(f'<tr><th scope="row">{esc(m)}</th><td class="sg-value" data-measure="{esc(m)}">'
                   f"{format_value(data['scores'][qid][j][mi])}</td></tr>" for mi, m in enumerate(data["measures"]))
    items = "".join(f'<li data-docid="{esc(d)}" data-grade="{"" if g is None else g}">'
                    f'{_doc_html(data, d, g, *data["passages"][qid][d])}</li>' for d, g in data["top"][qid][j])
    caption = data["text"]["scores"].replace("{name}", name)
    return (f'<section class="sg-col" aria-label="{esc(name)}" data-run="{esc(name)}">'
            f'<p class="sg-col-title">{esc(name)}</p>'
            f'<table class="sg-scores"><caption class="sg-sr-only">{esc(caption)}</caption><tbody>{rows}</tbody></table>'
            f'<p class="sg-note sg-empty"{" hidden" if items else ""}>{esc(data["text"]["empty"])}</p>'
            f'<ol class="sg-top">{items}</ol></section>')


def viewer_query_html(data: dict, qid: str) -> str:
    """Everything the viewer shows for one query (the HTML page's script builds the same markup)."""
    answers = data["answers"].get(qid, [])
    shown = ", ".join(f'<mark class="sg-hl">{esc(a)}</mark>' for a in answers)
    return (f'<p class="sg-query-text">{esc(data["queries"][qid])}</p>'
            f'<p class="sg-answers"{"" if answers else " hidden"}>{esc(data["text"]["answers"])} {shown}</p>'
            f"{_gold_html(data, qid)}"
            f'<div class="sg-columns">{"".join(_column_html(data, qid, j) for j in range(len(data["runs"])))}</div>')


def _viewer_groups(data: dict, lang: str = "ko") -> list[tuple[str, list[str]]]:
    """(label, qids) of the filter menu: every query first, then the named groups."""
    words = VIEWER_PAGE[lang]
    return [(words["all"].format(n=len(data["order"])), data["order"])] + [
        (words["member"].format(label=label, n=len(members)), members) for label, members in data["filters"]]


def query_viewer(queries: Mapping[str, str], runs: Mapping[str, Mapping], qrels: Mapping,
                 corpus: Mapping[str, Mapping[str, str]], scores: Mapping[str, pd.DataFrame] | None = None,
                 filters: Mapping[str, Sequence[str]] | None = None, *, mode: str = "auto", search: bool = False,
                 lang: str = "ko", display: bool = True, **options):
    """Chapter 5's per-query viewer: pick a query (through named filters), see the judged relevant
    documents beside one to three runs' top documents, answer strings highlighted where `answers` gives them.

    ``search`` adds a search box (HTML mode) that narrows the query menu to the queries whose id or text
    contains what is typed, for a viewer over many queries (the report embeds every judged query).
    ``lang``: the viewer's words (:mod:`.text`). ``display=False`` returns the HTML text itself instead
    of an IPython object (IPython is then not imported: ``searchgrade report`` writes a file).
    """
    data = query_viewer_data(queries, runs, qrels, corpus, scores, filters, lang=lang, **options)
    if resolve_mode(mode) == "ipywidgets":
        return _viewer_ipywidgets(data)
    uid = widget_id("viewer", json.dumps([data["runs"], data["order"][:50], data["measures"]], ensure_ascii=False))
    groups, start, group, words = _viewer_groups(data, lang), data["start"], data["startFilter"], VIEWER_PAGE[lang]
    filter_options = "".join(
        f'<option value="{i - 1}"{" disabled" if not members else ""}{" selected" if i - 1 == group else ""}>'
        f"{esc(label)}</option>" for i, (label, members) in enumerate(groups))
    query_options = "".join(f'<option value="{esc(q)}"{" selected" if q == start else ""}>{esc(q)}. {esc(data["queries"][q])}</option>'
                            for q in groups[group + 1][1])
    depth = max((len(t) for ts in data["top"].values() for t in ts), default=0)
    marked = words["marked"] if data["answers"] else ""
    find = (f'<div class="sg-control"><label for="{uid}-search">{words["search"]}</label>'
            f'<input type="search" class="sg-search" id="{uid}-search" placeholder="{words["placeholder"]}" '
            f'autocomplete="off"></div>') if search else ""
    runs_text = words["runs3"] if len(data["runs"]) == 3 else words["runs"].format(n=len(data["runs"]))
    body = (
        f'<p class="sg-title">{words["title"]}</p>'
        f'<p class="sg-help">{words["help"].format(runs=runs_text, depth=depth, marked=marked)}</p>'
        f'<div class="sg-controls">'
        f'<div class="sg-control"><label for="{uid}-filter">{words["group"]}</label>'
        f'<select class="sg-filter" id="{uid}-filter">{filter_options}</select></div>'
        f'<div class="sg-control"><label for="{uid}-query">{words["query"]}</label>'
        f'<select class="sg-query" id="{uid}-query">{query_options}</select></div>{find}</div>'
        f'<div class="sg-view">{viewer_query_html(data, start)}</div>'
    )
    return (display_html if display else str)(widget_html(uid, body, data, asset("viewer.js"),
                                                          "searchgradeQueryViewer", "query-viewer",
                                                          f"sg-viewer sg-runs-{len(data['runs'])}", lang))


def _viewer_ipywidgets(data: dict):
    """The per-query viewer as ipywidgets: two dropdowns and the same markup rendered in Python."""
    import ipywidgets as w

    groups = dict(_viewer_groups(data))
    labels = list(groups)
    filter_box = w.Dropdown(options=labels, value=labels[data["startFilter"] + 1], description="질문 묶음")
    query_box = w.Dropdown(description="질문")
    out = w.HTML()

    def fill(_=None):
        members = groups[filter_box.value]
        query_box.options = [(f"{q}. {data['queries'][q]}", q) for q in members]
        # a Dropdown whose options change selects nothing: show the group's first query (the start at first)
        query_box.value = data["start"] if query_box.value is None and data["start"] in members else \
            (members[0] if members else None)

    def refresh(_=None):
        q = query_box.value
        view = f"<p>{esc(data['text']['noQuery'])}</p>" if q is None else viewer_query_html(data, q)
        out.value = (f"<style>{asset('widgets.css')}</style><div class=\"sg-widget sg-viewer\" data-qid=\"{esc(q or '')}\">"
                     f"<div class=\"sg-view\">{view}</div></div>")

    query_box.observe(refresh, names="value")
    filter_box.observe(fill, names="value")
    fill()
    refresh()
    box = w.VBox([w.HBox([filter_box, query_box]), out])
    box.sg = {"filter": filter_box, "query": query_box, "output": out, "data": data}
    return box
