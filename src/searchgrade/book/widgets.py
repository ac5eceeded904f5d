"""The book's interactive widgets: kernel-free HTML for the published pages, ipywidgets in a live kernel.

The book's three widgets, each a function that returns something Jupyter displays:

- :func:`scoring_lab` (chapter 2): toggle the relevance of ten results, choose k and the number of
  relevant documents missing from the list; P@k, Recall@k, Hit@k, AP@k, RR@k, nDCG@k and RBP update.
- :func:`rank_slider` (chapter 4): one relevant document moved from rank 1 to n, a small curve per
  measure with the current point marked.
- :func:`searchgrade.report.viewer.query_viewer` (chapter 5, and the page of ``searchgrade report``):
  choose a query (optionally through named filters) and see the judged relevant documents beside the
  top documents of three runs, with judgments, per-query scores and, where the collection has answer
  strings, the answer highlighted. It lives in the report, which the book imports, never the reverse.

Every widget is built on :mod:`searchgrade.report.widget` (one ``<div>`` with its CSS, markup, data and
script; the lab's and the slider's scripts are ``assets/lab.js`` and ``assets/slider.js`` of this
package). Every number a widget shows is computed by the package (``score_ranking`` / ``evaluate``)
when the widget is built, rounded to 4 decimals (:func:`~searchgrade.report.widget.quantise`) and
embedded; the page's JavaScript only looks values up, and the ipywidgets version reads the same
tables, so the two cannot drift apart from each other or from the package. The HTML needs no kernel,
no server and no network: plain JS and CSS, inlined, with element ids unique to each widget instance.
"""
from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Mapping, Sequence

import pandas as pd

from .. import metrics
from ..report.html import esc
from ..report.widget import (SCALE, asset, check_int, display_html, format_value, quantise, resolve_mode,
                             widget_html, widget_id)
from . import single_relevant_ranking
from .plotting import PALETTE
from .tables import reader_label

__all__ = [
    "LabTable",
    "lab_documents",
    "lab_qrels",
    "scoring_table",
    "scoring_lab",
    "rank_slider_table",
    "rank_slider",
]


# Display labels (Korean UI) and the package's measure names, "{k}" filled in with the cut-off.
LAB_KEYS = ("P", "R", "Hit", "AP", "RR", "nDCG", "RBP")
LAB_LABELS = {"P": "P@{k}", "R": "Recall@{k}", "Hit": "Hit@{k}", "AP": "AP@{k}", "RR": "RR@{k}",
              "nDCG": "nDCG@{k}"}
LAB_MEASURES = {"P": "P@{k}", "R": "R@{k}", "Hit": "Hit@{k}", "AP": "AP@{k}", "RR": "RR@{k}",
                "nDCG": "nDCG@{k}"}
DEFAULT_PRESETS = {
    "2장 예: 1, 3, 5, 7위": (1, 3, 5, 7),
    "정답이 10위에 하나": (10,),
    "정답이 1위에 하나": (1,),
    "모두 정답": tuple(range(1, 11)),
    "모두 오답": (),
}
SLIDER_MEASURES = ("RR", "AP", "nDCG@10", "R@10", "RBP(p=0.8)", "ERR@20", "INST(T=1)")


# --------------------------------------------------------------------------- scoring lab (chapter 2)


