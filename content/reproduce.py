"""The six-example worked example, recomputed with numpy alone.

Fits the temperature by golden-section search, then prints NLL, four-bin
equal-width ECE and the multiclass Brier score at T = 1 and at the fitted T.
"""

import math

import numpy as np

# Six three-class predictions: raw logits, and the class that turned out true.
LOGITS = np.array([
    [3.0, 1.0, 0.0],
    [2.5, 1.0, 0.0],
    [3.0, 0.5, 0.0],
    [1.5, 2.0, 0.0],
    [0.5, 0.0, 1.5],
    [2.0, 2.2, 0.0],
])
TRUTH = np.array([0, 0, 1, 1, 2, 0])
ROWS = np.arange(len(TRUTH))


# Subtracting each row's largest logit changes no probability and keeps exp() from overflowing.
SHIFTED = LOGITS - LOGITS.max(axis=1, keepdims=True)


def probabilities(t):
    """softmax(logits / t), one row per example."""
    weights = np.exp(SHIFTED / t)
    return weights / weights.sum(axis=1, keepdims=True)


def mean_nll(t):
    """Average of -ln(probability given to the true class), in nats."""
    return float(-np.log(probabilities(t)[ROWS, TRUTH]).mean())


def brier(t):
    """Squared distance to the one-hot truth, summed over classes, averaged over rows (0 to 2)."""
    one_hot = np.eye(LOGITS.shape[1])[TRUTH]
    return float(((probabilities(t) - one_hot) ** 2).sum(axis=1).mean())


def ece(t, n_bins=4):
    """Top-label ECE with equal-width bins [0, 1/B), ..., [(B-1)/B, 1]."""
    winner = LOGITS.argmax(axis=1)              # the same class at every t
    confidence = probabilities(t)[ROWS, winner]
    hit = (winner == TRUTH).astype(float)
    interior_edges = np.linspace(0.0, 1.0, n_bins + 1)[1:-1]
    bin_of = np.digitize(confidence, interior_edges)  # an edge value joins the bin above it
    # A bin's weighted gap, (count / n) * |accuracy - mean confidence|,
    # equals |sum of hits - sum of confidences| / n.
    hits_per_bin = np.bincount(bin_of, weights=hit, minlength=n_bins)
    conf_per_bin = np.bincount(bin_of, weights=confidence, minlength=n_bins)
    return float(np.abs(hits_per_bin - conf_per_bin).sum() / len(TRUTH))


def golden_section(f, low, high, tolerance=1e-7):
    """Minimum of a one-valley function f on [low, high]: shrink the bracket until narrower than tolerance."""
    shrink = (math.sqrt(5.0) - 1.0) / 2.0       # 0.618..., so one probe is reused each step
    probes = [high - shrink * (high - low), low + shrink * (high - low)]
    values = [f(probes[0]), f(probes[1])]
    while high - low > tolerance:
        if values[0] <= values[1]:              # the minimum is not right of probes[1]
            high = probes[1]
            probes = [high - shrink * (high - low), probes[0]]
            values = [f(probes[0]), values[0]]
        else:                                   # the minimum is not left of probes[0]
            low = probes[0]
            probes = [probes[1], low + shrink * (high - low)]
            values = [values[1], f(probes[1])]
    return (low + high) / 2.0


if __name__ == "__main__":
    fitted = golden_section(mean_nll, 0.05, 10.0)
    print(f"fitted temperature T* = {fitted:.5f}")
    print(f"{'':22}{'T = 1':>10}{'T = T*':>10}")
    print(f"{'mean NLL (nats)':22}{mean_nll(1.0):>10.5f}{mean_nll(fitted):>10.5f}")
    print(f"{'ECE, 4 equal bins':22}{100 * ece(1.0):>9.1f}%{100 * ece(fitted):>9.1f}%")
    print(f"{'Brier score':22}{brier(1.0):>10.3f}{brier(fitted):>10.3f}")
