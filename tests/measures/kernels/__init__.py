"""Tests of searchgrade.measures.kernels."""
