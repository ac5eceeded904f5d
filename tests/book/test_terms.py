"""One term per concept: the book's prose uses the glossary's term, never a listed variant.

The scan covers chapters/*.md and index.md. It leaves out what is not the book's own prose: the
front matter, code cells and fenced blocks, math, inline code and roles' targets, text in quotation
marks (“ ”, " ", 「」), block quotes, and in the glossary the row of the preferred term itself, which
may name its variants. Model names are written in Latin letters or inline code, so none of them
holds a Korean variant; "R@100" inside a model or run name would sit in inline code.

The same pages' code cells keep the book's width rule: no line longer than 88 columns.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# preferred term -> the variants the prose must not use for the same concept
TERMS: dict[str, list[str]] = {
    "질문": ["질의"],
    "말뭉치": ["코퍼스"],
    "낱말": ["단어"],
    "결합": ["융합"],
    "판정자": ["채점자"],
    "밀집 검색기": ["밀집 모델", "임베딩 모델"],
    "정답": ["정답 문서", "정답 문단", "관련 문서"],
    "Recall@k": ["R@k"],
    "너깃": ["너겟"],
}

# how each variant is found: Korean variants not glued to a preceding syllable, R@ before a cutoff
PATTERNS: dict[str, re.Pattern[str]] = {
    variant: re.compile(r"(?<![가-힣])" + re.escape(variant).replace(r"\ ", r"\s+"))
    for variants in TERMS.values() for variant in variants if variant != "R@k"
}
PATTERNS["R@k"] = re.compile(r"(?<![A-Za-z0-9_])R@(?:\d+|k\b|K\b)")
PREFERRED = {v: term for term, variants in TERMS.items() for v in variants}

BLOCKS = [
    re.compile(r"\A---\n.*?\n---\n", re.S),                  # front matter
    re.compile(r"^(`{3,}|~{3,}).*?^\1[ \t]*$", re.S | re.M),  # code cells and fenced blocks
    re.compile(r"\$\$.*?\$\$", re.S),                         # display math
]
INLINE = [
    re.compile(r"`[^`\n]*`"),                                 # inline code, role targets, glue keys
    re.compile(r"(?<!\\)\$[^$\n]+?(?<!\\)\$"),                # inline math
    re.compile(r"“[^”]*?”"),
    re.compile(r'"(?:[^"\n]|\n(?![ \t]*\n))*?"'),             # straight quotes, within a paragraph
    re.compile(r"「[^」]*?」"),
]


def _blank(match: re.Match[str]) -> str:
    """The match with every character but newlines turned into a space (line numbers survive)."""
    return re.sub(r"[^\n]", " ", match.group(0))


def prose(text: str) -> str:
    """A MyST page with everything that is not the book's own prose blanked out (lines kept)."""
    for pattern in BLOCKS + INLINE:
        text = pattern.sub(_blank, text)
    lines = text.split("\n")
    return "\n".join(" " * len(line) if re.match(r"\s*(>|:[\w-]+:)", line) else line for line in lines)


def _glossary_term(line: str) -> str | None:
    """The preferred term a glossary table row defines, or None for other lines."""
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    return cells[0] if line.lstrip().startswith("|") and cells and cells[0] in TERMS else None


def variants_in(text: str, name: str) -> list[str]:
    """'name:line: variant (write term)' for every variant found in the prose of one page."""
    body = prose(text)
    lines = body.split("\n")
    found = []
    for variant, pattern in PATTERNS.items():
        for match in pattern.finditer(body):
            number = body.count("\n", 0, match.start()) + 1
            row_term = _glossary_term(lines[number - 1]) if name.endswith("glossary.md") else None
            if variant not in TERMS.get(row_term or "", []):
                found.append((number, f"{name}:{number}: {variant} (write {PREFERRED[variant]})"))
    return [message for _, message in sorted(found)]


