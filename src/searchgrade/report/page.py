"""``searchgrade report``: one self-contained HTML page with chapter 5's analyses for a folder of runs.

::

    searchgrade runs   --lineup my.toml --collection path/to/beir --out runs/mine
    searchgrade report --collection path/to/beir --runs runs/mine --out report.html

The page, in Korean (the book's language, which the per-query viewer it embeds also speaks), holds
for every run of the folder (in line-up order, :func:`searchgrade.retrieval.runfolder.read_runs`):

1. the collection and the line-up, from the runs' own records;
2. the main table (:func:`searchgrade.report.analyses.main_table` means, missing results scoring 0)
   with significance markers against the best run on ``primary``:
   :func:`searchgrade.comparison.compare` with ``baseline=``, the paired permutation test and
   Holm's correction within each measure, and the differences from the best with their p-values;
3. the P@10 ceiling (:func:`~searchgrade.report.analyses.precision_ceiling`);
4. rank flips between measures (:func:`~searchgrade.report.analyses.rank_flips`) and which of them
   survive the test of both differences (:func:`searchgrade.report.analyses.check_flips`);
5. the per-query distribution of ``primary`` (:func:`~searchgrade.report.analyses.score_distribution`)
   as a table and inline SVG histograms;
6. for each ``rerank`` run whose first stage is in the folder, the second-stage ceiling
   (:func:`~searchgrade.report.analyses.candidate_ceiling`) and what the reordering changed;
7. the per-query viewer (:func:`searchgrade.report.viewer.query_viewer`) over one to three runs and
   every judged query, with a search box and groups of queries where the runs differ (a seeded draw).

It lives in :mod:`searchgrade.report`, which imports neither :mod:`searchgrade.book` nor matplotlib
(the book imports it: its chapter 5 tables and viewer are this package's). Reading a folder of runs
needs the ``retrieval`` extra; the Korean web font embedded in the page is NanumGothic, the TTF that
koreanize-matplotlib ships (read as a file), converted with fontTools and brotli: the ``book`` extra.
The page needs no server and no network: inline CSS, the font and the viewer's script inline,
inline SVG. The same inputs give the same page (seeded tests, no time stamp).
"""
from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .. import stats
from ..collections import Collection
from ..comparison import compare, letter
from ..metrics import Evaluator, parse_measure
from . import analyses
from .viewer import query_viewer
from .html import esc, histogram_svg, note, number, page, section, table

__all__ = ["MEASURES", "PRIMARY", "build_report", "write_report", "main"]

MEASURES = ("P@1", "P@10", "R@10", "R@100", "RR@10", "nDCG@10", "AP@100")
"""Chapter 5's measures, the report's default."""
PRIMARY = "nDCG@10"
"""The default primary measure (picks the best run, the tests' baseline, and the distribution drawn); if the
measures lack it (in any spelling), the first of them."""
VIEWER_MEASURES = ("nDCG@10", "RR@10", "R@10")
STAGE_MEASURES = ("P@1", "RR@10", "nDCG@10")
GROUP_SIZE = 8
VIEWER_BYTES = 60_000_000
"""The most the viewer's embedded data may weigh (every judged query: about 3 kB each for three runs)."""

Run = Mapping[str, Mapping[str, float]]


@dataclass
class _Data:
    """Everything the sections read: the collection, the runs and records, per-query scores, the main table."""

    coll: Collection
    runs: dict[str, Run]
    infos: dict[str, dict | None]
    measures: list[str]
    primary: str
    per_query: dict[str, pd.DataFrame]
    table: pd.DataFrame
    n_perm: int
    seed: int
    alpha: float
    columns: dict[str, str]
    depths: dict[str, int]

    @property
    def best(self) -> str:
        """The run with the highest mean on the primary measure (the first of a tie)."""
        return str(self.table[self.primary].idxmax())

    def scores(self, measures: Sequence[str]) -> dict[str, pd.DataFrame]:
        """{run: its per-query scores on ``measures``}."""
        return {n: df[list(measures)] for n, df in self.per_query.items()}

    def col(self, measure: str) -> str:
        """The column of one of the report's own measures: the user's spelling when they asked for it too."""
        return self.columns[measure]

    def shallow(self, run: str, measure: str) -> bool:
        """Does ``measure`` look deeper than ``run`` goes (its cutoff, capped by the deepest run, beyond the run's depth)?"""
        cutoff = parse_measure(measure).cutoff
        deepest = max(self.depths.values())
        reach = deepest if cutoff is None else min(int(cutoff), deepest)
        return self.depths[run] < reach


