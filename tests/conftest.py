"""Shared fixtures for the engine and build tests (the browser tests have their own conftest)."""

import pytest


@pytest.fixture(scope="session")
def precomputed():
    """The whole precomputation (every dataset over the shared grid), computed once per test session."""
    from sitegen.precompute import precompute_all

    return precompute_all()
