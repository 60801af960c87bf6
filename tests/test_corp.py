"""The CORP reliability diagram: PAV against scikit-learn, the exact score decomposition, the consistency band."""

import numpy as np
import pytest
from sklearn.isotonic import IsotonicRegression

import calib
from calib import corp, corp_band, load, top_label
from calib.corp import pav


def overconfident_pairs(n=3000):
    data = load("overconfident")
    mask = data.is_calibration
    confidence, correct = top_label(data.logits[mask][:n], data.labels[mask][:n], 1.0)
    return confidence, correct


def test_pav_equals_scikit_learn_isotonic_regression():
    confidence, correct = overconfident_pairs()
    result = corp(confidence, correct)
    iso = IsotonicRegression(out_of_bounds="clip").fit(confidence, correct.astype(float))
    np.testing.assert_allclose(result.accuracy, iso.predict(result.confidence), atol=1e-12, rtol=0)
    assert np.all(np.diff(result.confidence) > 0) and np.all(np.diff(result.accuracy) >= 0)
    assert result.count.sum() == confidence.size


def test_pav_pools_ties_and_weights_like_scikit_learn():
    rng = np.random.default_rng(51)
    x = np.round(rng.uniform(size=400), 2)
    y = (rng.uniform(size=400) < x).astype(float)
    w = rng.uniform(0.5, 2.0, size=400)
    knots, fitted, weight = pav(x, y, w)
    expected = IsotonicRegression().fit(x, y, sample_weight=w).predict(knots)
    np.testing.assert_allclose(fitted, expected, atol=1e-12, rtol=0)
    np.testing.assert_allclose(weight.sum(), w.sum(), rtol=1e-12)


@pytest.mark.parametrize("n", [50, 3000])
def test_scores_split_exactly_into_mcb_dsc_unc(n):
    confidence, correct = overconfident_pairs(n)
    result = corp(confidence, correct)
    hits = correct.astype(float)
    for part, score in ((result.brier, np.mean((confidence - hits) ** 2)),
                        (result.log, -np.mean(hits * np.log(confidence) + (1 - hits) * np.log1p(-confidence)))):
        assert part.score == pytest.approx(score, abs=1e-12)
        assert part.score == pytest.approx(part.miscalibration - part.discrimination + part.uncertainty, abs=1e-14)
        assert part.miscalibration >= 0 and part.discrimination >= -1e-15
    rate = hits.mean()
    assert result.brier.uncertainty == pytest.approx(rate * (1 - rate), abs=1e-15)
    assert result.log.uncertainty == pytest.approx(-(rate * np.log(rate) + (1 - rate) * np.log(1 - rate)), abs=1e-14)
    # the recalibrated forecast's Brier score, written out from the PAV fit
    recal = result.accuracy[np.searchsorted(result.confidence, confidence)]
    assert result.brier.miscalibration == pytest.approx(result.brier.score - np.mean((recal - hits) ** 2), abs=1e-14)


def test_the_overconfident_model_shows_miscalibration():
    result = corp(*overconfident_pairs())
    assert result.brier.miscalibration > 0.005  # over-confident by design (logits sharpened ×2)


def test_a_calibrated_forecast_is_recalibrated_to_itself_on_average():
    """Outcomes drawn from the confidence: small miscalibration, much smaller than the over-confident set's."""
    rng = np.random.default_rng(52)
    conf = rng.uniform(0.3, 1.0, size=3000)
    result = corp(conf, rng.uniform(size=3000) < conf)
    assert result.brier.miscalibration < corp(*overconfident_pairs()).brier.miscalibration / 3


