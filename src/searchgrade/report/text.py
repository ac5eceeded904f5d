"""The report page's words in each language it speaks: headings, captions, legends and notes.

``searchgrade report --lang ko`` (the default, the book's language) or ``--lang en``. Every text of
the page that is not a run's, a measure's or a query's own name comes from :data:`TEXT` through
:func:`say`; the two tables hold the same keys (a test checks it), so a page never mixes languages
in its own words. Values are ``str.format`` templates; the HTML they hold is the page's own markup
(names are escaped by the caller before they are put in).
"""
from __future__ import annotations

__all__ = ["LANGS", "TEXT", "say", "check_lang"]

LANGS = ("ko", "en")

_KO = {
    # page
    "title": "검색기 비교: {name}",
    "lead": ("컬렉션 {name}의 질문 {queries:,}개에서 검색기 {runs}개를 <a href=\"#main-table\">본 결과표</a>, "
             "<a href=\"#ceiling\">천장</a>, <a href=\"#flips\">뒤집힘</a>, <a href=\"#distribution\">분포</a>, "
             "<a href=\"#viewer\">질문별 보기</a>로 비교한다."),
    "lead_plain": ("판정표 {name}의 질문 {queries:,}개에서 검색기 {runs}개를 <a href=\"#main-table\">본 결과표</a>, "
                   "<a href=\"#ceiling\">천장</a>, <a href=\"#flips\">뒤집힘</a>, <a href=\"#distribution\">분포</a>, "
                   "<a href=\"#viewer\">질문별 보기</a>로 비교한다."),
    "footer": "searchgrade {version}로 만들었다. 컬렉션 {name} (문서와 질문의 해시 <code>{hash}</code>)",
    "footer_plain": "searchgrade {version}로 만들었다. 판정표 {name} (질문 번호의 해시 <code>{hash}</code>)",
    "footer_source": ", 실행 결과 {source}",
    "footer_end": ". 같은 입력이면 같은 쪽이 나온다.",
    "licence": "글꼴 NanumGothic의 라이선스 (SIL Open Font License 1.1)",
    "yes": "예", "no": "아니오",
    # collection
    "h_collection": "컬렉션", "h_collection_plain": "판정표",
    "c_documents": "문서", "c_queries": "질문", "c_judgments": "판정", "c_with_relevant": "정답이 하나 이상인 질문",
    "c_relevant_mean": "질문당 정답(평균)", "c_value": "값", "c_item": "항목",
    "cap_collection": "{name}: 크기와 정답 수",
    "source": "출처: {source}",
    "no_corpus": "문서 모음 없이 판정표와 실행 결과만으로 만든 쪽이다. 문서 수는 알 수 없고, 질문별 보기에는 "
                 "질문과 문서의 번호만 나온다.",
    # line-up
    "h_lineup": "검색기",
    "l_kind": "종류", "l_description": "설명", "l_inputs": "재료", "l_model": "토크나이저·모델", "l_depth": "깊이",
    "l_empty": "결과 없는 질문", "l_retriever": "검색기", "no_record": "기록 없음", "moved": "{what} (원래 {origin})",
    "cap_lineup": "실행 결과 폴더의 검색기와 그 설정",
    "plain_runs": "기록(.json)이 없는 실행 결과: {names}. 파일 그대로 채점했다.",
    "depth_note": ("깊이는 실행이 질문마다 돌려준 문서 수의 상한이다(재정렬기는 후보 수만큼만 돌려준다). 결과 없는 질문은 "
                   "문서를 하나도 돌려주지 못한 질문이다."),
    "policy_zero": "결과 없는 질문은 모든 지표에서 0점으로 센다(-c, trec_eval의 -c).",
    "policy_ignore": ("결과 없는 질문은 그 검색기의 평균에서 뺀다(trec_eval과 searchgrade.evaluate의 기본값). "
                      "0점으로 세려면 -c를 준다."),
    "skipped_runs": "판정표에 없는 질문이라 건너뛴 실행 결과의 질문: {parts}.",
    "skipped_part": "{name} {n:,}개",
    # main table
    "h_main": "본 결과표",
    "cap_means_only": "지표의 평균",
    "single_run": "검색기가 하나뿐이라 검정할 짝이 없다.",
    "legend": ("평균 뒤의 글자는 그 평균이 유의하게 앞선 검색기의 글자다. 기준은 {primary} 평균이 가장 높은 "
               "<b>{best}</b>({letter})이고, 다른 검색기는 모두 기준과만 비교했다. 짝지은 무작위 순열 검정(순열 "
               "{n_perm:,}번, 씨앗 {seed}), 지표마다 Holm 보정, p ≤ {alpha:g}, 질문 {queries:,}개."),
    "legend_zero": " 결과가 없는 질문은 0점으로 센다.",
    "legend_ignore": (" 평균은 검색기마다 결과를 낸 질문에서 냈고(결과 없는 질문은 뺐다), 검정은 모든 검색기가 결과를 "
                      "낸 질문에서 했다."),
    "cap_means": "지표의 평균과 유의성 표시 (열마다 가장 높은 값은 굵게)",
    "col_retriever": "검색기",
    "deeper": "측정 깊이가 실행보다 깊다",
    "shallow_item": "{name}({depth}개)의 {measure}",
    "shallow_note": ("† 실행보다 깊은 측정: {items}. 그 실행은 측정 깊이까지 문서를 돌려주지 않으므로 이 값은 더 깊은 "
                     "실행과 같은 조건의 비교가 아니다. 이런 짝의 뒤집힘은 진짜로 세지 않는다."),
    "cap_diffs": "기준 {best}과의 차이(검색기 − 기준)와 Holm 보정 p값 (* 유의)",
    # ceiling
    "h_ceiling": "P@10의 천장",
    "ceiling_share": "천장의 {share:.1f}%다",
    "ceiling_zero": "천장이 0이다(정답이 있는 질문이 없다)",
    "ceiling_share_own": "그 평균이 센 질문 {n:,}개만의 천장 {ceiling:.4f}에 견주면 {share:.1f}%다",
    "ceiling_text": ("질문당 정답이 평균 {relevant:.2f}개라 완벽한 검색기의 P@10도 <b>{ceiling:.4f}</b>를 넘지 못한다. "
                     "가장 높은 P@10은 {best}의 {p10:.4f}로 {share}. P@10은 이 천장과 함께 읽는다."),
    "ceiling_count": "질문 수", "ceiling_per": "질문당 정답 수", "cap_ceiling": "질문당 정답 수의 분포",
    # flips
    "h_flips": "지표를 바꾸면 뒤집히는 순위",
    "flips_need": "검색기 둘과 지표 둘이 있어야 뒤집힘을 셀 수 있다.",
    "f_measure_a": "지표 a", "f_measure_b": "지표 b", "f_ahead_on_a": "a에서 앞선 쪽", "f_ahead_on_b": "b에서 앞선 쪽",
    "f_diff_a": "a의 차이", "f_diff_b": "b의 차이", "f_p_a": "a의 Holm p", "f_p_b": "b의 Holm p", "f_real": "진짜",
    "f_shallow": "깊이 주의", "f_index": "뒤집힘",
    "flip_depth": "{run}({depth}개) < {measure}",
    "flips_text": ("검색기 {pairs}쌍과 지표 짝 {measure_pairs}개에서 두 지표의 순서가 반대인 경우는 <b>{flips}</b>건이다. "
                   "두 차이를 모두 검정하고(찾은 뒤집힘 전체에 Holm 보정) 둘 다 유의한 진짜 뒤집힘은 <b>{real}</b>건이다."),
    "flips_shallow": " 실행보다 깊은 지표가 낀 {shallow}건은 깊이 차이가 만든 것일 수 있어 진짜로 세지 않았다.",
    "flips_baseline": "검색기가 {limit}개보다 많아 모든 쌍 대신 기준 {best}과 다른 검색기의 쌍만 본다. ",
    "cap_flips_real": "두 차이가 모두 유의한 뒤집힘",
    "flips_all": "뒤집힘 {n}건 모두 보기",
    "cap_flips_all": "찾은 뒤집힘과 그 검정",
    # distribution
    "h_distribution": "평균 뒤의 분포",
    "h_distribution_of": "평균 뒤의 분포 ({measure})",
    "no_distribution": "{measure}의 분포를 그릴 수 없다: {error}",
    "d_mean": "평균", "d_median": "중앙값", "d_one": "1점인 질문", "d_zero": "0점인 질문", "d_between": "그 사이",
    "distribution_text": ("질문별 {measure}는 평균 근처에 모이지 않는다. 0점과 1점인 질문의 수가 평균보다 많은 것을 말해 "
                          "준다. 막대는 0.1 너비의 구간이고 마지막 구간만 1을 포함한다. 세로 눈금은 모든 그림이 같다."),
    "cap_distribution": "질문별 {measure}의 요약",
    "bar_title": "{label}: 질문 {count:,}개",
    "histogram": "{name}: 질문별 {measure}의 분포 (막대 {bars}개, 세로 눈금 최대 {ymax:,}개)",
    # second stage
    "h_stage": "2단계의 천장",
    "stage_recall_first": "1단계 {first}의 Recall@{n}", "stage_recall": "{name}의 Recall@{n}",
    "stage_same": "질문마다 같은가", "stage_empty": "후보에 정답이 없는 질문",
    "stage_empty_value": "{n:,}개 ({share:.1f}%)", "stage_change": "{measure} 변화",
    "stage_heading": "{name}: {first}의 상위 {n}개를 다시 정렬",
    "cap_stage": "{name}: 2단계의 천장과 재정렬이 바꾼 것",
    "stage_skipped": "정답이 하나도 없는 질문 {n:,}개는 재현율이 정의되지 않아 뺐다.",
    "stage_intro": ("재정렬기는 1단계가 가져온 후보의 순서만 바꾼다. 그래서 후보 수만큼의 재현율은 재정렬 뒤에도 같고, "
                    "후보에 정답이 없는 질문은 어떤 재정렬기로도 구할 수 없다. 1단계의 재현율이 재정렬기의 천장이다."),
    "stage_lost": "1단계의 실행 결과가 이 폴더에 없어 건너뛴 재정렬: {names}",
    # baseline
    "h_baseline": "질문 집합 비교 ({label})",
    "baseline_none": "두 폴더에 같은 이름의 검색기나 같은 번호의 질문이 없어 비교하지 않았다.",
    "b_here": "이 폴더", "b_base": "기준", "b_diff": "차이(이 폴더 − 기준)", "b_p": "Holm p", "b_sig": "유의",
    "b_here_run": "이 폴더:{name}", "b_base_run": "기준:{name}",
    "baseline_text": ("같은 검색기를 질문 집합 {label}(기준)에서 만든 실행 결과와 질문마다 짝지어 비교한다. 두 집합에 "
                      "모두 있는 질문 {n:,}개의 {measure}로 짝지은 무작위 순열 검정을 하고 검색기 {runs}개에 Holm "
                      "보정을 했다."),
    "cap_baseline": "{measure}: 이 폴더와 기준 {label}",
    "baseline_missing": "기준 폴더에 없는 검색기: {names}",
    # viewer
    "h_viewer": "질문 하나씩 들여다보기",
    "g_higher": "{b}의 점수가 {a}보다 높은 질문 ({measure})",
    "g_top": "{a}의 점수가 둘보다 높은 질문 ({measure})",
    "g_zero_all": "모두 0점인 질문 ({measure})", "g_zero": "0점인 질문 ({measure})",
    "viewer_text": ("{names}의 상위 문서를 질문마다 나란히 본다. 판정이 있는 질문 {n:,}개가 모두 들어 있고 질문 찾기 "
                    "칸에 번호나 낱말을 넣어 고른다. 점수 차이로 나눈 묶음에는 질문을 {size}개까지 정해진 "
                    "씨앗({seed})으로 골랐다."),
}

