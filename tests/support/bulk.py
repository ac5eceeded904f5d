"""What the tests of searchgrade.io.bulk share: the bulk reader on raw bytes, and a large run with one irregular line."""
from __future__ import annotations

from searchgrade.io import bulk as _trec_bulk
from searchgrade.io.errors import ReadReport
from searchgrade.io.sources import split_blocks
from tests.support.trec_texts import big_run_text


def bulk_read(raw: bytes, kind: str, block: int = _trec_bulk.BLOCK) -> tuple[dict, ReadReport] | None:
    """The bulk reader's result on raw cut in blocks of about block bytes, as nested dicts; None where it declines."""
    got = _trec_bulk.read_blocks(split_blocks(raw, block), "x", kind)
    if got is None:
        return None
    nested = _trec_bulk.nested(got[0])
    return None if nested is None else (nested, got[1])


IRREGULAR = ["comment first", "comment inside", "indented comment", "blank line inside", "extra field", "odd rank",
             "tab separated", "double space", "leading space", "lone CR", "vertical tab", "score nan", "score inf",
             "duplicate", "interleaved queries", "five fields and a space", "trailing space"]


def irregular(kind: str) -> str:
    """big_run_text() with one irregularity at line 1001."""
    lines = big_run_text().splitlines(keepends=True)
    line = lines[1000]
    f = line.split()
    edits = {
        "comment first": lambda: ["# header\n"] + lines,
        "comment inside": lambda: lines[:1000] + ["# note\n"] + lines[1000:],
        "indented comment": lambda: lines[:1000] + ["   # note\n"] + lines[1000:],
        "blank line inside": lambda: lines[:1000] + ["\n"] + lines[1000:],
        "extra field": lambda: lines[:1000] + [line.replace("\n", " junk\n")] + lines[1001:],
        "odd rank": lambda: lines[:1000] + [line.replace(f" {f[3]} ", " x ")] + lines[1001:],
        "tab separated": lambda: lines[:1000] + [line.replace(" ", "\t")] + lines[1001:],
        "double space": lambda: lines[:1000] + [line.replace(" ", "  ", 1)] + lines[1001:],
        "leading space": lambda: lines[:1000] + [" " + line] + lines[1001:],
        "lone CR": lambda: lines[:1000] + [line.replace(" ", "\r", 1)] + lines[1001:],
        "vertical tab": lambda: lines[:1000] + [line.replace(" ", "\x0b", 1)] + lines[1001:],
        "score nan": lambda: lines[:1000] + [line.replace(f[4], "nan")] + lines[1001:],
        "score inf": lambda: lines[:1000] + [line.replace(f[4], "-inf")] + lines[1001:],
        "duplicate": lambda: lines[:1000] + [lines[999]] + lines[1001:],
        "interleaved queries": lambda: lines[:1000] + [lines[0].replace("doc-0-0", "late")] + lines[1000:],
        "five fields and a space": lambda: lines[:1000] + [line.replace(" sys\n", " \n")] + lines[1001:],
        "trailing space": lambda: lines[:1000] + [line.replace("\n", " \n")] + lines[1001:],
    }
    return "".join(edits[kind]())
