"""Tests of searchgrade.measures.kinds."""
