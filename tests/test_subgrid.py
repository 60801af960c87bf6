"""The page's coarse sub-grid (calib.analysis.subgrid_indices; it leaves the engine with the page's analyses)."""

import pytest

from calib.analysis import subgrid_indices


def test_subgrid_indices_by_hand():
    assert subgrid_indices(31, keep=[7, 30]).tolist() == [0, 7, 10, 20, 30]
    assert subgrid_indices(5, step=2).tolist() == [0, 2, 4]
    with pytest.raises(ValueError, match="keep"):
        subgrid_indices(10, keep=[10])
    with pytest.raises(ValueError, match="step"):
        subgrid_indices(10, step=0)
