"""Issue 20's deep dives: calib.compare against direct computation, ``python -m calib compare``, the facts of
sitegen/facts/beyond_dives.py against the engine, the delta-method standard error against a numerical derivative,
and the built page's #beyond section quoting those numbers."""

import html
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from shared_values import built_fits

import calib
from sitegen.common.numbers import fixed, pct, pp, temp, thousands

ROOT = Path(__file__).resolve().parents[1]


def split(name):
    data = calib.load(name)
    masks = calib.part_masks(data)
    cal, test = masks["calibration"], masks["test"]
    return data.logits[cal], data.labels[cal], data.logits[test], data.labels[test]


def top(probs, labels):
    return probs.max(axis=1), probs.argmax(axis=1) == labels


# ------------------------------------------------------------------ calib.compare

@pytest.fixture(scope="module")
def sim():
    zc, yc, zt, yt = split("sim-600")
    return zc, yc, zt, yt, calib.compare_calibrators(zc, yc, zt, yt, n_resamples=40, seed=7)


def test_table_is_every_calibrator_scored_directly(sim):
    zc, yc, zt, yt, result = sim
    assert result.methods == tuple(calib.CALIBRATORS) and result.methods[0] == "temperature"
    for i, name in enumerate(result.methods):
        probs = calib.CALIBRATORS[name]().fit(zc, yc).predict_proba(zt)
        p_true = probs[np.arange(yt.size), yt]
        conf, hits = top(probs, yt)
        with np.errstate(divide="ignore"):
            expected = {"nll": float(np.mean(-np.log(p_true))),
                        "brier": float(np.mean(np.sum((probs - np.eye(3)[yt]) ** 2, axis=1))),
                        "ece_w": calib.ece(conf, hits, 15), "ece_a": calib.ece(conf, hits, 15, "adaptive"),
                        "cw_ece": calib.classwise_ece(probs, yt, 15),
                        "smooth": float(calib.smooth_ece(conf, hits).value[0]), "accuracy": float(hits.mean())}
        for score, value in expected.items():
            got = result.scores[score][i]
            assert (np.isinf(value) and np.isinf(got)) or abs(got - value) < 1e-9, (name, score, got, value)
        assert result.zero_rows[i] == int(np.sum(p_true == 0))
        assert result.changed_rows[i] == int(np.sum(probs.argmax(axis=1) != zt.argmax(axis=1)))
    assert set(expected) == set(calib.COMPARE_COLUMNS)
    assert result.zero_rows[result.methods.index("isotonic")] > 0  # the ∞ case is exercised
    assert np.isinf(result.scores["nll"][result.methods.index("isotonic")])


def test_ranges_are_paired_over_the_same_resamples(sim):
    """Each method's change is scored on the very resamples of temperature scaling: recompute them by hand."""
    zc, yc, zt, yt, result = sim
    counts = calib.resample_counts(yt.size, 40, np.random.default_rng(7))
    idx = [np.repeat(np.arange(yt.size), c) for c in counts]
    per = {}
    for name in ("temperature", "matrix", "histogram"):
        probs = calib.CALIBRATORS[name]().fit(zc, yc).predict_proba(zt)
        conf, hits = top(probs, yt)
        per[name] = {
            "nll": np.array([np.mean(-np.log(probs[r, yt[r]])) for r in idx]),
            "ece_w": np.array([calib.ece(conf[r], hits[r], 15) for r in idx]),
            "ece_a": np.array([calib.ece(conf[r], hits[r], 15, "adaptive") for r in idx]),
            "cw_ece": np.array([calib.classwise_ece(probs[r], yt[r], 15) for r in idx]),
            "smooth": np.array([calib.smooth_ece(conf[r], hits[r]).value[0] for r in idx]),
            "accuracy": np.array([hits[r].mean() for r in idx]),
        }
    for name in ("matrix", "histogram"):
        i = result.methods.index(name)
        for score, draws in per[name].items():
            moved = draws - per["temperature"][score]
            want = np.quantile(moved, [0.05, 0.95])
            assert np.allclose(result.spread[score][i], want, atol=1e-9), (name, score)
            assert result.share_lower[score][i] == pytest.approx(np.mean(moved < 0))


