/* searchgrade scoring lab. Every number shown is looked up in the table that
   searchgrade.book.widgets computed with the package at build time; nothing is computed here. */
function searchgradeScoringLab(root, data) {
  "use strict";
  var n = data.n, M = data.maxMissing, S = data.scale;
  var toggles = Array.prototype.slice.call(root.querySelectorAll("button.sg-toggle"));
  var items = Array.prototype.slice.call(root.querySelectorAll("ol.sg-results > li"));
  var kInput = root.querySelector("input.sg-k");
  var kOut = root.querySelector("output.sg-k-out");
  var missing = root.querySelector("select.sg-missing");
  var live = root.querySelector(".sg-live");
  var total = root.querySelector(".sg-total");
  var rows = Array.prototype.slice.call(root.querySelectorAll("tr[data-key]"));

  function fmt(q) { return (q / S).toFixed(4); }
  function popcount(x) { var c = 0; while (x) { c += x & 1; x >>>= 1; } return c; }

  function current() {
    var bits = 0;
    toggles.forEach(function (b, i) {
      if (b.getAttribute("aria-pressed") === "true") { bits |= (1 << i); }
    });
    return { bits: bits, k: parseInt(kInput.value, 10), missing: parseInt(missing.value, 10) };
  }

  function lookup(s) {
    var prefix = s.bits & ((1 << s.k) - 1);
    var hits = popcount(prefix);
    var relevant = popcount(s.bits) + s.missing;
    var width = n - s.k + M + 1;
    var i = prefix * width + (relevant - hits);
    var small = data.byPrefix[s.k - 1], big = data.byPrefixR[s.k - 1];
    var recall = data.recall[hits * (n + M + 1) + relevant];
    return {
      values: { P: small[3 * prefix], Hit: small[3 * prefix + 1], RR: small[3 * prefix + 2],
                R: recall, AP: big[2 * i], nDCG: big[2 * i + 1], RBP: data.rbp[s.bits] },
      relevant: relevant, inList: popcount(s.bits)
    };
  }

  function label(key, k) { return data.labels[key].replace("{k}", String(k)); }

  function update(announce) {
    var s = current(), got = lookup(s), parts = [];
    kOut.textContent = String(s.k);
    kInput.setAttribute("aria-valuetext", "k = " + s.k);
    toggles.forEach(function (b, i) {
      var on = b.getAttribute("aria-pressed") === "true";
      b.querySelector(".sg-state").textContent = on ? data.stateOn : data.stateOff;
      items[i].classList.toggle("sg-cut", i >= s.k);
      items[i].classList.toggle("sg-first-cut", i === s.k);
    });
    rows.forEach(function (tr) {
      var key = tr.getAttribute("data-key"), q = got.values[key];
      var name = label(key, s.k);
      tr.querySelector(".sg-label").textContent = name;
      tr.querySelector(".sg-value").textContent = fmt(q);
      tr.querySelector(".sg-value").setAttribute("data-measure", data.measures[key].replace("{k}", String(s.k)));
      tr.querySelector(".sg-bar span").style.width = Math.max(0, Math.min(100, 100 * q / S)) + "%";
      parts.push(name + " " + fmt(q));
    });
    total.textContent = data.totalText.replace("{R}", got.relevant).replace("{in}", got.inList).replace("{out}", s.missing);
    if (announce) {
      live.textContent = "k = " + s.k + ", " + total.textContent + ". " + parts.join(", ");
    }
  }

  toggles.forEach(function (b) {
    b.addEventListener("click", function () {
      b.setAttribute("aria-pressed", b.getAttribute("aria-pressed") === "true" ? "false" : "true");
      update(true);
    });
  });
  kInput.addEventListener("input", function () { update(true); });
  missing.addEventListener("change", function () { update(true); });
  Array.prototype.forEach.call(root.querySelectorAll("button.sg-preset"), function (b) {
    b.addEventListener("click", function () {
      var ranks = JSON.parse(b.getAttribute("data-relevant"));
      toggles.forEach(function (t, i) { t.setAttribute("aria-pressed", ranks.indexOf(i + 1) >= 0 ? "true" : "false"); });
      update(true);
    });
  });
  root.setAttribute("data-ready", "true");
  update(false);
}
