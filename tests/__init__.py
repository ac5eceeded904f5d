"""The tests of searchgrade; tests/<pkg>/ holds the tests of src/searchgrade/<pkg>/ (see conftest.py)."""
