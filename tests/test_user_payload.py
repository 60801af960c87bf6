"""``build.py --data`` on a larger model: the reader's payload stays within its budgets.

A file of its own, so that this one long build runs beside tests/test_user_model.py's builds (pytest -n gives
each file to one worker)."""

import gzip

import pytest
from test_user_model import run
from user_inputs import model_file


# after the whole site: the build then finds the built-in datasets' steps in the run's build cache and computes
# only the reader's model (run before it, it computed them all a second time beside the site's build)
@pytest.mark.usefixtures("built_site")
def test_user_payload_is_bounded(tmp_path):
    """n = 20,000 and K = 101: the dataset file within 300 KB and its analysis file within 100 KB, gzipped.
    (One class above ``calib.MAX_AFFINE_CLASSES``: the sizes do not depend on the calibrator comparison, and
    its matrix and Dirichlet fits at K = 100 take minutes.)"""
    data = model_file(tmp_path / "big.npz", n=20_000, k=101, hostile=False)
    result = run("--out", tmp_path / "site", "--data", data, "--lang", "en")
    assert result.returncode == 0, result.stderr
    sizes = {name: len(gzip.compress((tmp_path / "site" / "data" / name).read_bytes(), 9, mtime=0))
             for name in ("yours.js", "yours-analysis.js")}
    assert sizes["yours.js"] <= 300_000, sizes
    assert sizes["yours-analysis.js"] <= 100_000, sizes
