"""``python -m calib fit`` and ``compare`` on the exports practitioners make: never a silent wrong answer.

Run in-process through :func:`calib.__main__.main` (its stdout, stderr and exit status, as a pipeline sees
them). Expected values come from an independent SciPy fit of T (``minimize_scalar`` on the NLL written out
here), scikit-learn's sigmoid calibration, or the rule of the issue restated; the site's downloads are checked
against the T the built page itself reports (its metrics CSV).
"""

import csv
import json

import numpy as np
import pytest
import scipy.optimize
import scipy.special

from calib.__main__ import main

N, K = 600, 6


def model(n=N, k=K, seed=4, t=2.0):
    """Logits whose labels were drawn at temperature ``t``: over-confident by a factor ``t``."""
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, k)) * 4
    y = np.array([rng.choice(k, p=row) for row in scipy.special.softmax(z / t, axis=1)])
    return z, y


def scipy_t(z, y):
    """The NLL-minimising T on [0.05, 10], from SciPy, on the NLL written out with logsumexp."""
    def nll(t):
        s = z / t
        return float(np.mean(scipy.special.logsumexp(s, axis=1) - s[np.arange(len(y)), y]))
    return scipy.optimize.minimize_scalar(nll, bounds=(0.05, 10), method="bounded", options={"xatol": 1e-10}).x


def cli(capsys, *args):
    """``(status, stdout, stderr lines)`` of ``python -m calib ARGS``."""
    status = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err.splitlines()


def frame(values, labels, columns, split=None):
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame(values, columns=columns)
    df["label"] = labels
    if split is not None:
        df["split"] = split
    return df


def zeros_read_at(p, digits, value):
    """The logits of probabilities ``p`` printed with ``digits`` decimals, every printed 0 read as ``value``."""
    rounded = np.round(p, digits)
    return np.log(np.where(rounded == 0, value, rounded))


@pytest.mark.parametrize("digits", [2, 3])
def test_rounded_probabilities_with_class_names_fit_the_models_temperature(tmp_path, capsys, digits):
    """The issue's export: df.to_csv(float_format="%.3f") of predict_proba with the class names as the header.
    It was fitted as logits (T = 0.205, "helps"); it must give the T of the probabilities themselves. This model
    is over-confident (labels drawn at T = 2) and a quarter (3 decimals) to nearly half (2) of its values print as
    0: where in [0, half a digit) they are moves T by more than 5%, so the fit is warned about (never "helps"),
    with the range of T at the two ends, u / 2 and u / 1000, from SciPy fits of those readings."""
    z, y = model()
    p = scipy.special.softmax(z, axis=1)
    split = np.where(np.arange(N) % 2 == 0, "valid", "test")
    frame(p, y, [f"class {c}" for c in "abcdef"], split).to_csv(tmp_path / "p.csv", index=False,
                                                                float_format=f"%.{digits}f")
    status, out, err = cli(capsys, "fit", tmp_path / "p.csv", "--json")
    report = json.loads(out)
    assert status == 0 and report["kind"] == "probabilities"
    assert any("read as probabilities" in line for line in err) and any("renormalised" in line for line in err)
    full = scipy_t(np.log(p[::2]), y[::2])  # the T of the unrounded probabilities on the same rows
    assert 1.5 < full < 2.5
    assert report["temperature"] == pytest.approx(full, rel=0.03 if digits == 3 else 0.1)
    unit = 10.0 ** -digits
    ends = [scipy_t(zeros_read_at(p[::2], digits, value), y[::2]) for value in (unit / 2, unit / 1000)]
    assert ends[1] / ends[0] - 1 > 0.05 and ends[0] < full < ends[1]
    assert [w["code"] for w in report["warnings"]] == ["rounded_zeros"]
    assert report["decision"]["verdict"]["code"] == "check"
    message = report["warnings"][0]["message"]
    zeros = int(np.count_nonzero(np.round(p[::2], digits) == 0))
    assert message.startswith(f"{zeros:,} probabilities printed as 0 at {digits} decimals decide T")
    assert f"anywhere from {ends[0]:.4g} to above {ends[1]:.4g}" in message
    assert message.endswith("export logits, or write the probabilities with more digits, e.g. float_format='%.6g'")


