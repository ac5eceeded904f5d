"""The options of ``searchgrade runs`` (those it shares with ``searchgrade report`` come from :mod:`..options`)."""
from __future__ import annotations

import argparse

from .. import options

__all__ = ["parser", "EPILOG"]

EPILOG = options.CACHE_HELP.format(what="Embeddings, token lists and converted collections are") + (
    " Runs whose settings and collection match are read back from --out instead of recomputed.")


def parser() -> argparse.ArgumentParser:
    """The options of ``searchgrade runs`` (the kinds in ``--lineup``'s help come from the kinds registry)."""
    from ...retrieval.kinds import KINDS

    p = argparse.ArgumentParser(prog="searchgrade runs", epilog=EPILOG,
                                description="Compute (or find cached) one TREC run per retriever of a line-up file.")
    p.add_argument("--lineup", required=True, help=f"the line-up file (TOML); retriever kinds: {', '.join(KINDS)}")
    options.add_collection(p, " (default: the line-up's [lineup] collection)")
    p.add_argument("--out", default=None, help="the folder for the runs (one .run and one .json per retriever); it "
                                               "holds exactly the line-up: runs of retrievers no longer in the file "
                                               "are removed (not needed with --check)")
    options.add_queries(p, "replace the collection's queries by this file's (_id, text; the same ids or a subset), "
                           "e.g. a variant of the questions; recorded in OUT/queries.json, which `searchgrade "
                           "report` reads")
    options.add_retrievers(p, "subset of the line-up's retrievers (default: all)")
    p.add_argument("--depth", type=int, default=None, help="documents per query (default: the line-up's, else 100)")
    p.add_argument("--model-map", action="append", default=[], metavar="NAME=PATH",
                   help="load model NAME from PATH instead (repeatable)")
    p.add_argument("--device", default=None, help="replace every retriever's device (cpu, cuda, cuda:N, mps)")
    p.add_argument("--force", action="store_true", help="recompute even when a cached run matches")
    p.add_argument("--check", action="store_true", help="check the line-up, its models and the collection; run nothing")
    options.add_quiet(p)
    return p
