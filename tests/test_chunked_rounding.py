"""The partitioned fit (calib.chunked, calib.streamed, calib.distributed) on probabilities printed with few
decimals: the check of ``calib fit`` (calib.rounding), done as passes over the chunks.

References are independent of the partitioned code: ``calib fit``'s in-memory path on the same CSV (its report,
warning and notes), :func:`calib.rounding_range` on the arrays :func:`calib.io.load_predictions` reads from
it (golden-section fits of T), SciPy fits of T on the zeros read by hand, and
:func:`calib.io_values.decimals_of` of all the values at once.
"""

import json
import math

import numpy as np
import pytest
import scipy.optimize
import scipy.special

import calib
from calib.__main__ import main
from calib.chunks import Plan, add_sums, partition_sums, rounded_decimals
from calib.io import load_predictions
from calib.io_values import decimals_of

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")

T_TOLERANCE = 1e-6  # golden section (calib fit) stops within 1e-7 of the minimiser, Newton far closer


def export(folder, t, spread, n=3000, k=6, seed=11, name="m"):
    """A k-class model whose labels were drawn at temperature ``t`` (over-confident by ``t``), its
    probabilities written as calib fit's CSV with 3 decimals (half the rows "valid", half "test"), and the
    same printed values as Parquet and as ``.npy`` files: ``(csv, parquet, npy, p, y)``."""
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, k)) * spread
    z[np.arange(n), rng.integers(0, k, n)] += 2 * spread
    y = (np.cumsum(scipy.special.softmax(z / t, axis=1), axis=1) > rng.random((n, 1))).argmax(axis=1)
    p = scipy.special.softmax(z, axis=1)
    frame = pd.DataFrame(p, columns=[f"p_c{i}" for i in range(k)])
    frame["label"] = y
    frame["split"] = np.where(np.arange(n) % 2 == 0, "valid", "test")
    csv = folder / f"{name}.csv"
    frame.to_csv(csv, index=False, float_format="%.3f")
    printed = pd.read_csv(csv)
    parquet = folder / f"{name}.parquet"
    printed.to_parquet(parquet)
    npy = folder / "npy"
    npy.mkdir()
    np.save(npy / "probabilities.npy", printed[[f"p_c{i}" for i in range(k)]].to_numpy())
    np.save(npy / "labels.npy", y)
    np.save(npy / "split.npy", np.arange(n) % 2 == 0)
    return csv, parquet, npy / "probabilities.npy", p, y


def cli(capsys, *args):
    status = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err.splitlines()


def reference_range(csv):
    """calib.rounding_range of the calibration rows as calib.io reads the CSV."""
    data = load_predictions(csv)
    return calib.rounding_range(data.logits[data.split], data.labels[data.split], data.decimals)


def scipy_t(z, y):
    def nll(t):
        s = z / t
        return float(np.mean(scipy.special.logsumexp(s, axis=1) - s[np.arange(len(y)), y]))
    return scipy.optimize.minimize_scalar(nll, bounds=(0.05, 10), method="bounded", options={"xatol": 1e-10}).x


def far_from_a_4_digit_boundary(value):
    """Whether ``value`` printed with 4 significant digits cannot change within T_TOLERANCE."""
    step = 10.0 ** (math.floor(math.log10(abs(value))) - 3)
    return abs((value / step) % 1.0 - 0.5) > 2 * T_TOLERANCE / step


@pytest.mark.parametrize("which", ["parquet", "npy"])
def test_a_rounded_over_confident_export_is_warned_on_the_partitioned_path_as_in_memory(tmp_path, capsys, which):
    """Labels drawn at T = 3, a third of the values printed as 0: the partitioned CLI path gives calib fit's T,
    note, warning (same text), the T range of rounding_range and of SciPy, the verdict "check", --strict 3."""
    csv, parquet, npy, p, y = export(tmp_path, 3.0, 3.0)
    source = parquet if which == "parquet" else npy
    status, out, err = cli(capsys, "fit", csv, "--json")
    memory = json.loads(out)
    assert [w["code"] for w in memory["warnings"]] == ["rounded_zeros"]
    status, out, err = cli(capsys, "fit", source, "--json")
    report = json.loads(out)
    assert status == 0 and report["engine"]["kind"] == "streamed" and report["kind"] == "probabilities"
    assert abs(report["temperature"] - memory["temperature"]) <= T_TOLERANCE

    expected = reference_range(csv)
    rounding = report["fit"]["rounding"]
    assert rounding["decimals"] == expected.decimals == 3 and rounding["zeros"] == expected.zeros
    assert rounding["values"] == pytest.approx([5e-4, 1e-6], rel=1e-12)
    assert np.allclose(rounding["temperatures"], expected.temperatures, rtol=0, atol=T_TOLERANCE)
    valid = np.arange(len(y)) % 2 == 0
    rounded = np.round(p[valid], 3)
    by_hand = [scipy_t(np.log(np.where(rounded == 0, v, rounded)), y[valid]) for v in (5e-4, 1e-6)]
    assert np.allclose(rounding["temperatures"], by_hand, rtol=0, atol=1e-5)
    assert by_hand[1] / by_hand[0] - 1 > 0.05 and rounding["zeros"] == int(np.count_nonzero(rounded == 0))

    assert [w["code"] for w in report["warnings"]] == ["rounded_zeros"]
    assert report["decision"]["verdict"]["code"] == "check"
    assert report["decision"]["verdict"]["checks"] == ["rounded_zeros"]
    for value in [memory["temperature"], *expected.temperatures]:
        assert far_from_a_4_digit_boundary(value)  # so the two paths print the same 4 digits
    assert report["warnings"][0]["message"] == memory["warnings"][0]["message"]
    assert report["notes"] == [memory["notes"][0].replace(str(csv), str(source))]  # the zeros' reading
    assert any(line == f"python -m calib: warning: {report['warnings'][0]['message']}" for line in err)

    status, out, _ = cli(capsys, "fit", source)
    assert "verdict: check before deploying (rounded_zeros)" in out and "helps" not in out
    assert cli(capsys, "fit", source, "--strict")[0] == 3


