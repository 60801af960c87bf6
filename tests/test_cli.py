"""Tests of ``python -m calib fit``, run as a subprocess like a training pipeline would.

Expected values are computed here: the split rule restated, NLL and the fitted T from scipy
(``logsumexp``, ``minimize_scalar``), and the one-line error contract read off stderr.
"""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.optimize
import scipy.special

ROOT = Path(__file__).resolve().parents[1]
N, K = 400, 5


def run(*args, code=None):
    command = [sys.executable, "-m", "calib", *map(str, args)] if code is None else [sys.executable, "-c", code]
    return subprocess.run(command, capture_output=True, text=True, cwd=str(ROOT), timeout=120)


def scipy_nll(z, y, t):
    scaled = z / t
    return float(np.mean(scipy.special.logsumexp(scaled, axis=1) - scaled[np.arange(len(y)), y]))


@pytest.fixture(scope="module")
def model_file(tmp_path_factory):
    rng = np.random.default_rng(12)
    z = rng.normal(size=(N, K)) * 3
    p = scipy.special.softmax(z / 2.0, axis=1)  # labels drawn at T = 2: the raw logits are over-confident
    y = np.array([rng.choice(K, p=row) for row in p])
    path = tmp_path_factory.mktemp("cli") / "model.npz"
    np.savez(path, logits=z, labels=y)
    return path, z, y


