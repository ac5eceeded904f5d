"""The measure registry: the table of measure families, gathered from the kind modules (private).

A family's row (a :class:`~searchgrade.measures.family.Family`: parameters, cut-off rule,
aggregation, kernel, formula, source, its names in trec_eval, pytrec_eval, ir_measures and ranx, the
documented differences) is written beside its kernel in its kind module
(:mod:`searchgrade.measures.kinds`); this module only keeps the table: :data:`FAMILIES` (the rows
of :data:`KINDS`, in order, and any row added by :func:`register_family`), the lookups
(:func:`family`, :func:`trec_root`), and the tables derived from the rows: :data:`ALIASES` and
:data:`RANX` (the rows' ``aliases`` and ``ranx_names``), :data:`TREC_ORDER` (the order trec_eval 10.0
prints its measures in, from the rows' ``TrecName.place``) and :data:`TREC_SETS` (its named sets
``official``, ``set`` and ``all_trec``, from ``TrecName.sets``).

Everything else reads the table: the name parsers and ``known_measures()``
(:mod:`searchgrade.measures.names`), the formula and tool tables of :mod:`searchgrade.metrics`'
docstring and the API appendix's ``measure_table()`` (:mod:`searchgrade.measures.tables`), the curves
:func:`searchgrade.cwl` draws (:mod:`searchgrade.curves`), the pytrec_eval cross-check map in
:mod:`searchgrade.book.diagnostics`, and the trec_eval command's ``-m``.
"""
from __future__ import annotations

from .family import Family, TrecName
from .kinds import (average_precision, counts, cwl, dcg, diversity, err, experimental, gm_bpref, incomplete,
                    interpolated, precision, rbp, reciprocal_rank, sets)

__all__ = ["Family", "TrecName", "FAMILIES", "KINDS", "ALIASES", "RANX", "TREC_ORDER", "TREC_SETS", "register_family",
           "register_kind", "unregister_family", "family", "trec_root", "version"]

#: The kind modules whose rows are built in, in the order the tables list them: a new kind is one more entry.
KINDS = (precision, average_precision, reciprocal_rank, dcg, rbp, err, incomplete, interpolated, sets, counts,
         gm_bpref, experimental, cwl, diversity)

FAMILIES: dict[str, Family] = {}
#: Other spellings of family names, lower-cased (ir_measures' MAP, MRR, Success, ...): the rows' ``aliases``.
ALIASES: dict[str, str] = {}
#: ranx's metric names as searchgrade spellings, (with ``@k``, without: ranx's k = 0, the whole run), from the
#: rows' ``ranx_names``.  ``rbp.95`` is ranx's p = 0.95 (``rbp@95`` stays searchgrade's RBP at cut-off 95);
#: ranx's ``-lL`` (rel_lvl) is ``rel=L`` on the binary families and, on the linear dcg/ndcg, gain 0 below L.
RANX: dict[str, tuple] = {}

_BY_LOWER: dict[str, str] = {}
_BY_ROOT: dict[str, tuple[Family, TrecName]] = {}
_VERSION = [0]  # bumped by register_family / unregister_family: tables derived from FAMILIES rebuild


def version() -> int:
    """How many times the registry has changed since import: a cache built from it is stale when this moves."""
    return _VERSION[0]


def register_family(row: Family, replace: bool = False) -> Family:
    """Add a measure family (one row: its kernel ``kernel(ctx, measure) -> per-query values`` and rules).

    What the built-in rows get, a registered row gets too: its names parse everywhere (``evaluate``,
    ``Evaluator``, ``compare``), trec_eval-style names, its aliases and ranx names included, its
    parameters are checked, and :func:`searchgrade.measure_table` lists it.  Its trec_eval names are
    read by the ``trec_eval`` command's ``-m`` only when listed in TREC_ORDER (the built-in rows'
    ``TrecName.place``).  :func:`unregister_family` takes it out again.  A kernel gets the binary
    relevance level of its measure from :func:`searchgrade.measures.kinds.base.level`.
    """
    taken = family(row.name)
    if taken is not None and not (replace and taken.name == row.name):
        raise ValueError(f"a measure family named {taken.name!r} is already registered")
    _check_names(row)
    if taken is not None:  # replaced in place: its names are the new row's
        _forget(taken)
    FAMILIES[row.name] = row
    _BY_LOWER[row.name.lower()] = row.name
    _BY_ROOT.update({spec.root: (row, spec) for spec in row.trec})
    ALIASES.update({alias.lower(): row.name for alias in row.aliases})
    for ranx in row.ranx_names:
        at_k, whole = RANX.get(ranx.name, (None, None))
        spelling = ranx.spelling(row.name)
        RANX[ranx.name] = (spelling if ranx.k != "whole" else at_k, spelling if ranx.k != "@k" else whole)
    _VERSION[0] += 1
    return row