def book_pages() -> list[Path]:
    """Every page the term rule covers."""
    return sorted((ROOT / "chapters").glob("*.md")) + [ROOT / "index.md"]


@pytest.mark.parametrize("page", book_pages(), ids=lambda p: p.name)
def test_page_uses_the_glossary_terms(page: Path) -> None:
    found = variants_in(page.read_text(encoding="utf-8"), str(page.relative_to(ROOT)))
    assert not found, "variant terms in prose:\n" + "\n".join(found)


def test_scan_finds_variants_in_prose() -> None:
    text = "첫 줄.\n이 질의는 단어 두 개로 된 관련 문서를 찾고 R@100을 잰다.\n"
    found = variants_in(text, "x.md")
    assert sorted(f.split(": ")[1] for f in found) == sorted([
        "질의 (write 질문)", "단어 (write 낱말)", "관련 문서 (write 정답)", "R@k (write Recall@k)"])
    assert all(f.startswith("x.md:2:") for f in found)


def test_scan_finds_a_variant_broken_over_two_lines() -> None:
    assert variants_in("이것은 정답\n문서다.\n", "x.md") == ["x.md:1: 정답 문서 (write 정답)"]


def test_scan_skips_code_math_quotes_and_block_quotes() -> None:
    text = "\n".join([
        "---", "title: 질의", "---",
        "```{code-cell} ipython3", 'print("질의", "R@100")', "```",
        "$$", r"\text{단어}", "$$",
        "인라인 `R@100`과 $\\text{단어}$, “융합”과 \"채점자\"와 「정답 문서」.",
        "> 원 글의 인용: 관련 문서를 질의로 찾는다.",
        ":name: 관련 문서",
        "Recall@100과 nDCG@10은 괜찮다.",
    ])
    assert variants_in(text, "x.md") == []


def test_glossary_row_may_name_its_own_variants_only() -> None:
    row = "| 질문 | query | 검색기에 던지는 정보 요구. 질의라고 쓰지 않는다 | 1 |"
    assert variants_in(row, "chapters/glossary.md") == []
    other = "| 말뭉치 | corpus | 질의가 찾는 문서 전체 | 1 |"
    assert variants_in(other, "chapters/glossary.md") == ["chapters/glossary.md:1: 질의 (write 질문)"]
    assert variants_in(row, "chapters/ch01.md") == ["chapters/ch01.md:1: 질의 (write 질문)"]


CODE_WIDTH = 88


def long_code_lines(text: str, name: str, width: int = CODE_WIDTH) -> list[str]:
    """'name:line: N columns' for every code-cell line longer than width.

    A code cell runs from a line starting with ```{code-cell} to the next line starting
    with ```; its options lines count like any other line.
    """
    found, inside = [], False
    for number, line in enumerate(text.split("\n"), start=1):
        if line.startswith("```"):
            inside = not inside and line.startswith("```{code-cell}")
        elif inside and len(line) > width:
            found.append(f"{name}:{number}: {len(line)} columns")
    return found


@pytest.mark.parametrize("page", sorted((ROOT / "chapters").glob("*.md")), ids=lambda p: p.name)
def test_code_cells_are_at_most_88_columns(page: Path) -> None:
    found = long_code_lines(page.read_text(encoding="utf-8"), str(page.relative_to(ROOT)))
    assert not found, f"code-cell lines over {CODE_WIDTH} columns:\n" + "\n".join(found)


def test_width_finder_sees_a_long_line_in_code_cells_only() -> None:
    long = "x = " + "1 + " * 30 + "1"
    text = "\n".join([
        long,                                     # prose: not code
        "```{code-cell} ipython3", ":tags: [remove-cell]", "y = 1", long, "```",
        "```python", long, "```",                 # a plain fenced block: not a code cell
        "```{code-cell} ipython3", "x" * 88, "```",
    ])
    assert len(long) > CODE_WIDTH
    assert long_code_lines(text, "x.md") == [f"x.md:5: {len(long)} columns"]