def test_deterministic_and_skips_affine_above_the_class_limit(sim):
    zc, yc, zt, yt, result = sim
    again = calib.compare_calibrators(zc, yc, zt, yt, n_resamples=40, seed=7)
    for score in calib.COMPARE_SCORES:
        assert np.array_equal(again.spread[score], result.spread[score])
    small = calib.compare_calibrators(zc, yc, zt, yt, n_resamples=5, seed=1, max_affine_classes=2)
    assert set(small.skipped) == {"vector", "matrix", "dirichlet"} and "3" in small.skipped["matrix"]
    assert "matrix" not in small.methods and small.methods[0] == "temperature"
    assert calib.MAX_AFFINE_CLASSES == 100


def test_verdict_names_each_calibrator_and_score_beyond_its_range(sim):
    result = sim[-1]
    straddle = {s: np.tile([-1.0, 1.0], (len(result.methods), 1)) for s in calib.COMPARE_SCORES}
    none = calib.compare_verdict(result._replace(spread=straddle))
    assert none.code == "none" and none.beats == {} and none.worse == {}
    moved = {s: v.copy() for s, v in straddle.items()}
    iso, vec = result.methods.index("isotonic"), result.methods.index("vector")
    moved["brier"][iso] = [-0.02, -0.01]   # the whole range below zero: beats
    moved["smooth"][iso] = [-0.02, 0.0]    # touches zero: not beyond
    moved["nll"][vec] = [0.01, 0.02]       # the whole range above zero: worse
    moved["nll"][0] = [-0.5, -0.1]         # temperature scaling's own row is never judged
    v = calib.compare_verdict(result._replace(spread=moved))
    assert v.code == "beats" and v.beats == {"isotonic": ("brier",)} and v.worse == {"vector": ("nll",)}
    # a range the report prints as -0.0000 to -0.0000 (or +0.0000) is no change, whatever its sign
    tiny = {s: v.copy() for s, v in straddle.items()}
    tiny["nll"][iso] = [-4e-5, -1e-6]
    tiny["brier"][vec] = [1e-6, 4e-5]
    tiny["smooth"][iso] = [-0.0002, -0.0001]  # -0.0002 to -0.0001: printed, and beyond its range
    v = calib.compare_verdict(result._replace(spread=tiny))
    assert v.beats == {"isotonic": ("smooth",)} and v.worse == {}
    assert calib.winner(result._replace(spread=tiny))[0] == "temperature"


@pytest.mark.parametrize("n", [7, 501])
def test_resampled_adaptive_and_smooth_ece_equal_the_gathered_resamples(n):
    """By counts, as calib.compare draws them, against gathering each resample's rows (ties included)."""
    from calib.binning import adaptive_ece_resampled
    from calib.smooth import smooth_ece_resampled
    rng = np.random.default_rng(n)
    f = np.round(rng.uniform(0.3, 1.0, n), 2)
    y = rng.random(n) < f ** 1.3
    counts = calib.resample_counts(n, 25, np.random.default_rng(3))
    for r, row in enumerate(counts):
        rows = np.repeat(np.arange(n), row)
        assert adaptive_ece_resampled(f, y, counts, 15)[r] == pytest.approx(calib.ece(f[rows], y[rows], 15, "adaptive"),
                                                                             abs=1e-12)
    gathered = np.stack([np.repeat(np.arange(n), row) for row in counts])
    expected = calib.smooth_ece(f[gathered], y[gathered].astype(float))
    got = smooth_ece_resampled(f, y.astype(float), counts)
    assert np.allclose(got.value, expected.value, atol=1e-12, rtol=0) and np.array_equal(got.sigma, expected.sigma)


def test_only_the_ranking_keepers_never_change_a_prediction():
    """Temperature and ensemble temperature scaling keep every row's order of classes (a positive rescaling of
    the logits, and a mixture of two such rescalings with the uniform distribution), so no top class moves on
    random logits; every other calibrator moves some top class on the built-in sets (the page says which can)."""
    rng = np.random.default_rng(11)
    z = rng.normal(size=(400, 5)) * rng.uniform(0.5, 4.0, size=(400, 1))
    y = rng.integers(0, 5, 400)
    keepers = {name for name, cls in calib.CALIBRATORS.items() if cls.keeps_ranking}
    assert keepers == {"temperature", "ensemble-temperature"}
    for name in keepers:
        probs = calib.CALIBRATORS[name]().fit(z[:200], y[:200]).predict_proba(z[200:])
        assert np.array_equal(probs.argmax(axis=1), z[200:].argmax(axis=1)), name
    moved = set()
    for data_name in ("overconfident", "mixed"):
        zc, yc, zt, yt = split(data_name)
        for name, fitted in built_fits(data_name).items():
            if np.any(fitted.predict_proba(zt).argmax(axis=1) != zt.argmax(axis=1)):
                moved.add(name)
    assert moved == set(calib.CALIBRATORS) - keepers


