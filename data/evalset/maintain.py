"""Maintenance tool for the book's evaluation set (items.jsonl, gradings.jsonl, README counts).

Usage (from the repository root)::

    python data/evalset/maintain.py check     # validate items and gradings against KorQuAD; exit 1 on problems
    python data/evalset/maintain.py alts      # add every document that contains a quote to its alt_doc_ids
    python data/evalset/maintain.py counts    # print the counts block of README.md
    python data/evalset/maintain.py readme    # rewrite the counts block of README.md in place

``alts`` only adds ids found by searching the whole corpus for each normalised
quote; ids already listed (including ones added by hand for paraphrased
copies of a fact) are kept. ``tests/book/test_evalset.py`` checks that the README
block equals :func:`counts_block` of the current items.
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ITEMS = HERE / "items.jsonl"
GRADINGS = HERE / "gradings.jsonl"
README = HERE / "README.md"
START, END = "<!-- counts:start -->", "<!-- counts:end -->"


def load_corpus():
    """The KorQuAD 1.0 dev paragraphs as ``{doc_id: {"title", "text"}}`` (shared loader)."""
    from searchgrade.collections import load_korquad

    return load_korquad().corpus


def counts_block(items) -> str:
    """Markdown tables of item counts by kind, type, query style and tag (the README block)."""
    from searchgrade.rag import item_counts

    c = item_counts(items)
    n = len(items)
    lines = [START, "", f"{n} items; {c['kind']['composite']} composite (min_docs >= 2, "
             f"{100 * c['kind']['composite'] / n:.1f}%), {c['kind']['single']} single.", ""]
    for key, title in (("type", "type"), ("query_style", "query style"), ("tag", "tag")):
        lines += [f"| {title} | items |", "|---|---:|"]
        lines += [f"| `{name}` | {int(v)} |" for name, v in c[key].items()]
        lines.append("")
    lines.append(END)
    return "\n".join(lines)


def readme_block(text: str) -> str:
    """The counts block currently in README text (markers included)."""
    i, j = text.find(START), text.find(END)
    if i < 0 or j < i:
        raise ValueError(f"{README}: counts markers {START} ... {END} not found")
    return text[i:j + len(END)]


def main(argv: list[str]) -> int:
    """Run one command; returns the exit status."""
    from searchgrade import rag

    if len(argv) != 1 or argv[0] not in ("check", "alts", "counts", "readme"):
        print(__doc__)
        return 2
    cmd = argv[0]
    items = rag.load_items(ITEMS)
    if cmd == "counts":
        print(counts_block(items))
        return 0
    if cmd == "readme":
        text = README.read_text(encoding="utf-8")
        README.write_text(text.replace(readme_block(text), counts_block(items)), encoding="utf-8")
        print(f"rewrote the counts block of {README}")
        return 0
    corpus = load_corpus()
    if cmd == "alts":
        new = [rag.complete_alt_doc_ids(it, corpus) for it in items]
        added = sum(len(e["alt_doc_ids"]) for it in new for e in it["evidence"]) - \
            sum(len(e["alt_doc_ids"]) for it in items for e in it["evidence"])
        rag.write_items(new, ITEMS)
        print(f"added {added} alt_doc_ids; wrote {ITEMS}")
        return 0
    problems = rag.validate(items, corpus)
    problems += rag.validate_gradings(rag.load_gradings(GRADINGS), items)
    for p in problems:
        print(p)
    print(f"{len(items)} items, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
