"""The sections of the report's page, each a function of :class:`.data.Data` returning HTML text."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..collections import Collection
from ..comparison import compare, letter
from ..metrics import Evaluator
from . import analyses
from .data import GROUP_SIZE, STAGE_MEASURES, VIEWER_BYTES, VIEWER_MEASURES, Data
from .html import esc, histogram_svg, note, number, section, table
from .viewer import query_viewer

__all__ = ["SECTIONS", "baseline_section", "viewer_section"]


# --------------------------------------------------------------------------- sections


def _collection_section(d: Data) -> str:
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


def _lineup_section(d: Data) -> str:
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


def _legend(d: Data, n_queries: int) -> str:
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


def _means_html(d: Data, comp) -> str:
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


def _shallow_note(d: Data) -> str:
    """Which means count deeper than their run goes (a rerank stage's few candidates against R@100)."""
    pairs = [(n, m) for n in d.runs for m in d.measures if d.shallow(n, m)]
    if not pairs:
        return ""
    listed = ", ".join(f"{esc(n)}({d.depths[n]}개)의 {esc(m)}" for n, m in pairs)
    return note(f'<span id="shallow-note">† 실행보다 깊은 측정: {listed}. 그 실행은 측정 깊이까지 문서를 돌려주지 '
                "않으므로 이 값은 더 깊은 실행과 같은 조건의 비교가 아니다. 이런 짝의 뒤집힘은 진짜로 세지 않는다.</span>")


def _main_section(d: Data) -> str:
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


def _ceiling_section(d: Data) -> str:
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


def _flip_depths(d: Data, tested: pd.DataFrame) -> pd.Series:
    """Per flip: the runs of the pair that a measure of the flip looks deeper than ('' for none)."""
    def one(row) -> str:
        runs = (row["ahead_on_a"], row["ahead_on_b"])
        hit = [f"{r}({d.depths[r]}개) < {m}" for r in runs for m in (row["measure_a"], row["measure_b"])
               if d.shallow(r, m)]
        return ", ".join(hit)

    return tested.apply(one, axis=1) if len(tested) else pd.Series([], dtype=object)


def _flips_section(d: Data) -> str:
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


def _distribution_section(d: Data) -> str:
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


def _stage_rows(d: Data, name: str, info: dict) -> str | None:
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


def _second_stage_section(d: Data) -> str:
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


def baseline_section(d: Data, baseline: tuple | None) -> str:
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


def _viewer_groups(d: Data, names: list[str]) -> dict[str, list[str]]:
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


def _viewer_names(d: Data, viewer: Sequence[str] | None) -> list[str]:
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


def viewer_section(d: Data, viewer: Sequence[str] | None) -> str:
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



SECTIONS = (_collection_section, _lineup_section, _main_section, _ceiling_section, _flips_section,
            _distribution_section, _second_stage_section)
"""The sections in page order (the comparison with a baseline folder and the viewer follow them)."""