def test_every_calibrator_states_its_hyperparameters():
    """Each record names how its values were chosen and holds what the fit chose (issue 27, correction 5)."""
    zc, yc, _, _ = split("sim-600")
    for name, cls in calib.CALIBRATORS.items():
        record = cls().fit(zc, yc).hyperparameters()
        assert set(record) == {"settings", "fitted", "chosen_by", "keeps_ranking"} and record["chosen_by"]
        json.dumps(record, allow_nan=False)  # plain values
    matrix = calib.MatrixScaling().fit(zc, yc).hyperparameters()
    assert matrix["fitted"]["strength"] in matrix["settings"]["strengths"]
    assert matrix["fitted"]["strength"] == matrix["settings"]["strengths"][int(np.argmin(matrix["fitted"]["cv_nll"]))]
    binning = calib.ScalingBinning().fit(zc, yc).hyperparameters()
    assert binning["settings"]["n_bins"] == 15 and binning["settings"]["scheme"] == "adaptive"
    assert binning["fitted"]["temperature"] == pytest.approx(calib.fit_temperature(zc, yc), abs=1e-6)
    assert calib.HistogramBinning().hyperparameters()["settings"] == {"n_bins": 15, "scheme": "equal-width"}
    assert calib.VectorScaling().hyperparameters()["settings"] == {"strength": 0.0}


def test_inf_quantiles():
    finite = np.random.default_rng(0).random((31, 3))
    assert np.allclose(calib.inf_quantiles(finite, (0.05, 0.5, 0.95)), np.quantile(finite, [0.05, 0.5, 0.95], axis=0))
    values = np.array([0.0, 1.0, 2.0, np.inf, np.inf])
    assert calib.inf_quantiles(values, (0.5,))[0] == 2.0
    assert np.isinf(calib.inf_quantiles(values, (0.6, 0.95))).all()


# ------------------------------------------------------------------ python -m calib compare

@pytest.fixture(scope="module")
def sim_file(tmp_path_factory):
    data = calib.load("sim-600")
    path = tmp_path_factory.mktemp("compare") / "sim.npz"
    np.savez(path, logits=data.logits, labels=data.labels,
             split=np.where(data.is_calibration, "calibration", "test"))
    return path


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "calib", *map(str, args)], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)


def test_cli_json_agrees_with_the_engine(sim_file):
    done = run_cli("compare", sim_file, "--json", "--resamples", "30")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    zc, yc, zt, yt = split("sim-600")
    result = calib.compare_calibrators(zc, yc, zt, yt, n_resamples=30, seed=0)
    assert [m["method"] for m in report["methods"]] == list(result.methods)
    assert report["split"]["parts"] == {"calibration": 300, "test": 300} and report["n_resamples"] == 30
    for i, m in enumerate(report["methods"]):
        fitted = result.calibrators[m["method"]]
        assert m["hyperparameters"] == json.loads(json.dumps(fitted.hyperparameters()))
        assert m["changed_rows"] == int(result.changed_rows[i])
        for score in calib.COMPARE_COLUMNS:
            cell, value = m["scores"][score], result.scores[score][i]
            assert (cell["value"] is None) == bool(np.isinf(value))  # JSON has no infinity: null stands for it
            if cell["value"] is not None:
                assert cell["value"] == pytest.approx(value, abs=1e-12)
                assert cell["range"] == pytest.approx(list(result.spread[score][i]), abs=1e-12)
    verdict = calib.compare_verdict(result)
    assert report["verdict"] == {"code": verdict.code, "beats": {m: list(s) for m, s in verdict.beats.items()},
                                 "worse": {m: list(s) for m, s in verdict.worse.items()}}
    text = run_cli("compare", sim_file, "--resamples", "30")
    assert text.returncode == 0 and "isotonic" in text.stdout and "inf" in text.stdout
    assert "strength=" in text.stdout and "n_bins=15" in text.stdout and "accuracy" in text.stdout
    assert any(line.startswith("verdict: ") for line in text.stdout.splitlines())  # a deploy hint may follow
    assert f"{result.scores['nll'][0]:.4f}" in text.stdout


