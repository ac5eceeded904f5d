"""Numbers as a C program reads them with ``sscanf`` (glibc, the "C" locale): :func:`scan_double`, :func:`scan_int`.

ndeval 4.5 reads its options (``-alpha``, ``-beta``, ``-riskAlpha``: ``%lf``; ``-M``: ``%d``) and,
under ``-traditional``, the scores of a run (``%lf``) with ``sscanf``, and uses what it read without
looking at what follows.  Python's ``float()`` and ``int()`` read other texts: ``float`` refuses a
hexadecimal float (``0x1p-1``), a partial number (``1.5x``, ``1e``) and leading C whitespace other than
what ``str.strip`` strips, and reads what C does not (``1_000``, fullwidth digits ``１２``).  These
functions read what glibc's ``sscanf`` reads, or return None where it reads nothing (it then stores
nothing: the C program keeps whatever the variable held).

``%lf``, as glibc's scanf reads it: C whitespace (space, tab, newline, VT, FF, CR) is skipped; a sign;
then ``nan`` (any case; what follows is left), ``inf`` or ``infinity`` (a started ``infinity`` that
breaks off, as ``infinit``, reads nothing), or a number: decimal digits with one ``.`` and an exponent
``e`` after a digit (its sign only right after it), or after ``0x`` hexadecimal digits with a ``p``
exponent.  scanf takes the longest such prefix and hands it to ``strtod``, which reads its longest
valid number: ``1e`` and ``1e+`` are 1, ``0x.`` is 0; but ``0x`` alone, ``0xg``, ``.`` and ``+`` read
nothing (``strtod`` would read ``0x`` as 0, ``infinit`` as inf: ``sscanf`` does not).  Values round as
``strtod`` rounds them (correctly): an overflow is an infinity, an underflow 0 or a subnormal.

``%d``: C whitespace, a sign, ASCII digits (at least one); the value is ``strtol``'s (clamped to the
64-bit ``long``) stored into a 32-bit ``int`` (so 2147483648 is -2147483648).
"""
from __future__ import annotations

import math
import re

__all__ = ["scan_double", "scan_int", "C_SPACE"]

C_SPACE = " \t\n\v\f\r"  # isspace() in the "C" locale
_DECIMAL = re.compile(rb"([0-9]*\.?[0-9]*)([eE][+-]?[0-9]+)?")  # what strtod reads of scanf's decimal text
_HEX = re.compile(rb"0[xX]([0-9a-fA-F]*\.?[0-9a-fA-F]*)([pP][+-]?[0-9]+)?")
_INT = re.compile(r"[ \t\n\v\f\r]*([+-]?[0-9]+)")
_LONG = 2**63


def scan_double(text: str) -> float | None:
    """What ``sscanf(text, "%lf", &x)`` stores in x, or None when it stores nothing (see the module docstring)."""
    raw = text.encode("utf-8", "surrogatepass").lstrip(C_SPACE.encode())
    sign = -1.0 if raw[:1] == b"-" else 1.0
    if raw[:1] in (b"+", b"-"):
        raw = raw[1:]
    if not raw:
        return None
    head = raw[:8].lower()  # bytes.lower: ASCII letters only, as C's tolower in the "C" locale
    if head[:1] in (b"n", b"i"):
        return _special(head, sign)
    taken = _scanned(raw)
    value = _strtod(raw[:taken]) if taken else None
    return None if value is None else math.copysign(value, sign) if value == 0 else sign * value


def _special(head: bytes, sign: float) -> float | None:
    """nan, inf or infinity (head: the first bytes, lower case), or None when the word breaks off."""
    if head.startswith(b"nan"):
        return math.copysign(math.nan, sign)
    if not head.startswith(b"inf") or (head[3:4] == b"i" and head[:8] != b"infinity"):
        return None
    return sign * math.inf


def _scanned(raw: bytes) -> int:
    """How many bytes of raw (after the sign) scanf's number loop takes; 0 when it takes nothing usable."""
    hexa = raw[:2] in (b"0x", b"0X")
    at = 2 if hexa else 0
    got_digit = got_dot = got_e = False
    exp = b"p" if hexa else b"e"
    while at < len(raw):
        c = raw[at:at + 1]
        if c.isdigit() or (hexa and not got_e and c in b"abcdefABCDEF"):
            got_digit = True
        elif got_e and c in b"+-" and raw[at - 1:at].lower() == exp:
            pass
        elif got_digit and not got_e and c.lower() == exp:
            got_e = got_dot = True
        elif not got_dot and c == b".":
            got_dot = True
        else:
            break
        at += 1
    return 0 if hexa and at == 2 else at


def _strtod(text: bytes) -> float | None:
    """strtod's value of its longest valid prefix of text (text as scanf hands it over), or None if it has none."""
    hexa = _HEX.match(text)
    if hexa is not None:
        if not any(c in b"0123456789abcdefABCDEF" for c in hexa.group(1)):
            return 0.0  # "0x" without a digit: strtod reads the 0
        try:
            return float.fromhex(hexa.group(0).decode("ascii"))
        except OverflowError:
            return math.inf
    number = _DECIMAL.match(text)
    if not any(c in b"0123456789" for c in number.group(1)):
        return None
    return float(number.group(0))


def scan_int(text: str) -> int | None:
    """What ``sscanf(text, "%d", &n)`` stores in n, or None when it stores nothing (see the module docstring)."""
    got = _INT.match(text)
    if got is None:
        return None
    value = min(max(int(got.group(1)), -_LONG), _LONG - 1)  # strtol saturates
    return (value + 2**31) % 2**32 - 2**31  # then the int keeps the low 32 bits
