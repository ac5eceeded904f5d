"""Tests of searchgrade.measures."""