@pytest.mark.parametrize("t", [1.0, 1.3])
def test_a_calibrated_or_mildly_over_confident_rounded_export_is_not_warned(tmp_path, capsys, t):
    """About a tenth of the values printed as 0: the range is measured (as rounding_range's) and under 5%."""
    csv, parquet, npy, p, y = export(tmp_path, t, 2.0)
    expected = reference_range(csv)
    assert expected is not None and expected.spread < 0.04
    status, out, _ = cli(capsys, "fit", parquet, "--json", "--strict")
    report = json.loads(out)
    assert status == 0 and report["warnings"] == [] and report["decision"]["verdict"]["code"] != "check"
    assert np.allclose(report["fit"]["rounding"]["temperatures"], expected.temperatures, rtol=0, atol=T_TOLERANCE)
    assert abs(report["temperature"] - json.loads(cli(capsys, "fit", csv, "--json")[1])["temperature"]) \
        <= T_TOLERANCE


def test_logits_and_full_precision_probabilities_never_take_the_check(tmp_path, capsys):
    """Logits rounded to one decimal (many print as 0.0) are logits: no digits pass, no check; probabilities
    written in full are not rounded: no note, no check, the T of calib fit on the same values."""
    rng = np.random.default_rng(5)
    z = np.round(rng.normal(size=(4000, 5)) * 3, 1)
    y = (np.cumsum(scipy.special.softmax(z / 2, axis=1), axis=1) > rng.random((4000, 1))).argmax(axis=1)
    assert np.mean(z == 0) > 0.01
    passes = []

    def counted(plan):
        passes.append(plan.kind)
        return partition_sums(z, y, None, 0, plan)

    report = calib.chunked.chunked_report(counted, "rounded logits", len(y), 5, resamples=0)
    assert "digits" not in passes and report["fit"]["rounding"] is None and report["warnings"] == []
    assert report["notes"] == []
    assert abs(report["temperature"] - calib.fit_temperature(z[::2], y[::2])) <= 1e-7

    p = scipy.special.softmax(z / 1.7, axis=1)
    np.savez(tmp_path / "full.npz", probabilities=p, labels=y, split=np.arange(len(y)) % 2 == 0)
    np.save(tmp_path / "probabilities.npy", p)
    np.save(tmp_path / "labels.npy", y)
    memory = json.loads(cli(capsys, "fit", tmp_path / "full.npz", "--json")[1])
    report = json.loads(cli(capsys, "fit", tmp_path / "probabilities.npy", "--json")[1])
    assert report["kind"] == "probabilities" and report["fit"]["rounding"] is None
    assert report["notes"] == [] and report["warnings"] == []
    assert abs(report["temperature"] - memory["temperature"]) <= T_TOLERANCE


def test_the_digits_pass_finds_the_decimals_of_all_the_values_whatever_the_windows():
    """Rows rounded to 2 decimals, then one row to 4 far down: the decimals of every value at once (4), found
    in any partitioning; 1/3 in one row: full precision (None); no zero: nothing to check (None)."""
    rng = np.random.default_rng(8)
    p = np.round(scipy.special.softmax(rng.normal(size=(70_000, 4)) * 4, axis=1), 2)
    p[65_000] = [0.1234, 0.4, 0.3766, 0.1]
    y = rng.integers(0, 4, len(p))

    def digits(values, size):
        plan = Plan("digits", 1.0, probabilities=True)
        parts = [partition_sums(values[s:s + size], y[s:s + size], None, s, plan) for s in range(0, len(y), size)]
        sums = parts[0]
        for other in parts[1:]:
            sums = add_sums(sums, other)
        return sums

    assert decimals_of(p) == 4 and np.any(p == 0)
    for size in (len(y), 30_000, 4_096):
        sums = digits(p, size)
        assert rounded_decimals(sums) == 4 and int(sums["zeros"][0]) == int(np.count_nonzero(p == 0))
    third = p.copy()
    third[3] = [1 / 3, 1 / 3, 1 / 3, 0.0]
    assert decimals_of(third) is None and rounded_decimals(digits(third, 30_000)) is None
    assert rounded_decimals(digits(np.maximum(p, 0.01), 30_000)) is None


def test_on_a_dask_cluster_the_csv_itself_is_checked(tmp_path):
    """The printed CSV read by dask.dataframe, fitted on a LocalCluster: the streamed path's T range and warning."""
    dd = pytest.importorskip("dask.dataframe")
    pytest.importorskip("distributed")
    csv, parquet, npy, p, y = export(tmp_path, 3.0, 3.0)
    streamed = calib.fit_streamed(parquet, resamples=0)
    with calib.local_client(1) as client:
        report = calib.fit_dask(dd.read_csv(csv, blocksize=20_000), client=client, resamples=0)
    assert report["engine"]["partitions"] > 1
    assert report["fit"]["rounding"]["zeros"] == reference_range(csv).zeros
    assert np.allclose(report["fit"]["rounding"]["temperatures"], streamed["fit"]["rounding"]["temperatures"],
                       rtol=0, atol=1e-9)
    assert [w["code"] for w in report["warnings"]] == ["rounded_zeros"]
    assert report["warnings"] == streamed["warnings"]
