"""calib.decision: the verdict rule on ranges written by hand, the paired changes against numpy restatements,
and the cost-bounded spread of the fitted T."""

import numpy as np
import pytest

from calib import fit_temperature
from calib.decision import MetricChange, metric_changes, paired_changes, temperature_spread, verdict


def change(before, after, lo, hi):
    return MetricChange(before, after, after - before, lo, hi, 0.5)


def changes(nll, brier=(0.1, 0.1, -0.01, 0.01), ece_w=(0.02, 0.02, -0.01, 0.01), ece_a=(0.02, 0.02, -0.01, 0.01)):
    return {"nll": change(*nll), "brier": change(*brier), "ece_equal-width": change(*ece_w),
            "ece_adaptive": change(*ece_a)}


def test_a_range_across_zero_is_unclear_with_the_largest_change_it_allows():
    v = verdict(changes((0.30, 0.28, -0.05, 0.01), ece_a=(0.014, 0.019, -0.004, 0.012)))
    assert v.code == "unclear" and v.nll_bound == pytest.approx(0.05)
    assert v.worse == ("ece_adaptive",) and v.worse_beyond == () and v.clear == ()


def test_a_range_below_zero_helps_and_one_above_hurts_and_is_named():
    helps = verdict(changes((0.30, 0.20, -0.12, -0.08), ece_w=(0.05, 0.02, -0.04, -0.01)))
    assert helps.code == "helps" and helps.clear == ("nll", "ece_equal-width")
    hurts = verdict(changes((0.30, 0.35, 0.02, 0.08), brier=(0.1, 0.12, 0.01, 0.03)))
    assert hurts.code == "hurts" and hurts.worse == ("nll", "brier") and hurts.worse_beyond == ("nll", "brier")


def test_a_range_that_prints_as_zero_is_no_change_either_way():
    """A whole range within 0.00005 of zero (printed as -0.0000 to -0.0000 at four decimals) neither helps nor
    hurts: a T of about 1 moves NLL by a millionth, beyond its range and of no use."""
    tiny = verdict(changes((0.30, 0.29999, -4e-5, -1e-6), brier=(0.1, 0.10001, 1e-6, 4e-5)))
    assert tiny.code == "unclear" and tiny.clear == () and tiny.worse_beyond == ()
    assert verdict(changes((0.30, 0.2999, -6e-5, -5.1e-5))).code == "helps"


def test_any_warning_makes_the_verdict_check_never_helps():
    from calib import fit_warnings
    warned = fit_warnings(9.99, 0.05, 10, (0.05, 10.0), nll=2.5, prior_nll=2.3)
    assert [w.code for w in warned] == ["t_high_bound", "chance_accuracy", "no_information"]
    v = verdict(changes((0.30, 0.20, -0.12, -0.08)), warned)
    assert v.code == "check" and v.nll_code == "helps" and v.checks == ("t_high_bound", "chance_accuracy",
                                                                        "no_information")
    assert verdict(changes((0.30, 0.20, -0.12, -0.08))).checks == ()
    # scores no better than the class frequencies: within 1% of their NLL
    assert [w.code for w in fit_warnings(1.5, 0.5, 4, (0.05, 10.0), nll=1.0, prior_nll=1.0101)] == ["no_information"]
    assert fit_warnings(1.5, 0.5, 4, (0.05, 10.0), nll=1.0, prior_nll=1.0102) == []


def test_paired_changes_score_both_temperatures_on_the_same_rows():
    rng = np.random.default_rng(5)
    z = rng.normal(size=(300, 4)) * 3
    y = rng.integers(0, 4, 300)
    t = 2.5

    def nll(temp):  # restated: log-sum-exp minus the label's scaled logit
        s = z / temp
        m = s.max(axis=1)
        return float(np.mean(m + np.log(np.exp(s - m[:, None]).sum(axis=1)) - s[np.arange(300), y]))

    paired, observed = paired_changes(z, y, t, 300, np.random.default_rng(1))
    out = metric_changes(paired, observed)
    assert out["nll"].before == pytest.approx(nll(1.0), rel=1e-9)
    assert out["nll"].after == pytest.approx(nll(t), rel=1e-9)
    assert out["nll"].change == pytest.approx(nll(t) - nll(1.0), rel=1e-9)
    # random labels: a softer T lowers NLL on nearly every resample
    assert out["nll"].hi < 0 and verdict(out).code == "helps"