def _measure_columns(measures: Sequence[str], primary: str | None) -> tuple[list[str], str, dict[str, str]]:
    """The user's measures (as written), the primary one among them, and a column for each of the report's own.

    Two spellings of one measure (``MRR@10``, ``RR@10``) are one measure: the report's own measures
    (P@10 for the ceiling, those of the viewer and the second stage) reuse the column of a measure
    the user asked for under another spelling, so nothing is asked twice and every name is printed as
    the user wrote it. ``primary`` may be any spelling of one of the measures; by default it is nDCG@10
    if the measures hold it, else the first of them.
    """
    measures = [str(m) for m in dict.fromkeys(measures)]
    if not measures:
        raise ValueError("no measures: give at least one (e.g. --measures nDCG@10,P@10)")
    keys: dict[tuple, str] = {}
    for m in measures:
        key = parse_measure(m).key
        if key in keys:
            raise ValueError(f"measures requested twice: {keys[key]!r} and {m!r} are one measure")
        keys[key] = m
    wanted = PRIMARY if primary is None else primary
    chosen = keys.get(parse_measure(wanted).key)
    if chosen is None:
        if primary is not None:
            raise ValueError(f"the primary measure {primary!r} must be one of the measures {measures}")
        chosen = measures[0]
    own = dict.fromkeys(["P@10", *VIEWER_MEASURES, *STAGE_MEASURES])
    return measures, chosen, {m: keys.get(parse_measure(m).key, m) for m in own}


def _depth(run: Run, info: dict | None) -> int:
    """How deep a run was cut: its record's depth, or its own ``depth`` (a rerank's candidates) if smaller.

    A run without a record is as deep as the most documents it ranks for one query. The file alone
    cannot tell a cut from a retriever that found fewer documents (BM25 ranks only documents sharing
    a term with the query), so the record decides where there is one.
    """
    if not info or not info.get("depth"):
        return max((len(docs) for docs in run.values()), default=0)
    own = ((info.get("settings") or {}).get("params") or {}).get("depth")
    return int(min(own or info["depth"], info["depth"]))


def _prepare(coll: Collection, runs: Mapping[str, Run], infos, measures, primary, n_perm, seed, alpha) -> _Data:
    """Check the options and score every run once (missing results score 0)."""
    if not runs:
        raise ValueError("no runs to report on")
    measures, primary, columns = _measure_columns(measures, primary)
    table = analyses.main_table(coll.qrels, runs, measures)   # refuses empty runs and queries not in the qrels
    scored = list(dict.fromkeys([*measures, *columns.values()]))
    evaluator = Evaluator(coll.qrels, scored, missing="zero")
    per_query = {str(n): evaluator.evaluate(run) for n, run in runs.items()}
    infos = {str(n): (infos or {}).get(n) for n in runs}
    return _Data(coll, {str(n): r for n, r in runs.items()}, infos, measures, primary, per_query, table,
                 n_perm, seed, alpha, columns, {str(n): _depth(r, infos[str(n)]) for n, r in runs.items()})


# --------------------------------------------------------------------------- sections


def _collection_section(d: _Data) -> str:
    """Sizes of the collection and its judgments."""
    rel = analyses.precision_ceiling(d.coll.qrels, 10).relevant
    rows = {"문서": len(d.coll.corpus), "질문": len(d.coll.queries),
            "판정": sum(len(v) for v in d.coll.qrels.values()), "정답이 하나 이상인 질문": int((rel > 0).sum()),
            "질문당 정답(평균)": float(rel.mean())}
    frame = pd.DataFrame({"값": pd.Series(rows, dtype=object)})
    source = d.coll.meta.get("source", "")
    return section("collection", "컬렉션", table(frame.rename_axis("항목"), f"{d.coll.name}: 크기와 정답 수", digits=2)
                   + (note(f"출처: {esc(source)}") if source else ""))


def _describe_model(info: dict | None) -> str:
    """The tokeniser or model a run used, as its record gives it (with a --model-map replacement shown)."""
    if not info:
        return ""
    params = (info.get("settings") or {}).get("params") or {}
    what = params.get("tokeniser") or params.get("model") or ""
    moved = (info.get("overrides") or {}).get("model")
    return f"{what} (원래 {moved['from']})" if moved else str(what)


def _lineup_section(d: _Data) -> str:
    """The runs as their records describe them."""
    rows = {}
    for name, info in d.infos.items():
        info = info or {}
        settings = info.get("settings") or {}
        rows[name] = {"종류": info.get("kind") or settings.get("kind") or "기록 없음",
                      "설명": info.get("description", ""), "재료": ", ".join(info.get("inputs") or
                                                                        [i["name"] for i in settings.get("inputs", [])]),
                      "토크나이저·모델": _describe_model(info), "깊이": d.depths[name],
                      "결과 없는 질문": sum(1 for q in d.coll.queries if not d.runs[name].get(q)),
                      "SHA-256": str(info.get("sha256", ""))[:12]}
    frame = pd.DataFrame(rows).T.rename_axis("검색기")
    plain = [n for n, info in d.infos.items() if not info]
    extra = note(f"기록(.json)이 없는 실행 결과: {esc(', '.join(plain))}. 파일 그대로 채점했다.") if plain else ""
    extra += note("깊이는 실행이 질문마다 돌려준 문서 수의 상한이다(재정렬기는 후보 수만큼만 돌려준다). 결과 없는 질문은 "
                  "문서를 하나도 돌려주지 못한 질문으로, 모든 지표에서 0점이다.")
    return section("lineup", "검색기", table(frame, "실행 결과 폴더의 검색기와 그 설정", ident="lineup-table") + extra)


