"""calib.caltest: the tests of calibration, from their definitions (Bröcker & Smith 2007; Widmann, Lindsten &
Zachariah 2019), not from the code: an exact null probability, plain loops over pairs, labels redrawn by hand, and
the false-alarm rate on calibrated data, by simulation, within Monte Carlo error of the stated level.

The simulations here run a few hundred data sets (about ten seconds); bench/caltest.py runs them at full size."""

import itertools
import math

import numpy as np
import pytest

import calib
from calib.caltest import median_bandwidth, skce, skce_test

LEVEL = 0.05
SETS = 400  # calibrated data sets per size check: the rejection count is Binomial(SETS, LEVEL) if the size holds


def within_monte_carlo_error(rejections, sets=SETS, level=LEVEL, sds=3.0):
    """Whether a rejection count is within ``sds`` binomial standard deviations of ``sets`` × ``level``."""
    return abs(rejections - sets * level) <= sds * math.sqrt(sets * level * (1 - level))


def calibrated_set(gen, n):
    """Top-label confidences spread over [0.3, 1) and outcomes drawn from them: calibrated by construction."""
    conf = 0.3 + 0.7 * gen.beta(2.0, 1.2, n)
    return conf, gen.random(n) < conf


# ------------------------------------------------------------------ consistency resampling of the ECE

def test_p_value_is_the_exact_null_probability_of_an_ece_at_least_as_large():
    """Three rows at confidence ½, one bin, all right: ECE = ½, and a calibrated model reaches ½ only when all
    three outcomes agree, probability 2/8. With many draws p = (1 + count) / (1 + draws) comes close to it."""
    result = calib.ece_consistency_test([0.5, 0.5, 0.5], [1, 1, 1], n_bins=1, n_draws=20_000, rng=3)
    assert result.statistic == pytest.approx(0.5)
    assert abs(result.p_value - 0.25) < 4 * math.sqrt(0.25 * 0.75 / 20_000)
    assert result.null_mean == pytest.approx(0.75 * (1 / 6) + 0.25 * 0.5, abs=0.01)  # E|hits/3 − ½|


@pytest.mark.parametrize("scheme", calib.SCHEMES)
def test_statistic_is_the_binned_ece(scheme):
    gen = np.random.default_rng(4)
    conf = np.round(gen.uniform(0.2, 1.0, 300), 2)  # ties, which adaptive bins must place by position
    hits = gen.random(300) < conf ** 1.5
    result = calib.ece_consistency_test(conf, hits, n_bins=10, scheme=scheme, n_draws=20, rng=0)
    assert result.statistic == pytest.approx(calib.ece(conf, hits, 10, scheme), abs=1e-12)
    assert 1 / 21 <= result.p_value <= 1 and result.n_draws == 20


def test_size_on_calibrated_data_is_the_stated_level():
    """On calibrated data sets, rejecting when p ≤ 5% (99 draws: (99 + 1) × 5% is whole, so the size is 5%)
    happens 5% of the time, within Monte Carlo error; on the over-confident set at T = 1 it always rejects."""
    gen = np.random.default_rng(2024)
    rejections = 0
    for _ in range(SETS):
        conf, hits = calibrated_set(gen, 200)
        rejections += calib.ece_consistency_test(conf, hits, n_draws=99, rng=gen).p_value <= LEVEL
    assert within_monte_carlo_error(rejections), rejections
    data = calib.load("overconfident")
    conf, hits = calib.top_label(data.logits[:1000], data.labels[:1000], 1.0)
    assert calib.ece_consistency_test(conf, hits, n_draws=99).p_value == 1 / 100


# ------------------------------------------------------------------ the squared kernel calibration error

def kernel(p, q, nu):
    return math.exp(-math.sqrt(sum((a - b) ** 2 for a, b in zip(p, q))) / nu)


def h(p, y, q, z, nu):
    """Widmann et al.'s h for the kernel κ(p, q) I: κ(p, q) ⟨e_y − p, e_z − q⟩, written out class by class."""
    return kernel(p, q, nu) * sum(((y == k) - p[k]) * ((z == k) - q[k]) for k in range(len(p)))


def probability_rows(gen, n, k):
    p = gen.dirichlet(np.full(k, 0.7), n)
    return p, np.array([gen.choice(k, p=row) for row in p])


def test_quadratic_estimator_is_its_definition_and_the_test_redraws_labels_from_the_vectors():
    gen = np.random.default_rng(9)
    p, y = probability_rows(gen, 23, 3)
    nu = 0.4
    pairs = [h(p[i], y[i], p[j], y[j], nu) for i, j in itertools.combinations(range(23), 2)]
    assert skce(p, y, bandwidth=nu) == pytest.approx(np.mean(pairs), abs=1e-12)
    result = skce_test(p, y, bandwidth=nu, n_draws=40, rng=5)
    assert result.statistic == pytest.approx(np.mean(pairs), abs=1e-12) and result.rows == 23
    # the null: labels redrawn as Cat(p_i); its mean over many draws is the SKCE's expectation under calibration, 0
    many = skce_test(p, y, bandwidth=nu, n_draws=4000, rng=6)
    draws = [skce(p, np.array([gen.choice(3, p=row) for row in p]), bandwidth=nu) for _ in range(300)]
    assert abs(many.null_mean) < 4 * np.std(draws) / math.sqrt(4000)
    assert abs(many.p_value - np.mean(np.array(draws) >= many.statistic)) < 0.1
    big = skce_test(*probability_rows(gen, 300, 3), max_rows=120, n_draws=10)
    assert big.rows == 120


def test_median_bandwidth_is_the_median_pairwise_distance():
    gen = np.random.default_rng(1)
    p, _ = probability_rows(gen, 40, 4)
    distances = [np.linalg.norm(p[i] - p[j]) for i, j in itertools.combinations(range(40), 2)]
    assert median_bandwidth(p) == pytest.approx(np.median(distances), abs=1e-12)
    assert median_bandwidth(p, max_rows=5) == pytest.approx(
        np.median([np.linalg.norm(p[i] - p[j]) for i, j in itertools.combinations([0, 10, 20, 29, 39], 2)]))


def test_skce_size_on_calibrated_data_and_power_on_sharpened_data():
    """Labels drawn from the predicted vectors (canonical calibration): rejecting when p ≤ 5% (99 draws) happens
    5% of the time, within Monte Carlo error; the same labels under sharpened vectors are rejected."""
    gen = np.random.default_rng(77)
    rejections = 0
    for _ in range(SETS):
        p, _ = probability_rows(gen, 100, 3)
        y = (p.cumsum(axis=1) < gen.random((100, 1))).sum(axis=1).clip(0, 2)
        rejections += skce_test(p, y, n_draws=99, rng=gen).p_value <= LEVEL
    assert within_monte_carlo_error(rejections), rejections
    p, _ = probability_rows(gen, 400, 3)
    y = (p.cumsum(axis=1) < gen.random((400, 1))).sum(axis=1).clip(0, 2)
    sharpened = np.exp(3 * np.log(p))
    sharpened /= sharpened.sum(axis=1, keepdims=True)  # over-confident: the same labels, sharper vectors
    assert skce_test(sharpened, y, n_draws=99).p_value == 0.01


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="confidence"):
        calib.ece_consistency_test([[0.5]], [1])
    with pytest.raises(ValueError, match="probs"):
        skce_test(np.array([[0.5, 0.6], [0.5, 0.5]]), np.array([0, 1]))
    with pytest.raises(ValueError, match="labels"):
        skce(np.array([[0.5, 0.5], [0.5, 0.5]]), np.array([0, 2]))