_EN = {
    "title": "Retrievers compared: {name}",
    "lead_plain": ("{runs} retrievers on the {queries:,} queries of the judgments {name}, compared in the "
                   "<a href=\"#main-table\">main table</a>, the <a href=\"#ceiling\">ceiling</a>, the "
                   "<a href=\"#flips\">rank flips</a>, the <a href=\"#distribution\">distribution</a> and the "
                   "<a href=\"#viewer\">per-query viewer</a>."),
    "footer_plain": "Made with searchgrade {version}. Judgments {name} (hash of its query ids "
                    "<code>{hash}</code>)",
    "lead": ("{runs} retrievers on the {queries:,} queries of the collection {name}, compared in the "
             "<a href=\"#main-table\">main table</a>, the <a href=\"#ceiling\">ceiling</a>, the "
             "<a href=\"#flips\">rank flips</a>, the <a href=\"#distribution\">distribution</a> and the "
             "<a href=\"#viewer\">per-query viewer</a>."),
    "footer": "Made with searchgrade {version}. Collection {name} (hash of its documents and queries "
              "<code>{hash}</code>)",
    "footer_source": ", runs {source}",
    "footer_end": ". The same inputs give the same page.",
    "licence": "Licence of the font NanumGothic (SIL Open Font License 1.1)",
    "yes": "yes", "no": "no",
    "h_collection": "Collection", "h_collection_plain": "Judgments",
    "c_documents": "documents", "c_queries": "queries", "c_judgments": "judgments",
    "c_with_relevant": "queries with a relevant document", "c_relevant_mean": "relevant documents per query (mean)",
    "c_value": "value", "c_item": "item",
    "cap_collection": "{name}: sizes and relevant documents",
    "source": "Source: {source}",
    "no_corpus": ("Made from the judgments and the runs alone, without the documents: their number is unknown, "
                  "and the per-query viewer shows the ids of queries and documents."),
    "h_lineup": "Retrievers",
    "l_kind": "kind", "l_description": "description", "l_inputs": "inputs", "l_model": "tokeniser / model",
    "l_depth": "depth", "l_empty": "queries without results", "l_retriever": "retriever", "no_record": "no record",
    "moved": "{what} (instead of {origin})",
    "cap_lineup": "The retrievers and their settings",
    "plain_runs": "Runs without a record (.json): {names}. They were scored as the files hold them.",
    "depth_note": ("The depth is the most documents a run returned for one query (a reranker returns only its "
                   "candidates). A query without results is one for which the run returned no document."),
    "policy_zero": "A query without results scores 0 on every measure (-c, as trec_eval -c does).",
    "policy_ignore": ("A query without results is left out of that retriever's means (the default of trec_eval "
                      "and of searchgrade.evaluate); -c counts it as 0."),
    "skipped_runs": "Run queries skipped because the judgments do not have them: {parts}.",
    "skipped_part": "{name} {n:,}",
    "h_main": "Main table",
    "cap_means_only": "Means of the measures",
    "single_run": "There is only one retriever: no pair to test.",
    "legend": ("The letters after a mean name the retrievers it beats significantly. The baseline is "
               "<b>{best}</b> ({letter}), the highest mean on {primary}; every other retriever is compared with "
               "it only. Paired randomisation test ({n_perm:,} permutations, seed {seed}), Holm's correction "
               "within each measure, p ≤ {alpha:g}, {queries:,} queries."),
    "legend_zero": " A query without results scores 0.",
    "legend_ignore": (" Each mean is over the queries the retriever returned results for (queries without results "
                      "are left out); the tests use the queries every retriever returned results for."),
    "cap_means": "Means with significance markers (the highest of each column in bold)",
    "col_retriever": "retriever",
    "deeper": "the measure looks deeper than the run goes",
    "shallow_item": "{measure} of {name} ({depth} documents)",
    "shallow_note": ("† Measured deeper than the run goes: {items}. That run does not return documents down to "
                     "the measure's depth, so the value is not compared on equal terms with deeper runs; flips "
                     "of such pairs are never counted as real."),
    "cap_diffs": "Differences from the baseline {best} (retriever − baseline) and Holm-adjusted p-values (* significant)",
    "h_ceiling": "The ceiling of P@10",
    "ceiling_share": "{share:.1f}% of the ceiling",
    "ceiling_zero": "the ceiling is 0 (no query has a relevant document)",
    "ceiling_share_own": "{share:.1f}% of the ceiling {ceiling:.4f} of the {n:,} queries its mean counts",
    "ceiling_text": ("With {relevant:.2f} relevant documents per query on average, even a perfect retriever's "
                     "P@10 cannot exceed <b>{ceiling:.4f}</b>. The highest P@10 is {best}'s {p10:.4f}, {share}. "
                     "Read P@10 against this ceiling."),
    "ceiling_count": "queries", "ceiling_per": "relevant documents per query",
    "cap_ceiling": "How many relevant documents the queries have",
    "h_flips": "Rank flips between measures",
    "flips_need": "Flips need two retrievers and two measures.",
    "f_measure_a": "measure a", "f_measure_b": "measure b", "f_ahead_on_a": "ahead on a", "f_ahead_on_b": "ahead on b",
    "f_diff_a": "difference on a", "f_diff_b": "difference on b", "f_p_a": "Holm p on a", "f_p_b": "Holm p on b",
    "f_real": "real", "f_shallow": "depth warning", "f_index": "flip",
    "flip_depth": "{run} ({depth} documents) < {measure}",
    "flips_text": ("Over {pairs} pairs of retrievers and {measure_pairs} pairs of measures, two measures order a "
                   "pair in opposite ways <b>{flips}</b> times. Both differences were tested (Holm's correction "
                   "over all the flips found); <b>{real}</b> flips have both differences significant (real)."),
    "flips_shallow": " {shallow} flips involve a measure deeper than a run goes and may come from the depths: "
                     "they are not counted as real.",
    "flips_baseline": "With more than {limit} retrievers, only the pairs of the baseline {best} and another "
                      "retriever are looked at, not every pair. ",
    "cap_flips_real": "Flips with both differences significant",
    "flips_all": "All {n} flips",
    "cap_flips_all": "The flips found and their tests",
    "h_distribution": "The distribution behind the mean",
    "h_distribution_of": "The distribution behind the mean ({measure})",
    "no_distribution": "The distribution of {measure} cannot be drawn: {error}",
    "d_mean": "mean", "d_median": "median", "d_one": "queries at 1", "d_zero": "queries at 0", "d_between": "between",
    "distribution_text": ("Per-query {measure} does not gather around the mean: see how many queries score 0 or 1. "
                          "The bars are bins 0.1 wide; only the last includes 1. Every figure has the same "
                          "vertical scale."),
    "cap_distribution": "Per-query {measure}: summary",
    "bar_title": "{label}: n = {count:,}",
    "histogram": "{name}: distribution of per-query {measure} ({bars} bars, vertical scale up to {ymax:,})",
    "h_stage": "The ceiling of a second stage",
    "stage_recall_first": "Recall@{n} of the first stage {first}", "stage_recall": "Recall@{n} of {name}",
    "stage_same": "equal for every query", "stage_empty": "queries with no relevant candidate",
    "stage_empty_value": "{n:,} ({share:.1f}%)", "stage_change": "change of {measure}",
    "stage_heading": "{name}: the top {n} of {first} reordered",
    "cap_stage": "{name}: the second stage's ceiling and what the reordering changed",
    "stage_skipped": "{n:,} queries without any relevant document were left out (their recall is undefined).",
    "stage_intro": ("A reranker only reorders the candidates of its first stage, so recall at the number of "
                    "candidates is the same after reranking, and a query with no relevant candidate cannot be "
                    "saved by any reranker. The first stage's recall is the reranker's ceiling."),
    "stage_lost": "Reranked runs skipped because their first stage is not among the runs: {names}",
    "h_baseline": "Two query sets compared ({label})",
    "baseline_none": "The two folders share no retriever name or no query id: nothing was compared.",
    "b_here": "this folder", "b_base": "baseline", "b_diff": "difference (this folder − baseline)", "b_p": "Holm p",
    "b_sig": "significant", "b_here_run": "this folder:{name}", "b_base_run": "baseline:{name}",
    "baseline_text": ("Each retriever is compared, query by query, with its run on the query set {label} (the "
                      "baseline): a paired randomisation test on {measure} over the {n:,} queries both sets "
                      "hold, with Holm's correction over the {runs} retrievers."),
    "cap_baseline": "{measure}: this folder and the baseline {label}",
    "baseline_missing": "Retrievers missing from the baseline folder: {names}",
    "h_viewer": "One query at a time",
    "g_higher": "queries where {b} scores higher than {a} ({measure})",
    "g_top": "queries where {a} scores higher than both others ({measure})",
    "g_zero_all": "queries where all score 0 ({measure})", "g_zero": "queries scoring 0 ({measure})",
    "viewer_text": ("The top documents of {names}, side by side for each query. All {n:,} judged queries are "
                    "there: type an id or a word in the search box to pick one. The groups split by score "
                    "differences hold up to {size} queries each, drawn with a fixed seed ({seed})."),
}

