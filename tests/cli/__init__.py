"""Tests of searchgrade.cli."""
