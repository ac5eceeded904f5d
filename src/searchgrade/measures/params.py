"""Typed measure parameters: what a value may be, and how text or a Python value becomes one (private).

A :class:`Param` belongs to a measure family's row (:mod:`searchgrade.measures.kinds`), so
a check belongs to one family's parameter: ``b`` is nDCG's log base and
Utility's worth of a non-relevant retrieved document, each checked as what it
is.  ``Param.coerce`` turns what the user wrote -- text from a measure name
(``"0.8"``, ``"exp"``, ``"True"``, ``"{1:4,2:8}"``) or a Python value from an
ir_measures object -- into the parameter's type, and refuses anything else
with a ``ValueError`` naming the measure, the parameter and the reason.
"""
from __future__ import annotations

import math
import numbers
import re
from dataclasses import dataclass
from typing import Any, Callable, Mapping

__all__ = ["REL", "MAX_GRADE", "Param", "fmt_value", "gain_order", "positive", "positive_int", "open_unit",
           "above_one", "finite", "gain_map", "recall_levels"]


@dataclass(frozen=True)
class Param:
    """One parameter of a measure family: name, type, default, allowed values and meaning."""

    name: str
    dtype: type  # int, float, str, bool, dict (a {grade: gain} map) or tuple (of numbers, e.g. recall levels)
    default: Any = None  # None: not set (e.g. rel: the evaluation's rel_level applies)
    doc: str = ""  # one line: what it means
    choices: tuple = ()  # allowed values (str parameters)
    check: Callable[[Any], str | None] | None = None  # why a value is refused, or None

    def coerce(self, measure: str, raw) -> Any:
        """``raw`` (text from a name, or a Python value) as this parameter's value; ValueError if it is refused."""
        def bad(why):
            return ValueError(f"measure {measure!r}: parameter {self.name}={_show(raw)} {why}")

        value = _CONVERT[self.dtype](raw, bad)
        if self.choices and value not in self.choices:
            raise bad("must be " + " or ".join(repr(c) for c in self.choices))
        why = self.check(value) if self.check is not None else None
        if why:
            raise bad(why)
        return value


def _show(raw) -> str:
    """The value as the user wrote it, for messages (text unquoted, as in ``p=1.5``), a long one shortened."""
    return short(raw if isinstance(raw, str) else repr(raw))


def short(text: str, keep: int = 40) -> str:
    """text, or for a long one its first characters and its length: an error message stays one short line."""
    return text if len(text) <= keep else f"{text[:keep - 10]}... ({len(text)} characters)"


# ------------------------------------------------------------------ conversions
def _number(raw, bad) -> float:
    """A finite real number from text or a Python number (bool refused)."""
    if isinstance(raw, bool) or not isinstance(raw, (str, numbers.Real)):
        raise bad("is not a number")
    try:
        num = float(raw)
    except (TypeError, ValueError, OverflowError):
        raise bad("is not a number") from None
    if not math.isfinite(num):
        raise bad("is not finite")
    return num


def _to_int(raw, bad) -> int:
    """An integer from text ("2", "2.0") or a Python integral number."""
    if isinstance(raw, numbers.Integral) and not isinstance(raw, bool):
        return int(raw)
    num = _number(raw, bad)
    if not num.is_integer():
        raise bad("must be an integer")
    return int(num)


def _to_str(raw, bad) -> str:
    """Text as it is."""
    if not isinstance(raw, str):
        raise bad("must be text")
    return raw.strip()


def _to_bool(raw, bad) -> bool:
    """True or False (text: True, False, true, false, 1, 0)."""
    if isinstance(raw, bool):
        return raw
    text = str(raw).strip().lower()
    if text in ("true", "1"):
        return True
    if text in ("false", "0"):
        return False
    raise bad("must be True or False")


_PAIR = re.compile(r"\s*([^:=,\s]+)\s*[:=]\s*([^:=,\s]+)\s*")


