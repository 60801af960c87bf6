"""Argument checks shared across the engine: one function per kind of argument.

Each check returns the argument in the form the engine computes with, or
raises ``ValueError`` with a message that starts with the argument's name.
Checks used by a single module (logits, labels and temperatures in
:mod:`calib.scaling`) stay there.
"""

import numpy as np

__all__ = [
    "as_probability_rows", "as_probabilities", "as_correct", "positive_int", "check_choice",
    "as_bin_counts", "as_quantile_levels", "as_generator",
]


def as_probability_rows(values, name="confidence"):
    """Validate probabilities and return them as a float64 array of shape (G, n) (a 1-D input becomes one row).

    Raises ``ValueError`` naming ``name`` unless every value is finite and in [0, 1] and n ≥ 1.

    >>> as_probability_rows([0.2, 1.0]).tolist()
    [[0.2, 1.0]]
    """
    array = np.asarray(values, dtype=np.float64)
    if array.ndim == 1:
        array = array[None]
    if array.ndim != 2 or array.shape[1] < 1:
        raise ValueError(f"{name} must have shape (n,) or (G, n) with n ≥ 1; got {np.shape(values)}")
    if not np.all(np.isfinite(array)) or array.min() < 0 or array.max() > 1:
        raise ValueError(f"{name} values must lie in [0, 1]")
    return array


def as_probabilities(values, name="confidence"):
    """Like :func:`as_probability_rows`, but keeping the input's shape: float64 (n,) or (G, n).

    >>> as_probabilities([0.2, 1.0]).shape
    (2,)
    """
    rows = as_probability_rows(values, name)
    return rows[0] if np.ndim(values) == 1 else rows


def as_correct(correct, shape):
    """Outcomes as a float64 array of 0.0 and 1.0, of shape ``shape[-1:]`` (one per example) or ``shape``.

    ``shape`` is the confidence array's shape, (n,) or (G, n); pass ``(n,)``
    where an outcome cannot depend on the temperature. Raises ``ValueError``
    naming ``correct`` for another shape or a value other than 0/1/bool.

    >>> as_correct([True, False], (3, 2)).tolist()
    [1.0, 0.0]
    """
    hits = np.asarray(correct)
    allowed = (tuple(shape[-1:]), tuple(shape))
    if hits.shape not in allowed:
        wanted = " or ".join(dict.fromkeys(str(s) for s in allowed))
        raise ValueError(f"correct must have shape {wanted}, one outcome per example; got {hits.shape}")
    if not np.all((hits == 0) | (hits == 1)):
        raise ValueError("correct must hold booleans (or 0/1)")
    return hits.astype(np.float64)


def positive_int(value, name, minimum=1):
    """``value`` as an int if it is an integer (not a bool) ≥ ``minimum``; else ``ValueError`` naming ``name``.

    >>> positive_int(np.int64(3), "n_bins")
    3
    """
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        wanted = "a positive integer" if minimum == 1 else f"an integer ≥ {minimum}"
        raise ValueError(f"{name} must be {wanted}; got {value!r}")
    return int(value)


def check_choice(value, choices, name):
    """``value`` if it is one of ``choices``; else ``ValueError`` naming ``name`` and listing the choices."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {tuple(choices)}; got {value!r}")
    return value


def as_bin_counts(bin_counts, name="bin_counts"):
    """A non-empty sequence of bin counts (positive integers) as a tuple of ints.

    >>> as_bin_counts(range(1, 4))
    (1, 2, 3)
    """
    try:
        counts = tuple(bin_counts)
    except TypeError:
        counts = ()
    if not counts or any(isinstance(b, bool) or not isinstance(b, (int, np.integer)) or b < 1 for b in counts):
        raise ValueError(f"{name} must be a non-empty sequence of positive integers; got {bin_counts!r}")
    return tuple(int(b) for b in counts)


def as_quantile_levels(quantiles, name="quantiles"):
    """Quantile levels (increasing probabilities in [0, 1], at least one) as a tuple of floats.

    >>> as_quantile_levels([0.05, 0.95])
    (0.05, 0.95)
    """
    q = tuple(float(x) for x in quantiles)
    if not q or any(not 0 <= x <= 1 for x in q) or list(q) != sorted(q):
        raise ValueError(f"{name} must be increasing probabilities in [0, 1]; got {quantiles!r}")
    return q


def as_generator(rng):
    """``rng`` as a ``numpy.random.Generator``: a Generator is returned as is, an int seeds a new PCG64 one."""
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool) and rng >= 0:
        return np.random.default_rng(int(rng))
    raise ValueError(f"rng must be a numpy.random.Generator or a non-negative int seed; got {rng!r}")
