/* searchgrade rank slider. Values and marker positions come from the table that
   searchgrade.book.widgets computed with the package at build time. */
function searchgradeRankSlider(root, data) {
  "use strict";
  var S = data.scale;
  var range = root.querySelector("input.sg-rank");
  var out = root.querySelector("output.sg-rank-out");
  var live = root.querySelector(".sg-live");
  var charts = Array.prototype.slice.call(root.querySelectorAll("figure.sg-chart"));

  function fmt(q) { return (q / S).toFixed(4); }

  function update(announce) {
    var r = parseInt(range.value, 10), i = r - 1, parts = [];
    out.textContent = String(r);
    range.setAttribute("aria-valuetext", data.rankText.replace("{r}", r));
    charts.forEach(function (fig, j) {
      var q = data.values[j][i], xy = data.xy[j][i];
      fig.querySelector(".sg-value").textContent = fmt(q);
      var marker = fig.querySelector(".sg-marker");
      marker.setAttribute("cx", xy[0]);
      marker.setAttribute("cy", xy[1]);
      var cursor = fig.querySelector(".sg-cursor");
      cursor.setAttribute("x1", xy[0]);
      cursor.setAttribute("x2", xy[0]);
      parts.push((data.labels || data.measures)[j] + " " + fmt(q));
    });
    if (announce) {
      live.textContent = data.rankText.replace("{r}", r) + ": " + parts.join(", ");
    }
  }

  range.addEventListener("input", function () { update(true); });
  root.setAttribute("data-ready", "true");
  update(false);
}
