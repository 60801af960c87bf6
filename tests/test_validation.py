"""Tests of calib.validation: each shared check passes what the engine computes with and names what it refuses."""

import numpy as np
import pytest

from calib.validation import (
    as_bin_counts,
    as_correct,
    as_generator,
    as_probabilities,
    as_probability_rows,
    as_quantile_levels,
    check_choice,
    positive_int,
)


def test_probabilities_keep_or_add_the_row_axis():
    assert as_probability_rows([0.0, 1.0]).shape == (1, 2)
    assert as_probabilities([0.0, 1.0]).shape == (2,)
    assert as_probabilities([[0.2], [0.3]]).shape == (2, 1)
    with pytest.raises(ValueError, match=r"f values must lie in \[0, 1\]"):
        as_probabilities([0.5, 1.01], "f")
    with pytest.raises(ValueError, match="y must have shape"):
        as_probability_rows(np.zeros((2, 2, 2)), "y")


def test_correct_is_one_outcome_per_example():
    assert as_correct([True, False], (2,)).tolist() == [1.0, 0.0]
    assert as_correct([[1, 0]], (1, 2)).dtype == np.float64
    with pytest.raises(ValueError, match=r"correct must have shape \(3,\), one outcome"):
        as_correct([1, 0], (3,))
    with pytest.raises(ValueError, match=r"correct must have shape \(2,\) or \(4, 2\)"):
        as_correct([1, 0, 1], (4, 2))
    with pytest.raises(ValueError, match="correct must hold booleans"):
        as_correct([1, 2], (2,))


@pytest.mark.parametrize("value", [0, -1, 2.0, True, "3", None])
def test_positive_int_names_the_argument(value):
    with pytest.raises(ValueError, match="n_resamples must be a positive integer"):
        positive_int(value, "n_resamples")


def test_positive_int_with_another_minimum():
    assert positive_int(0, "sweep_draws", 0) == 0
    with pytest.raises(ValueError, match="n_draws must be an integer ≥ 2"):
        positive_int(1, "n_draws", 2)


def test_choices_bin_counts_quantiles_and_rng():
    assert check_choice("adaptive", ("equal-width", "adaptive"), "scheme") == "adaptive"
    with pytest.raises(ValueError, match="schemes must be one of"):
        check_choice("quantile", ("equal-width", "adaptive"), "schemes")
    assert as_bin_counts(np.array([4, 15])) == (4, 15)
    for bad in [(), (0,), (4, True), (2.5,), 5, None]:
        with pytest.raises(ValueError, match="bin_counts must be a non-empty sequence"):
            as_bin_counts(bad)
    assert as_quantile_levels([0, 0.5, 1]) == (0.0, 0.5, 1.0)
    for bad in [(), (0.9, 0.1), (0.5, 1.5)]:
        with pytest.raises(ValueError, match="band_quantiles must be increasing"):
            as_quantile_levels(bad, "band_quantiles")
    gen = np.random.default_rng(1)
    assert as_generator(gen) is gen
    assert as_generator(3).random() == np.random.default_rng(3).random()
    for bad in [-1, True, 1.5, "seed"]:
        with pytest.raises(ValueError, match="rng must be"):
            as_generator(bad)
