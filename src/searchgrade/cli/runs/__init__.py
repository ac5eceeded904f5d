"""``searchgrade runs``: check a line-up file, its models and the collection, then compute or find its runs.

::

    searchgrade runs --lineup my.toml --collection path/to/beir --out runs/mine
    searchgrade runs --lineup lineups/article.toml --collection ko-strategyqa-mteb --out runs/article
    searchgrade runs --lineup lineups/article.toml --collection DIR --out OUT \\
        --model-map BAAI/bge-m3=/models/small --device cpu      # the same file, other models

The line-up is read and checked first (:func:`searchgrade.retrieval.lineup.read_lineup`, then
:func:`~searchgrade.retrieval.lineup.check_available` for the retrievers asked for and their inputs),
so a bad file or a model that is not on this machine stops the command before anything is computed;
``--check`` stops there. Exit status 2 and one ``error:`` line on bad input. The runs are made by
:mod:`searchgrade.retrieval.runs`; the options are in :mod:`.args` (those shared with ``searchgrade
report`` in :mod:`searchgrade.cli.options`). The retrieval package is imported when the command
runs, not with this module, so the core's command line stays light.

The output folder holds exactly the line-up, so that ``searchgrade report`` never shows a run that
is not in the file: the runs that ``searchgrade runs`` made for retrievers no longer in the line-up
(renamed or deleted) are removed and listed; a ``.run`` file without a record (not made by this
command) is never deleted, and a folder holding one is refused before anything is computed.

``--queries FILE.jsonl`` runs the line-up on another set of questions over the same corpus and
judgments (:func:`searchgrade.collections.with_queries`: the collection's ids, all or a subset), for
instance the questions without spaces; ``OUT/queries.json`` records the file and its checksum, so
that ``searchgrade report`` uses the same questions, and ``searchgrade report --baseline`` pairs two
such folders query by query.
"""
from __future__ import annotations

import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from ...checksums import sha256
from ...places import user_cache
from ...io.runfolder import QUERIES_RECORD, others, refresh_records, remove_others
from .. import options
from .args import parser

__all__ = ["main"]


def _needed(lineup, names: Sequence[str]) -> list[str]:
    """The named retrievers and, recursively, their inputs, in line-up order."""
    seen: set[str] = set()

    def add(name: str) -> None:
        if name not in seen:
            seen.add(name)
            for i in lineup.retrievers[name].inputs:
                add(i)

    for n in names:
        add(n)
    return [n for n in lineup.retrievers if n in seen]


def _collection_arg(args, lineup) -> str:
    """The collection to run on: --collection, else the line-up's own (a path relative to the file if it exists)."""
    if args.collection:
        return args.collection
    if not lineup.collection:
        raise ValueError("no collection: pass --collection (or set collection in the line-up's [lineup] table)")
    beside = Path(lineup.path).parent / lineup.collection
    return str(beside) if beside.exists() else lineup.collection


def _refuse_strangers(out: str, lineup) -> None:
    """Refuse an output folder holding .run files that ``searchgrade runs`` did not make (no record)."""
    _, foreign = others(out, list(lineup.retrievers))
    if foreign:
        raise ValueError(f"{out} holds runs that `searchgrade runs` did not make ({', '.join(foreign)}.run, without "
                         "a record): the folder must hold exactly the line-up's runs; use another --out")


def _record_queries(out: str, queries: str | None, coll) -> None:
    """Write OUT/queries.json naming the queries file that replaced the collection's (remove it when none did)."""
    path = Path(out) / QUERIES_RECORD
    if not queries:
        path.unlink(missing_ok=True)
        return
    record = {"file": str(Path(queries).resolve()), "sha256": sha256(Path(queries)),
              "collection": coll.meta.get("base_collection"), "queries": len(coll.queries)}
    path.write_text(json.dumps(record, ensure_ascii=False, indent=1), encoding="utf-8")


def _print_records(records) -> None:
    """The table of what was computed or found cached."""
    print(f"{'retriever':20s} {'status':9s} {'wall s':>8s} {'CPU s':>8s} {'no result':>9s}  file")
    for r in records:
        print(f"{r.retriever:20s} {r.status:9s} {r.seconds:8.1f} {r.cpu_seconds:8.1f} {r.queries_without_results:9d}  "
              f"{r.path}")


def main(argv: Sequence[str] | None = None) -> int:
    """``searchgrade runs``: check a line-up file, then compute or find its runs; 2 on a bad file or collection."""
    args = parser().parse_args(argv)
    with user_cache():
        try:
            done = _run(args)
        except options.BAD_INPUT as err:
            return options.fail(err)
    if done is not None:
        _report(args, *done)
    return 0


def _check_out(out: str | None, check: bool) -> None:
    """Refuse a missing --out (unless --check) and an --out that is a file, before anything is read."""
    if out is None:
        if not check:
            raise ValueError("--out DIR is required (the folder for the runs); only --check runs without it")
        return
    if Path(out).exists() and not Path(out).is_dir():
        raise ValueError(f"--out {out}: is a file, not a folder; give the folder for the runs")


def _lineup(args):
    """The line-up file read and checked, and the retrievers asked for (each usable here, with its inputs)."""
    from ...retrieval.lineup import check_available, parse_model_map, read_lineup

    lineup = read_lineup(args.lineup, parse_model_map(args.model_map), args.device)
    names = options.names(args.retrievers, "--retrievers") or list(lineup.retrievers)
    unknown = [n for n in names if n not in lineup.retrievers]
    if unknown:
        raise ValueError(f"--retrievers: {', '.join(unknown)} not in {args.lineup} "
                         f"(it has {', '.join(lineup.retrievers)})")
    check_available(lineup, _needed(lineup, names))
    if lineup.fixed_device:
        print(f"note: --device {lineup.device} does not apply to {', '.join(lineup.fixed_device)}: their encoders "
              "(e5, use, ... of searchgrade.retrieval.dense) have fixed settings and run on the CPU", file=sys.stderr)
    return lineup, names


def _run(args) -> tuple | None:
    """The command with its options parsed, inside the user's cache folder.

    Returns (the records, the runs removed, the start time), or None after ``--check``.
    """
    from ...collections import load_collection, with_queries
    from ...retrieval.runs import make_runs

    _check_out(args.out, args.check)
    lineup, names = _lineup(args)
    coll = load_collection(_collection_arg(args, lineup), args.split, args.intersect)
    options.say_dropped(coll)
    if args.queries:
        coll = with_queries(coll, args.queries)
    if args.check:
        print(f"{args.lineup}: {len(lineup.retrievers)} retrievers, all usable here; collection {coll.name!r}: "
              f"{len(coll.corpus):,} documents, {len(coll.queries):,} queries")
        return None
    _refuse_strangers(args.out, lineup)
    t0 = time.perf_counter()
    records = make_runs(coll, lineup, args.out, names, args.depth, args.force, progress=not args.quiet)
    removed = remove_others(args.out, list(lineup.retrievers))
    _record_queries(args.out, args.queries, coll)
    refresh_records(args.out, {n: lineup.retrievers[n] for n in names})
    return records, removed, t0


def _report(args, records, removed: list[str], t0: float) -> None:
    """What was done: the table of runs, the runs removed, the total time."""
    _print_records(records)
    if removed:
        print(f"removed {len(removed)} run(s) of retrievers no longer in {args.lineup}: {', '.join(removed)}")
    print(f"{len(records)} runs in {args.out} ({time.perf_counter() - t0:.1f} s)")

