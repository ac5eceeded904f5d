"""The line-up the tests run, written once as TOML: two BM25s, a dense encoder, their RRF and a second stage.

retrieval/test_runs, cli/test_main and support/report (so report/test_page and the browser test of the report) run
this line-up; each says which encoder the dense retriever and the second stage use (``model``: a toy
encoder the test registers, or MiniLM's folder), the second stage's depth, and what it adds: a
``[lineup]`` table (``header``), keys of the dense retriever (``dense``) or more retrievers (``extra``,
placed before the second stage). The parser's own tests (retrieval/test_lineup) and the custom kind's
(retrieval/test_kinds) keep their small line-ups: those exercise particular keys, line numbers and a kind that
is registered only there.
"""
from __future__ import annotations


def lineup_toml(model: str = "toy", *, label: str = "toy", rerank_depth: int = 10, header: str = "",
                dense: str = "", extra: str = "") -> str:
    """The line-up's TOML: bm25-ws, bm25-bigram, dense-<label>, rrf, [extra], rerank-<label>."""
    head = f"[lineup]\n{header.strip()}\n\n" if header else ""
    return f"""\
{head}[[retriever]]
name = "bm25-ws"
kind = "bm25"
tokeniser = "ko-ws"

[[retriever]]
name = "bm25-bigram"
kind = "bm25"
tokeniser = "ko-bigram"

[[retriever]]
name = "dense-{label}"
kind = "dense"
model = "{model}"
{dense.strip() + chr(10) if dense else ""}
[[retriever]]
name = "rrf"
kind = "rrf"
inputs = ["bm25-bigram", "dense-{label}"]
{chr(10) + extra.strip() + chr(10) if extra else ""}
[[retriever]]
name = "rerank-{label}"
kind = "rerank"
inputs = ["bm25-bigram"]
depth = {rerank_depth}
scorer = "bi-encoder"
model = "{model}"
"""
