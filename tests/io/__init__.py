"""Tests of searchgrade.io."""