@dataclass(frozen=True)
class LabTable:
    """Every state of the scoring lab, precomputed with the package and rounded by :func:`quantise`.

    A state is (bits, k, missing): bit i of ``bits`` set when the result at rank i+1 is relevant,
    cut-off k, and relevant documents missing from the list; R = popcount(bits) + missing and
    hits = popcount(prefix), prefix = bits & (2^k - 1). Each measure is stored once per value of what
    it depends on (checked for every state when the table is built, and by the tests):
    ``by_prefix[k-1]``: flat [P@k, Hit@k, RR@k] per prefix;
    ``by_prefix_r[k-1]``: flat [AP@k, nDCG@k] per (prefix, R - hits), R - hits in 0..n-k+max_missing;
    ``recall[hits * (n + max_missing + 1) + R]``: R@k = hits / R;
    ``rbp[bits]``: RBP(p) of the whole list (RBP has no cut-off).
    """

    n: int
    max_missing: int
    rbp_measure: str
    by_prefix: tuple
    by_prefix_r: tuple
    recall: tuple
    rbp: tuple

    def lookup(self, bits: int, k: int, missing: int) -> dict[str, int]:
        """Embedded values {key: int} of one state, indexed exactly as the page's JavaScript does."""
        check_int("k", k, 1, self.n)
        check_int("missing", missing, 0, self.max_missing)
        check_int("bits", bits, 0, 2**self.n - 1)
        prefix = bits & ((1 << k) - 1)
        hits = bin(prefix).count("1")
        relevant = bin(bits).count("1") + missing
        width = self.n - k + self.max_missing + 1
        i = prefix * width + (relevant - hits)
        small, big = self.by_prefix[k - 1], self.by_prefix_r[k - 1]
        recall = self.recall[hits * (self.n + self.max_missing + 1) + relevant]
        return {"P": small[3 * prefix], "Hit": small[3 * prefix + 1], "RR": small[3 * prefix + 2],
                "R": recall, "AP": big[2 * i], "nDCG": big[2 * i + 1], "RBP": self.rbp[bits]}

    def measure_names(self, k: int) -> dict[str, str]:
        """The package's measure name behind each key at cut-off k."""
        return {**{key: m.format(k=k) for key, m in LAB_MEASURES.items()}, "RBP": self.rbp_measure}

    def to_json(self) -> dict:
        """The table as embedded in the page."""
        return {"n": self.n, "maxMissing": self.max_missing, "scale": SCALE,
                "byPrefix": [list(a) for a in self.by_prefix],
                "byPrefixR": [list(a) for a in self.by_prefix_r], "recall": list(self.recall),
                "rbp": list(self.rbp)}


def lab_documents(n: int) -> list[str]:
    """Document ids of the lab's list: A, B, C, ... (n <= 10)."""
    return [chr(ord("A") + i) for i in range(n)]


def lab_qrels(bits: int, n: int, missing: int) -> dict[str, int]:
    """Judgments of one lab state: the list's documents 1 (relevant) or 0, plus `missing` relevant x1.."""
    docs = lab_documents(n)
    qrels = {d: int(bits >> i & 1) for i, d in enumerate(docs)}
    qrels.update({f"x{j + 1}": 1 for j in range(missing)})
    return qrels


@lru_cache(maxsize=8)
def scoring_table(n: int = 10, max_missing: int = 5, rbp_p: float = 0.8) -> LabTable:
    """Precompute the lab with the package: one query per (k, prefix, R) state, scored as score_ranking does."""
    n = check_int("n", n, 1, 10)
    max_missing = check_int("max_missing", max_missing, 0, 10)
    if not 0 < float(rbp_p) < 1:
        raise ValueError(f"rbp_p must be in (0, 1), got {rbp_p!r}")
    rbp_measure = metrics.parse_measure(f"RBP(p={rbp_p})").name
    docs = lab_documents(n)
    run_row = {d: float(n - i) for i, d in enumerate(docs)}
    opts = {"ties": "input", "missing": "zero"}  # what score_ranking uses for one ranked list

    by_prefix, by_prefix_r, recall = [], [], {}
    for k in range(1, n + 1):
        width = n - k + max_missing + 1
        qrels, run = {}, {}
        for prefix in range(2**k):
            for extra in range(width):
                after = min(extra, n - k)  # relevant documents placed right after the cut-off ...
                bits = prefix | (((1 << after) - 1) << k)
                qid = f"{prefix}:{extra}"
                qrels[qid] = lab_qrels(bits, n, extra - after)  # ... the rest missing from the list
                run[qid] = run_row
        names = [LAB_MEASURES[key].format(k=k) for key in ("P", "Hit", "RR", "R", "AP", "nDCG")]
        df = metrics.evaluate(qrels, run, names, **opts)
        values = {name: dict(zip(df.index, map(quantise, df[name]))) for name in names}
        small, big = [], []
        for prefix in range(2**k):
            hits = bin(prefix).count("1")
            for name in names[:3]:  # depend on the prefix only
                got = {values[name][f"{prefix}:{extra}"] for extra in range(width)}
                if len(got) != 1:
                    raise AssertionError(f"{name} varies with R for prefix {prefix:b}: {sorted(got)}")
                small.append(got.pop())
            for extra in range(width):
                qid = f"{prefix}:{extra}"
                big += [values[names[4]][qid], values[names[5]][qid]]
                key = hits * (n + max_missing + 1) + hits + extra
                if recall.setdefault(key, values[names[3]][qid]) != values[names[3]][qid]:
                    raise AssertionError(f"R@k is not a function of (hits, R) at k={k}, prefix {prefix:b}")
        by_prefix.append(tuple(small))
        by_prefix_r.append(tuple(big))
    recall_flat = tuple(recall.get(i, 0) for i in range((n + 1) * (n + max_missing + 1)))

    qrels = {str(bits): lab_qrels(bits, n, 0) for bits in range(2**n)}
    run = {str(bits): run_row for bits in range(2**n)}
    df = metrics.evaluate(qrels, run, [rbp_measure], **opts)
    rbp = tuple(quantise(df.loc[str(bits), rbp_measure]) for bits in range(2**n))
    return LabTable(n, max_missing, rbp_measure, tuple(by_prefix), tuple(by_prefix_r), recall_flat, rbp)