def _legend(d: _Data, n_queries: int) -> str:
    """What the markers mean, in Korean."""
    best = d.best
    return note(f"평균 뒤의 글자는 그 평균이 유의하게 앞선 검색기의 글자다. 기준은 {esc(d.primary)} 평균이 가장 높은 "
                f"<b>{esc(best)}</b>({letter(list(d.runs).index(best))})이고, 다른 검색기는 모두 기준과만 "
                f"비교했다. 짝지은 무작위 순열 검정(순열 {d.n_perm:,}번, 씨앗 {d.seed}), 지표마다 Holm 보정, "
                f"p ≤ {d.alpha:g}, 질문 {n_queries:,}개. 결과가 없는 질문은 0점으로 센다.")


def _diff_text(test: pd.Series, label: str = "p") -> str:
    """'-0.0123 (p 0.0040) *': other minus baseline (system_b - system_a), the adjusted p-value, * if significant."""
    diff = 0.0 - float(test["diff"]) + 0.0   # + 0.0: no "-0.0000"
    return f"{diff:+.4f} ({label} {test['p_adjusted']:.4f})" + (" *" if test["significant"] else "")


def _means_html(d: _Data, comp) -> str:
    """The means with their markers; the best mean of each column in bold, a mean deeper than its run flagged (†)."""
    marks = comp.markers()
    head = "".join(f'<th scope="col" class="sg-num">{esc(m)}</th>' for m in d.measures)
    rows = []
    for name in d.runs:
        cells = []
        for m in d.measures:
            value = f"{float(comp.means.loc[name, m]):.4f}"
            best = value == f"{float(comp.means[m].max()):.4f}"
            text = f"<strong>{value}</strong>" if best else value
            mark = f"<sup>{esc(marks.loc[name, m])}</sup>" if marks.loc[name, m] else ""
            flag = '<span class="sg-flag" title="측정 깊이가 실행보다 깊다">†</span>' if d.shallow(name, m) else ""
            cells.append(f'<td class="sg-num{" sg-best" if best else ""}" data-col="{esc(m)}">{text}{mark}{flag}</td>')
        rows.append(f'<tr data-row="{esc(name)}"><td>{comp.letters[name]}</td><th scope="row">{esc(name)}</th>{"".join(cells)}</tr>')
    return (f'<div class="sg-scroll" id="main-comparison"><table><caption>지표의 평균과 유의성 표시 (열마다 가장 높은 '
            f'값은 굵게)</caption><thead><tr><th scope="col">#</th><th scope="col">검색기</th>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table></div>")


def _shallow_note(d: _Data) -> str:
    """Which means count deeper than their run goes (a rerank stage's few candidates against R@100)."""
    pairs = [(n, m) for n in d.runs for m in d.measures if d.shallow(n, m)]
    if not pairs:
        return ""
    listed = ", ".join(f"{esc(n)}({d.depths[n]}개)의 {esc(m)}" for n, m in pairs)
    return note(f'<span id="shallow-note">† 실행보다 깊은 측정: {listed}. 그 실행은 측정 깊이까지 문서를 돌려주지 '
                "않으므로 이 값은 더 깊은 실행과 같은 조건의 비교가 아니다. 이런 짝의 뒤집힘은 진짜로 세지 않는다.</span>")


def _main_section(d: _Data) -> str:
    """Means with significance markers against the best run, and the differences from it with Holm p-values."""
    if len(d.runs) < 2:
        return section("main-table", "본 결과표", table(d.table, "지표의 평균") +
                       note("검색기가 하나뿐이라 검정할 짝이 없다."))
    comp = compare(None, d.scores(d.measures), d.measures, baseline=d.best, n_perm=d.n_perm, seed=d.seed,
                   alpha=d.alpha)
    tests = comp.tests.set_index(["system_b", "measure"])
    diffs = {name: {m: _diff_text(tests.loc[(name, m)]) for m in d.measures} for name in d.runs if name != d.best}
    diff_table = pd.DataFrame(diffs).T.rename_axis("검색기")[d.measures]
    body = (_means_html(d, comp) + _legend(d, comp.n_queries) + _shallow_note(d)
            + table(diff_table, f"기준 {d.best}과의 차이(검색기 − 기준)와 Holm 보정 p값 (* 유의)", ident="main-diffs"))
    return section("main-table", "본 결과표", body)


def _ceiling_section(d: _Data) -> str:
    """The best possible P@10 and how close the best run comes."""
    ceiling = analyses.precision_ceiling(d.coll.qrels, 10)
    p10 = pd.Series({n: float(df[d.col("P@10")].mean()) for n, df in d.per_query.items()})
    best = str(p10.idxmax())
    share = (f"천장의 {100 * p10.max() / ceiling.value:.1f}%다" if ceiling.value > 0
             else "천장이 0이다(정답이 있는 질문이 없다)")
    text = (f"질문당 정답이 평균 {ceiling.relevant.mean():.2f}개라 완벽한 검색기의 P@10도 "
            f"<b>{ceiling.value:.4f}</b>를 넘지 못한다. 가장 높은 P@10은 {esc(best)}의 {p10.max():.4f}로 {share}. "
            "P@10은 이 천장과 함께 읽는다.")
    counts = ceiling.counts().rename("질문 수").rename_axis("질문당 정답 수").to_frame()
    counts.index = counts.index.astype(str)
    return section("ceiling", "P@10의 천장", f'<p id="ceiling-text" data-ceiling="{ceiling.value!r}">{text}</p>'
                   + table(counts, "질문당 정답 수의 분포"))


_FLIP_COLUMNS = {"measure_a": "지표 a", "measure_b": "지표 b", "ahead_on_a": "a에서 앞선 쪽", "ahead_on_b": "b에서 앞선 쪽",
                 "diff_a": "a의 차이", "diff_b": "b의 차이", "p_a": "a의 Holm p", "p_b": "b의 Holm p", "real": "진짜",
                 "shallow": "깊이 주의"}


def _numbered(frame: pd.DataFrame) -> pd.DataFrame:
    """The flips with Korean headers, numbered from 1."""
    out = frame.rename(columns=_FLIP_COLUMNS).reset_index(drop=True)
    out.index = pd.RangeIndex(1, len(out) + 1, name="뒤집힘")
    return out


def _flip_depths(d: _Data, tested: pd.DataFrame) -> pd.Series:
    """Per flip: the runs of the pair that a measure of the flip looks deeper than ('' for none)."""
    def one(row) -> str:
        runs = (row["ahead_on_a"], row["ahead_on_b"])
        hit = [f"{r}({d.depths[r]}개) < {m}" for r in runs for m in (row["measure_a"], row["measure_b"])
               if d.shallow(r, m)]
        return ", ".join(hit)

    return tested.apply(one, axis=1) if len(tested) else pd.Series([], dtype=object)


def _flips_section(d: _Data) -> str:
    """Pairs ordered differently by two measures, and those whose two differences are both significant."""
    if len(d.runs) < 2 or len(d.measures) < 2:
        return section("flips", "지표를 바꾸면 뒤집히는 순위", note("검색기 둘과 지표 둘이 있어야 뒤집힘을 셀 수 있다."))
    flips = analyses.rank_flips(d.table, d.measures)
    tested = analyses.check_flips(flips, d.per_query, n_perm=d.n_perm, seed=d.seed, alpha=d.alpha)
    if len(tested):
        tested["shallow"] = _flip_depths(d, tested).to_numpy()
        tested["real"] = tested["real"].astype(bool) & (tested["shallow"] == "")
    real = tested[tested["real"].astype(bool)] if len(tested) else tested
    pairs = len(d.runs) * (len(d.runs) - 1) // 2
    shallow = int((tested["shallow"] != "").sum()) if len(tested) else 0
    text = (f"검색기 {pairs}쌍과 지표 짝 {len(d.measures) * (len(d.measures) - 1) // 2}개에서 두 지표의 순서가 반대인 "
            f"경우는 <b>{len(flips)}</b>건이다. 두 차이를 모두 검정하고(찾은 뒤집힘 전체에 Holm 보정) 둘 다 "
            f"유의한 진짜 뒤집힘은 <b>{len(real)}</b>건이다."
            + (f" 실행보다 깊은 지표가 낀 {shallow}건은 깊이 차이가 만든 것일 수 있어 진짜로 세지 않았다." if shallow else ""))
    body = (f'<p id="flips-text" data-flips="{len(flips)}" data-real="{len(real)}" data-shallow="{shallow}">'
            f"{text}</p>")
    body += table(_numbered(real).drop(columns=["진짜", "깊이 주의"]), "두 차이가 모두 유의한 뒤집힘",
                  ident="flips-real") if len(real) else ""
    if len(tested):
        body += (f"<details><summary>뒤집힘 {len(tested)}건 모두 보기</summary>"
                 f"{table(_numbered(tested), '찾은 뒤집힘과 그 검정', ident='flips-all')}</details>")
    return section("flips", "지표를 바꾸면 뒤집히는 순위", body)


def _distribution_section(d: _Data) -> str:
    """How the primary measure's per-query scores are spread: zeros, perfect scores, histograms."""
    frame = pd.DataFrame({n: df[d.primary] for n, df in d.per_query.items()})
    try:
        dist = analyses.score_distribution(frame, bins=10)
    except ValueError as err:
        return section("distribution", "평균 뒤의 분포", note(f"{esc(d.primary)}의 분포를 그릴 수 없다: {esc(err)}"))
    summary = dist.summary[["mean", "median", "one", "zero", "between"]].rename(
        columns={"mean": "평균", "median": "중앙값", "one": "1점인 질문", "zero": "0점인 질문", "between": "그 사이"})
    ymax = int(dist.histogram.to_numpy().max())
    labels = list(dist.histogram.index)
    figures = "".join(histogram_svg(n, dist.histogram[n].tolist(), labels, ymax, i, d.primary)
                      for i, n in enumerate(dist.histogram.columns))
    text = (f"질문별 {esc(d.primary)}는 평균 근처에 모이지 않는다. 0점과 1점인 질문의 수가 평균보다 많은 것을 말해 준다. "
            "막대는 0.1 너비의 구간이고 마지막 구간만 1을 포함한다. 세로 눈금은 모든 그림이 같다.")
    return section("distribution", f"평균 뒤의 분포 ({d.primary})",
                   note(text) + table(summary.rename_axis("검색기"), f"질문별 {d.primary}의 요약", ident="distribution-summary")
                   + f'<figure class="sg-figures" id="histograms">{figures}</figure>')


def _stage_rows(d: _Data, name: str, info: dict) -> str | None:
    """The ceiling table of one rerank run, or None if its first stage is not in the folder."""
    settings = info.get("settings") or {}
    first = (info.get("inputs") or [i["name"] for i in settings.get("inputs", [])] or [None])[0]
    if first not in d.runs:
        return None
    params = settings.get("params") or {}
    n = int(min(params.get("depth") or params.get("n") or info.get("depth", 100), info.get("depth", 100)))
    judged = {q: docs for q, docs in d.coll.qrels.items() if any(g >= 1 for g in docs.values())}
    before = analyses.candidate_ceiling({q: r for q, r in d.runs[first].items() if q in judged}, judged, n)
    after = analyses.candidate_ceiling({q: r for q, r in d.runs[name].items() if q in judged}, judged, n)
    stage = [d.col(m) for m in STAGE_MEASURES]
    comp = compare(None, {first: d.per_query[first][stage], name: d.per_query[name][stage]}, stage, baseline=first,
                   n_perm=d.n_perm, seed=d.seed, alpha=d.alpha).tests.set_index("measure")
    rows = {f"1단계 {first}의 Recall@{n}": number(before.recall), f"{name}의 Recall@{n}": number(after.recall),
            "질문마다 같은가": "예" if before.per_query.equals(after.per_query) else "아니오",
            "후보에 정답이 없는 질문": f"{len(before.empty):,}개 ({100 * before.empty_share:.1f}%)"}
    rows.update({f"{m} 변화": _diff_text(comp.loc[m], "Holm p") for m in stage})
    frame = pd.DataFrame({"값": pd.Series(rows)}).rename_axis("항목")
    skipped = len(d.coll.qrels) - len(judged)
    extra = note(f"정답이 하나도 없는 질문 {skipped:,}개는 재현율이 정의되지 않아 뺐다.") if skipped else ""
    return (f'<h3>{esc(name)}: {esc(first)}의 상위 {n}개를 다시 정렬</h3>'
            + table(frame, f"{name}: 2단계의 천장과 재정렬이 바꾼 것", ident=f"stage-{name}") + extra)


def _second_stage_section(d: _Data) -> str:
    """For each rerank run: Recall@candidates before and after, queries no reordering can help."""
    reranks = {n: i for n, i in d.infos.items() if i and (i.get("kind") or (i.get("settings") or {}).get("kind")) == "rerank"}
    if not reranks:
        return ""
    parts = [_stage_rows(d, n, info) for n, info in reranks.items()]
    missing = [n for n, p in zip(reranks, parts) if p is None]
    intro = note("재정렬기는 1단계가 가져온 후보의 순서만 바꾼다. 그래서 후보 수만큼의 재현율은 재정렬 뒤에도 같고, "
                 "후보에 정답이 없는 질문은 어떤 재정렬기로도 구할 수 없다. 1단계의 재현율이 재정렬기의 천장이다.")
    lost = note(f"1단계의 실행 결과가 이 폴더에 없어 건너뛴 재정렬: {esc(', '.join(missing))}") if missing else ""
    return section("second-stage", "2단계의 천장", intro + "".join(p for p in parts if p) + lost)


def _baseline_section(d: _Data, baseline: tuple | None) -> str:
    """Each run against the run of the same name on the baseline's queries: paired per query, Holm over runs."""
    if baseline is None:
        return ""
    label, other, runs = baseline
    if other.corpus is not d.coll.corpus and _docs_hash(other) != _docs_hash(d.coll):
        raise ValueError(f"baseline {label}: its runs were made on other documents; compare folders of one corpus")
    common = [q for q in d.coll.queries if q in other.queries and q in d.coll.qrels and q in other.qrels]
    shared = [n for n in d.runs if n in runs]
    if not common or not shared:
        return section("baseline", f"질문 집합 비교 ({esc(label)})",
                       note("두 폴더에 같은 이름의 검색기나 같은 번호의 질문이 없어 비교하지 않았다."))
    qrels = {q: d.coll.qrels[q] for q in common}
    evaluator = Evaluator(qrels, [d.primary], missing="zero")
    per_query = {}
    for n in shared:
        per_query[f"이 폴더:{n}"] = evaluator.evaluate({q: r for q, r in d.runs[n].items() if q in qrels}).loc[common]
        per_query[f"기준:{n}"] = evaluator.evaluate({q: r for q, r in runs[n].items() if q in qrels}).loc[common]
    tests = analyses.compare_pairs(per_query, [(f"이 폴더:{n}", f"기준:{n}") for n in shared], [d.primary],
                                   n_perm=d.n_perm, seed=d.seed, alpha=d.alpha)
    frame = pd.DataFrame({"이 폴더": tests["mean_a"].to_numpy(), "기준": tests["mean_b"].to_numpy(),
                          "차이(이 폴더 − 기준)": tests["mean_diff"].to_numpy(), "Holm p": tests["p_holm"].to_numpy(),
                          "유의": tests["significant"].to_numpy()}, index=pd.Index(shared, name="검색기"))
    text = (f"같은 검색기를 질문 집합 {esc(label)}(기준)에서 만든 실행 결과와 질문마다 짝지어 비교한다. 두 집합에 "
            f"모두 있는 질문 {len(common):,}개의 {esc(d.primary)}로 짝지은 무작위 순열 검정을 하고 검색기 "
            f"{len(shared)}개에 Holm 보정을 했다.")
    missing = [n for n in d.runs if n not in runs]
    extra = note(f"기준 폴더에 없는 검색기: {esc(', '.join(missing))}") if missing else ""
    return section("baseline", f"질문 집합 비교 ({esc(label)})",
                   note(text) + table(frame, f"{d.primary}: 이 폴더와 기준 {label}", ident="baseline-table") + extra)


def _docs_hash(coll: Collection) -> str:
    """SHA-256 over a collection's documents only (two query sets of one corpus share it)."""
    import hashlib
    import json

    h = hashlib.sha256()
    for docid, doc in coll.corpus.items():
        h.update(json.dumps([docid, sorted(doc.items())], ensure_ascii=False).encode("utf-8"))
    return h.hexdigest()


def _viewer_groups(d: _Data, names: list[str]) -> dict[str, list[str]]:
    """Named groups of queries where the runs differ on the primary measure (a seeded draw of each)."""
    s = {n: d.per_query[n][d.primary] for n in names}
    a, others = names[0], names[1:]
    groups = {f"{b}의 점수가 {a}보다 높은 질문 ({d.primary})": s[b] > s[a] for b in others}
    if len(others) == 2:
        groups[f"{a}의 점수가 둘보다 높은 질문 ({d.primary})"] = (s[a] > s[others[0]]) & (s[a] > s[others[1]])
    zero = (s[a] == 0)
    for b in others:
        zero = zero & (s[b] == 0)
    groups[f"{'모두 ' if others else ''}0점인 질문 ({d.primary})"] = zero
    order = {q: i for i, q in enumerate(d.coll.queries)}
    rng = np.random.default_rng(d.seed)
    out = {}
    for label, mask in groups.items():
        members = sorted((str(q) for q in mask.index[mask.to_numpy()] if q in order), key=order.get)
        if members:
            drawn = rng.choice(len(members), size=min(GROUP_SIZE, len(members)), replace=False)
            out[label] = [members[i] for i in sorted(drawn)]
    return out


def _viewer_names(d: _Data, viewer: Sequence[str] | None) -> list[str]:
    """The runs the viewer shows: the named ones (one to three), else the best three (or every run if fewer)."""
    ranked = list(d.table[d.primary].sort_values(ascending=False, kind="stable").index)
    names = list(dict.fromkeys(viewer)) if viewer else [str(n) for n in ranked[:3]]
    unknown = [n for n in names if n not in d.runs]
    if unknown:
        raise ValueError(f"viewer: no run named {', '.join(unknown)} (the runs: {', '.join(d.runs)})")
    if not 1 <= len(names) <= 3:
        raise ValueError(f"viewer: name one to three runs, not {len(names)} ({', '.join(names)}): the viewer puts "
                         "their columns side by side")
    return names


def _viewer_section(d: _Data, viewer: Sequence[str] | None) -> str:
    """The chapter-5 viewer over up to three runs and every judged query, with a search box."""
    names = _viewer_names(d, viewer)
    qids = [q for q in d.coll.queries if q in d.coll.qrels]
    widget = query_viewer(d.coll.queries, {n: d.runs[n] for n in names}, d.coll.qrels, d.coll.corpus,
                          {n: d.per_query[n][[d.col(m) for m in VIEWER_MEASURES]] for n in names},
                          _viewer_groups(d, names), mode="html", qids=qids, search=True,
                          answers=d.coll.meta.get("answers"), max_bytes=VIEWER_BYTES)
    text = (f"{esc(', '.join(names))}의 상위 문서를 질문마다 나란히 본다. 판정이 있는 질문 {len(qids):,}개가 모두 "
            f"들어 있고 질문 찾기 칸에 번호나 낱말을 넣어 고른다. 점수 차이로 나눈 묶음에는 질문을 {GROUP_SIZE}개까지 "
            f"정해진 씨앗({d.seed})으로 골랐다.")
    return section("viewer", "질문 하나씩 들여다보기", note(text) + getattr(widget, "data", str(widget)))


# --------------------------------------------------------------------------- the page


_SECTIONS = (_collection_section, _lineup_section, _main_section, _ceiling_section, _flips_section,
             _distribution_section, _second_stage_section)


def build_report(collection: Collection, runs: Mapping[str, Run], infos: Mapping[str, dict | None] | None = None, *,
                 measures: Sequence[str] = MEASURES, primary: str | None = None, viewer: Sequence[str] | None = None,
                 title: str | None = None, source: str = "", n_perm: int = 10_000, seed: int = stats.DEFAULT_SEED,
                 alpha: float = 0.05, progress: bool = False, font: bool = True,
                 font_cache: str | os.PathLike | None = None, baseline: tuple | None = None) -> str:
    """The report page (HTML text) for runs ``{name: run}`` on a collection, with their records where there are any.

    ``font`` embeds the Korean web font (:mod:`.webfont`; converted once into ``font_cache``, default
    ``$SEARCHGRADE_CACHE/webfont``), so that the page reads the same without Korean system fonts.
    ``baseline`` = (label, collection, runs): the same line-up on another set of the collection's
    queries (same corpus and judgments), compared run by run on the queries both sets hold.
    """
    from tqdm.auto import tqdm

    from .. import __version__
    from ..retrieval.sources import collection_hash

    d = _prepare(collection, runs, infos, measures, primary, n_perm, seed, alpha)
    steps = [*[lambda f=f: f(d) for f in _SECTIONS], lambda: _baseline_section(d, baseline),
             lambda: _viewer_section(d, viewer)]
    sections = [step() for step in tqdm(steps, desc="report", unit="section", disable=not progress, leave=False)]
    title = title or f"검색기 비교: {collection.name}"
    lead = (f"컬렉션 {esc(collection.name)}의 질문 {len(collection.queries):,}개에서 검색기 {len(d.runs)}개를 "
            "<a href=\"#main-table\">본 결과표</a>, <a href=\"#ceiling\">천장</a>, <a href=\"#flips\">뒤집힘</a>, "
            "<a href=\"#distribution\">분포</a>, <a href=\"#viewer\">질문별 보기</a>로 비교한다.")
    footer = (f"searchgrade {esc(__version__)}로 만들었다. 컬렉션 {esc(collection.name)} (문서와 질문의 해시 "
              f"<code>{collection_hash(collection)[:16]}</code>)" + (f", 실행 결과 {esc(source)}" if source else "")
              + ". 같은 입력이면 같은 쪽이 나온다.")
    if font:
        from .webfont import licence_html

        footer += licence_html()
    return page(title, lead, [s for s in sections if s], footer, _font_css(font, font_cache))


def _font_css(font: bool, cache) -> str:
    """The embedded web font's stylesheet, or '' when ``font`` is False."""
    if not font:
        return ""
    from ..retrieval.dense import cache_root
    from .webfont import embedded_css

    return embedded_css(Path(cache) if cache else cache_root() / "webfont")


def write_report(collection, runs_dir: str | os.PathLike, out: str | os.PathLike, *,
                 retrievers: Sequence[str] | None = None, split: str | None = None,
                 queries: str | os.PathLike | None = None, baseline: str | os.PathLike | None = None,
                 intersect: bool = False, **options) -> Path:
    """Read a folder of runs (checked against the collection), build the report and write it to ``out``.

    ``queries`` replaces the collection's queries (default: the file ``searchgrade runs --queries``
    recorded in the folder); ``baseline`` is a second folder of the same line-up on another set of the
    collection's queries (its own recorded file), compared query by query.
    """
    from ..retrieval.runfolder import read_runs
    from ..retrieval.sources import load_collection

    from ..retrieval.command import say_dropped

    base = load_collection(collection, split, intersect)
    say_dropped(base)
    coll = _queried(base, runs_dir, queries)
    folder = read_runs(runs_dir, coll, retrievers)
    if baseline is not None:
        other = read_runs(baseline, _queried(base, baseline, None))
        options["baseline"] = (Path(baseline).name, _queried(base, baseline, None), other.runs)
    text = build_report(coll, folder.runs, folder.infos, source=str(runs_dir), **options)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + f".tmp{os.getpid()}")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, out)
    return out


