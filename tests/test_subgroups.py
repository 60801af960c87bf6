"""Tests of calib.subgroups on the ``mixed`` dataset (group A over-confident, group B under-confident)."""

import numpy as np
import pytest

from calib import binning
from calib.datasets import load
from calib.fitting import fit_temperature
from calib.scaling import brier, nll, top_label
from calib.subgroups import CONDITIONS, POOLED, fit_group_temperatures, group_metrics, row_scores, subgroup_analysis

BIN_COUNTS = (5, 10, 15, 20)  # the bin counts these tests ask for (the engine has no default)


@pytest.fixture(scope="module")
def mixed():
    data = load("mixed")
    cal = data.is_calibration
    global_t = fit_temperature(data.logits[cal], data.labels[cal])
    return data, global_t, subgroup_analysis(data, global_t, BIN_COUNTS)


def test_row_scores_with_one_temperature_match_calib_scaling():
    data = load("sim-600")
    for t in (0.4, 1.0, 2.5):
        conf, correct, losses, squares = row_scores(data.logits, data.labels, t)
        ref_conf, ref_correct = top_label(data.logits, data.labels, t)
        np.testing.assert_allclose(conf, ref_conf, atol=1e-14)
        np.testing.assert_array_equal(correct, ref_correct)
        assert losses.mean() == pytest.approx(nll(data.logits, data.labels, t), abs=1e-13)
        assert squares.mean() == pytest.approx(brier(data.logits, data.labels, t), abs=1e-13)


def test_temperatures_are_fitted_on_the_right_rows(mixed):
    data, global_t, result = mixed
    assert result.groups == ("A", "B")
    assert result.temperatures["global"] == global_t
    for group in ("A", "B"):
        rows = data.is_calibration & (data.groups == group)
        assert result.temperatures[group] == pytest.approx(fit_temperature(data.logits[rows], data.labels[rows]))
    # A was sharpened ×3 and B softened ×0.5 from calibrated latent logits
    assert 2.5 < result.temperatures["A"] < 3.5 and 0.4 < result.temperatures["B"] < 0.6


def test_own_temperature_minimises_each_groups_calibration_nll(mixed):
    data, global_t, result = mixed
    for group in ("A", "B"):
        table = result.metrics["calibration"][group]
        assert table["group"].nll <= table["global"].nll
        assert table["group"].nll <= table["t1"].nll
        rows = data.is_calibration & (data.groups == group)
        own = result.temperatures[group]
        for nearby in (own * 0.99, own * 1.01):
            assert table["group"].nll <= nll(data.logits[rows], data.labels[rows], nearby)


def test_per_group_temperature_improves_each_groups_test_ece(mixed):
    """Measured 15-bin test ECE, global T → own T: A 0.105 → 0.026, B 0.452 → 0.046."""
    _, _, result = mixed
    for group in ("A", "B"):
        table = result.metrics["test"][group]
        assert table["group"].ece["equal-width"][15] < table["global"].ece["equal-width"][15] - 0.05
        assert table["group"].ece["equal-width"][15] < 0.06
    pooled = result.metrics["test"][POOLED]
    assert pooled["group"].ece["equal-width"][15] < pooled["global"].ece["equal-width"][15] - 0.1


def test_global_temperature_trades_ece_for_nll_on_the_pool(mixed):
    """One T cannot serve both groups: it lowers the pooled NLL but raises the pooled ECE."""
    _, _, result = mixed
    for part in ("calibration", "test"):
        pooled = result.metrics[part][POOLED]
        assert pooled["global"].nll < pooled["t1"].nll
        assert pooled["global"].ece["equal-width"][15] > pooled["t1"].ece["equal-width"][15]
        group_b = result.metrics[part]["B"]
        assert group_b["global"].ece["equal-width"][15] > group_b["t1"].ece["equal-width"][15]


def test_pooled_scores_are_the_row_weighted_mix_of_the_groups(mixed):
    _, _, result = mixed
    for part, table in result.metrics.items():
        for condition in CONDITIONS:
            a, b, pooled = table["A"][condition], table["B"][condition], table[POOLED][condition]
            assert pooled.n == a.n + b.n
            for field in ("nll", "brier", "accuracy", "mean_confidence"):
                mix = (getattr(a, field) * a.n + getattr(b, field) * b.n) / pooled.n
                assert getattr(pooled, field) == pytest.approx(mix, abs=1e-12)


def test_metrics_match_calib_binning_and_scaling(mixed):
    data, global_t, result = mixed
    rows = ~data.is_calibration & (data.groups == "A")
    conf, correct = top_label(data.logits[rows], data.labels[rows], global_t)
    metrics = result.metrics["test"]["A"]["global"]
    assert metrics.nll == pytest.approx(nll(data.logits[rows], data.labels[rows], global_t), abs=1e-13)
    for scheme in binning.SCHEMES:
        for b in BIN_COUNTS:
            assert metrics.ece[scheme][b] == pytest.approx(binning.ece(conf, correct, b, scheme), abs=1e-14)
            assert metrics.mce[scheme][b] == pytest.approx(binning.mce(conf, correct, b, scheme), abs=1e-14)
            expected = binning.reliability_bins(conf, correct, b, scheme)
            np.testing.assert_array_equal(metrics.bins[scheme][b].count, expected.count)
            assert metrics.bins[scheme][b].weighted_gap.sum() == pytest.approx(metrics.ece[scheme][b], abs=1e-14)
    assert metrics.bins["equal-width"][15].count.shape == (15,)


def test_row_scores_of_temperature_sets_are_each_sets_scores():
    """A (G, n) or (G, 1) temperature gives G rows of scores, each those of its own set (to the bit: the
    same kernel, elementwise division)."""
    data = load("sim-60")
    temps = np.array([0.7, 1.0, 2.2])
    sets = row_scores(data.logits, data.labels, temps[:, None])
    assert sets[0].shape == (3, 60) and sets[1].shape == (60,)
    for g, t in enumerate(temps):
        one = row_scores(data.logits, data.labels, np.full(60, t))
        for got, want in zip((sets[0][g], sets[2][g], sets[3][g]), (one[0], one[2], one[3])):
            np.testing.assert_allclose(got, want, rtol=1e-15, atol=0)
    with pytest.raises(ValueError, match="temperature sets"):
        row_scores(data.logits, data.labels, np.ones((2, 7)))


def test_rejects_bad_input():
    with pytest.raises(ValueError, match="no groups"):
        subgroup_analysis(load("sim-60"), 1.5, BIN_COUNTS)
    data = load("mixed")
    with pytest.raises(ValueError, match="global_t"):
        subgroup_analysis(data, -1.0, BIN_COUNTS)
    with pytest.raises(ValueError, match="groups"):
        fit_group_temperatures(data.logits, data.labels, data.groups[:10])
    with pytest.raises(ValueError, match="rows"):
        fit_group_temperatures(data.logits, data.labels, data.groups, rows=np.ones(3, bool))
    with pytest.raises(ValueError, match="temperature"):
        group_metrics(data.logits, data.labels, 0.0, BIN_COUNTS)
