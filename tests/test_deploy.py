"""Every calibrator deploys: its JSON record reads back into the same calibrator (numpy only), and the numpy,
PyTorch and scikit-learn code written beside it gives the scored probabilities to 1e-12, binary and multiclass.

The reference is each fitted calibrator's own ``predict_proba`` on held-out rows (what ``compare`` scores); the
snippets are executed from the ``.py`` file :func:`calib.save_calibrator` writes, as a practitioner would run it.
"""

import json

import numpy as np
import pytest

import calib
from calib import DEPLOYABLE, calibrator_record, load_calibrator, save_calibrator
from calib.deploy_code import NUMPY_CODE, SKLEARN_CODE, TORCH_CODE

TOLERANCE = 1e-12


def rows(k, n=600, seed=0):
    rng = np.random.default_rng(seed + k)
    y = rng.integers(0, k, n)
    z = rng.normal(size=(n, k))
    z[np.arange(n), y] += 2.0
    return 2.5 * z, y


def fitted(method, k):
    z, y = rows(k)
    return DEPLOYABLE[method][0]().fit(z[:400], y[:400]), z[400:]


def run(source):
    space = {}
    exec(compile(source, "deploy-code", "exec"), space)
    return space


CASES = [(method, k) for k in (2, 5) for method in DEPLOYABLE]


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """Every (method, K): the calibrator, its held-out logits, and the .json and .py written for it."""
    folder = tmp_path_factory.mktemp("deploy")
    out = {}
    for method, k in CASES:
        calibrator, z = fitted(method, k)
        record = calibrator_record(method, calibrator, "logits", [f"c{i}" for i in range(k)], False,
                                   {"file": "m.npz", "sha256": "0" * 64, "rows": 400})
        out[method, k] = (calibrator, z) + save_calibrator(folder / f"{method}-{k}.json", record)
    return out


@pytest.mark.parametrize("method, k", CASES)
def test_the_record_reads_back_into_the_same_calibrator(saved, method, k):
    calibrator, z, path, _ = saved[method, k]
    record = json.loads(path.read_text())
    assert record["schema"] == "calib-calibrator" and record["schema_version"] == 1 and record["kind"] == method
    assert record["classes"] == k and record["class_names"] == [f"c{i}" for i in range(k)]
    assert record["data"]["rows"] == 400 and record["calib_version"] and record["input"] == "logits"
    np.testing.assert_allclose(load_calibrator(path).predict_proba(z), calibrator.predict_proba(z), rtol=0,
                               atol=TOLERANCE)


@pytest.mark.parametrize("method, k", CASES)
def test_the_numpy_code_beside_it_gives_the_scored_probabilities(saved, method, k):
    calibrator, z, path, code = saved[method, k]
    space = run(code.read_text())
    got = space["calibrated_probs"](z, space["load_calibrator"](str(path)))
    np.testing.assert_allclose(got, calibrator.predict_proba(z), rtol=0, atol=TOLERANCE)


@pytest.mark.parametrize("method, k", CASES)
def test_the_pytorch_code_where_torch_is_importable(saved, method, k):
    torch = pytest.importorskip("torch")
    calibrator, z, path, _ = saved[method, k]
    space = run(TORCH_CODE)
    got = space["calibrated_probs_torch"](torch.tensor(z, dtype=torch.float64), json.loads(path.read_text()))
    np.testing.assert_allclose(got.numpy(), calibrator.predict_proba(z), rtol=0, atol=TOLERANCE)


@pytest.mark.parametrize("method, k", CASES)
def test_the_scikit_learn_wrapper_calibrates_decision_function(saved, method, k):
    calibrator, z, path, code = saved[method, k]
    space = run(code.read_text())

    class Model:  # a fitted classifier whose decision_function returns the logits of X
        classes_ = np.arange(k)

        def decision_function(self, X):
            return X

    wrapped = space["CalibratedModel"](Model(), space["load_calibrator"](str(path)))
    expected = calibrator.predict_proba(z)
    np.testing.assert_allclose(wrapped.predict_proba(z), expected, rtol=0, atol=TOLERANCE)
    assert wrapped.predict(z).tolist() == np.argmax(expected, axis=1).tolist()


@pytest.mark.parametrize("method", ["temperature", "platt", "isotonic"])
def test_a_binary_files_one_score_and_a_file_of_probabilities_deploy_as_they_were_read(tmp_path, method):
    """A binary model's single column is passed as it was saved: one logit (n,), or the positive class's
    probability; a file of probabilities: its probabilities (the code takes their logarithm as calib did)."""
    rng = np.random.default_rng(9)
    x = rng.normal(size=500) * 3
    y = (rng.random(500) < 1 / (1 + np.exp(-x / 2))).astype(int)
    np.savez(tmp_path / "logit.npz", logits=x, labels=y)
    p = 1 / (1 + np.exp(-x))
    np.savez(tmp_path / "prob.npz", probabilities=p, labels=y)
    space = run(NUMPY_CODE + SKLEARN_CODE)
    for name, column in (("logit", x), ("prob", p)):
        data = calib.load_predictions(tmp_path / f"{name}.npz")
        fit = DEPLOYABLE[method][0]().fit(data.logits[:300], data.labels[:300])
        record = calibrator_record(method, fit, data.kind, None, data.binary)
        assert record["binary"] and record["input"] == ("logits" if name == "logit" else "probabilities")
        got = space["calibrated_probs"](column[300:], json.loads(json.dumps(record)))
        np.testing.assert_allclose(got, fit.predict_proba(data.logits[300:]), rtol=0, atol=TOLERANCE)


def test_records_refuse_what_they_cannot_hold(tmp_path):
    calibrator, _ = fitted("temperature", 3)
    with pytest.raises(ValueError, match="method must be one of"):
        calibrator_record("beta", calibrator)
    with pytest.raises(ValueError, match="fitted VectorScaling"):
        calibrator_record("vector", calibrator)
    (tmp_path / "x.json").write_text('{"schema": "other"}')
    with pytest.raises(ValueError, match="not a calib-calibrator record"):
        load_calibrator(tmp_path / "x.json")
    space = run(NUMPY_CODE)
    with pytest.raises(ValueError, match="schema version 1"):
        space["load_calibrator"](str(tmp_path / "x.json"))
