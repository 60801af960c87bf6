"""The comparison's paired resamples: 200 by default, fewer for a large test part (calib.comparison_resamples),
so that ``python -m calib compare`` on 10⁶ rows stays within its time budget (bench/yours.py --compare)."""

import numpy as np
import pytest

import calib
import calib.compare


def test_the_resamples_follow_the_budget_by_hand():
    assert calib.comparison_resamples(10) == 200
    assert calib.comparison_resamples(250_000) == 200  # 5·10⁷ / 250,000 = 200 exactly
    assert calib.comparison_resamples(250_001) == 199
    assert calib.comparison_resamples(500_000) == 100
    assert calib.comparison_resamples(10**7) == 100  # never under the floor
    assert calib.comparison_resamples(1_000, most=50) == 50
    assert calib.comparison_resamples(10**7, most=60) == 60  # the floor never exceeds the most asked for
    with pytest.raises(ValueError):
        calib.comparison_resamples(0)


@pytest.mark.parametrize("given, expected", [(None, 166), (37, 37)])
def test_compare_parts_takes_the_budget_unless_told(monkeypatch, given, expected):
    """300,000 test rows (of 301,000): ⌊5·10⁷ / 300,000⌋ = 166 resamples, or what the caller says."""
    seen = {}
    monkeypatch.setattr(calib.compare, "compare_calibrators", lambda *a, **k: seen.update(k))
    n = 301_000
    test = np.zeros(n, dtype=bool)
    test[1_000:] = True
    calib.compare_parts(np.zeros((n, 2)), np.zeros(n, dtype=np.int64), {"calibration": ~test, "test": test},
                        n_resamples=given)
    assert seen["n_resamples"] == expected