def over_confident_export(tmp_path, t, spread, name, n=3000, k=6, seed=11):
    """Probabilities of a k-class model whose labels were drawn at temperature ``t`` (logits ``spread`` × N(0, 1)
    plus 2 × ``spread`` on a class), printed with 3 decimals, half the rows "valid", half "test"."""
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, k)) * spread
    z[np.arange(n), rng.integers(0, k, n)] += 2 * spread
    y = (np.cumsum(scipy.special.softmax(z / t, axis=1), axis=1) > rng.random((n, 1))).argmax(axis=1)
    p = scipy.special.softmax(z, axis=1)
    split = np.where(np.arange(n) % 2 == 0, "valid", "test")
    frame(p, y, [f"c{i}" for i in range(k)], split).to_csv(tmp_path / name, index=False, float_format="%.3f")
    return z, p, y


def test_probabilities_printed_as_zero_that_decide_t_block_helps_everywhere(tmp_path, capsys):
    """The engineer's export: a strongly over-confident model (labels at T = 3) written with %.3f, most of its
    values printed as 0. The zeros read at 1/20 of a digit gave T = 2.13 for a true 3.17, verdict "helps". Now a
    warning: on stderr, in the JSON, the verdict "check", --strict exits 3, and compare deploys nothing."""
    z, p, y = over_confident_export(tmp_path, 3.0, 3.0, "m.csv")
    valid = np.arange(len(y)) % 2 == 0
    assert np.mean(np.round(p, 3) == 0) > 0.3
    ends = [scipy_t(zeros_read_at(p[valid], 3, value), y[valid]) for value in (5e-4, 1e-6)]
    assert ends[1] / ends[0] - 1 > 0.05
    status, out, err = cli(capsys, "fit", tmp_path / "m.csv", "--json")
    report = json.loads(out)
    assert [w["code"] for w in report["warnings"]] == ["rounded_zeros"]
    assert report["decision"]["verdict"]["code"] == "check" and report["decision"]["verdict"]["nll_code"] == "helps"
    warned = [line for line in err if line.startswith("python -m calib: warning: ")]
    assert len(warned) == 1 and f"anywhere from {ends[0]:.4g} to above {ends[1]:.4g}" in warned[0]
    assert "float_format='%.6g'" in warned[0]
    status, out, _ = cli(capsys, "fit", tmp_path / "m.csv")
    assert "verdict: check before deploying (rounded_zeros)" in out and "helps" not in out
    assert cli(capsys, "fit", tmp_path / "m.csv", "--strict")[0] == 3
    status, out, _ = cli(capsys, "compare", tmp_path / "m.csv", "--json", "--resamples", 20, "--strict")
    report = json.loads(out)
    assert status == 3 and report["deploy"]["code"] == "check"
    assert [w["code"] for w in report["warnings"]] == ["rounded_zeros"]


@pytest.mark.parametrize("t", [1.0, 1.3])
def test_a_calibrated_or_mildly_over_confident_rounded_export_is_not_warned(tmp_path, capsys, t):
    """Calibrated (T = 1) or mildly over-confident (T = 1.3) with about a tenth of the values printed as 0 at 3
    decimals: T barely moves between the zeros' two readings (SciPy), and nothing is warned."""
    z, p, y = over_confident_export(tmp_path, t, 2.0, "m.csv")
    valid = np.arange(len(y)) % 2 == 0
    assert 0.05 < np.mean(np.round(p, 3) == 0) < 0.2
    ends = [scipy_t(zeros_read_at(p[valid], 3, value), y[valid]) for value in (5e-4, 1e-6)]
    assert ends[1] / ends[0] - 1 < 0.04
    status, out, _ = cli(capsys, "fit", tmp_path / "m.csv", "--json", "--strict")
    report = json.loads(out)
    assert status == 0 and report["warnings"] == [] and report["decision"]["verdict"]["code"] != "check"


