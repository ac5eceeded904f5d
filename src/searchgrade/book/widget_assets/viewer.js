/* searchgrade per-query viewer: shows, for the chosen query, the top documents of three runs
   with their judgments and per-query scores, all embedded by searchgrade.book.widgets. */
function searchgradeQueryViewer(root, data) {
  "use strict";
  var S = data.scale;
  var filter = root.querySelector("select.sg-filter");
  var query = root.querySelector("select.sg-query");
  var qtext = root.querySelector(".sg-query-text");
  var relevant = root.querySelector(".sg-relevant");
  var cols = Array.prototype.slice.call(root.querySelectorAll("section.sg-col"));
  var live = root.querySelector(".sg-live");

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined && text !== null) { e.textContent = text; }
    return e;
  }
  function fmt(q) { return q === null ? "\u2014" : (q / S).toFixed(4); }
  function mark(grade) {
    if (grade === null) { return el("span", "sg-mark sg-mark-unj", data.marks.unjudged); }
    if (grade >= data.relLevel) { return el("span", "sg-mark sg-mark-rel", data.marks.relevant.replace("{g}", grade)); }
    return el("span", "sg-mark sg-mark-non", data.marks.nonrelevant);
  }

  function fillQueries(keep) {
    var f = parseInt(filter.value, 10);
    var qids = f < 0 ? data.order : data.filters[f][1];
    while (query.firstChild) { query.removeChild(query.firstChild); }
    qids.forEach(function (qid) {
      var o = el("option", null, qid + ". " + data.queries[qid]);
      o.value = qid;
      query.appendChild(o);
    });
    if (keep && qids.indexOf(keep) >= 0) { query.value = keep; }
  }

  function render(announce) {
    var qid = query.value;
    if (!qid) { return; }
    qtext.textContent = data.queries[qid];
    var rel = data.relevant[qid];
    relevant.textContent = data.relevantText.replace("{n}", rel.length) +
      (rel.length ? ": " + rel.slice(0, data.maxRelevantShown).map(function (p) {
        return data.docs[p[0]][0] + " (" + p[0] + ")";
      }).join("; ") + (rel.length > data.maxRelevantShown ? "; \u2026" : "") : "");
    var parts = [];
    cols.forEach(function (col, j) {
      var tbody = col.querySelector("tbody");
      while (tbody.firstChild) { tbody.removeChild(tbody.firstChild); }
      data.measures.forEach(function (m, mi) {
        var tr = el("tr");
        var th = el("th", null, m); th.setAttribute("scope", "row");
        var td = el("td", "sg-value", fmt(data.scores[qid][j][mi]));
        td.setAttribute("data-measure", m);
        tr.appendChild(th); tr.appendChild(td); tbody.appendChild(tr);
        parts.push(data.runs[j] + " " + m + " " + td.textContent);
      });
      var ol = col.querySelector("ol.sg-top");
      while (ol.firstChild) { ol.removeChild(ol.firstChild); }
      var top = data.top[qid][j];
      col.querySelector(".sg-empty").hidden = top.length > 0;
      top.forEach(function (pair) {
        var li = el("li");
        li.setAttribute("data-docid", pair[0]);
        li.setAttribute("data-grade", pair[1] === null ? "" : String(pair[1]));
        li.appendChild(mark(pair[1]));
        li.appendChild(el("span", "sg-doc-title", data.docs[pair[0]][0]));
        li.appendChild(document.createTextNode(" "));
        li.appendChild(el("span", "sg-docid", "(" + pair[0] + ")"));
        li.appendChild(el("span", "sg-snippet", data.docs[pair[0]][1]));
        ol.appendChild(li);
      });
    });
    root.setAttribute("data-qid", qid);
    if (announce) { live.textContent = qid + ". " + data.queries[qid] + " \u2014 " + parts.join(", "); }
  }

  filter.addEventListener("change", function () { fillQueries(query.value); render(true); });
  query.addEventListener("change", function () { render(true); });
  fillQueries(data.start);
  root.setAttribute("data-ready", "true");
  render(false);
}
