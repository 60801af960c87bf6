"""calib/measures.py: the calibration measures of (confidence, correct), each exported by ``calib`` and each
in the form the grid pass takes (a block of confidences (G, n) → (G,), one row the same as alone)."""

import numpy as np
import pytest

import calib
from calib import measures


def test_every_measure_is_public_and_takes_rows_of_temperatures():
    rng = np.random.default_rng(3)
    confidence = rng.uniform(0.2, 1.0, (4, 50))
    correct = rng.uniform(size=50) < 0.7
    for name in measures.__all__:
        function = getattr(calib, name)
        assert name in calib.__all__ and function is getattr(measures, name)
        values = function(confidence, correct)
        assert values.shape == (4,), name
        for g in range(4):
            assert isinstance(function(confidence[g], correct), float), name
            np.testing.assert_allclose(values[g], function(confidence[g], correct), rtol=1e-12, atol=1e-15)


# --- the KS calibration error (Gupta et al. 2021) -------------------------------------------------------------


def plain_ks(confidence, correct):
    """The KS calibration error by its definition, one threshold at a time (plain Python): the largest
    |Σ_{conf ≤ c} (correct − conf)| / n over the distinct confidences c."""
    n = len(confidence)
    pairs = list(zip(map(float, confidence), map(float, correct)))
    return max(abs(sum(hit - conf for conf, hit in pairs if conf <= c)) / n for c in sorted(set(confidence)))


def test_ks_matches_its_definition_row_by_row():
    rng = np.random.default_rng(7)
    confidence = np.round(rng.uniform(0.3, 1.0, (5, 200)), 2)  # rounded: many ties
    correct = rng.uniform(size=200) < 0.75
    got = calib.ks_calibration_error(confidence, correct)
    for g in range(5):
        assert got[g] == pytest.approx(plain_ks(confidence[g], correct), abs=1e-12)


def test_ks_by_hand_and_its_edge_cases():
    # sorted: 0.2 wrong, 0.6 right, 0.7 wrong, 1.0 right: running sums −0.2, 0.2, −0.5, −0.5 → 0.5 / 4
    assert calib.ks_calibration_error([0.7, 0.2, 1.0, 0.6], [0, 0, 1, 1]) == pytest.approx(0.125, abs=1e-15)
    assert calib.ks_calibration_error([0.5, 0.5], [1, 0]) == 0.0  # a tie read together: calibrated
    assert calib.ks_calibration_error([0.9], [0]) == pytest.approx(0.9)  # one row
    assert calib.ks_calibration_error([1.0, 1.0, 1.0], [1, 1, 1]) == 0.0


def test_ks_does_not_depend_on_the_order_of_the_rows():
    rng = np.random.default_rng(1)
    confidence = np.round(rng.uniform(0.4, 1.0, 300), 1)
    correct = rng.uniform(size=300) < 0.6
    order = rng.permutation(300)
    assert calib.ks_calibration_error(confidence[order], correct[order]) == pytest.approx(
        calib.ks_calibration_error(confidence, correct), abs=1e-12)