def _queried(coll: Collection, folder, queries) -> Collection:
    """The collection with the queries a folder's runs were made on: ``queries``, else its recorded file."""
    import json

    from ..retrieval.sources import QUERIES_RECORD, with_queries

    record = Path(folder) / QUERIES_RECORD
    if queries is None and record.is_file():
        queries = json.loads(record.read_text(encoding="utf-8"))["file"]
    return with_queries(coll, queries) if queries is not None else coll


def _names(text: str | None) -> list[str] | None:
    """A comma-separated option as a list (None when not given)."""
    return [t.strip() for t in text.split(",") if t.strip()] if text else None


def main(argv: Sequence[str] | None = None) -> int:
    """``searchgrade report``: write the HTML report of a folder of runs; 2 on bad input."""
    from ..io import FormatError

    parser = argparse.ArgumentParser(prog="searchgrade report",
                                     description="One self-contained HTML page comparing a folder of runs (chapter 5's analyses).",
                                     epilog="The web font, converted once, is cached in $SEARCHGRADE_CACHE/webfont if "
                                            "$SEARCHGRADE_CACHE is set, else in $XDG_CACHE_HOME/searchgrade/webfont "
                                            "(default ~/.cache/searchgrade/webfont).")
    parser.add_argument("--collection", required=True, help="a collection name, beir:<folder> or a BEIR folder")
    parser.add_argument("--runs", required=True, help="the folder `searchgrade runs` wrote")
    parser.add_argument("--out", required=True, help="the HTML file to write")
    parser.add_argument("--split", default=None, help="qrels split of a BEIR folder (default: test)")
    parser.add_argument("--retrievers", default=None, help="comma-separated runs to include (default: all)")
    parser.add_argument("--intersect", action="store_true",
                        help="drop (and say) qrels lines naming queries or documents the folder lacks, as "
                             "`searchgrade runs --intersect` did")
    parser.add_argument("--queries", default=None, metavar="FILE.jsonl",
                        help="the queries the runs were made on (default: the file `searchgrade runs --queries` "
                             "recorded in the folder, else the collection's)")
    parser.add_argument("--baseline", default=None, metavar="DIR",
                        help="a second folder of the same line-up on another set of the collection's queries "
                             "(e.g. the original questions): each run is compared with its namesake there, "
                             "paired per query")
    parser.add_argument("--measures", default=",".join(MEASURES),
                        help="comma-separated, in any spelling searchgrade reads (nDCG@10, ndcg_cut_10, MRR@10, "
                             "recip_rank, ...), printed as written (default: %(default)s)")
    parser.add_argument("--primary", default=None,
                        help="picks the baseline and the distribution; any spelling of one of the measures "
                             f"(default: {PRIMARY} if among them, else the first measure)")
    parser.add_argument("--viewer", default=None,
                        help="one to three comma-separated runs for the per-query viewer (default: the best three)")
    parser.add_argument("--title", default=None)
    parser.add_argument("--n-perm", type=int, default=10_000, help="permutations per test (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=stats.DEFAULT_SEED, help="seed of tests and draws (default: %(default)s)")
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--no-font", action="store_true",
                        help="do not embed the Korean web font (NanumGothic, about 2.3 MB): the page is then "
                             "readable only where a Korean system font is installed")
    args = parser.parse_args(argv)
    try:
        from ..retrieval.cache import user_cache

        with user_cache():
            out = write_report(args.collection, args.runs, args.out, retrievers=_names(args.retrievers),
                               split=args.split, queries=args.queries, baseline=args.baseline,
                               intersect=args.intersect, measures=_names(args.measures), primary=args.primary,
                               viewer=_names(args.viewer), title=args.title, n_perm=args.n_perm, seed=args.seed,
                               alpha=args.alpha, progress=not args.quiet, font=not args.no_font)
    except (FormatError, ValueError, FileNotFoundError, RuntimeError, ImportError, KeyError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(f"wrote {out} ({out.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
