"""A reader's temperature spliced into the plain build's precomputation (sitegen.compute.splice) and analyses
(sitegen.analyses.uncertainty.analyses_with) gives what computing everything on the larger grid gives."""

import numpy as np
import pytest

from calib import load
from sitegen.analyses.uncertainty import analyses_with, precompute_analyses
from sitegen.compute.precompute import Precomputed, base_grid, precompute_all, precompute_dataset
from sitegen.compute.splice import insert_temperature

NAMES = ("six", "sim-60", "mixed")  # a dataset of all rows, one split in two, one with groups
NEW_T = 0.7123  # on no dataset's fit and off the base grid
FAST = dict(n_resamples=20, n_draws=60, sweep_draws=20)


def differences(got, want, where="", found=None):
    """Every leaf where ``got`` and ``want`` differ (arrays to 1e-12 relative, NaN equal to NaN), as
    ``[(path, got, want)]``; a dataset's data (its logits) is compared by name."""
    found = [] if found is None else found
    if hasattr(got, "_fields"):
        if type(got).__name__ == "Dataset":
            return found if got.name == want.name else found + [(where, got.name, want.name)]
        for field in got._fields:
            differences(getattr(got, field), getattr(want, field), f"{where}.{field}", found)
    elif isinstance(got, dict):
        if sorted(got) != sorted(want):
            found.append((where + " keys", sorted(got), sorted(want)))
        for key in set(got) & set(want):
            differences(got[key], want[key], f"{where}[{key!r}]", found)
    elif isinstance(got, (np.ndarray, list, tuple)) and not isinstance(got, str):
        a, b = np.asarray(got), np.asarray(want)
        if a.shape != b.shape:
            found.append((where + " shape", a.shape, b.shape))
        elif a.dtype.kind in "fc":
            if not np.allclose(a, b, rtol=1e-12, atol=1e-15, equal_nan=True):
                found.append((where, a, b))
        elif a.dtype == object:
            for i, (x, y) in enumerate(zip(a.ravel(), b.ravel())):
                differences(x, y, f"{where}[{i}]", found)
        elif not np.array_equal(a, b):
            found.append((where, a, b))
    elif isinstance(got, float) and isinstance(want, float):
        if not (got == pytest.approx(want, rel=1e-12, abs=1e-15) or (np.isnan(got) and np.isnan(want))):
            found.append((where, got, want))
    elif got != want:
        found.append((where, got, want))
    return found


@pytest.fixture(scope="module")
def plain():
    return precompute_all(NAMES)


@pytest.fixture(scope="module")
def spliced(plain):
    return insert_temperature(plain, NEW_T)


def test_the_grid_gains_the_temperature_and_nothing_else(plain, spliced):
    assert NEW_T not in plain.grid and NEW_T in spliced.grid
    np.testing.assert_array_equal(np.setdiff1d(spliced.grid, plain.grid), [NEW_T])
    assert np.all(np.diff(spliced.grid) > 0)
    assert spliced.grid[spliced.t1_index] == 1.0
    assert insert_temperature(plain, plain.grid[17]) is plain  # a point the grid already holds


def test_every_dataset_is_what_a_full_pass_on_the_larger_grid_gives(spliced):
    """Each field of every dataset (each part, each group's rows, the sub-grid, the showcase) against
    :func:`precompute_dataset` run on the whole larger grid."""
    grid, t1 = spliced.grid, spliced.t1_index
    for name in NAMES:
        result = spliced.datasets[name]
        full = precompute_dataset(load(name), grid, result.fitted_t, result.fitted_on, t1)
        assert differences(result, full, name) == []


def test_the_sub_grid_keeps_its_temperatures(plain, spliced):
    """The analyses of the built-in datasets can be reused only because their sub-grid does not move."""
    for name in NAMES:
        before = plain.grid[plain.datasets[name].subgrid]
        after = spliced.grid[spliced.datasets[name].subgrid]
        np.testing.assert_array_equal(before, after)
        assert np.isin(base_grid()[::10], before).all() and NEW_T not in after


def test_reused_analyses_equal_analyses_computed_afresh(plain, spliced):
    """A dataset's analyses from the plain grid, re-indexed, and a new dataset's, computed: the same as
    analysing the spliced precomputation from scratch (same seed and settings)."""
    known = precompute_analyses(Precomputed(plain.grid, plain.t1_index, {"six": plain.datasets["six"]}),
                                seed=3, **FAST)
    both = spliced._replace(datasets={k: spliced.datasets[k] for k in ("six", "sim-60")})
    merged = analyses_with(both, known)
    fresh = precompute_analyses(both, seed=3, **FAST)
    assert differences(merged, fresh, "analyses") == []
    assert merged.datasets["six"].parts is known.datasets["six"].parts  # reused, not recomputed