def _lab_state(n: int, relevant: Sequence[int], k: int, missing: int, max_missing: int) -> int:
    """Validated initial state of the lab, as bits."""
    check_int("k", k, 1, n)
    check_int("missing", missing, 0, max_missing)
    ranks = list(relevant)
    for r in ranks:
        check_int("a relevant rank", r, 1, n)
    if len(set(ranks)) != len(ranks):
        raise ValueError(f"relevant ranks must not repeat, got {ranks}")
    return sum(1 << (r - 1) for r in ranks)


def _lab_rows_html(table: LabTable, bits: int, k: int, missing: int) -> str:
    """<tbody> rows of the lab's score table for one state (shared by the HTML and ipywidgets views)."""
    got, names = table.lookup(bits, k, missing), table.measure_names(k)
    labels = {**{key: v.format(k=k) for key, v in LAB_LABELS.items()}, "RBP": table.rbp_measure}
    rows = []
    for key in LAB_KEYS:
        q = got[key]
        rows.append(
            f'<tr data-key="{key}"><th scope="row" class="sg-label">{esc(labels[key])}</th>'
            f'<td class="sg-value" data-measure="{esc(names[key])}">{format_value(q)}</td>'
            f'<td class="sg-bar" aria-hidden="true"><span style="width:{min(100.0, max(0.0, 100 * q / SCALE)):.2f}%">'
            "</span></td></tr>"
        )
    return "".join(rows)


def _lab_total_text(bits: int, missing: int) -> str:
    """'전체 정답 R = ...' line for one state."""
    inside = bin(bits).count("1")
    return LAB_TOTAL.replace("{R}", str(inside + missing)).replace("{in}", str(inside)).replace("{out}", str(missing))


LAB_TOTAL = "전체 정답 R = {R}개 (목록 안 {in} + 목록 밖 {out})"
LAB_ON, LAB_OFF = "정답", "오답"


def scoring_lab(relevant: Sequence[int] = (1, 3, 5, 7), k: int = 5, missing: int = 0, *, n: int = 10,
                max_missing: int = 5, rbp_p: float = 0.8, presets: Mapping[str, Sequence[int]] | None = None,
                mode: str = "auto"):
    """Chapter 2's scoring lab: toggle relevance of n results, pick k and the relevant documents missing."""
    n = check_int("n", n, 1, 10)
    bits = _lab_state(n, relevant, k, missing, check_int("max_missing", max_missing, 0, 10))
    presets = {name: tuple(r for r in ranks if r <= n) for name, ranks in DEFAULT_PRESETS.items()} \
        if presets is None else {str(name): tuple(ranks) for name, ranks in presets.items()}
    for name, ranks in presets.items():
        try:
            _lab_state(n, ranks, 1, 0, max_missing)
        except ValueError as err:
            raise ValueError(f"preset {name!r}: {err}") from None
    table = scoring_table(n, max_missing, rbp_p)
    if resolve_mode(mode) == "ipywidgets":
        return _lab_ipywidgets(table, bits, k, missing)
    return display_html(_lab_html(table, bits, k, missing, presets))


