"""Tests of searchgrade.cli.report."""
