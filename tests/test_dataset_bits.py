"""The generated datasets are the same bits on every x86-64 CPU.

numpy picks a SIMD path for ``log``, ``exp``, ``cos`` and ``sin`` by CPU (SSE, AVX2, AVX-512), and the paths
differ in the last bits. The datasets therefore avoid them where a last bit reaches the data:

* the Box–Muller normals (the ``overconfident`` and ``mixed`` logits) use ``calib.rng``'s own log, cos
  and sin, written in separately rounded IEEE operations, which give the same bits everywhere;
* the labels are drawn by comparing cumulative softmax probabilities (numpy's ``exp``) with a uniform:
  a last-bit change could flip a label only if a uniform lay within a few ulps (about 1e-15) of a
  cumulative probability. Every draw is checked to clear its boundary by at least ``LABEL_MARGIN``.

The build as a whole is compared byte for byte with numpy's SIMD paths disabled in
``test_cpu_independent_build.py``.
"""

import hashlib
import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest
from conftest import NUMPY_WITHOUT_SIMD, ROOT

from calib import DATASET_NAMES, load, scaled_probs
from calib.datasets import MIXED_SEED, OVERCONFIDENT_SEED, SIM_LABEL_TEMPERATURE, SIM_SEED, latent_population, sim
from calib.rng import _cos_sin, _log, lcg_uniforms

# a few-ulp change of a probability below 1 is below 1e-15; a million times that is still far below any
# gap a 2**-32 uniform grid and 10,000 rows make likely (about 1e-9)
LABEL_MARGIN = 1e-12


def ulps_apart(a, b):
    return np.abs(a - b) / np.spacing(np.maximum(np.abs(a), np.abs(b)))


def test_log_is_within_one_ulp_of_libm_on_the_generators_arguments():
    u = lcg_uniforms(OVERCONFIDENT_SEED, 60_000)
    x = np.concatenate([1.0 - u, [1.0, 0.5, 0.75, 2.0 ** -32, 1.0 - 2.0 ** -32, math.sqrt(0.5), 1e-300, 3e5]])
    libm = np.array([math.log(v) for v in x])
    assert ulps_apart(_log(x), libm).max() <= 1.0
    assert _log(np.array([1.0]))[0] == 0.0


def test_cos_and_sin_are_within_one_ulp_of_libm_on_the_generators_arguments():
    u = lcg_uniforms(MIXED_SEED, 60_000)
    quarter_turns = np.arange(9) / 8  # the awkward angles: multiples of pi/4, where the reduction cancels
    angles = 2.0 * np.pi * np.concatenate([u, quarter_turns, [2.0 ** -32, 1.0 - 2.0 ** -32]])
    cos, sin = _cos_sin(angles)
    assert ulps_apart(cos, np.array([math.cos(a) for a in angles])).max() <= 1.0
    assert ulps_apart(sin, np.array([math.sin(a) for a in angles])).max() <= 1.0
    assert _cos_sin(np.array([0.0])) == (1.0, 0.0)


def label_margins(probs, uniforms):
    """The smallest distance between each uniform and the cumulative probabilities that decide its label."""
    cumulative = np.cumsum(probs, axis=1)[:, :-1]  # the last class takes the rest (the draw caps at K - 1)
    return np.abs(cumulative - uniforms[:, None]).min(axis=1)


@pytest.mark.parametrize("seed, n", [(OVERCONFIDENT_SEED, 6000), (MIXED_SEED, 4000)], ids=["overconfident", "mixed"])
def test_latent_labels_clear_their_draw_boundaries(seed, n):
    z, labels = latent_population(seed, n)
    u = lcg_uniforms(seed, 12 * n).reshape(n, 12)[:, 11]
    margins = label_margins(scaled_probs(z, 1.0), u)
    assert margins.min() >= LABEL_MARGIN, f"row {int(margins.argmin())} lies {margins.min():.3g} from a boundary"
    assert labels.size == n


def test_simulated_labels_clear_their_draw_boundaries():
    logits, labels = sim(600)
    u = lcg_uniforms(SIM_SEED, 4 * 600).reshape(600, 4)[:, 3]
    margins = label_margins(scaled_probs(logits, SIM_LABEL_TEMPERATURE), u)
    assert margins.min() >= LABEL_MARGIN, f"row {int(margins.argmin())} lies {margins.min():.3g} from a boundary"


def test_the_label_margin_check_can_fail():
    probs = np.array([[0.25, 0.75]])
    assert label_margins(probs, np.array([0.25 + 1e-15]))[0] < LABEL_MARGIN
    assert label_margins(probs, np.array([0.5]))[0] == 0.25


def dataset_digests():
    """sha256 of every built-in dataset's arrays, by name."""
    digests = {}
    for name in DATASET_NAMES:
        data = load(name)
        h = hashlib.sha256()
        for array in (data.logits, data.labels, data.is_calibration, data.groups):
            if array is not None:
                h.update(np.ascontiguousarray(array).tobytes())
        digests[name] = h.hexdigest()
    return digests


def test_the_datasets_are_the_same_bits_with_numpy_simd_disabled():
    script = ("import json, sys; sys.path[:0] = [sys.argv[1], sys.argv[2]]\n"
              "from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__\n"
              "from test_dataset_bits import dataset_digests\n"
              "on = sorted(f for f in __cpu_dispatch__ if __cpu_features__.get(f))\n"
              "print(json.dumps({'dispatched': on, 'digests': dataset_digests()}))\n")
    env = dict(os.environ, **NUMPY_WITHOUT_SIMD, PYTHONDONTWRITEBYTECODE="1")
    done = subprocess.run([sys.executable, "-c", script, str(ROOT), str(ROOT / "tests")], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=300, check=True)
    other = json.loads(done.stdout)
    assert other["dispatched"] == [], "NPY_DISABLE_CPU_FEATURES left SIMD paths on: the comparison would be moot"
    assert other["digests"] == dataset_digests()
