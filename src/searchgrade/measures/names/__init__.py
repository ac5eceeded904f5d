"""Measure names: one parser per dialect, each reading a name into a :class:`Measure` (private).

It holds a module per dialect on a shared core; to add a dialect, write its reader ``(spelling, text) ->
Measure or None`` on :func:`~searchgrade.measures.names.measure.build` and try it in :mod:`.parse`.

:mod:`.ir_text` reads ir_measures' syntax (searchgrade's own, ``nDCG(gain=exp)@10``), :mod:`.ir_object`
ir_measures objects, :mod:`.ranx` ranx's names, :mod:`.trec` trec_eval's names and ``-m`` arguments
(pytrec_eval's keys too); :mod:`.measure` is the core they share, :mod:`.parse` tries them in turn and
:mod:`.known` lists and guesses names.

The printed name
----------------
A measure's ``name`` -- the column :func:`searchgrade.evaluate` gives it -- is
the spelling as requested (``str()`` of an ir_measures object) when that
spelling shows every parameter whose value differs from the family's default;
otherwise it is the canonical spelling, which shows them all.  So ``"P_10"``
stays ``P_10``, while ``"rbp"`` (p = 0.9, the default is 0.8) prints as
``RBP(p=0.9)``, and the ir_measures object ``ERR@10`` (gdeval's grade scale of 4)
prints as ``ERR(max_grade=4)@10``: two measures with different values never
share a printed name.  ``Measure.canonical`` is ir_measures-style, parameters
in the family's order.
"""
from .ir_object import is_ir_measure
from .known import known_measures, suggest_trec
from .measure import LONG_MAX, Measure
from .parse import parse_measure, suggest
from .trec import TrecValue, trec_expand, trec_float, trec_values

__all__ = ["Measure", "parse_measure", "known_measures", "trec_expand", "is_ir_measure", "trec_float", "suggest",
           "suggest_trec", "LONG_MAX", "TrecValue", "trec_values"]