def test_cli_bad_input_is_one_line_and_exit_2(tmp_path):
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip")
    done = run_cli("compare", bad)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1 and str(bad) in done.stderr
    assert "Traceback" not in done.stderr


# ------------------------------------------------------------------ the facts

@pytest.fixture(scope="module")
def by(precomputed):
    """The section's facts as the build makes them (``build_beyond_facts``, computed once per session)."""
    from sitegen_inputs import page_inputs

    return page_inputs(precomputed)[1]["by"]


def test_comparison_facts_are_the_engine(by):
    from sitegen.common.settings import ANALYSIS_SEED

    for key, name in (("mixed", "mixed"),):
        zc, yc, zt, yt = split(name)
        probs = calib.HistogramBinning().fit(zc, yc).predict_proba(zt)
        expected = np.mean(-np.log(probs[np.arange(yt.size), yt]))
        assert getattr(by.cmp, key).histogram.nll.value == pytest.approx(expected, abs=1e-12)
        conf, hits = top(probs, yt)
        assert getattr(by.cmp, key).histogram.ece_w.value == pytest.approx(calib.ece(conf, hits, 15), abs=1e-12)
        t = calib.fit_temperature(zc, yc)
        assert getattr(by.cmp, key).temperature.nll.value == pytest.approx(calib.nll(zt, yt, t), abs=1e-9)
    assert by.resamples == calib.DEFAULT_RESAMPLES and by.bins == 15 and ANALYSIS_SEED


def test_claims_in_words_hold(by):
    oc, mixed, s600 = by.cmp.overconfident, by.cmp.mixed, by.cmp.sim_600
    others = [r for r in oc.rows if r.method not in ("temperature", "ensemble-temperature")]
    # over-confident: nothing beats temperature scaling beyond its range in NLL; Dirichlet is the closest other
    assert all(r.nll.hi >= -1e-4 for r in oc.rows[1:])
    assert min(others, key=lambda r: r.nll.value).method == "dirichlet"
    assert fixed(oc.ensemble_temperature.nll.value, 4) == fixed(oc.temperature.nll.value, 4)
    assert oc.vector.nll.lo > 0 and oc.matrix.nll.lo > 0 and oc.histogram.nll.lo > 0
    assert oc.isotonic.zero_rows > 0 and not oc.isotonic.nll.finite
    # mixed: affine methods worse in NLL; histogram binning better on every score; ensemble T partly; isotonic ∞
    for r in (mixed.vector, mixed.matrix, mixed.dirichlet):
        assert r.nll.lo > 0
    for score in calib.COMPARE_SCORES:
        assert getattr(mixed.histogram, score).hi < 0, score
    assert mixed.histogram.nll.value < mixed.ensemble_temperature.nll.value < mixed.scaling_binning.nll.value \
        < mixed.temperature.nll.value
    assert mixed.isotonic.zero_rows > 0 and mixed.isotonic.ece_w.value < mixed.temperature.ece_w.value / 2
    assert mixed.histogram.cw_ece.value < mixed.temperature.cw_ece.value
    # sim-600: every affine and scaling range includes zero
    for r in (s600.vector, s600.matrix, s600.dirichlet, s600.scaling_binning, s600.ensemble_temperature):
        assert r.nll.lo < 0 < r.nll.hi, r.method
    # binned ECE: in-sample optimism and fewer bins reading lower
    assert by.binned.hist.cal_cw < by.binned.hist.test_cw
    assert by.binned.ts.test_w[5] < by.binned.ts.test_w[15] < by.binned.ts.test_w[50]
    assert by.binned.ts.test_w[5] < by.binned.ts.test_smooth
    # rows: the answer, the medians, matrix never pays, vector's infinite median at ten rows
    rows = by.rows
    assert rows.enough == 1000 and rows.at[1000].within >= 0.9 > rows.at[300].within
    assert all(abs(rows.at[s].t.mid / rows.full_t - 1) < 0.05 for s in rows.sizes)
    assert rows.matrix_from is None and rows.full.matrix > rows.full.ts
    assert all(rows.at[s].matrix_excess.mid > 0 for s in rows.sizes)
    assert rows.at[10].nll_vector is None and not rows.at[10].nll_matrix.mid_inf  # too few rows for vector scaling
    assert all((rows.at[s].nll_vector is None) == (rows.at[s].vector_unsettled > 0) for s in rows.sizes)
    # issue 27, correction 4: the ten-rows-per-parameter rule (190 rows) is not where fits stop settling
    assert rows.vector_rows == 10 * (2 * 10 - 1) and rows.at[100].nll_vector is not None
    assert rows.at[10].vector_missing == rows.at[10].vector_unsettled == rows.affine_draws
    assert rows.at[30].vector_unsettled > rows.at[30].vector_missing  # separable rows, every class present
    # mixed: histogram binning beats TS on the six scores but not on accuracy (issue 27, correction 3)
    assert mixed.histogram.accuracy.hi < 0 < mixed.histogram.changed_rows
    assert mixed.temperature.changed_rows == mixed.ensemble_temperature.changed_rows == 0
    assert oc.matrix.hyper.strength >= 100 and by.rows.offdiag < 0.1  # "close to diagonal"
    assert by.sb.low < mixed.scaling_binning.nll.value < by.sb.high  # the bin count matters
    assert rows.at[10].nll_ts.hi - rows.at[10].nll_ts.mid > 5 * (rows.at[10].nll_ts.mid - rows.full.ts)
    assert 300 < rows.se.needed < 3000
    # decision
    d = by.decide
    assert d.t1.accuracy < d.threshold <= d.fit.accuracy and d.fit.coverage < d.t1.coverage
    assert abs(d.t1.aurc - d.fit.aurc) < 0.002


