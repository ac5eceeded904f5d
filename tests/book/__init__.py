"""Tests of searchgrade.book."""
