"""Blocked passes over rows give the same bits whatever the block size, also when a last chunk would hold one row.

The engine's grid passes take each row's Σ_k e_k as a matrix product with ones, in chunks of rows that start
on multiples of ``calib.scaling.ROW_ALIGN``. BLAS then gives a row the same sum in any chunk, but numpy
multiplies a one-row matrix on another path, so a lone last row (n ≡ 1 mod 64) came out a bit different
from the same row inside a longer chunk, and the results depended on the block size. The suite's other
block tests use n = 1,000 (a multiple of 8), where that case never arises; these use n ≡ 1 (mod 64).
"""

import json
import subprocess
import sys

import numpy as np
import pytest
from analysis_inputs import scores
from conftest import ROOT

from calib import row_chunks, scores_over_grid
from calib import (
    row_scores_over_grid as part_scores,  # the analyses' per-row scores (was sitegen.analyses.uncertainty.part_scores)
)
from calib.blocks import ROW_ALIGN

LONE_LAST_ROW = [ROW_ALIGN + 1, 2 * ROW_ALIGN + 1, 16 * ROW_ALIGN + 1]


def model(n, k, seed):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, k)) * 3.0, rng.integers(0, k, n)


@pytest.mark.parametrize("n", [1, 2, 63, 64, 65, 66, 128, 129, 1000, 1025])
@pytest.mark.parametrize("rows", [1, 64, 128])
def test_row_chunks_cover_the_rows_once_and_never_leave_a_lone_last_row(n, rows):
    chunks = row_chunks(n, rows)
    assert [i for c in chunks for i in range(c.start, c.stop)] == list(range(n))
    assert all(c.start % rows == 0 for c in chunks)
    assert all(c.stop - c.start == rows for c in chunks[:-1])
    last = chunks[-1].stop - chunks[-1].start
    assert last <= rows + 1 and (last > 1 or n == 1 or rows == 1)


def test_row_chunks_of_no_rows_are_none():
    assert row_chunks(0, 64) == []


@pytest.mark.parametrize("n", LONE_LAST_ROW)
@pytest.mark.parametrize("k", [10, 37])
def test_grid_scores_do_not_depend_on_the_block_size_with_a_lone_last_row(n, k):
    z, y = model(n, k, n + k)
    temps = np.geomspace(0.05, 10, 13)
    reference = scores_over_grid(z, y, temps)  # one block: every row in one call
    for workers in (1, 2):
        for block_elements in (ROW_ALIGN * k, 2 * ROW_ALIGN * k + 5):
            got = scores_over_grid(z, y, temps, workers=workers, block_elements=block_elements)
            for a, b in zip(got, reference):
                assert np.array_equal(a, b), (n, k, workers, block_elements)


@pytest.mark.parametrize("n", LONE_LAST_ROW[:2])
def test_part_scores_in_row_chunks_equal_the_one_pass_log_softmax_with_a_lone_last_row(n):
    z, y = model(n, 10, 7 * n)
    temps = np.geomspace(0.2, 5.0, 7)
    confidence, correct, nll = scores(z, y, temps)
    got = part_scores(z, y, temps, block_elements=ROW_ALIGN * 10)
    assert np.array_equal(got[0], confidence) and np.array_equal(got[1], correct) and np.array_equal(got[2], nll)


def test_one_blas_thread_holds_numpys_and_scipys_blas_loaded_after_it_too():
    """The CLI and build.py run under ``one_blas_thread``: every BLAS in the process, SciPy's (loaded by the
    calibrators' optimisers, often after the command starts) as well as numpy's, is held to one thread."""
    script = ("import json, threadpoolctl\n"
              "from calib.blocks import one_blas_thread\n"
              "with one_blas_thread():\n"
              "    import scipy.optimize\n"
              "    print(json.dumps([(i['filepath'], i['num_threads']) for i in threadpoolctl.threadpool_info()\n"
              "                      if i['user_api'] == 'blas']))\n")
    env = {"PATH": "/usr/bin:/bin", "OPENBLAS_NUM_THREADS": "2", "OMP_NUM_THREADS": "2"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env,
                          cwd=str(ROOT), check=True)
    libraries = json.loads(done.stdout)
    assert len(libraries) >= 2, libraries  # numpy's and SciPy's OpenBLAS (wheels bundle one each)
    assert all(threads == 1 for _, threads in libraries), libraries