def test_vector_settling_against_an_independent_fit():
    """Where the study says vector scaling settled (a hundred rows), SciPy's BFGS on an independently written
    vector-scaling NLL, from a third start, reaches the same loss; where a class is missing, lowering that class's
    intercept further still lowers the loss (no finite optimum), and the study calls the fit unsettled."""
    import scipy.optimize
    import scipy.special

    zc, yc, _, _ = split("overconfident")
    rng = np.random.default_rng(2)

    def loss(params, z, y):
        k = z.shape[1]
        return -scipy.special.log_softmax(z * params[:k] + params[k:], axis=1)[np.arange(y.size), y].mean()

    rows = rng.choice(yc.size, 100, replace=False)
    z, y = zc[rows], yc[rows]
    assert np.unique(y).size == 10
    fitted = calib.VectorScaling().fit(z, y)
    assert fitted.settled_
    best = scipy.optimize.minimize(loss, np.r_[np.full(10, 1.5), np.zeros(10)], args=(z, y), method="BFGS",
                                   options={"gtol": 1e-9}).fun
    assert loss(np.r_[fitted.weights_, fitted.bias_], z, y) == pytest.approx(best, abs=1e-6)
    rows = np.flatnonzero(yc != 3)[:100]  # class 3 absent
    z, y = zc[rows], yc[rows]
    fitted = calib.VectorScaling().fit(z, y)
    params = np.r_[fitted.weights_, fitted.bias_]
    lower = params.copy()
    lower[10 + 3] -= 5.0
    assert loss(lower, z, y) < loss(params, z, y) and not fitted.settled_
    # the real network's calibration rows: class 4's logit separates its rows, so the loss keeps falling as its
    # scale grows; the comparison leaves vector scaling out there rather than print where the optimiser stopped
    zc, yc, zt, yt = split("digits-mlp")
    fitted = calib.VectorScaling().fit(zc, yc)
    assert not fitted.settled_
    params = np.r_[fitted.weights_, fitted.bias_]
    runaway = int(np.argmax(np.abs(fitted.weights_)))  # the class whose scale ran off
    steeper = params.copy()
    steeper[[runaway, 10 + runaway]] *= 1.5  # its scale and intercept further out: the loss still falls
    steeper[10:] -= steeper[10:].mean()
    assert loss(steeper, zc, yc) < loss(params, zc, yc)
    quick = {"matrix": calib.MatrixScaling(strengths=(1.0,)).fit(zc, yc),
             "dirichlet": calib.DirichletCalibration(strengths=(1.0,)).fit(zc, yc), "vector": fitted}
    result = calib.compare_calibrators(zc, yc, zt, yt, n_resamples=5, seed=1, fitted=quick)
    assert "vector" not in result.methods and result.skipped["vector"] == calib.UNSETTLED


