"""ir_measures measure objects (``ir_measures.nDCG@10``), read from their parameters, never by importing ir_measures.

An object means what ir_measures computes: its parameters' defaults are ir_measures' own (hidden in the
printed name as ``str()`` hides them), and the row's ``ir_fixed`` and ``ir_rename`` say what the object
means beyond them (ERR's grade scale of 4, SetF's beta read as trec_eval's beta^2).
"""
from __future__ import annotations

from ..family import Family
from ..registry import family
from .measure import Measure, build, redirect

__all__ = ["is_ir_measure", "from_ir_object"]


def is_ir_measure(obj) -> bool:
    """Whether obj looks like an ir_measures measure object (NAME, params, SUPPORTED_PARAMS)."""
    return hasattr(obj, "SUPPORTED_PARAMS") and hasattr(obj, "NAME") and isinstance(getattr(obj, "params", None), dict)


def from_ir_object(obj) -> Measure:
    """An ir_measures measure object as the searchgrade measure that computes what ir_measures computes."""
    spelling = str(obj)
    fam = family(str(obj.NAME))
    if fam is None:
        raise ValueError(f"measure {spelling!r} (ir_measures {obj.NAME}) has no searchgrade counterpart "
                         "(searchgrade.measure_table() lists searchgrade's families)")
    params = dict(obj.params)
    cut = params.pop(getattr(obj, "AT_PARAM", "cutoff"), None)
    supported = getattr(obj, "SUPPORTED_PARAMS", {})
    hidden = set()
    for key, value in params.items():  # ir_measures' str() leaves out values equal to its defaults
        info = supported.get(key)
        if info is not None and getattr(info, "default", None) == value:
            hidden.add(_target_name(fam, key))
    items = list(params.items())
    target, _ = redirect(spelling, fam, items)
    rename = dict(target.ir_rename)  # ir_measures' parameter is another searchgrade parameter:
    hidden |= {rename[key] for key in params if key in rename}  # its spelling does not show it
    items = [(rename.get(key, key), value) for key, value in items]
    return build(spelling, fam, items, cut, implied=target.ir_fixed, hidden=hidden)


def _target_name(fam: Family, key: str) -> str:
    """The searchgrade parameter an ir_measures parameter sets."""
    ir = next((i for i in fam.ir if i.name == key), None)
    return ir.to if ir is not None and ir.to else key