TEXT = {"ko": _KO, "en": _EN}
"""{language: {key: template}}; both languages hold the same keys."""


def check_lang(lang: str) -> str:
    """``lang`` if the page speaks it, else a ValueError naming the languages."""
    if lang not in TEXT:
        raise ValueError(f"--lang must be one of {', '.join(LANGS)}, not {lang!r}")
    return lang


def say(lang: str, key: str, **values) -> str:
    """The text ``key`` in ``lang``, filled with ``values``."""
    return TEXT[check_lang(lang)][key].format(**values)


VIEWER = {
    "ko": {
        "relevant": "정답", "graded": "정답(등급 {g})", "nonrelevant": "오답", "unjudged": "판정되지 않음",
        "answer": "답 포함", "gold": "정답표의 정답 문서 {n}개", "gold_one": "정답표의 정답 문서 {n}개",
        "more": "그 밖에 정답 문서가 {n}개 더 있다.", "more_one": "그 밖에 정답 문서가 {n}개 더 있다.",
        "answers": "답 문자열:", "empty": "이 질문에는 결과가 없다.", "ranks": "검색기가 매긴 순위:",
        "rank": "{r}위", "absent": "목록에 없음", "scores": "{name} 질문별 점수", "noQuery": "이 묶음에는 질문이 없다.",
        "noMatch": "찾는 말이 든 질문이 이 묶음에 없다.",
    },
    "en": {
        "relevant": "relevant", "graded": "relevant (grade {g})", "nonrelevant": "not relevant",
        "unjudged": "not judged", "answer": "holds the answer", "gold": "{n} relevant documents of the judgments",
        "gold_one": "{n} relevant document of the judgments", "more": "{n} more relevant documents.",
        "more_one": "{n} more relevant document.", "answers": "answer strings:",
        "empty": "No result for this query.", "ranks": "ranks given by the retrievers:", "rank": "rank {r}",
        "absent": "not in the list", "scores": "{name}: per-query scores", "noQuery": "This group holds no query.",
        "noMatch": "No query of this group holds what was typed.",
    },
}
"""The per-query viewer's own words (its script reads them from the embedded data), per language."""

