"""Helpers the tests share (positions, scenarios, oracle searches, policies, web clients), one module per area.

Test modules import from here and never from each other; fixtures live in tests/conftest.py.
"""
