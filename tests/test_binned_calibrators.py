"""Histogram binning, isotonic calibration and scaling-binning against independent implementations.

Histogram binning and scaling-binning are closed-form: a loop over classes and rows written here gives the
same outputs. Isotonic calibration is scikit-learn's IsotonicRegression per class (one-vs-rest), renormalised.
"""

import numpy as np
import pytest
import scipy.special
from sklearn.isotonic import IsotonicRegression

from calib import HistogramBinning, IsotonicCalibration, ScalingBinning, fit_temperature, load

EXACT = 1e-12  # the outputs agree to rounding (sums in another order)


def random_problem(seed, n=240, k=4):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, k)) * rng.uniform(1.0, 4.0)
    p = scipy.special.softmax(z / rng.uniform(0.4, 2.5), axis=1)
    y = (p.cumsum(axis=1) < rng.uniform(size=(n, 1))).sum(axis=1).clip(0, k - 1)
    return z, y


def renormalise_loop(rows):
    out = []
    for row in rows:
        total = sum(row)
        out.append([v / total for v in row] if total > 0 else [1.0 / len(row)] * len(row))
    return np.array(out)


def loop_edges(values, n_bins, scheme):
    """Per-class edges: linspace, or the first value of each later equal-mass group (array_split sizes)."""
    if scheme == "equal-width":
        return [list(np.linspace(0, 1, n_bins + 1))] * values.shape[1]
    edges = []
    for column in values.T:
        groups = np.array_split(np.sort(column), min(n_bins, len(column)))
        edges.append([0.0] + [g[0] for g in groups[1:]] + [1.0])
    return edges


def loop_bin(v, edges):
    """The bin whose [lower, upper) holds v (the last bin also holds its upper edge)."""
    for b in range(len(edges) - 1):
        if edges[b] <= v < edges[b + 1]:
            return b
    return len(edges) - 2


def loop_binned_calibrator(train_values, train_targets, test_values, n_bins, scheme):
    """Closed-form binning, one class and one row at a time: bin → mean target (midpoint if empty)."""
    n, k = train_values.shape
    edges = loop_edges(train_values, n_bins, scheme)
    out = np.empty(test_values.shape)
    for c in range(k):
        sums, counts = {}, {}
        for i in range(n):
            b = loop_bin(train_values[i, c], edges[c])
            sums[b] = sums.get(b, 0.0) + train_targets[i, c]
            counts[b] = counts.get(b, 0) + 1
        for i in range(test_values.shape[0]):
            b = loop_bin(test_values[i, c], edges[c])
            out[i, c] = sums[b] / counts[b] if b in counts else (edges[c][b] + edges[c][b + 1]) / 2
    return renormalise_loop(out)


@pytest.mark.parametrize("scheme", ["equal-width", "adaptive"])
@pytest.mark.parametrize("n_bins", [1, 5, 15])
def test_histogram_binning_equals_the_closed_form_loop(scheme, n_bins):
    z, y = random_problem(31)
    z_test, _ = random_problem(32)
    model = HistogramBinning(n_bins=n_bins, scheme=scheme).fit(z, y)
    p, p_test = scipy.special.softmax(z, axis=1), scipy.special.softmax(z_test, axis=1)
    expected = loop_binned_calibrator(p, np.eye(4)[y], p_test, n_bins, scheme)
    np.testing.assert_allclose(model.predict_proba(z_test), expected, atol=EXACT, rtol=0)
    assert model.edges_.shape == (4, n_bins + 1) and model.bin_counts_.sum(axis=1).tolist() == [240] * 4


def test_histogram_binning_equal_width_edges_are_stated():
    model = HistogramBinning(n_bins=10).fit(*random_problem(33))
    np.testing.assert_array_equal(model.edges_, np.tile(np.linspace(0, 1, 11), (4, 1)))
    assert model.n_bins == 10 and model.scheme == "equal-width"


def test_adaptive_bins_hold_equal_masses():
    z, y = random_problem(34, n=300)
    model = HistogramBinning(n_bins=7, scheme="adaptive").fit(z, y)
    sizes = model.bin_counts_
    assert sizes.max() - sizes.min() <= 1  # continuous probabilities: no ties at the cut points


def test_a_row_of_zeros_becomes_uniform():
    """Where every class's bin value is 0 the row is 1/K, not 0/0 (bins set to 0 by hand after the fit)."""
    z, y = random_problem(40, k=3)
    model = HistogramBinning(n_bins=2).fit(z, y)
    model.bin_values_[:, 0] = 0.0  # the lower bin of every class
    low = np.array([[0.0, 0.0, 0.0]])  # every class probability 1/3: all three in their lower bin
    np.testing.assert_array_equal(model.predict_proba(low), [[1 / 3, 1 / 3, 1 / 3]])


def sklearn_isotonic(p, y, p_test):
    k = p.shape[1]
    out = np.empty(p_test.shape)
    for c in range(k):
        iso = IsotonicRegression(out_of_bounds="clip").fit(p[:, c], (y == c).astype(float))
        out[:, c] = iso.predict(p_test[:, c])
    return renormalise_loop(out)


@pytest.mark.parametrize("seed", [35, 36])
def test_isotonic_equals_scikit_learn_one_vs_rest(seed):
    z, y = random_problem(seed)
    z_test = np.concatenate([random_problem(seed + 100)[0], z[:20], [[30.0, -30.0, 0.0, 0.0]]])  # beyond the knots
    model = IsotonicCalibration().fit(z, y)
    expected = sklearn_isotonic(scipy.special.softmax(z, axis=1), y, scipy.special.softmax(z_test, axis=1))
    np.testing.assert_allclose(model.predict_proba(z_test), expected, atol=EXACT, rtol=0)


def test_isotonic_pools_tied_probabilities_as_scikit_learn_does():
    z = np.round(random_problem(37)[0], 1)  # coarse logits: many tied probabilities
    y = random_problem(37)[1]
    z[:10] = z[0]
    model = IsotonicCalibration().fit(z, y)
    p = scipy.special.softmax(z, axis=1)
    np.testing.assert_allclose(model.predict_proba(z), sklearn_isotonic(p, y, p), atol=EXACT, rtol=0)
    for knots, values in zip(model.thresholds_, model.values_):
        assert np.all(np.diff(knots) > 0) and np.all(np.diff(values) >= 0)


@pytest.mark.parametrize("scheme", ["adaptive", "equal-width"])
def test_scaling_binning_is_bin_means_of_the_tempered_probabilities(scheme):
    z, y = random_problem(38)
    z_test, _ = random_problem(39)
    model = ScalingBinning(n_bins=10, scheme=scheme).fit(z, y)
    t = fit_temperature(z, y)
    assert model.temperature_ == pytest.approx(t, abs=1e-7)
    q, q_test = scipy.special.softmax(z / t, axis=1), scipy.special.softmax(z_test / t, axis=1)
    expected = loop_binned_calibrator(q, q, q_test, 10, scheme)
    np.testing.assert_allclose(model.predict_proba(z_test), expected, atol=1e-9, rtol=0)


def test_scaling_binning_defaults_to_equal_mass_bins_and_takes_few_values():
    data = load("overconfident")
    z, y = data.logits[data.is_calibration], data.labels[data.is_calibration]
    model = ScalingBinning().fit(z, y)
    assert model.scheme == "adaptive" and model.n_bins == 15
    assert np.unique(model.bin_values_).size <= 10 * 15  # each class's outputs take at most B values
    probs = model.predict_proba(data.logits[~data.is_calibration])
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, atol=1e-12)
