
(edition) => {
  document.querySelectorAll(".toggle-hidden").forEach(e => e.classList.remove("toggle-hidden"));
  document.querySelectorAll("details").forEach(d => {
    if (!d.classList.contains("above-input") || d.closest(".tag_hide-cell")) { d.open = true; }
  });
  const docOf = el => {            // the page a node came from: the nearest document-<page> anchor before it
    for (let node = el; node; node = node.parentElement) {
      for (let prev = node.previousElementSibling; prev; prev = prev.previousElementSibling) {
        const anchors = prev.matches('span[id^="document-"]') ? [prev] : prev.querySelectorAll('span[id^="document-"]');
        if (anchors.length) { return anchors[anchors.length - 1].id.slice("document-".length); }
      }
    }
    return null;
  };
  const widgets = Array.from(document.querySelectorAll("[data-sg-widget]"));
  let named = 0;
  widgets.forEach(w => {
    const doc = docOf(w), where = w.querySelector(".sg-edition");
    if (where && doc) { where.textContent = " (" + edition + ": " + doc + ".html)"; named += 1; }
  });
  return {widgets: widgets.length, named: named};
}