def test_labels_that_do_not_belong_to_the_rows_never_get_a_helps_verdict(tmp_path, capsys):
    z, y = model()
    np.savez(tmp_path / "shuffled.npz", logits=z, labels=np.random.default_rng(1).permutation(y))
    status, out, err = cli(capsys, "fit", tmp_path / "shuffled.npz", "--json")
    report = json.loads(out)
    codes = [w["code"] for w in report["warnings"]]
    assert status == 0 and "t_high_bound" in codes and "no_information" in codes
    verdict = report["decision"]["verdict"]
    assert verdict["code"] == "check" and verdict["checks"] == codes
    assert sum(line.startswith("python -m calib: warning: ") for line in err) == len(codes)
    status, out, err = cli(capsys, "fit", tmp_path / "shuffled.npz")
    assert "verdict: check before deploying" in out and "deploy: nothing to deploy" in out and "helps" not in out
    status, _, _ = cli(capsys, "fit", tmp_path / "shuffled.npz", "--strict")
    assert status == 3
    status, out, err = cli(capsys, "compare", tmp_path / "shuffled.npz", "--json", "--strict", "--resamples", 20)
    report = json.loads(out)
    assert status == 3 and report["deploy"]["code"] == "check" and report["warnings"]
    # a sound model: no warning, and --strict changes nothing
    np.savez(tmp_path / "sound.npz", logits=z, labels=y)
    status, out, _ = cli(capsys, "fit", tmp_path / "sound.npz", "--json", "--strict")
    assert status == 0 and json.loads(out)["decision"]["verdict"]["code"] == "helps"


def test_a_file_with_several_problems_names_each_on_its_own_line(tmp_path, capsys):
    z, y = model()
    df = frame(z, y, [f"c{i}" for i in range(K)], np.where(np.arange(N) < 300, "calibration", "test")).astype(object)
    df.loc[2, "c3"] = "n/a"
    df.loc[4, "split"] = "later"
    df.loc[6, "label"] = "seven"
    df.to_csv(tmp_path / "m.csv", index=False)
    status, out, err = cli(capsys, "fit", tmp_path / "m.csv")
    assert status == 2 and out == ""
    assert len(err) == 3 and all(line.startswith(f"python -m calib: error: {tmp_path / 'm.csv'}: line ")
                                 for line in err), err
    assert "'n/a'" in err[0] and "'later'" in err[1] and "'seven'" in err[2]


def test_a_separate_test_file_holds_out_every_row_of_it(tmp_path, capsys):
    """The practitioner's validation-only file: with --test, all its rows fit T and the other file's rows test it."""
    z, y = model(n=900)
    np.savez(tmp_path / "val.npz", logits=z[:500], labels=y[:500])
    frame(z[500:], y[500:], [f"c{i}" for i in range(K)]).to_csv(tmp_path / "test.csv", index=False)
    status, out, _ = cli(capsys, "fit", tmp_path / "val.npz", "--test", tmp_path / "test.csv", "--json")
    report = json.loads(out)
    assert status == 0 and report["split"] == {"rule": "files", "seed": None, "parts": {"calibration": 500,
                                                                                        "test": 400}}
    assert report["temperature"] == pytest.approx(scipy_t(z[:500], y[:500]), abs=1e-6)
    assert [f["rows"] for f in report["files"]] == [500, 400]
    head = f"{tmp_path / 'val.npz'}: 500 rows + 400 rows in {tmp_path / 'test.csv'}, "
    for extra in (("fit",), ("compare", "--resamples", 20)):  # each file's own rows, not their sum as the first's
        _, text, _ = cli(capsys, *extra, tmp_path / "val.npz", "--test", tmp_path / "test.csv")
        assert text.splitlines()[0].startswith(head), text.splitlines()[0]
    np.savez(tmp_path / "three.npz", logits=z[500:, :3], labels=y[500:] % 3)
    status, _, err = cli(capsys, "fit", tmp_path / "val.npz", "--test", tmp_path / "three.npz")
    assert status == 2 and "3 classes, but" in err[0]
    status, _, err = cli(capsys, "fit", tmp_path / "val.npz", "--test", tmp_path / "test.csv", "--split", "random")
    assert status == 2 and "give one" in err[0]


def test_a_test_file_of_the_other_kind_is_refused_with_or_without_input(tmp_path, capsys):
    """Validation logits beside test probabilities (the practitioner's npz and to_csv): --input reads both files
    alike, so it is no way out; the one fix named is saving both the same way, and --input logits cannot make
    the probabilities be fitted as logits."""
    z, y = model(n=900)
    np.savez(tmp_path / "val.npz", logits=z[:500], labels=y[:500])
    probs = scipy.special.softmax(z[500:], axis=1)
    frame(probs, y[500:], [f"c{i}" for i in range(K)]).to_csv(tmp_path / "test.csv", index=False,
                                                                float_format="%.3f")
    for extra in ((), ("--input", "logits")):
        status, out, err = cli(capsys, "fit", tmp_path / "val.npz", "--test", tmp_path / "test.csv", *extra)
        assert status == 2 and out == "" and len(err) == 1, (extra, err)
        assert err[0].startswith(f"python -m calib: error: {tmp_path / 'test.csv'}: ") and "both the same way" in err[0]
        assert "or pass --input" not in err[0], err
    assert "look like probabilities" in err[0] and "--input logits reads both as logits" in err[0], err


