
() => Array.from(document.querySelectorAll("h1, h2, h3, h4, h5, h6, [role=heading]")).map(h =>
  Array.from(h.childNodes).filter(n => !(n.classList && n.classList.contains("headerlink")))
    .map(n => n.textContent).join("").trim())