VIEWER_PAGE = {
    "ko": {"title": "질문 하나씩 들여다보기", "runs3": "세 검색기", "runs": "검색기 {n}개",
           "help": "질문 묶음과 질문을 고르면 정답표의 정답 문서와 {runs}의 상위 {depth}개 문서가 판정, 질문별 점수와 "
                   "함께 나란히 나온다. {marked}",
           "marked": "답 문자열은 노란 바탕으로 표시했다. ", "search": "질문 찾기", "placeholder": "질문 번호나 낱말",
           "group": "질문 묶음", "query": "질문", "all": "모든 질문 ({n}개)", "member": "{label} ({n}개)",
           "print": "인쇄판에는 이 보기의 처음 상태만 실린다. 직접 조작해 보려면 HTML판의 같은 곳을 연다."},
    "en": {"title": "One query at a time", "runs3": "three retrievers", "runs": "{n} retrievers",
           "help": "Pick a group and a query: the relevant documents of the judgments and the top {depth} documents "
                   "of {runs} appear side by side, with their judgments and per-query scores. {marked}",
           "marked": "Answer strings are highlighted in yellow. ", "search": "Find a query",
           "placeholder": "query id or a word", "group": "group of queries", "query": "query",
           "all": "all queries ({n})", "member": "{label} ({n})",
           "print": "A printed page shows only this viewer's first state; open the HTML page to use it."},
}
"""The viewer's menus and help in the page around its script, per language."""
