"""Class-wise ECE and static calibration error against a naive loop over classes, bins and rows."""

import numpy as np
import pytest
import scipy.special

from calib import SCHEMES, classwise_bins, classwise_ece, ece, static_calibration_error


def random_probs(seed, n=250, k=4):
    rng = np.random.default_rng(seed)
    probs = scipy.special.softmax(rng.normal(size=(n, k)) * 2.5, axis=1)
    labels = (probs.cumsum(axis=1) < rng.uniform(size=(n, 1)) ** 0.7).sum(axis=1).clip(0, k - 1)
    return probs, labels


def naive_classwise(probs, labels, n_bins, scheme):
    """(1/K) Σ_k Σ_b |B_kb|/n · |acc − conf|, one class, bin and row at a time."""
    n, k = probs.shape
    total = 0.0
    for c in range(k):
        values = probs[:, c]
        if scheme == "equal-width":
            edges = np.linspace(0, 1, n_bins + 1)
            members = [[i for i in range(n) if edges[b] <= values[i] < edges[b + 1]
                        or (b == n_bins - 1 and values[i] == 1.0)] for b in range(n_bins)]
        else:
            order = sorted(range(n), key=lambda i: (values[i], i))
            members = [list(part) for part in np.array_split(order, min(n_bins, n))]
        for rows in members:
            if rows:
                conf = sum(values[i] for i in rows) / len(rows)
                acc = sum(labels[i] == c for i in rows) / len(rows)
                total += len(rows) / n * abs(acc - conf)
    return total / k


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("n_bins", [1, 4, 15])
def test_classwise_ece_equals_the_naive_loop(scheme, n_bins):
    probs, labels = random_probs(41)
    expected = naive_classwise(probs, labels, n_bins, scheme)
    assert classwise_ece(probs, labels, n_bins, scheme) == pytest.approx(expected, abs=1e-12)
    assert static_calibration_error(probs, labels, n_bins, scheme) == pytest.approx(expected, abs=1e-12)


def test_edges_and_exact_ones_go_where_ece_puts_them():
    probs = np.array([[0.5, 0.5], [1.0, 0.0], [0.25, 0.75], [0.0, 1.0]])
    labels = np.array([0, 0, 1, 0])
    assert classwise_ece(probs, labels, 4) == pytest.approx(naive_classwise(probs, labels, 4, "equal-width"),
                                                            abs=1e-15)


def test_two_classes_repeat_the_top_label_ece_per_class():
    """With K = 2, class 0's bins are class 1's mirrored: each class's error equals the other's."""
    probs, labels = random_probs(42, k=2)
    bins = classwise_bins(probs, labels, 10)
    per_class = bins.weighted_gap.sum(axis=1)
    assert per_class[0] == pytest.approx(per_class[1], abs=1e-12)
    assert ece(probs[:, 0], labels == 0, 10) == pytest.approx(per_class[0], abs=1e-12)


def test_classwise_bins_shape_and_counts():
    probs, labels = random_probs(43)
    bins = classwise_bins(probs, labels, 6, "adaptive")
    assert bins.count.shape == (4, 6) and bins.count.sum(axis=1).tolist() == [250] * 4


@pytest.mark.parametrize("probs, labels, match", [
    ([0.2, 0.8], [1], "probs"),
    ([[0.2, 1.8]], [1], "probs"),
    ([[0.2, np.nan]], [1], "probs"),
    ([[0.2, 0.8]], [2], "labels"),
    ([[0.2, 0.8]], [0, 1], "labels"),
])
def test_bad_input_is_refused_naming_the_argument(probs, labels, match):
    for measure in (classwise_ece, static_calibration_error):
        with pytest.raises(ValueError, match=f"^{match}"):
            measure(probs, labels, 5)
    with pytest.raises(ValueError, match="^n_bins"):
        classwise_ece([[0.2, 0.8]], [1], 0)
    with pytest.raises(ValueError, match="^scheme"):
        classwise_ece([[0.2, 0.8]], [1], 5, "quantile")
