"""Tests of searchgrade.rag."""
