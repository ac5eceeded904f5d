"""Tests of searchgrade.cli.trec_eval."""
