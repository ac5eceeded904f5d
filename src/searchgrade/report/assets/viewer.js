/* searchgrade per-query viewer: shows, for the chosen query, the judged relevant documents and the top
   documents of one to three runs with their judgments and per-query scores, all embedded by
   searchgrade.report.viewer. The markup built here is the markup viewer_query_html builds in Python. */
function searchgradeQueryViewer(root, data) {
  "use strict";
  var S = data.scale, T = data.text;
  var filter = root.querySelector("select.sg-filter");
  var query = root.querySelector("select.sg-query");
  var view = root.querySelector(".sg-view");
  var live = root.querySelector(".sg-live");
  var search = root.querySelector("input.sg-search");   /* optional: narrows the query menu */

  function esc(text) {
    return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;").replace(/'/g, "&#x27;");
  }
  function fill(template, key, value) { return template.split("{" + key + "}").join(String(value)); }
  function fmt(q) { return q === null ? "\u2014" : (q / S).toFixed(4); }
  function markText(grade) {
    if (grade === null) { return T.unjudged; }
    if (grade >= data.relLevel) { return data.graded ? fill(T.graded, "g", grade) : T.relevant; }
    return T.nonrelevant;
  }
  function mark(grade) {
    var kind = grade === null ? "unj" : grade >= data.relLevel ? "rel" : "non";
    return '<span class="sg-mark sg-mark-' + kind + '">' + esc(markText(grade)) + "</span>";
  }
  function highlight(text, spans) {
    var out = "", at = 0;
    spans.forEach(function (s) {
      out += esc(text.slice(at, s[0])) + '<mark class="sg-hl">' + esc(text.slice(s[0], s[1])) + "</mark>";
      at = s[1];
    });
    return out + esc(text.slice(at));
  }
  function doc(d, grade, snippet, spans, hasAnswer) {
    var badge = hasAnswer ? '<span class="sg-mark sg-mark-ans">' + esc(T.answer) + "</span>" : "";
    var title = data.titles[d];
    var docid = title === d ? "" : ' <span class="sg-docid">(' + esc(d) + ")</span>";
    return mark(grade) + '<span class="sg-doc-title">' + esc(title) + "</span>" + docid + badge +
      '<span class="sg-snippet">' + highlight(snippet, spans) + "</span>";
  }
  function gold(qid) {
    var rel = data.relevant[qid], shown = data.gold[qid];
    var title = esc(fill(rel.length === 1 ? T.gold_one : T.gold, "n", rel.length));
    var items = shown.map(function (g) {
      var where = g[5].map(function (r, j) {
        return esc(data.runs[j]) + " " + (r ? fill(T.rank, "r", r) : T.absent);
      }).join(", ");
      return '<li data-docid="' + esc(g[0]) + '" data-grade="' + g[1] + '">' + doc(g[0], g[1], g[2], g[3], g[4]) +
        '<span class="sg-ranks">' + esc(T.ranks) + " " + where + "</span></li>";
    }).join("");
    var more = rel.length - shown.length;
    return '<section class="sg-gold" aria-label="' + title + '"><p class="sg-relevant">' + title + "</p>" +
      '<ol class="sg-gold-docs">' + items + "</ol>" +
      '<p class="sg-note sg-more"' + (more > 0 ? "" : " hidden") + ">" + esc(fill(more === 1 ? T.more_one : T.more, "n", Math.max(more, 0))) +
      "</p></section>";
  }
  function column(qid, j) {
    var name = data.runs[j];
    var rows = data.measures.map(function (m, mi) {
      return '<tr><th scope="row">' + esc(m) + '</th><td class="sg-value" data-measure="' + esc(m) + '">' +
        fmt(data.scores[qid][j][mi]) + "</td></tr>";
    }).join("");
    var items = data.top[qid][j].map(function (pair) {
      var p = data.passages[qid][pair[0]];
      return '<li data-docid="' + esc(pair[0]) + '" data-grade="' + (pair[1] === null ? "" : pair[1]) + '">' +
        doc(pair[0], pair[1], p[0], p[1], p[2]) + "</li>";
    }).join("");
    return '<section class="sg-col" aria-label="' + esc(name) + '" data-run="' + esc(name) + '">' +
      '<p class="sg-col-title">' + esc(name) + "</p>" +
      '<table class="sg-scores"><caption class="sg-sr-only">' + esc(fill(T.scores, "name", name)) +
      "</caption><tbody>" + rows + "</tbody></table>" +
      '<p class="sg-note sg-empty"' + (items ? " hidden" : "") + ">" + esc(T.empty) + "</p>" +
      '<ol class="sg-top">' + items + "</ol></section>";
  }
  function queryHtml(qid) {
    var answers = data.answers[qid] || [];
    var shown = answers.map(function (a) { return '<mark class="sg-hl">' + esc(a) + "</mark>"; }).join(", ");
    var cols = data.runs.map(function (_, j) { return column(qid, j); }).join("");
    return '<p class="sg-query-text">' + esc(data.queries[qid]) + "</p>" +
      '<p class="sg-answers"' + (answers.length ? "" : " hidden") + ">" + esc(T.answers) + " " + shown + "</p>" +
      gold(qid) + '<div class="sg-columns">' + cols + "</div>";
  }

  function fillQueries(keep) {
    var f = parseInt(filter.value, 10);
    var qids = f < 0 ? data.order : data.filters[f][1];
    var term = search ? search.value.trim().toLowerCase() : "";
    if (term) {
      qids = qids.filter(function (qid) {
        return qid.toLowerCase().indexOf(term) >= 0 || String(data.queries[qid]).toLowerCase().indexOf(term) >= 0;
      });
    }
    while (query.firstChild) { query.removeChild(query.firstChild); }
    qids.forEach(function (qid) {
      var o = document.createElement("option");
      o.value = qid;
      o.textContent = qid + ". " + data.queries[qid];
      query.appendChild(o);
    });
    if (keep && qids.indexOf(keep) >= 0) { query.value = keep; }
  }

  function render(announce) {
    var qid = query.value;
    if (!qid) {
      if (search && search.value.trim()) { view.innerHTML = '<p class="sg-note sg-no-match">' + esc(T.noMatch) + "</p>"; }
      return;
    }
    view.innerHTML = queryHtml(qid);
    root.setAttribute("data-qid", qid);
    if (announce) {
      var parts = [];
      data.runs.forEach(function (name, j) {
        data.measures.forEach(function (m, mi) { parts.push(name + " " + m + " " + fmt(data.scores[qid][j][mi])); });
      });
      live.textContent = qid + ". " + data.queries[qid] + " \u2014 " + parts.join(", ");
    }
  }

  filter.addEventListener("change", function () { fillQueries(query.value); render(true); });
  query.addEventListener("change", function () { render(true); });
  if (search) { search.addEventListener("input", function () { fillQueries(query.value); render(true); }); }
  filter.value = String(data.startFilter);
  fillQueries(data.start);
  root.setAttribute("data-ready", "true");
  render(false);
}
