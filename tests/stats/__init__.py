"""Tests of searchgrade.stats."""
