"""Shared foundations every stage may import: page choices (settings), the one-line BuildError, the
build cache and its digests, display units and the localised number filters."""