def _lab_html(table: LabTable, bits: int, k: int, missing: int, presets: Mapping[str, Sequence[int]]) -> str:
    """The kernel-free HTML of the scoring lab."""
    n, docs = table.n, lab_documents(table.n)
    data = {**table.to_json(), "labels": {**LAB_LABELS, "RBP": table.rbp_measure},
            "measures": {**LAB_MEASURES, "RBP": table.rbp_measure},
            "stateOn": LAB_ON, "stateOff": LAB_OFF, "totalText": LAB_TOTAL}
    uid = widget_id("lab", json.dumps([n, table.max_missing, table.rbp_measure, bits, k, missing]))
    items = []
    for i, doc in enumerate(docs):
        on = bool(bits >> i & 1)
        cls = " sg-cut" if i >= k else ""
        cls += " sg-first-cut" if i == k else ""
        items.append(
            f'<li class="{cls.strip()}"><button type="button" class="sg-toggle" id="{uid}-r{i + 1}" '
            f'aria-pressed="{"true" if on else "false"}" data-rank="{i + 1}" '
            f'aria-label="{i + 1}위 결과 {doc}: 정답으로 표시">'
            f'<span class="sg-rank" aria-hidden="true">{i + 1}위</span>'
            f'<span class="sg-doc" aria-hidden="true">문서 {doc}</span>'
            f'<span class="sg-state" aria-hidden="true">{LAB_ON if on else LAB_OFF}</span></button></li>'
        )
    options = "".join(f'<option value="{m}"{" selected" if m == missing else ""}>{m}개</option>'
                      for m in range(table.max_missing + 1))
    preset_buttons = "".join(
        f'<button type="button" class="sg-preset" data-relevant="{esc(json.dumps(list(ranks)))}">{esc(name)}</button>'
        for name, ranks in presets.items())
    body = (
        f'<p class="sg-title" id="{uid}-title">채점 실험실</p>'
        f'<p class="sg-help" id="{uid}-help">결과를 누르면(Tab으로 옮겨 가서 Space나 Enter) 정답 여부가 '
        f"바뀐다. k는 목록을 자르는 위치이고, 목록 밖 정답은 검색기가 끝내 찾지 못한 정답의 수다.</p>"
        f'<div class="sg-controls">'
        f'<div class="sg-control"><label for="{uid}-k">자르는 위치 k = <output class="sg-k-out" for="{uid}-k">{k}</output></label>'
        f'<input type="range" class="sg-k" id="{uid}-k" min="1" max="{n}" step="1" value="{k}" aria-valuetext="k = {k}"></div>'
        f'<div class="sg-control"><label for="{uid}-missing">목록 밖 정답 수</label>'
        f'<select class="sg-missing" id="{uid}-missing">{options}</select></div>'
        f"</div>"
        f'<div class="sg-presets" role="group" aria-label="예시 상태">{preset_buttons}</div>'
        f'<div class="sg-lab-grid">'
        f'<ol class="sg-results" aria-label="검색 결과 {n}개 (누르면 정답 여부가 바뀐다)">{"".join(items)}</ol>'
        f'<div><table class="sg-scores"><caption>지표 값</caption>'
        f'<thead><tr><th scope="col">지표</th><th scope="col">값</th><th scope="col"><span class="sg-sr-only">막대</span></th></tr></thead>'
        f"<tbody>{_lab_rows_html(table, bits, k, missing)}</tbody></table>"
        f'<p class="sg-note sg-total">{esc(_lab_total_text(bits, missing))}</p>'
        f'<p class="sg-note">값은 <code>searchgrade</code>가 상태마다 미리 계산해 넣은 것이다. '
        f"{esc(table.rbp_measure)}는 컷오프 없이 목록 전체로 잰다.</p></div>"
        f"</div>"
    )
    return widget_html(uid, body, data, asset("lab.js", "searchgrade.book"), "searchgradeScoringLab", "scoring-lab",
                       "sg-lab")


def _lab_ipywidgets(table: LabTable, bits: int, k: int, missing: int):
    """The scoring lab as ipywidgets, reading the same table."""
    import ipywidgets as w

    docs = lab_documents(table.n)
    toggles = [w.ToggleButton(value=bool(bits >> i & 1), description=f"{i + 1}위 {doc}",
                              tooltip=f"{i + 1}위 결과 {doc}: 정답으로 표시",
                              layout=w.Layout(width="auto")) for i, doc in enumerate(docs)]
    k_slider = w.IntSlider(value=k, min=1, max=table.n, description="k")
    missing_box = w.Dropdown(options=list(range(table.max_missing + 1)), value=missing, description="목록 밖 정답")
    out = w.HTML()

    def state() -> tuple[int, int, int]:
        return sum(1 << i for i, t in enumerate(toggles) if t.value), k_slider.value, missing_box.value

    def refresh(_=None):
        b, kk, m = state()
        out.value = (f"<style>{asset('widgets.css')}</style><div class=\"sg-widget sg-lab\"><table class=\"sg-scores\">"
                     f"<tbody>{_lab_rows_html(table, b, kk, m)}</tbody></table>"
                     f"<p class=\"sg-note\">{esc(_lab_total_text(b, m))}</p></div>")
        for t in toggles:
            t.button_style = "info" if t.value else ""

    for t in toggles:
        t.observe(refresh, names="value")
    k_slider.observe(refresh, names="value")
    missing_box.observe(refresh, names="value")
    refresh()
    box = w.VBox([w.HTML("<b>채점 실험실</b>"), w.HBox([k_slider, missing_box]),
                  w.GridBox(toggles, layout=w.Layout(grid_template_columns="repeat(auto-fill, minmax(7rem, 1fr))")),
                  out])
    box.sg = {"toggles": toggles, "k": k_slider, "missing": missing_box, "output": out, "table": table}
    return box