def test_a_binary_models_one_score_column_end_to_end(tmp_path, capsys):
    """fit (T on the log-odds, Platt as scikit-learn fits it, the positive class's reliability), compare (Platt
    among the calibrators), and the deploy code of Platt scaling reproducing the scored NLL."""
    sklearn = pytest.importorskip("sklearn")  # noqa: F841
    from sklearn.linear_model import LogisticRegression
    rng = np.random.default_rng(2)
    x = rng.normal(size=1200) * 3
    y = (rng.random(1200) < scipy.special.expit(0.5 * x - 0.4)).astype(int)
    split = np.where(np.arange(1200) < 700, "val", "test")
    frame(x, y, ["score"], split).to_csv(tmp_path / "b.csv", index=False)
    status, out, _ = cli(capsys, "fit", tmp_path / "b.csv", "--json", "--method", "platt", "--save",
                         tmp_path / "platt.json")
    report = json.loads(out)
    assert status == 0 and report["binary"] and report["k"] == 2
    two = np.stack([np.zeros(700), x[:700]], axis=1)
    assert report["temperature"] == pytest.approx(scipy_t(two, y[:700]), abs=1e-6)
    # Platt's slope and bias: Platt's own logistic fit (smoothed targets), unpenalised, from scikit-learn
    pos, neg = y[:700].sum(), 700 - y[:700].sum()
    targets = np.where(y[:700] == 1, (pos + 1) / (pos + 2), 1 / (neg + 2))
    reference = LogisticRegression(C=np.inf, tol=1e-12, max_iter=10_000)
    reference.fit(np.r_[x[:700], x[:700]][:, None], np.r_[np.ones(700), np.zeros(700)],
                  sample_weight=np.r_[targets, 1 - targets])
    assert report["platt"]["slope"] == pytest.approx(reference.coef_[0, 0], rel=1e-4)
    assert report["platt"]["bias"] == pytest.approx(reference.intercept_[0], rel=1e-4, abs=1e-5)
    bins = report["positive_class"]["fitted"]["bins"]
    assert sum(b["rows"] for b in bins) == 500
    code = {}
    exec(compile((tmp_path / "platt.py").read_text(), "platt.py", "exec"), code)
    probs = code["calibrated_probs"](x[700:], code["load_calibrator"](str(tmp_path / "platt.json")))
    assert float(np.mean(-np.log(probs[np.arange(500), y[700:]]))) == pytest.approx(
        report["calibrator"]["after"]["nll"], abs=1e-12)
    status, out, _ = cli(capsys, "compare", tmp_path / "b.csv", "--json", "--resamples", 20)
    assert status == 0 and [m["method"] for m in json.loads(out)["methods"]][-1] == "platt"


def test_compare_never_recommends_a_calibrator_with_hard_zero_probabilities(tmp_path, capsys):
    """A binary model miscalibrated differently on each side of 0 (slope 3 above, 0.7 below): histogram binning has
    the lowest test NLL but its bins of all-positive calibration rows give test rows a probability of exactly 0 and
    1, so the next miss there costs infinite log loss. compare passes it over, says why, and deploys a calibrator
    whose own code (written by --save) gives no test row a hard 0; fit --method histogram's code shows the hard 0s
    on as many test rows as the note says."""
    rng = np.random.default_rng(0)
    n = 6000
    x = rng.normal(size=n) * 2
    y = (rng.random(n) < scipy.special.expit(np.where(x > 0, 3 * x, 0.7 * x))).astype(int)
    split = np.where(np.arange(n) % 2 == 0, "calibration", "test")
    np.savez(tmp_path / "b.npz", logits=x, labels=y, split=split)
    status, out, _ = cli(capsys, "compare", tmp_path / "b.npz", "--json", "--resamples", 50, "--save",
                         tmp_path / "best.json")
    report = json.loads(out)
    nll = {m["method"]: m["scores"]["nll"]["value"] for m in report["methods"]}
    best = report["deploy"]["method"]
    assert status == 0 and best not in ("histogram", "isotonic", "temperature")
    assert nll["histogram"] is not None and nll["histogram"] < nll[best]
    status, _, _ = cli(capsys, "fit", tmp_path / "b.npz", "--method", "histogram", "--save", tmp_path / "h.json")
    test = split == "test"
    probs = {}
    for name in ("best", "h"):
        code = {}
        exec(compile((tmp_path / f"{name}.py").read_text(), f"{name}.py", "exec"), code)
        saved = code["load_calibrator"](str(tmp_path / f"{name}.json"))
        probs[name] = np.asarray(code["calibrated_probs"](x[test], saved))
    hard = int(np.count_nonzero(np.any(probs["h"] == 0, axis=1)))
    assert hard > 0 and not np.any(probs["best"] == 0)
    assert report["deploy"]["passed_over"] == {"histogram": f"gives {hard:,} test row(s) a probability of exactly 0 "
                                               "(and 1): a hard 0 costs an infinite log loss the next time that class "
                                               "occurs"}
    _, text, _ = cli(capsys, "compare", tmp_path / "b.npz", "--resamples", 50)
    assert f"to deploy: {best} (" in text and f"not histogram, though its NLL is lower: it gives {hard:,}" in text


