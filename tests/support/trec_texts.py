"""TREC texts that several io tests share: large regular runs and qrels (read by the bulk reader), the
padding that makes a small case large, and the malformed lines each reader must refuse."""
from __future__ import annotations


def big_run_text(n_queries: int = 40, n_docs: int = 50, name: str = "sys") -> str:
    """A regular run large enough for the bulk reader (> _trec_bulk.MIN_BYTES)."""
    return "".join(f"q{q} Q0 doc-{q}-{d} {d + 1} {1000 - d * 0.25!r} {name}\n"
                   for q in range(n_queries) for d in range(n_docs))


def big_qrels_text(n_queries: int = 60, n_docs: int = 50) -> str:
    """Regular qrels large enough for the bulk reader."""
    return "".join(f"q{q} 0 doc-{q}-{d} {d % 4}\n" for q in range(n_queries) for d in range(n_docs))


PAD_QRELS = "".join(f"pad{q} 0 doc-{q}-{d} {d % 4}\n" for q in range(60) for d in range(50))
PAD_RUN = "".join(f"pad{q} Q0 doc-{q}-{d} {d + 1} {1000 - d * 0.25!r} sys\n" for q in range(40) for d in range(50))


QRELS_BAD = [
    ("1 0 d1 1\n1 0 d2\n", 2, ["expected 4 fields", "found 3"]),
    ("1 0 d1 1 extra\n", 1, ["expected 4 fields", "found 5"]),
    ("1 0 d1 1\n\n1 0 d2 high\n", 3, ["grade", "'high'", "not an integer"]),
    ("1 0 d1 1.5\n", 1, ["grade", "not an integer"]),
    ("1 0 d1 1_0\n", 1, ["grade", "not an integer"]),
]


# Changed on purpose (trec_eval 10.0 reads them): a 7th field and a rank that is not an integer
# are accepted and reported (tests/io/test_io_inputs.py), no longer errors.
RUN_BAD = [
    ("q 0 d 1 0.5\n", 1, ["expected 6 fields", "found 5"]),
    ("q 0 d1 1 0.5 r\nq 0 d2 2\n", 2, ["expected 6 fields", "found 4"]),
    ("q 0 d 1 high r\n", 1, ["score", "'high'", "not a number"]),
    ("q 0 d 1 1_0 r\n", 1, ["score", "not a number"]),
    ("q 0 d 1 0.5 r\nq 0 e 2 nan r\n", 2, ["score", "'nan'", "not finite"]),
    ("q 0 d 1 NaN r\n", 1, ["score", "not finite"]),
    ("q 0 d 1 inf r\n", 1, ["score", "'inf'", "not finite"]),
    ("q 0 d 1 -Infinity r\n", 1, ["score", "not finite"]),
    ("q 0 d 1 1e400 r\n", 1, ["score", "not finite"]),
]
