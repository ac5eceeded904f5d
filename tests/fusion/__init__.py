"""Tests of searchgrade.fusion."""