def test_compare_saves_the_calibrator_that_wins_and_its_code_reproduces_the_table(tmp_path, capsys):
    """Class-dependent miscalibration (a bias per class) that one temperature cannot fix: an affine calibrator wins
    on NLL beyond its range, is saved, and its code gives the NLL the table scored."""
    rng = np.random.default_rng(5)
    n, k = 2400, 4
    z = rng.normal(size=(n, k)) * 2
    y = np.array([rng.choice(k, p=row) for row in scipy.special.softmax(z + [2.0, 0.0, -1.0, 0.5], axis=1)])
    np.savez(tmp_path / "m.npz", logits=z, labels=y)
    status, out, err = cli(capsys, "compare", tmp_path / "m.npz", "--json", "--resamples", 50, "--save",
                           tmp_path / "best.json", "--workers", 2)
    report = json.loads(out)
    _, alone, _ = cli(capsys, "compare", tmp_path / "m.npz", "--json", "--resamples", 50, "--workers", 1)
    assert json.loads(alone)["methods"] == report["methods"]  # one thread or two: the same table
    best = report["deploy"]["method"]
    assert status == 0 and best in ("vector", "matrix", "dirichlet") and report["saved"]["method"] == best
    row = next(m for m in report["methods"] if m["method"] == best)
    assert row["scores"]["nll"]["range"][1] < 0
    code = {}
    exec(compile((tmp_path / "best.py").read_text(), "best.py", "exec"), code)
    parts = np.zeros(n, bool)
    parts[np.random.default_rng(0).permutation(n)[: n // 2]] = True  # the random split, seed 0
    test = ~parts
    probs = code["calibrated_probs"](z[test], code["load_calibrator"](str(tmp_path / "best.json")))
    assert float(np.mean(-np.log(probs[np.arange(test.sum()), y[test]]))) == pytest.approx(
        row["scores"]["nll"]["value"], abs=1e-12)


def test_every_download_of_the_built_site_fits_to_the_pages_temperature(built_site, capsys):
    """The page's own data files (downloads/<name>-data.csv: index, split, group, label, logits) are read by
    fit and compare, which find the T the page reports (its metrics CSV marks the fitted row). compare reads
    a file as fit does, then fits every other calibrator too: it runs on every file but digits-mlp's, where
    those fits take about 11 s and check nothing more of the reading."""
    found = sorted((built_site / "downloads").glob("*-data.csv"))
    assert len(found) >= 6
    compared = []
    for data in found:
        with open(str(data).replace("-data.csv", "-metrics.csv"), newline="") as stream:
            page_t = float(next(r for r in csv.DictReader(stream) if r["fitted"] == "true")["temperature"])
        status, out, err = cli(capsys, "fit", data, "--json")
        if data.name == "six-data.csv":  # the six-row worked example: fewer rows than a fit needs
            assert status == 2 and "the all part has 6 row(s); each part needs at least 10" in err[0]
            continue
        report = json.loads(out)
        assert status == 0, err
        assert report["temperature"] == pytest.approx(page_t, rel=1e-6), data.name
        if data.name == "digits-mlp-data.csv":
            continue
        status, out, err = cli(capsys, "compare", data, "--json", "--resamples", 20)
        assert status == 0, err
        assert json.loads(out)["temperature"] == pytest.approx(page_t, rel=1e-6), data.name
        compared.append(data.name)
    assert len(compared) >= 5, compared
