"""The sections of the report's page, each a function of :class:`.data.Data` returning HTML text."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..collections import Collection
from ..comparison import compare, letter
from ..metrics import Evaluator
from . import analyses
from .data import ALL_PAIRS, GROUP_SIZE, STAGE_MEASURES, VIEWER_BYTES, VIEWER_MEASURES, Data
from .html import esc, histogram_svg, note, number, section, table
from .viewer import query_viewer

__all__ = ["SECTIONS", "baseline_section", "viewer_section"]


# --------------------------------------------------------------------------- sections


def _collection_section(d: Data) -> str:
    """Sizes of the collection and its judgments."""
    rel = analyses.precision_ceiling(d.coll.qrels, 10).relevant
    plain = d.coll.meta.get("plain_runs")   # made from a qrels file and run files: no documents
    rows = {d.t("c_documents"): None if plain else len(d.coll.corpus), d.t("c_queries"): len(d.coll.queries),
            d.t("c_judgments"): sum(len(v) for v in d.coll.qrels.values()),
            d.t("c_with_relevant"): int((rel > 0).sum()), d.t("c_relevant_mean"): float(rel.mean())}
    frame = pd.DataFrame({d.t("c_value"): pd.Series(rows, dtype=object)})
    source = d.coll.meta.get("source", "")
    return section("collection", d.t("h_collection_plain" if plain else "h_collection"),
                   table(frame.rename_axis(d.t("c_item")), d.t("cap_collection", name=d.coll.name), digits=2,
                         yes_no=_yes_no(d))
                   + (note(esc(d.t("source", source=source))) if source else "")
                   + (note(d.t("no_corpus")) if plain else ""))


def _yes_no(d: Data) -> tuple[str, str]:
    """How the page writes True and False."""
    return d.t("yes"), d.t("no")


def _describe_model(d: Data, info: dict | None) -> str:
    """The tokeniser or model a run used, as its record gives it (with a --model-map replacement shown)."""
    if not info:
        return ""
    params = (info.get("settings") or {}).get("params") or {}
    what = params.get("tokeniser") or params.get("model") or ""
    moved = (info.get("overrides") or {}).get("model")
    return d.t("moved", what=what, origin=moved["from"]) if moved else str(what)


def _lineup_section(d: Data) -> str:
    """The runs as their records describe them."""
    rows = {}
    for name, info in d.infos.items():
        info = info or {}
        settings = info.get("settings") or {}
        rows[name] = {d.t("l_kind"): info.get("kind") or settings.get("kind") or d.t("no_record"),
                      d.t("l_description"): info.get("description", ""),
                      d.t("l_inputs"): ", ".join(info.get("inputs") or [i["name"] for i in settings.get("inputs", [])]),
                      d.t("l_model"): _describe_model(d, info), d.t("l_depth"): d.depths[name],
                      d.t("l_empty"): sum(1 for q in d.coll.qrels if not d.runs[name].get(q)),
                      "SHA-256": str(info.get("sha256", ""))[:12]}
    frame = pd.DataFrame(rows).T.rename_axis(d.t("l_retriever"))
    plain = [n for n, info in d.infos.items() if not info]
    if len(plain) == len(rows):   # no run has a record: only what the files tell
        frame = frame[[d.t("l_depth"), d.t("l_empty")]]
    extra = note(esc(d.t("plain_runs", names=", ".join(plain)))) if plain else ""
    extra += note(esc(d.t("depth_note")) + f' <span id="missing-policy" data-missing="{d.missing}">'
                  f'{esc(d.t("policy_" + d.missing))}</span>')
    skipped = d.coll.meta.get("skipped_run_queries") or {}
    if any(skipped.values()):
        parts = ", ".join(d.t("skipped_part", name=n, n=k) for n, k in skipped.items() if k)
        extra += note(esc(d.t("skipped_runs", parts=parts)))
    return section("lineup", d.t("h_lineup"), table(frame, d.t("cap_lineup"), ident="lineup-table") + extra)


def _legend(d: Data, n_queries: int) -> str:
    """What the markers mean, in Korean."""
    best = d.best
    return note(d.t("legend", primary=esc(d.primary), best=esc(best), letter=letter(list(d.runs).index(best)),
                    n_perm=d.n_perm, seed=d.seed, alpha=d.alpha, queries=n_queries)
                + d.t("legend_" + d.missing))


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
            value = f"{float(d.table.loc[name, m]):.4f}"   # the run's own means (comp.means: the tested queries)
            best = value == f"{float(d.table[m].max()):.4f}"
            text = f"<strong>{value}</strong>" if best else value
            mark = f"<sup>{esc(marks.loc[name, m])}</sup>" if marks.loc[name, m] else ""
            flag = f'<span class="sg-flag" title="{esc(d.t("deeper"))}">†</span>' if d.shallow(name, m) else ""
            cells.append(f'<td class="sg-num{" sg-best" if best else ""}" data-col="{esc(m)}">{text}{mark}{flag}</td>')
        rows.append(f'<tr data-row="{esc(name)}"><td>{comp.letters[name]}</td><th scope="row">{esc(name)}</th>{"".join(cells)}</tr>')
    return (f'<div class="sg-scroll" id="main-comparison"><table><caption>{esc(d.t("cap_means"))}</caption><thead><tr>'
            f'<th scope="col">#</th><th scope="col">{esc(d.t("col_retriever"))}</th>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table></div>")


def _shallow_note(d: Data) -> str:
    """Which means count deeper than their run goes (a rerank stage's few candidates against R@100)."""
    pairs = [(n, m) for n in d.runs for m in d.measures if d.shallow(n, m)]
    if not pairs:
        return ""
    listed = ", ".join(d.t("shallow_item", name=esc(n), depth=d.depths[n], measure=esc(m)) for n, m in pairs)
    return note(f'<span id="shallow-note">{d.t("shallow_note", items=listed)}</span>')


def _main_section(d: Data) -> str:
    """Means with significance markers against the best run, and the differences from it with Holm p-values."""
    if len(d.runs) < 2:
        return section("main-table", d.t("h_main"), table(d.table.rename_axis(d.t("col_retriever")),
                                                          d.t("cap_means_only")) + note(esc(d.t("single_run"))))
    comp = compare(None, d.scores(d.measures), d.measures, baseline=d.best, n_perm=d.n_perm, seed=d.seed,
                   alpha=d.alpha)
    tests = comp.tests.set_index(["system_b", "measure"])
    diffs = {name: {m: _diff_text(tests.loc[(name, m)]) for m in d.measures} for name in d.runs if name != d.best}
    diff_table = pd.DataFrame(diffs).T.rename_axis(d.t("col_retriever"))[d.measures]
    body = (_means_html(d, comp) + _legend(d, comp.n_queries) + _shallow_note(d)
            + table(diff_table, d.t("cap_diffs", best=d.best), ident="main-diffs"))
    return section("main-table", d.t("h_main"), body)


def _ceiling_section(d: Data) -> str:
    """The best possible P@10 and how close the best run comes."""
    ceiling = analyses.precision_ceiling(d.coll.qrels, 10)
    p10 = pd.Series({n: float(d.own(n)[d.col("P@10")].mean()) for n in d.runs})
    best = str(p10.idxmax())
    counted = list(d.own(best).index)   # its mean's queries: the ceiling over the same ones is the fair bound
    own = ceiling if len(counted) == len(d.coll.qrels) else analyses.precision_ceiling(
        {q: d.coll.qrels[q] for q in counted}, 10)
    if own.value <= 0:
        share = d.t("ceiling_zero")
    elif own is ceiling:
        share = d.t("ceiling_share", share=100 * p10.max() / ceiling.value)
    else:
        share = d.t("ceiling_share_own", n=len(counted), ceiling=own.value, share=100 * p10.max() / own.value)
    text = d.t("ceiling_text", relevant=ceiling.relevant.mean(), ceiling=ceiling.value, best=esc(best),
               p10=p10.max(), share=share)
    counts = ceiling.counts().rename(d.t("ceiling_count")).rename_axis(d.t("ceiling_per")).to_frame()
    counts.index = counts.index.astype(str)
    return section("ceiling", d.t("h_ceiling"), f'<p id="ceiling-text" data-ceiling="{ceiling.value!r}">{text}</p>'
                   + table(counts, d.t("cap_ceiling")))


_FLIP_COLUMNS = ("measure_a", "measure_b", "ahead_on_a", "ahead_on_b", "diff_a", "diff_b", "p_a", "p_b", "real",
                 "shallow")


def _numbered(d: Data, frame: pd.DataFrame) -> pd.DataFrame:
    """The flips with the page's headers, numbered from 1."""
    out = frame.rename(columns={c: d.t("f_" + c) for c in _FLIP_COLUMNS}).reset_index(drop=True)
    out.index = pd.RangeIndex(1, len(out) + 1, name=d.t("f_index"))
    return out


def _flip_depths(d: Data, tested: pd.DataFrame) -> pd.Series:
    """Per flip: the runs of the pair that a measure of the flip looks deeper than ('' for none)."""
    def one(row) -> str:
        runs = (row["ahead_on_a"], row["ahead_on_b"])
        hit = [d.t("flip_depth", run=r, depth=d.depths[r], measure=m) for r in runs for m in (row["measure_a"], row["measure_b"])
               if d.shallow(r, m)]
        return ", ".join(hit)

    return tested.apply(one, axis=1) if len(tested) else pd.Series([], dtype=object)


def _flip_pairs(d: Data) -> list[tuple[str, str]]:
    """Every pair of runs up to :data:`~.data.ALL_PAIRS` runs; beyond, each run with the baseline (linear in runs)."""
    names = list(d.runs)
    if len(names) <= ALL_PAIRS:
        return [(x, y) for i, x in enumerate(names) for y in names[i + 1:]]
    return [(d.best, n) for n in names if n != d.best]


def _flips_section(d: Data) -> str:
    """Pairs ordered differently by two measures, and those whose two differences are both significant."""
    if len(d.runs) < 2 or len(d.measures) < 2:
        return section("flips", d.t("h_flips"), note(esc(d.t("flips_need"))))
    pairs = _flip_pairs(d)
    flips = analyses.rank_flips(d.table, d.measures, pairs=pairs)
    tested = analyses.check_flips(flips, d.tested(), n_perm=d.n_perm, seed=d.seed, alpha=d.alpha)
    if len(tested):
        tested["shallow"] = _flip_depths(d, tested).to_numpy()
        tested["real"] = tested["real"].astype(bool) & (tested["shallow"] == "")
    real = tested[tested["real"].astype(bool)] if len(tested) else tested
    shallow = int((tested["shallow"] != "").sum()) if len(tested) else 0
    text = (d.t("flips_text", pairs=len(pairs), measure_pairs=len(d.measures) * (len(d.measures) - 1) // 2,
                flips=len(flips), real=len(real)) + (d.t("flips_shallow", shallow=shallow) if shallow else ""))
    if len(d.runs) > ALL_PAIRS:
        text = d.t("flips_baseline", limit=ALL_PAIRS, best=esc(d.best)) + text
    body = (f'<p id="flips-text" data-flips="{len(flips)}" data-real="{len(real)}" data-shallow="{shallow}">'
            f"{text}</p>")
    body += table(_numbered(d, real).drop(columns=[d.t("f_real"), d.t("f_shallow")]), d.t("cap_flips_real"),
                  ident="flips-real", yes_no=_yes_no(d)) if len(real) else ""
    if len(tested):
        body += (f"<details><summary>{esc(d.t('flips_all', n=len(tested)))}</summary>"
                 f"{table(_numbered(d, tested), d.t('cap_flips_all'), ident='flips-all', yes_no=_yes_no(d))}"
                 "</details>")
    return section("flips", d.t("h_flips"), body)


def _distribution_section(d: Data) -> str:
    """How the primary measure's per-query scores are spread: zeros, perfect scores, histograms."""
    try:   # run by run: with queries without results left out, the runs may count different queries
        parts = [analyses.score_distribution(d.own(n)[d.primary].rename(n), bins=10) for n in d.runs]
    except ValueError as err:
        return section("distribution", d.t("h_distribution"),
                       note(esc(d.t("no_distribution", measure=d.primary, error=err))))
    summary = pd.concat([p.summary for p in parts])[["mean", "median", "one", "zero", "between"]].rename(
        columns={c: d.t("d_" + c) for c in ("mean", "median", "one", "zero", "between")})
    histogram = pd.concat([p.histogram for p in parts], axis=1)
    ymax = int(histogram.to_numpy().max())
    labels = list(histogram.index)
    figures = "".join(histogram_svg(n, histogram[n].tolist(), labels, ymax, i, d.primary, d.lang)
                      for i, n in enumerate(histogram.columns))
    return section("distribution", d.t("h_distribution_of", measure=d.primary),
                   note(esc(d.t("distribution_text", measure=d.primary)))
                   + table(summary.rename_axis(d.t("col_retriever")), d.t("cap_distribution", measure=d.primary),
                           ident="distribution-summary")
                   + f'<figure class="sg-figures" id="histograms">{figures}</figure>')


def _stage_rows(d: Data, name: str, info: dict) -> str | None:
    """The ceiling table of one second-stage run, or None if its first stage is not in the folder."""
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
    pair = d.tested([first, name])
    comp = compare(None, {r: pair[r][stage] for r in (first, name)}, stage, baseline=first,
                   n_perm=d.n_perm, seed=d.seed, alpha=d.alpha).tests.set_index("measure")
    rows = {d.t("stage_recall_first", first=first, n=n): number(before.recall),
            d.t("stage_recall", name=name, n=n): number(after.recall),
            d.t("stage_same"): d.t("yes") if before.per_query.equals(after.per_query) else d.t("no"),
            d.t("stage_empty"): d.t("stage_empty_value", n=len(before.empty), share=100 * before.empty_share)}
    rows.update({d.t("stage_change", measure=m): _diff_text(comp.loc[m], "Holm p") for m in stage})
    frame = pd.DataFrame({d.t("c_value"): pd.Series(rows)}).rename_axis(d.t("c_item"))
    skipped = len(d.coll.qrels) - len(judged)
    extra = note(esc(d.t("stage_skipped", n=skipped))) if skipped else ""
    return (f'<h3>{esc(d.t("stage_heading", name=name, first=first, n=n))}</h3>'
            + table(frame, d.t("cap_stage", name=name), ident=f"stage-{name}") + extra)


def _second_stage_section(d: Data) -> str:
    """For each second-stage run: Recall@candidates before and after, queries no reordering can help.

    A run is a second stage when its record says so (``second_stage``, a property of its retriever kind,
    :class:`searchgrade.retrieval.kinds.Kind`), so that a new second-stage kind gets this section too.
    """
    stages = {n: i for n, i in d.infos.items() if i and i.get("second_stage")}
    if not stages:
        return ""
    parts = [_stage_rows(d, n, info) for n, info in stages.items()]
    missing = [n for n, p in zip(stages, parts) if p is None]
    intro = note(esc(d.t("stage_intro")))
    lost = note(esc(d.t("stage_lost", names=", ".join(missing)))) if missing else ""
    return section("second-stage", d.t("h_stage"), intro + "".join(p for p in parts if p) + lost)


def baseline_section(d: Data, baseline: tuple | None) -> str:
    """Each run against the run of the same name on the baseline's queries: paired per query, Holm over runs."""
    if baseline is None:
        return ""
    label, other, runs = baseline
    if other.corpus is not d.coll.corpus and _docs_hash(other) != _docs_hash(d.coll):
        raise ValueError(f"baseline {label}: its runs were made on other documents; compare folders of one corpus")
    common = [q for q in d.coll.queries if q in other.queries and q in d.coll.qrels and q in other.qrels]
    shared = [n for n in d.runs if n in runs]
    heading = d.t("h_baseline", label=label)
    if not common or not shared:
        return section("baseline", heading, note(esc(d.t("baseline_none"))))
    qrels = {q: d.coll.qrels[q] for q in common}
    evaluator = Evaluator(qrels, [d.primary], missing="zero")
    per_query, here, base = {}, (lambda n: d.t("b_here_run", name=n)), (lambda n: d.t("b_base_run", name=n))
    for n in shared:
        per_query[here(n)] = evaluator.evaluate({q: r for q, r in d.runs[n].items() if q in qrels}).loc[common]
        per_query[base(n)] = evaluator.evaluate({q: r for q, r in runs[n].items() if q in qrels}).loc[common]
    tests = analyses.compare_pairs(per_query, [(here(n), base(n)) for n in shared], [d.primary],
                                   n_perm=d.n_perm, seed=d.seed, alpha=d.alpha)
    frame = pd.DataFrame({d.t("b_here"): tests["mean_a"].to_numpy(), d.t("b_base"): tests["mean_b"].to_numpy(),
                          d.t("b_diff"): tests["mean_diff"].to_numpy(), d.t("b_p"): tests["p_holm"].to_numpy(),
                          d.t("b_sig"): tests["significant"].to_numpy()},
                         index=pd.Index(shared, name=d.t("col_retriever")))
    text = d.t("baseline_text", label=esc(label), n=len(common), measure=esc(d.primary), runs=len(shared))
    missing = [n for n in d.runs if n not in runs]
    extra = note(esc(d.t("baseline_missing", names=", ".join(missing)))) if missing else ""
    return section("baseline", heading, note(text) + table(frame, d.t("cap_baseline", measure=d.primary, label=label),
                                                           ident="baseline-table", yes_no=_yes_no(d)) + extra)


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
    groups = {d.t("g_higher", a=a, b=b, measure=d.primary): s[b] > s[a] for b in others}
    if len(others) == 2:
        groups[d.t("g_top", a=a, measure=d.primary)] = (s[a] > s[others[0]]) & (s[a] > s[others[1]])
    zero = (s[a] == 0)
    for b in others:
        zero = zero & (s[b] == 0)
    groups[d.t("g_zero_all" if others else "g_zero", measure=d.primary)] = zero
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
                          answers=d.coll.meta.get("answers"), max_bytes=VIEWER_BYTES, lang=d.lang, display=False)
    text = d.t("viewer_text", names=esc(", ".join(names)), n=len(qids), size=GROUP_SIZE, seed=d.seed)
    return section("viewer", d.t("h_viewer"), note(text) + widget)



SECTIONS = (_collection_section, _lineup_section, _main_section, _ceiling_section, _flips_section,
            _distribution_section, _second_stage_section)
"""The sections in page order (the comparison with a baseline folder and the viewer follow them)."""
