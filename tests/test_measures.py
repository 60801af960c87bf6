"""calib/measures.py: the calibration measures of (confidence, correct), each exported by ``calib`` and each
in the form the grid pass takes (a block of confidences (G, n) → (G,), one row the same as alone)."""

import numpy as np

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
