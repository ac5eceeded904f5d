"""Tests of searchgrade.report."""
