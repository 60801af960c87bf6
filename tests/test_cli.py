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