def _to_dict(raw, bad) -> dict:
    """{grade: gain} from a Mapping or text ``{1:4,2:8}`` (also ``1=4,2=8``, trec_eval's form)."""
    if isinstance(raw, Mapping):
        items = list(raw.items())
    elif isinstance(raw, str):
        text = raw.strip()
        if text.startswith("{") and text.endswith("}"):
            text = text[1:-1]
        items = []
        for part in filter(str.strip, text.split(",")):
            mt = _PAIR.fullmatch(part)
            if not mt:
                raise bad("must be a mapping like {1:4,2:8}")
            items.append(mt.groups())
    else:
        raise bad("must be a mapping like {1:4,2:8}")
    unquote = (lambda x: x.strip().strip("'\"") if isinstance(x, str) else x)  # {'1': 2} is {1: 2}
    out = {}
    for g, v in items:  # in the order given (trec_eval's walk over gains depends on it)
        grade = _to_int(unquote(g), bad)
        if grade in out:
            raise bad(f"gives grade {grade} twice")
        out[grade] = _number(unquote(v), bad)
    return out


def _to_tuple(raw, bad) -> tuple:
    """Numbers from a sequence or text ``[0.25,0.5]`` (also ``0.25,0.5``), as a tuple of floats."""
    if isinstance(raw, str):
        text = raw.strip()
        if text[:1] + text[-1:] in ("[]", "()"):
            text = text[1:-1]
        items = [part.strip() for part in text.split(",")]
        if not all(items):
            raise bad("must be numbers like [0.25,0.5]")
    elif isinstance(raw, (list, tuple)):
        items = list(raw)
    else:
        raise bad("must be numbers like [0.25,0.5]")
    if not items:
        raise bad("holds no number")
    return tuple(_number(item, bad) for item in items)


_CONVERT = {int: _to_int, float: _number, str: _to_str, bool: _to_bool, dict: _to_dict, tuple: _to_tuple}


# ----------------------------------------------------------------------- checks
def positive_int(v) -> str | None:
    """Refuse integers below 1."""
    return "must be a positive integer" if v < 1 else None


def positive(v) -> str | None:
    """Refuse numbers <= 0."""
    return "must be positive" if v <= 0 else None


def open_unit(v) -> str | None:
    """Refuse numbers outside (0, 1)."""
    return None if 0 < v < 1 else "must lie strictly between 0 and 1"


def above_one(v) -> str | None:
    """Refuse numbers <= 1 (a logarithm base)."""
    return None if v > 1 else "must be greater than 1"


def finite(v) -> str | None:
    """Any finite number (the conversion already refused inf and nan)."""
    return None


def gain_map(v) -> str | None:
    """A {grade: gain} map: grades >= 0 (judged); any finite gain, 0 or negative too (as trec_eval allows)."""
    if any(g < 0 for g in v):
        return "maps negative grades (only grades >= 0 are judged and can gain)"
    return None


def recall_levels(v) -> str | None:
    """Recall levels: in [0, 1], in increasing order (repeats allowed)."""
    if not all(0 <= x <= 1 for x in v):
        return "must lie in [0, 1]"
    if any(b < a for a, b in zip(v, v[1:])):
        return "must be in increasing order"
    return None


# ------------------------------------------------------------------- formatting
def fmt_value(v) -> str:
    """Compact text for a parameter value that reads back as the same value (2.0 -> 2, {1: 4.0} -> {1:4})."""
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, float):
        return str(int(v)) if v.is_integer() and abs(v) < 1e16 else repr(v)
    if isinstance(v, dict):  # in the map's own order
        return "{" + ",".join(f"{g}:{fmt_value(x)}" for g, x in v.items()) + "}"
    if isinstance(v, tuple):
        return "[" + ",".join(fmt_value(x) for x in v) + "]"
    return str(v)


#: The relevance level every binary family takes (``rel=``); the evaluation's ``rel_level`` when not given.
REL = Param("rel", int, None, "grade counted as relevant (default: the evaluation's rel_level)",
            check=positive_int)

#: A fixed grade scale (RBP's and ERR's ``max_grade=``); the query's largest grade when not given.
MAX_GRADE = Param("max_grade", int, None, "grade scale fixed at this grade (default: the query's largest grade)",
                  check=positive_int)


def gain_order(params: dict) -> dict:
    """Gains in the order given, as pairs: trec_eval's walk over them depends on it (keys keep it)."""
    if isinstance(params.get("gains"), dict):
        params["gains"] = tuple(params["gains"].items())
    return params