def test_the_spread_of_t_brackets_the_fit_and_past_the_budget_resamples_a_subsample():
    rng = np.random.default_rng(7)
    z = rng.normal(size=(400, 5)) * 3
    p = np.exp(z / 2.0)
    p /= p.sum(axis=1, keepdims=True)
    y = (rng.random(400)[:, None] > np.cumsum(p, axis=1)).sum(axis=1)
    fitted = fit_temperature(z, y, method="bounded")
    full = temperature_spread(z, y, fitted, 300, np.random.default_rng(2), budget=10**9, min_resamples=50)
    assert full.subsample == 400 and full.resamples == 300
    assert full.values[0] < fitted < full.values[1] and 1.5 < full.values[0] and full.values[1] < 2.7
    small = temperature_spread(z, y, fitted, 300, np.random.default_rng(2), budget=50 * 5 * 100, min_resamples=50)
    assert small.resamples == 50 and small.subsample == 100
    # m-out-of-n: deviations scaled by sqrt(m / n), so the range stays on the scale of the full sample's
    assert small.values[0] < fitted < small.values[1]
    assert 0.3 < (small.values[1] - small.values[0]) / (full.values[1] - full.values[0]) < 3


def test_beyond_twenty_classes_the_per_class_view_keeps_the_most_frequent_and_groups_the_rest():
    from types import SimpleNamespace

    from calib import reliability_bins, scaled_probs
    from sitegen.yours.decision import _classes
    rng = np.random.default_rng(3)
    n, k = 600, 30
    y = np.minimum((rng.random(n) ** 2 * k).astype(int), k - 1)  # low classes most frequent
    z = rng.normal(size=(n, k))
    z[np.arange(n), y] += 2.0
    view = _classes(SimpleNamespace(logits=z, labels=y), np.ones(n, bool), 1.7, 20)
    counts = np.bincount(y, minlength=k)
    assert not view.all and view.shown == 20 and view.k == k
    assert [r.count for r in view.rows] == sorted(counts, reverse=True)[:20]
    assert view.other.count == n - sum(r.count for r in view.rows)
    # a shown class's error is its own column's one-vs-rest binned error (restated with reliability_bins)
    first = view.rows[0]
    p = scaled_probs(z, 1.7)[:, first.cls]
    expected = reliability_bins(p, y == first.cls, 15).weighted_gap.sum()
    assert first.fit == pytest.approx(float(expected), abs=1e-12)


def test_the_refits_of_t_past_the_budget_are_as_many_as_the_docs_say():
    """docs/your-model.md: past 8·10⁶ values, floor(8·10⁶ / (n·K)) refits, never under 100, in the page's report
    and in python -m calib fit alike (the counts a reader saw: 166 and 100)."""
    from pathlib import Path

    from calib.__main__ import SPREAD_BUDGET, SPREAD_MIN_RESAMPLES
    from sitegen.common.settings import USER_SPREAD_BUDGET, USER_SPREAD_MIN_RESAMPLES

    assert (SPREAD_BUDGET, SPREAD_MIN_RESAMPLES) == (USER_SPREAD_BUDGET, USER_SPREAD_MIN_RESAMPLES) == (8_000_000, 100)
    doc = " ".join((Path(__file__).resolve().parents[1] / "docs" / "your-model.md").read_text().split())
    assert "⌊8·10⁶ / (n·K)⌋ but never under 100" in doc
    rng = np.random.default_rng(0)
    for n, k, expected in ((4_800, 10, 166), (9_000, 10, 100), (300, 10, 2000)):
        z = rng.normal(size=(n, k))
        y = rng.integers(0, k, n)
        spread = temperature_spread(z, y, 1.0, 2000, np.random.default_rng(1), SPREAD_BUDGET, SPREAD_MIN_RESAMPLES)
        assert spread.resamples == expected == max(100, min(2000, SPREAD_BUDGET // (n * k)))
