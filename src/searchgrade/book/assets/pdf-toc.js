
([tocTitle, parts]) => {
  const entries = parts.map(([caption, doc], i) => {
    const anchor = document.getElementById("document-" + doc);
    if (!anchor) { throw new Error("no document-" + doc + " in the single page"); }
    const heading = anchor.nextElementSibling && anchor.nextElementSibling.querySelector("h1, h2, h3, h4, h5, h6");
    if (!heading) { throw new Error(doc + ": no heading after its anchor"); }
    heading.id = "sg-toc-" + i;      // the link target (the sections' own ids repeat in a single page)
    const title = Array.from(heading.childNodes).filter(n => !(n.classList && n.classList.contains("headerlink")))
      .map(n => n.textContent).join("").trim();
    return {caption: caption, doc: doc, title: title, target: heading.id};
  });
  const el = (tag, cls, text) => { const e = document.createElement(tag); e.className = cls;
                                   if (text) { e.textContent = text; } return e; };
  const nav = el("nav", "sg-print-toc"), list = el("ol", "");
  const title = el("p", "sg-toc-title", tocTitle);
  title.setAttribute("role", "heading");
  title.setAttribute("aria-level", "1");
  nav.append(title, list);
  let last = null;
  entries.forEach(e => {
    if (e.caption && e.caption !== last) { list.append(el("li", "sg-part", e.caption)); }
    last = e.caption;
    const item = el("li", "sg-entry"), link = el("a", "", e.title), number = el("span", "sg-page", "000");
    link.href = "#" + e.target;
    number.dataset.doc = e.doc;
    item.append(link, el("span", "sg-dots"), number);
    list.append(item);
  });
  const first = document.getElementById("document-" + entries[0].doc);
  first.parentNode.insertBefore(nav, first);
  return entries;
}
