"""Helpers shared by the test modules (a test module imports only from here and from conftest fixtures)."""