def _check_names(row: Family) -> None:
    """ValueError when one of the row's trec_eval roots, aliases or ranx names belongs to another family."""
    def clash(owner: str | None) -> bool:
        return owner is not None and owner != row.name

    roots = [s.root for s in row.trec if clash(_BY_ROOT[s.root][0].name if s.root in _BY_ROOT else None)]
    aliases = [a for a in row.aliases if clash(ALIASES.get(a.lower()) or _BY_LOWER.get(a.lower()))]
    ranx = [r.name for r in row.ranx_names
            if any(clash(s.partition("(")[0]) for slot, s in zip(("@k", "whole"), RANX.get(r.name, (None, None)))
                   if s is not None and r.k in ("both", slot))]
    for what, names in (("trec_eval name(s)", roots), ("alias(es)", aliases), ("ranx name(s)", ranx)):
        if names:
            raise ValueError(f"{what} {', '.join(names)} already belong to another family")


def register_kind(module) -> list[Family]:
    """Register every row of a kind module (its ``ROWS``, rows written beside their kernels), in order.

    What :data:`KINDS` does for the built-in kinds, one line does for a kind written elsewhere.
    """
    return [register_family(row) for row in module.ROWS]


def unregister_family(name: str) -> Family:
    """Take the family called ``name`` (case-insensitive, not an alias) out of the registry; KeyError if none.

    Returns the row, so that ``register_family(unregister_family("X"))`` puts it back.
    """
    canonical = _BY_LOWER.get(name.lower())
    if canonical is None:
        raise KeyError(f"no measure family named {name!r} is registered")
    row = FAMILIES.pop(canonical)
    del _BY_LOWER[canonical.lower()]
    _forget(row)
    _VERSION[0] += 1
    return row


def _forget(row: Family) -> None:
    """Forget the trec_eval roots, aliases and ranx names that belong to ``row``."""
    for spec in row.trec:
        if _BY_ROOT.get(spec.root, (None,))[0] is row:
            del _BY_ROOT[spec.root]
    for alias in row.aliases:
        if ALIASES.get(alias.lower()) == row.name:
            del ALIASES[alias.lower()]
    for ranx in row.ranx_names:
        mine = ranx.spelling(row.name)
        kept = tuple(None if s == mine else s for s in RANX.get(ranx.name, (None, None)))
        if any(kept):
            RANX[ranx.name] = kept
        else:
            RANX.pop(ranx.name, None)


def family(name: str) -> Family | None:
    """The family called ``name`` or one of its aliases (case-insensitive), or None."""
    key = name.lower()
    canonical = _BY_LOWER.get(key) or ALIASES.get(key)
    return FAMILIES[canonical] if canonical else None


def trec_root(root: str) -> tuple[Family, TrecName] | None:
    """(family, name spec) of a trec_eval measure root such as ``P``, ``ndcg_cut``, ``rbp``; None if unknown."""
    return _BY_ROOT.get(root)


for _kind in KINDS:
    register_kind(_kind)
_VERSION[0] = 0


# ----------------------------------------------------------------- trec_eval's order and sets
#: What trec_eval prints that is no measure: its place in trec_eval's print order, and the sets naming it.
_PRINTED_ONLY = (("runid", 0, ("official", "set")), ("relstring", 12, ()))
_SET_NAMES = ("official", "set", "all_trec")  # all_trec: every measure trec_eval prints


def _trec_tables() -> tuple[tuple, dict]:
    """(TREC_ORDER, TREC_SETS) from the built-in rows' places and sets; ValueError if two share a place."""
    placed = [(spec.place, spec.root, spec.sets) for row in FAMILIES.values() for spec in row.trec
              if spec.place is not None]
    placed += [(place, root, in_sets) for root, place, in_sets in _PRINTED_ONLY]
    places = [place for place, _, _ in placed]
    if len(set(places)) != len(places) or sorted(places) != list(range(len(places))):
        raise ValueError(f"trec_eval's print places must be 0..{len(places) - 1}, each once: {sorted(places)}")
    placed.sort()
    order = tuple(root for _, root, _ in placed)
    return order, {name: tuple(root for _, root, in_sets in placed if name == "all_trec" or name in in_sets)
                   for name in _SET_NAMES}


#: trec_eval 10.0's measures in the order it prints them (measures.c); runid and relstring are not measures.
#: TREC_SETS: its named sets of measures (measures.c), each in that order.
TREC_ORDER, TREC_SETS = _trec_tables()
