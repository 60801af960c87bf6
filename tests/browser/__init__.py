"""Browser tests (a package, so that this folder's conftest and tests/conftest.py do not clash)."""