def test_band_is_deterministic_ordered_and_holds_a_calibrated_curve():
    rng = np.random.default_rng(53)
    conf = np.round(rng.uniform(0.4, 1.0, size=2000), 3)
    band = corp_band(conf, n_resamples=300, rng=7)
    again = corp_band(conf, n_resamples=300, rng=np.random.default_rng(7))
    np.testing.assert_array_equal(band.bounds, again.bounds)
    assert band.quantiles == (0.05, 0.95) and band.bounds.shape == (2, band.confidence.size)
    assert np.all(band.bounds[0] <= band.bounds[1])
    inside = (band.bounds[0] <= band.confidence) & (band.confidence <= band.bounds[1])
    assert inside.mean() > 0.9  # the diagonal (a calibrated curve) lies in its own band almost everywhere


def test_bad_input_is_refused_naming_the_argument():
    with pytest.raises(ValueError, match="^confidence"):
        corp([0.5, 1.2], [1, 0])
    with pytest.raises(ValueError, match="^confidence must be 1-D"):
        corp([[0.5, 0.6]], [1, 0])
    with pytest.raises(ValueError, match="^correct"):
        corp([0.5, 0.6], [1, 2])
    with pytest.raises(ValueError, match="^n_resamples"):
        corp_band([0.5, 0.6], n_resamples=0)
    with pytest.raises(ValueError, match="^quantiles"):
        corp_band([0.5, 0.6], quantiles=(0.9, 0.1))
    with pytest.raises(ValueError, match="^rng"):
        corp_band([0.5, 0.6], rng=-1)


# ------------------------------------------------------------------ the decomposition's uncertainty (issue 27)

def _decomposition_by_sklearn(conf, hits):
    """Dimitriadis et al.'s terms from scikit-learn's isotonic regression on the rows as given (duplicates and
    all): MCB = S(c) − S(ĉ), DSC = S(r̄) − S(ĉ), UNC = S(r̄), S the mean Brier score."""
    from sklearn.isotonic import IsotonicRegression

    recal = IsotonicRegression(increasing=True).fit_transform(conf, hits)
    rate = hits.mean()
    score, s_recal, s_rate = (np.mean((f - hits) ** 2) for f in (conf, recal, np.full_like(conf, rate)))
    return score, score - s_recal, s_rate - s_recal, s_rate


def test_weighted_decomposition_is_the_decomposition_of_the_repeated_rows():
    rng = np.random.default_rng(12)
    conf = np.round(rng.uniform(0.3, 1.0, 80), 2)
    hits = (rng.random(80) < conf ** 2).astype(float)
    weights = rng.integers(0, 4, 80)
    rows = np.repeat(np.arange(80), weights)
    got = calib.brier_decomposition(conf, hits, weights)
    want = _decomposition_by_sklearn(conf[rows], hits[rows])
    assert np.allclose(got, want, atol=1e-12)
    assert got[0] == pytest.approx(got[1] - got[2] + got[3], abs=1e-12)


def test_spread_is_a_loop_over_the_same_resamples_and_outcome_sets():
    """The bootstrap quantiles of every term and MCB's quantiles under calibration, recomputed by a loop with
    scikit-learn on gathered rows; the draws are the ones the docstring names (resample counts, then outcomes)."""
    rng = np.random.default_rng(3)
    conf = np.round(rng.uniform(0.3, 1.0, 150), 3)
    hits = rng.random(150) < conf ** 1.4
    spread = calib.corp_decomposition_spread(conf, hits, n_resamples=60, rng=5)
    gen = np.random.default_rng(5)
    counts = calib.resample_counts(150, 60, gen)
    terms = np.array([_decomposition_by_sklearn(conf[np.repeat(np.arange(150), c)],
                                                hits[np.repeat(np.arange(150), c)].astype(float)) for c in counts])
    outcomes = gen.random((60, 150)) < conf
    null = np.array([_decomposition_by_sklearn(conf, o.astype(float))[1] for o in outcomes])
    for got, column in ((spread.score, 0), (spread.miscalibration, 1), (spread.discrimination, 2),
                        (spread.uncertainty, 3)):
        assert np.allclose(got, np.quantile(terms[:, column], [0.05, 0.95]), atol=1e-12)
    assert np.allclose(spread.null_miscalibration, np.quantile(null, [0.05, 0.95]), atol=1e-12)
