"""Tests of searchgrade.retrieval."""