# --------------------------------------------------------------------------- rank slider (chapter 4)


def rank_slider_table(measures: Sequence[str] = SLIDER_MEASURES, n: int = 20) -> pd.DataFrame:
    """Scores of a list of n documents whose only relevant one sits at rank 1..n (score_ranking each)."""
    n = check_int("n", n, 2, 100)
    measures = list(measures)
    if not measures:
        raise ValueError("rank_slider needs at least one measure")
    names = [metrics.parse_measure(m).name for m in measures]  # unknown names: ValueError listing known ones
    if len(set(names)) != len(names):
        raise ValueError(f"measures repeat: {measures}")
    rows = {r: metrics.score_ranking(*single_relevant_ranking(r, n), measures) for r in range(1, n + 1)}
    table = pd.DataFrame.from_dict(rows, orient="index")[measures]
    table.index.name = "rank"
    return table


_CHART = {"w": 240, "h": 124, "left": 30, "right": 8, "top": 8, "bottom": 34}


def _nice_max(value: float) -> float:
    """Smallest of 0.1, 0.2, 0.25, 0.5, 1, 2, 5, ... that is >= value (at least 0.1)."""
    for step in itertools.chain([0.1, 0.2, 0.25, 0.5], (m * 10**e for e in range(0, 6) for m in (1, 2, 5))):
        if value <= step + 1e-12:
            return step
    return float(value)


def _chart_geometry(values: Sequence[int], n: int) -> tuple[list[list[float]], float]:
    """SVG coordinates of each rank's point and the y-axis maximum, for embedded values."""
    c = _CHART
    ymax = _nice_max(max(values) / SCALE)
    width, height = c["w"] - c["left"] - c["right"], c["h"] - c["top"] - c["bottom"]
    xy = [[round(c["left"] + width * (r - 1) / (n - 1), 2),
           round(c["top"] + height * (1 - (q / SCALE) / ymax), 2)] for r, q in zip(range(1, n + 1), values)]
    return xy, ymax


def _chart_svg(name: str, values: Sequence[int], xy, ymax: float, n: int, current: int, colour: str) -> str:
    """One small SVG chart: the curve, axes with a few labels, and the marker at the current rank."""
    c = _CHART
    x0, x1 = c["left"], c["w"] - c["right"]
    y0, y1 = c["h"] - c["bottom"], c["top"]
    points = " ".join(f"{x},{y}" for x, y in xy)
    ticks = sorted({1, n, *range(5, n + 1, 5)}) if n >= 10 else list(range(1, n + 1))
    xt = "".join(f'<text x="{x0 + (x1 - x0) * (t - 1) / (n - 1):.1f}" y="{y0 + 14}" text-anchor="middle">{t}</text>'
                 for t in ticks)
    xt += f'<text x="{(x0 + x1) / 2:.1f}" y="{y0 + 27}" text-anchor="middle">정답 순위</text>'
    yt = (f'<text x="{x0 - 4}" y="{y0}" text-anchor="end" dominant-baseline="middle">0</text>'
          f'<text x="{x0 - 4}" y="{y1}" text-anchor="end" dominant-baseline="middle">{ymax:g}</text>')
    cx, cy = xy[current - 1]
    label = f"{name}: 정답을 1위에서 {n}위까지 옮길 때의 값 곡선. 1위 {format_value(values[0])}, {n}위 {format_value(values[-1])}"
    return (
        f'<svg viewBox="0 0 {c["w"]} {c["h"]}" role="img" aria-label="{esc(label)}" focusable="false">'
        f'<line class="sg-axis" x1="{x0}" y1="{y0}" x2="{x1}" y2="{y0}"></line>'
        f'<line class="sg-axis" x1="{x0}" y1="{y0}" x2="{x0}" y2="{y1}"></line>{xt}{yt}'
        f'<line class="sg-cursor" x1="{cx}" y1="{y0}" x2="{cx}" y2="{y1}"></line>'
        f'<polyline class="sg-curve" points="{points}" style="stroke:{colour}"></polyline>'
        f'<circle class="sg-marker" cx="{cx}" cy="{cy}" r="5" style="fill:{colour}"></circle>'
        "</svg>"
    )


