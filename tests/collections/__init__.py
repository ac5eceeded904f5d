"""Tests of searchgrade.collections."""
