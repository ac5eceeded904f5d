"""Tests of searchgrade.cli.ndeval."""