def test_rows_study_spot_check(by):
    """The share of T draws within ±5% at one size, recomputed with independent draws: close to the facts'."""
    zc, yc, _, _ = split("overconfident")
    full = calib.fit_temperature(zc, yc, tolerance=1e-5)
    assert by.rows.full_t == pytest.approx(full, abs=1e-4)
    gen = np.random.default_rng(123)
    fits = np.array([calib.fit_temperature(zc[s], yc[s]) for s in
                     (gen.choice(yc.size, 1000, replace=False) for _ in range(200))])
    share = np.mean(np.abs(fits / full - 1) <= 0.05)
    assert abs(share - by.rows.at[1000].within) < 0.06  # two samples of 200 draws: binomial spread ≈ 0.017 each


def test_delta_method_against_a_numerical_second_derivative(by):
    """I = d²NLL/dβ² by a central second difference of calib.nll in β = 1/T; SE(T̂) = T̂² / sqrt(n I)."""
    from sitegen.facts.beyond_dives import delta_method_se

    zc, yc, _, _ = split("overconfident")
    t = calib.fit_temperature(zc, yc, tolerance=1e-5)
    beta, h = 1.0 / t, 1e-3
    values = [calib.nll(zc, yc, 1.0 / (beta + d)) for d in (-h, 0.0, h)]
    curvature = (values[0] - 2 * values[1] + values[2]) / h ** 2  # truncation error O(h²), rounding ≈ 1e-16/h²
    se_t, se_beta, got = delta_method_se(zc, yc, t)
    assert got == pytest.approx(curvature, rel=1e-4)
    assert se_t == pytest.approx(t ** 2 / np.sqrt(yc.size * curvature), rel=1e-4)
    assert by.rows.se.delta == pytest.approx(se_t, rel=1e-3)
    # the bootstrap agrees with the delta method to within its own Monte Carlo error (200 refits: ≈ 5%)
    assert abs(by.rows.se.boot / by.rows.se.delta - 1) < 0.2