SLIDER_RANK_TEXT = "정답 순위 {r}위"


def rank_slider(measures: Sequence[str] = SLIDER_MEASURES, n: int = 20, start: int = 3, *, mode: str = "auto"):
    """Chapter 4's rank slider: one relevant document at rank 1..n, a curve per measure, current point marked."""
    table = rank_slider_table(measures, n)
    start = check_int("start", start, 1, n)
    values = [[quantise(v) for v in table[m]] for m in table.columns]
    geometry = [_chart_geometry(v, n) for v in values]
    colours = [PALETTE[j % len(PALETTE)] if PALETTE[j % len(PALETTE)] != "#F0E442" else PALETTE[7]
               for j in range(len(values))]
    if resolve_mode(mode) == "ipywidgets":
        return _slider_ipywidgets(list(table.columns), values, geometry, colours, n, start)
    uid = widget_id("rank", json.dumps([list(table.columns), n, start]))
    figures = "".join(
        f'<figure class="sg-chart" data-measure="{esc(m)}" data-index="{j}">'
        f'<figcaption><span class="sg-name">{esc(reader_label(m))}</span>'
        f'<span class="sg-value" data-measure="{esc(m)}">{format_value(values[j][start - 1])}</span></figcaption>'
        f"{_chart_svg(reader_label(m), values[j], geometry[j][0], geometry[j][1], n, start, colours[j])}</figure>"
        for j, m in enumerate(table.columns))
    body = (
        f'<p class="sg-title">정답 하나를 1위에서 {n}위로</p>'
        f'<p class="sg-help">슬라이더(또는 방향키, Home, End)로 정답의 순위를 바꾸면 지표마다 현재 값과 '
        f"곡선 위의 점이 바뀐다. 목록에는 문서가 {n}개 있고, 정답은 그중 하나다.</p>"
        f'<div class="sg-control"><label for="{uid}-range">정답 순위: <output class="sg-rank-out" for="{uid}-range">{start}</output>위</label>'
        f'<input type="range" class="sg-rank" id="{uid}-range" min="1" max="{n}" step="1" value="{start}" '
        f'aria-valuetext="{SLIDER_RANK_TEXT.format(r=start)}"></div>'
        f'<div class="sg-charts">{figures}</div>'
        f'<p class="sg-note">값은 <code>searchgrade.score_ranking</code>이 순위마다 계산해 넣은 것이다.</p>'
    )
    data = {"scale": SCALE, "measures": list(table.columns), "labels": [reader_label(m) for m in table.columns],
            "values": values,
            "xy": [g[0] for g in geometry], "rankText": SLIDER_RANK_TEXT}
    return display_html(widget_html(uid, body, data, asset("slider.js", "searchgrade.book"), "searchgradeRankSlider", "rank-slider",
                                    "sg-slider"))


def _slider_ipywidgets(measures, values, geometry, colours, n: int, start: int):
    """The rank slider as ipywidgets: an IntSlider redrawing the same SVG charts."""
    import ipywidgets as w

    slider = w.IntSlider(value=start, min=1, max=n, description="정답 순위")
    out = w.HTML()

    def refresh(_=None):
        r = slider.value
        figures = "".join(
            f'<figure class="sg-chart" data-measure="{esc(m)}"><figcaption><span class="sg-name">{esc(reader_label(m))}</span>'
            f'<span class="sg-value" data-measure="{esc(m)}">{format_value(values[j][r - 1])}</span></figcaption>'
            f"{_chart_svg(m, values[j], geometry[j][0], geometry[j][1], n, r, colours[j])}</figure>"
            for j, m in enumerate(measures))
        out.value = (f"<style>{asset('widgets.css')}</style>"
                     f'<div class="sg-widget sg-slider"><div class="sg-charts">{figures}</div></div>')

    slider.observe(refresh, names="value")
    refresh()
    box = w.VBox([slider, out])
    box.sg = {"slider": slider, "output": out}
    return box
