"""Tests of searchgrade.judges."""