def test_decision_facts_are_direct(by):
    zc, yc, zt, yt = split("overconfident")
    for key, t in (("t1", 1.0), ("fit", calib.fit_temperature(zc, yc, tolerance=1e-5))):
        conf, hits = top(calib.scaled_probs(zt, t), yt)
        keep = conf >= 0.8
        view = getattr(by.decide, key)
        assert view.coverage == pytest.approx(keep.mean(), abs=1 / yt.size)
        assert view.accuracy == pytest.approx(hits[keep].mean(), abs=2e-3)
        order = np.argsort(-conf)
        assert view.risk[0.5] == pytest.approx(1 - hits[order[:yt.size // 2]].mean(), abs=2e-3)


def test_corp_facts_against_scikit_learns_isotonic_regression(by):
    """MCB recomputed with scikit-learn's isotonic regression (its own PAV) instead of calib.corp."""
    from sklearn.isotonic import IsotonicRegression

    zc, yc, zt, yt = split("overconfident")
    for key, t in (("t1", 1.0), ("fit", calib.fit_temperature(zc, yc, tolerance=1e-5))):
        conf, hits = top(calib.scaled_probs(zt, t), yt)
        recalibrated = IsotonicRegression(increasing=True).fit_transform(conf, hits.astype(float))
        mcb = np.mean((conf - hits) ** 2) - np.mean((recalibrated - hits) ** 2)
        view = getattr(by.corp, key)
        assert view.mcb == pytest.approx(mcb, abs=1e-6)
        assert view.steps == np.unique(np.round(recalibrated, 12)).size
    assert by.corp.fit.mcb < by.corp.t1.mcb / 5  # the prose: the fit removes most of it


# ------------------------------------------------------------------ the built page

@pytest.fixture(scope="module")
def page(built_site):
    """The English page of the session's site (tests/conftest.py)."""
    return (built_site / "index.html").read_text(encoding="utf-8")


def section_text(page, slug):
    match = re.search(rf'<section id="{slug}"[^>]*>(.*?)</section>', page, re.S)
    assert match, f"section #{slug} is missing"
    body = re.sub(r"<(script|style)\b.*?</\1>", " ", match.group(1), flags=re.S)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", body)))


def test_page_quotes_the_engine(page, by):
    text = section_text(page, "beyond")
    oc, mixed = by.cmp.overconfident, by.cmp.mixed
    expected = [fixed(oc.temperature.nll.value, 4), fixed(oc.dirichlet.nll.value, 4),
                fixed(mixed.temperature.nll.value, 4), fixed(mixed.histogram.nll.value, 4),
                pct(mixed.histogram.ece_w.value, 1), fixed(mixed.histogram.ece_w.lo * 100, 1),
                pp(mixed.histogram.ece_w.hi, 1),
                fixed(oc.vector.nll.lo, 4), fixed(oc.vector.nll.hi, 4),
                pct(by.binned.hist.cal_cw, 1), pct(by.binned.hist.test_cw, 1),
                temp(by.rows.full_t), pct(by.rows.at[1000].within, 1), pct(by.rows.at[300].within, 1),
                thousands(by.rows.se.needed), fixed(by.rows.se.delta, 4), fixed(by.rows.se.boot, 4),
                pct(by.decide.t1.coverage, 1), pct(by.decide.t1.accuracy, 1), pct(by.decide.fit.coverage, 1),
                pct(by.decide.fit.accuracy, 1), fixed(by.decide.t1.aurc, 4), "∞"]
    missing = [value for value in expected if value not in text]
    assert not missing, f"#beyond lacks {missing}"
    # every deep dive: a visible summary paragraph, then a closed disclosure
    section = re.search(r'<section id="beyond"[^>]*>(.*?)</section>', page, re.S).group(1)
    assert len(re.findall(r'<details class="deep-dive"[ >]', section)) == 4 and "<summary>" in section
    assert 'markdown="' not in section


def test_page_states_accuracy_hyperparameters_and_what_limits_detection(page, by):
    """Issue 27, corrections 3, 4, 5 and 14, in the built page: the accuracy column (each method's accuracy computed
    here directly), the changed predictions, every calibrator's settings and fitted values, the rule of thumb,
    and the test rows as the limit."""
    text = section_text(page, "beyond")
    mixed, oc = by.cmp.mixed, by.cmp.overconfident
    zc, yc, zt, yt = split("mixed")
    for name, fitted in built_fits("mixed").items():
        accuracy = float(np.mean(fitted.predict_proba(zt).argmax(axis=1) == yt))
        cell = re.search(rf'<table[^>]*aria-labelledby="beyond-compare-mixed".*?<tr data-method="{name}">(.*?)</tr>',
                         page, re.S).group(1)
        assert pct(accuracy, 1) in re.search(r'data-score="accuracy"[^>]*>(.*?)</td>', cell, re.S).group(1), name
    hyper = re.search(r'<table[^>]*id="beyond-hyper".*?</table>', page, re.S).group(0)
    for row in oc.rows:
        assert f'data-method="{row.method}"' in hyper
    assert f"λ = {oc.matrix.hyper.strength:g}" in hyper and f"T = {temp(oc.temperature.hyper.t)}" in hyper
    for key in ("overconfident", "mixed", "sim_600"):
        table = getattr(by.cmp, key)
        assert f"predicted class changed on {table.histogram.changed_rows} of {thousands(table.n_test)}" in hyper
    expected = [pct(mixed.histogram.accuracy.value, 1), pct(mixed.temperature.accuracy.value, 1),
                fixed(mixed.histogram.accuracy.lo * 100, 1), f"{mixed.histogram.changed_rows} test rows",
                f"{by.settings.sb_bins} bins per class", fixed(by.sb.low, 4), fixed(by.sb.high, 4),
                f"{thousands(by.rows.vector_rows)} rows of the usual rule of thumb",
                f"{by.cmp.sim_600.n_test} test rows: every range", pct(by.rows.offdiag, 1)]
    missing = [value for value in expected if value not in text]
    assert not missing, f"#beyond lacks {missing}"


def test_the_binning_free_deep_dive_quotes_corp(page, by):
    text = section_text(page, "smooth")
    expected = [fixed(by.corp.t1.mcb, 3), fixed(by.corp.fit.mcb, 3), f"{by.corp.t1.steps} steps",
                f"{by.corp.fit.steps} steps", "Dimitriadis, Gneiting and Jordan (2021)"]
    missing = [value for value in expected if value not in text]
    assert not missing, f"#smooth lacks {missing}"


def test_directly_computed_table_cell_on_the_page(page):
    """One table cell, computed here without sitegen: histogram binning's NLL on the mixed test rows."""
    zc, yc, zt, yt = split("mixed")
    probs = calib.HistogramBinning().fit(zc, yc).predict_proba(zt)
    value = float(np.mean(-np.log(probs[np.arange(yt.size), yt])))
    assert fixed(value, 4) in section_text(page, "beyond")
