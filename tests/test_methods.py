"""The explorer's method choice (sitegen/analyses/calibrator_fits.py, sitegen/render/methods_payload.py): the other
calibrators' test-row scores in the payload, checked against formulas written out here on the engine's fitted
probabilities."""

import numpy as np
import pytest
from shared_values import built_fits

from calib import CALIBRATORS, compare_calibrators, ece, ks_calibration_error, load, mce, part_masks
from sitegen.analyses.calibrator_fits import METHODS, offered_methods
from sitegen.common.settings import OFFERED_BIN_COUNTS, USER_SLUG
from sitegen.render.codec import unpack
from sitegen.render.methods_payload import methods_payload


def _split(name):
    data = load(name)
    masks = part_masks(data)
    return (data.logits[masks["calibration"]], data.labels[masks["calibration"]],
            data.logits[masks["test"]], data.labels[masks["test"]])


def units(value, scale):
    """``value`` in display units, rounded half away from zero (docs/payload.md)."""
    return int(np.sign(value) * np.floor(abs(value) * scale + 0.5))


def test_each_method_scores_its_test_rows_as_the_formulas_say():
    name = "sim-60"  # small, and one of its methods gives a test label probability 0
    zc, yc, zt, yt = _split(name)
    fits = built_fits(name)
    payload = methods_payload(name)
    assert payload["part"] == "test" and payload["n_calibration"] == yc.size
    assert tuple(payload["methods"]) == METHODS and "temperature" not in payload["methods"]
    infinite = 0
    for method, shown in payload["methods"].items():
        probs = fits[method].predict_proba(zt)  # the engine's fit; the scores below are written out here
        picked = probs[np.arange(yt.size), yt]
        onehot = np.eye(probs.shape[1])[yt]
        conf, hits = probs.max(axis=1), probs.argmax(axis=1) == yt
        assert shown["n"] == yt.size and shown["zero_rows"] == int(np.sum(picked == 0))
        if shown["zero_rows"]:
            infinite += 1
            assert shown["nll"] is None  # an infinite NLL: JSON has no infinity
        else:
            # one unit of slack: a fit's last bits may differ from the build's on another CPU
            assert abs(shown["nll"] - units(np.mean(-np.log(picked)), 100_000)) <= 1, method
        assert abs(shown["brier"] - units(np.mean(((probs - onehot) ** 2).sum(axis=1)), 100_000)) <= 1, method
        assert abs(shown["accuracy"] - units(hits.mean(), 1000)) <= 1, method
        assert abs(shown["confidence"] - units(conf.mean(), 1000)) <= 1, method
        for scheme in ("equal-width", "adaptive"):
            for b in OFFERED_BIN_COUNTS:
                assert abs(shown["ece"][scheme][str(b)] - units(ece(conf, hits, b, scheme), 1000)) <= 1, (method, b)
                table = shown["bins"][scheme][str(b)]
                counts = [unpack(c)[0] for c in table["count"]]
                assert sum(counts) == yt.size  # one point: every test row in one of the bins
                assert sum(unpack(g)[0] for g in table["gap"]) == shown["ece"][scheme][str(b)]
    assert infinite >= 1, "a method with an infinite NLL: the null path is tested"


def test_methods_are_offered_on_the_built_in_datasets_with_a_split_only():
    built_fits("mixed")  # the fit of vector scaling that the offer reads: the build's
    assert offered_methods("mixed", ("calibration", "test")) == METHODS
    assert offered_methods("six", ("all",)) == ()
    assert offered_methods(USER_SLUG, ("calibration", "test")) == ()  # the reader's model: not (yet) offered
    assert METHODS == tuple(m for m in CALIBRATORS if m != "temperature")


def test_comparison_reuses_the_fits_it_is_given():
    zc, yc, zt, yt = _split("sim-60")
    fits = built_fits("sim-60")
    shared = compare_calibrators(zc, yc, zt, yt, n_resamples=20, fitted=fits)
    assert all(shared.calibrators[m] is fits[m] for m in shared.methods)
    for i, m in enumerate(shared.methods):  # the given fits are the ones scored
        probs = fits[m].predict_proba(zt)
        brier = np.mean(((probs - np.eye(3)[yt]) ** 2).sum(axis=1))
        assert shared.scores["brier"][i] == pytest.approx(brier, abs=1e-12)


def test_the_cards_print_the_change_against_the_uncalibrated_model_rounded_once(precomputed):
    """Another calibrator's card prints its value minus the uncalibrated test rows' (T = 1) value it reads, plus
    ``fix``: that is round(v − v_uncalibrated) of the floats (the fit's scores written out here, the uncalibrated
    ones the precomputation's), not round(v) − round(v_uncalibrated)."""
    name = "sim-60"
    zt, yt = _split(name)[2:]
    result, t1 = precomputed.datasets[name], precomputed.t1_index
    test = result.parts["test"]
    payload = methods_payload(name)
    fixed = 0
    for method, shown in payload["methods"].items():
        probs = built_fits(name)[method].predict_proba(zt)
        picked, onehot = probs[np.arange(yt.size), yt], np.eye(probs.shape[1])[yt]
        conf, hits = probs.max(axis=1), probs.argmax(axis=1) == yt
        fix = shown.get("fix", {})
        fixed += len(fix)
        pairs = [("brier", np.mean(((probs - onehot) ** 2).sum(axis=1)), test.brier[t1], 100_000),
                 ("accuracy", hits.mean(), test.accuracy, 1000),
                 ("confidence", conf.mean(), test.mean_confidence[t1], 1000),
                 ("ks", ks_calibration_error(conf, hits), test.extra["ks"][t1], 1000)]
        if not shown["zero_rows"]:
            pairs.append(("nll", np.mean(-np.log(picked)), test.nll[t1], 100_000))
        for key, value, before, scale in pairs:
            printed = shown[key] - units(before, scale) + fix.get(key, 0)
            assert printed == units(value - before, scale), (method, key)
        for key, measure in (("ece", ece), ("mce", mce)):
            for scheme in ("equal-width", "adaptive"):
                for b in OFFERED_BIN_COUNTS:
                    before = getattr(test, key)[scheme][b][t1]
                    printed = (shown[key][scheme][str(b)] - units(before, 1000)
                               + fix.get(key, {}).get(scheme, {}).get(str(b), 0))
                    assert printed == units(measure(conf, hits, b, scheme) - before, 1000), (method, key, scheme, b)
    assert fixed, "some change differs from the difference of the rounded values: the fixes are tested"