def test_json_report_matches_an_independent_fit_on_the_random_split(model_file):
    path, z, y = model_file
    done = run("fit", path, "--json", "--seed", 3)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    calibration = np.zeros(N, bool)
    calibration[np.random.default_rng(3).permutation(N)[: N // 2]] = True
    assert report["split"] == {"rule": "random", "seed": 3, "parts": {"calibration": N // 2, "test": N // 2}}
    best = scipy.optimize.minimize_scalar(lambda t: scipy_nll(z[calibration], y[calibration], t),
                                          bounds=(0.05, 10), method="bounded", options={"xatol": 1e-9})
    assert report["temperature"] == pytest.approx(best.x, abs=1e-6)
    test = ~calibration
    assert report["before"]["nll"] == pytest.approx(scipy_nll(z[test], y[test], 1.0), rel=1e-10)
    assert report["after"]["nll"] == pytest.approx(scipy_nll(z[test], y[test], report["temperature"]), rel=1e-10)
    accuracy = float(np.mean(np.argmax(z[test], axis=1) == y[test]))
    assert report["before"]["accuracy"] == report["after"]["accuracy"] == pytest.approx(accuracy)
    assert set(report["before"]["ece"]) == set(report["before"]["mce"]) == {"equal-width", "adaptive"}
    assert report["after"]["ece"]["equal-width"] < report["before"]["ece"]["equal-width"]
    assert report["fit"]["rows"] == N // 2 and report["evaluated_on"] == "test"
    assert len(report["sha256"]) == 64


def test_text_report_and_workers_do_not_change_the_numbers(model_file):
    path, _, _ = model_file
    done = run("fit", path, "--split", "even-odd", "--workers", 1)
    assert done.returncode == 0, done.stderr
    for words in ("fitted T =", "NLL (nats)", "Brier", "accuracy", "mean confidence",
                  "ECE (15 equal-width bins)", "MCE (15 adaptive bins)", "even-odd"):
        assert words in done.stdout
    one = json.loads(run("fit", path, "--json", "--split", "even-odd", "--workers", 1).stdout)
    two = json.loads(run("fit", path, "--json", "--split", "even-odd", "--workers", 2).stdout)
    assert one == two


def test_split_from_the_file_is_the_default_and_none_warns(tmp_path, model_file):
    _, z, y = model_file
    path = tmp_path / "split.npz"
    np.savez(path, logits=z, labels=y, split=np.arange(N) < 100)
    report = json.loads(run("fit", path, "--json").stdout)
    assert report["split"]["rule"] == "file" and report["split"]["parts"] == {"calibration": 100, "test": 300}
    done = run("fit", path, "--json", "--split", "none")
    assert done.returncode == 0
    assert json.loads(done.stdout)["evaluated_on"] == "all"
    assert "optimistic" in done.stderr and len(done.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("arrays, fragment", [
    ({"logits": "nan"}, "logits[3, 1]"),
    ({"labels": "out"}, "labels[0]"),
])
def test_bad_input_exits_2_with_one_line_naming_file_and_place(tmp_path, model_file, arrays, fragment):
    _, z, y = model_file
    z, y = z.copy(), y.copy()
    if "logits" in arrays:
        z[3, 1] = np.nan
    else:
        y[0] = K
    path = tmp_path / "bad.npz"
    np.savez(path, logits=z, labels=y)
    done = run("fit", path)
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and fragment in lines[0]
    assert "Traceback" not in done.stderr


def test_missing_file_unknown_extension_and_impossible_split_exit_2(tmp_path, model_file):
    for args in (["fit", tmp_path / "absent.npz"], ["fit", tmp_path / "model.parquet"],
                 ["fit", model_file[0], "--split", "file"]):
        done = run(*args)
        assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
        assert "Traceback" not in done.stderr


def test_a_csv_with_a_too_small_part_exits_2(tmp_path):
    path = tmp_path / "small.csv"
    path.write_text("label,a,b,split\n" + "".join(f"{i % 2},{i},0,{'test' if i < 3 else 'calibration'}\n"
                                                  for i in range(30)))
    done = run("fit", path)
    assert done.returncode == 2 and "test part has 3 row(s)" in done.stderr


def test_internal_error_exits_1_with_a_traceback(model_file):
    code = (
        "import sys, calib.__main__ as cli\n"
        "def broken(*args, **kwargs):\n"
        "    raise RuntimeError('engine bug')\n"
        "cli.fit_temperature = broken\n"
        f"sys.exit(cli.main(['fit', {str(model_file[0])!r}]))\n"
    )
    done = run(code=code)
    assert done.returncode == 1
    assert "Traceback" in done.stderr and "RuntimeError: engine bug" in done.stderr


# --- practitioners' exports (written by pandas) and what the command says about them ----------------

def digits_like(n=N, k=K, seed=4):
    """Logits whose labels were drawn at T = 2 (so the fitted T is near 2, inside the bounds), and the labels."""
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, k)) * 4
    y = np.array([rng.choice(k, p=row) for row in scipy.special.softmax(z / 2.0, axis=1)])
    return z, y


def pandas_frame(values, labels, prefix="c", split=None):
    import pandas as pd
    df = pd.DataFrame(values, columns=[f"{prefix}{i}" for i in range(values.shape[1])])
    df["label"] = labels
    if split is not None:
        df["split"] = split
    return df


def independent_fit(z, y, rows):
    return scipy.optimize.minimize_scalar(lambda t: scipy_nll(z[rows], y[rows], t), bounds=(0.05, 10),
                                          method="bounded", options={"xatol": 1e-9}).x


def test_a_probability_csv_fits_the_temperature_of_its_logits(tmp_path):
    z, y = digits_like()
    p = scipy.special.softmax(z, axis=1)
    split = np.where(np.arange(N) % 3 == 0, "calibration", "test")
    pandas_frame(p, y, "prob_", split).to_csv(tmp_path / "probs.csv", index=False)
    pandas_frame(p, y, "class ", split).to_csv(tmp_path / "plain.csv", index=False)
    expected = independent_fit(np.log(p), y, np.arange(N) % 3 == 0)  # softmax(log p) = p: the logits' T
    assert 1.5 < expected < 2.5
    for args in ([tmp_path / "probs.csv"], [tmp_path / "plain.csv", "--input", "probabilities"]):
        done = run("fit", *args, "--json")
        assert done.returncode == 0, done.stderr
        report = json.loads(done.stdout)
        assert report["temperature"] == pytest.approx(expected, abs=1e-6)
        assert report["warnings"] == [] and done.stderr == ""


@pytest.mark.parametrize("case, fragment", [
    ("probabilities-as-logits", "--input probabilities"),
    ("default-index", "index=False"),
    ("one-based", "1-based labels? subtract 1"),
    ("label-equals-k", "1-based labels? subtract 1"),
    ("column-number-header", "header=False"),
    ("index-arrays-overlap", "listed 2 times"),
])
def test_everyday_export_mistakes_exit_2_with_the_fix(tmp_path, case, fragment):
    z, y = digits_like()
    path = tmp_path / f"{case}.csv"
    if case == "probabilities-as-logits":  # an .npz array named logits (a CSV's plain columns are read as such)
        path = tmp_path / f"{case}.npz"
        np.savez(path, logits=scipy.special.softmax(z, axis=1), labels=y)
    elif case == "default-index":
        pandas_frame(z, y).to_csv(path)
    elif case == "one-based":
        keep = y != K - 1
        pandas_frame(z[keep], y[keep] + 1).to_csv(path, index=False)
    elif case == "label-equals-k":
        pandas_frame(z, y + 1).to_csv(path, index=False)
    elif case == "column-number-header":
        import pandas as pd
        pd.DataFrame(np.column_stack([y, z])).to_csv(path, index=False)
    else:
        path = tmp_path / f"{case}.npz"
        np.savez(path, logits=z, labels=y, val_idx=np.arange(0, 201), test_idx=np.arange(200, N))
    done = run("fit", path)
    assert done.returncode == 2 and done.stdout == "", done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"python -m calib: error: {path}: "), done.stderr
    assert fragment in lines[0]


def test_index_arrays_are_the_split(tmp_path):
    z, y = digits_like()
    order = np.random.default_rng(8).permutation(N)
    np.savez(tmp_path / "m.npz", logits=z, labels=y, val_idx=order[:120], test_idx=order[120:])
    report = json.loads(run("fit", tmp_path / "m.npz", "--json").stdout)
    assert report["split"]["rule"] == "file" and report["split"]["parts"] == {"calibration": 120, "test": N - 120}
    calibration = np.zeros(N, bool)
    calibration[order[:120]] = True
    assert report["temperature"] == pytest.approx(independent_fit(z, y, calibration), abs=1e-6)


def test_a_fit_at_a_bound_or_at_chance_warns_on_stderr_and_in_the_json(tmp_path):
    z, _ = digits_like()
    y = np.random.default_rng(9).integers(0, K, N)  # labels unrelated to the logits
    np.savez(tmp_path / "m.npz", logits=z, labels=y)
    done = run("fit", tmp_path / "m.npz", "--json", "--split", "even-odd")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    test = np.arange(N) % 2 == 1
    accuracy = np.mean(np.argmax(z[test], axis=1) == y[test])
    codes = [w["code"] for w in report["warnings"]]
    assert report["temperature"] >= 9.9 and "t_high_bound" in codes
    assert ("chance_accuracy" in codes) == (accuracy <= 1 / K)
    warned = [line for line in done.stderr.splitlines() if line.startswith("python -m calib: warning: ")]
    assert len(warned) == len(codes) and "upper bound 10" in warned[0]
    np.savez(tmp_path / "chance.npz", logits=np.tile(np.eye(K) * 3, (N // K, 1)), labels=np.zeros(N, int) + 1)
    done = run("fit", tmp_path / "chance.npz", "--json", "--split", "even-odd", "--input", "logits")
    report = json.loads(done.stdout)
    # each class is the top one on 1 test row in K: 1/K exactly
    assert "chance_accuracy" in [w["code"] for w in report["warnings"]]
    assert report["after"]["accuracy"] == pytest.approx(1 / K)


@pytest.mark.parametrize("extra", [(), ("--json",)])
def test_a_closed_pipe_ends_quietly(model_file, extra):
    import os
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the command writes a byte
    try:
        child = subprocess.Popen([sys.executable, "-m", "calib", "fit", str(model_file[0]), *extra], cwd=str(ROOT),
                                 stdout=write_end, stderr=subprocess.PIPE, text=True)
    finally:
        os.close(write_end)
    _, stderr = child.communicate(timeout=120)
    assert stderr == ""
    assert child.returncode == 141  # 128 + SIGPIPE, as a shell reports a command ended by a closed pipe


def test_fit_carries_the_paired_ranges_and_a_verdict_that_follows_from_them(model_file):
    path, z, y = model_file
    done = run("fit", path, "--json", "--seed", 3)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    decision = report["decision"]
    assert decision["evaluated_on"] == "test" and decision["rows"] == N // 2 and decision["n_bins"] == 15
    assert set(decision["metrics"]) == {"nll", "brier", "ece_equal-width", "ece_adaptive"}
    test = np.ones(N, bool)
    test[np.random.default_rng(3).permutation(N)[: N // 2]] = False
    nll = decision["metrics"]["nll"]
    # before/after restated with scipy on the test rows; the change is their difference and lies in its range
    assert nll["before"] == pytest.approx(scipy_nll(z[test], y[test], 1.0), rel=1e-9)
    assert nll["after"] == pytest.approx(scipy_nll(z[test], y[test], report["temperature"]), rel=1e-9)
    for key, m in decision["metrics"].items():
        assert m["change"] == pytest.approx(m["after"] - m["before"], abs=1e-12), key
        assert m["lo"] < m["hi"], key
    # labels drawn at T = 2 from logits three times too sharp: 200 test rows show that T helps
    verdict = decision["verdict"]
    expected = "helps" if nll["hi"] < 0 else "hurts" if nll["lo"] > 0 else "unclear"
    assert verdict["code"] == expected == "helps"
    assert verdict["worse"] == [k for k, m in decision["metrics"].items() if m["after"] > m["before"]]
    assert verdict["nll_bound"] == pytest.approx(max(abs(nll["lo"]), abs(nll["hi"])))
    spread = decision["temperature_spread"]
    assert spread["rows"] == N // 2 and spread["subsample"] == N // 2 and spread["resamples"] == 2000
    assert spread["values"][0] < report["temperature"] < spread["values"][1]
    text = run("fit", path, "--seed", 3)
    assert f"verdict: {verdict['code']}" in text.stdout
    assert "change from T = 1 to the fitted T" in text.stdout
