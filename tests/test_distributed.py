"""The partitioned fit (calib.chunks, calib.chunked, calib.shards, calib.streamed, calib.distributed) against
calib fit's in-memory engine, on a Dask LocalCluster of two worker processes started by a fixture.

References are independent of the code under test: the fitted T against calib.fit_temperature (golden
section, 1e-7) and against a root of NLL's slope in 1/T found by scipy's brentq on a scipy softmax; scores,
bins and adaptive bins against calib.grid_metrics at the same T; the Poisson ranges against a plain numpy
loop over the same weights; the linearised refits of T against exact weighted refits.
"""

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
import scipy.optimize
import scipy.special
import scipy.stats

import calib
import calib.chunks
from calib.chunks import POISSON_BLOCK, poisson_weights
from calib.io_checks import InputError

IN_CI = os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")
try:  # the dask extra of pyproject.toml (the test extra includes it): CI fails without it, elsewhere the file skips
    import distributed  # noqa: F401
    import pyarrow as pa
    import pyarrow.parquet as pq
except ImportError as error:
    if IN_CI:
        raise
    pytest.skip(f"{error.name} is missing; install it with: bash tools/setup.sh", allow_module_level=True)

ROOT = Path(__file__).resolve().parents[1]
ROWS, K, FILES, GROUPS = 2_000_000, 10, 4, 2  # 8 partitions of 250,000 rows
PARTITION_BYTES = ROWS // (FILES * GROUPS) * K * 8  # a partition's logits as float64: 20 MB


def model_rows(n, k, seed):
    """Logits of an overconfident model (float32) and labels that follow it 70% of the time."""
    rng = np.random.default_rng(seed)
    z = (rng.normal(size=(n, k)) * 2.5).astype(np.float32)
    y = np.where(rng.random(n) < 0.7, z.argmax(axis=1), rng.integers(0, k, n))
    return z, y


def write_parquet(folder, z, y, split=None, files=1, groups=1):
    folder.mkdir(parents=True, exist_ok=True)
    per = len(y) // files
    for f in range(files):
        rows = slice(f * per, (f + 1) * per if f < files - 1 else len(y))
        columns = {"logits": pa.FixedSizeListArray.from_arrays(pa.array(z[rows].ravel()), z.shape[1]),
                   "label": y[rows]}
        if split is not None:
            columns["split"] = split[rows]
        pq.write_table(pa.table(columns), folder / f"part-{f}.parquet", row_group_size=-(-per // groups))
    return folder


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    z, y = model_rows(ROWS, K, 30)
    split = np.random.default_rng(31).random(ROWS) < 0.5
    folder = write_parquet(tmp_path_factory.mktemp("parquet"), z, y, split, FILES, GROUPS)
    return folder, z, y, split


def _reset_peak():
    with open("/proc/self/clear_refs", "w") as stream:  # 5: reset the peak resident set size (VmHWM)
        stream.write("5")


def _memory():
    fields = dict(line.split(":", 1) for line in open("/proc/self/status"))
    return {key: int(fields[key].split()[0]) * 1024 for key in ("VmHWM", "VmRSS")}


def _warm_up(path):
    """A fit of a few rows in the worker itself: the imports, the Parquet reader's code and buffers that any
    fit needs once, so they are not counted as the partitions' memory."""
    calib.fit_streamed(path, resamples=0)


@pytest.fixture(scope="module")
def cluster():
    with calib.local_client(2) as client:
        yield client


@pytest.fixture(scope="module")
def dask_run(data, cluster):
    """The fit on the cluster, with each worker's peak memory above its resident size at the start."""
    z, y = model_rows(2_000, K, 29)
    tiny = write_parquet(data[0].parent / "tiny", z, y, np.arange(len(y)) % 2 == 0)
    cluster.run(_warm_up, tiny)
    cluster.run(_reset_peak)
    start = cluster.run(_memory)
    report = calib.fit_dask(data[0], client=cluster, resamples=0)
    end = cluster.run(_memory)
    peaks = [end[w]["VmHWM"] - start[w]["VmRSS"] for w in start if w in end]
    return report, peaks


@pytest.fixture(scope="module")
def in_memory(data, dask_run):
    folder, z, y, split = data
    z = z.astype(np.float64)
    t = dask_run[0]["temperature"]
    return calib.fit_temperature(z[split], y[split]), calib.grid_metrics(z[~split], y[~split], [1.0, t])


def scipy_slope(z, y, beta):
    """Mean of E_p[z] − z_y under p = softmax(β z): the slope of mean NLL in β, by scipy."""
    p = scipy.special.softmax(beta * z, axis=1)
    return float(np.mean(np.einsum("nk,nk->n", p, z) - z[np.arange(len(y)), y]))


def test_the_fitted_temperature_agrees_with_calib_fit(data, dask_run, in_memory):
    folder, z, y, split = data
    report = dask_run[0]
    assert report["split"] == {"rule": "file", "seed": None, "parts": {"calibration": int(split.sum()),
                                                                       "test": int((~split).sum())}}
    assert abs(report["temperature"] - in_memory[0]) <= 1e-7  # calib fit's golden-section tolerance
    cal = z[split].astype(np.float64)
    beta = 1.0 / report["temperature"]  # brentq fails unless the slope changes sign within 1e-3 of it
    tight = 1.0 / scipy.optimize.brentq(lambda b: scipy_slope(cal, y[split], b), beta - 1e-3, beta + 1e-3, xtol=1e-15)
    assert abs(report["temperature"] - tight) <= 1e-9
    assert report["fit"]["passes"] <= 10 and report["fit"]["residual_step"] <= 1e-9


def test_scores_and_bins_agree_exactly_at_the_same_temperature(dask_run, in_memory):
    report, metrics = dask_run[0], in_memory[1]
    for i, key in enumerate(("before", "after")):
        part = report[key]
        for name, value in (("nll", metrics.nll[i]), ("brier", metrics.brier[i]), ("accuracy", metrics.accuracy),
                            ("mean_confidence", metrics.mean_confidence[i])):
            assert abs(part[name] - value) <= 1e-12, (key, name)
        bins = metrics.bins["equal-width"][15]
        assert part["bins"]["count"] == bins.count[i].tolist()
        for metric in ("ece", "mce"):
            assert abs(part[metric]["equal-width"] - getattr(metrics, metric)["equal-width"][15][i]) <= 1e-12
            bound = report["exactness"]["approximate"][f"{key}.{metric}.adaptive"]["bound"]
            assert abs(part[metric]["adaptive"] - getattr(metrics, metric)["adaptive"][15][i]) <= bound + 1e-12
            assert bound <= 1e-4


def assert_same_report(other, first):
    """The same T and scores to rounding, the same bin counts."""
    assert abs(other["temperature"] - first["temperature"]) <= 1e-12
    for key in ("before", "after"):
        assert other[key]["bins"]["count"] == first[key]["bins"]["count"]
        for name in ("nll", "brier", "accuracy", "mean_confidence"):
            assert abs(other[key][name] - first[key][name]) <= 1e-12
        for metric in ("ece", "mce"):
            for scheme in ("equal-width", "adaptive"):
                assert abs(other[key][metric][scheme] - first[key][metric][scheme]) <= 1e-12


@pytest.mark.filterwarnings("ignore:Sending large graph")  # the array goes to the workers once (persist)
def test_the_same_answer_whatever_the_partitions(data, dask_run, cluster):
    """The same rows as a Dask array of 3 uneven chunks, kept on the workers (the fixture's fit: 8 row groups)."""
    import dask.array as da

    folder, z, y, split = data
    chunks = ((900_000, 300_001, ROWS - 1_200_001), K)
    other = calib.fit_dask(da.from_array(z, chunks=chunks), y, split_mask=split, client=cluster, resamples=0,
                           persist=True)
    assert other["engine"]["partitions"] == 3 and other["split"] == dask_run[0]["split"]
    assert_same_report(other, dask_run[0])


def test_the_same_answer_whatever_runs_the_passes(tmp_path, cluster):
    """A Dask dataframe of class columns and Parquet row groups kept on the workers (two worker processes),
    .npy pieces streamed on one or two threads: the same figures, the Poisson ranges too."""
    import dask.dataframe as dd
    import pandas as pd

    z, y = model_rows(200_000, 6, 38)
    np.save(tmp_path / "logits.npy", z)
    np.save(tmp_path / "labels.npy", y)
    frame = pd.DataFrame(z, columns=[f"class_{c}" for c in range(6)]).assign(label=y)
    folder = write_parquet(tmp_path / "parquet", z, y, groups=3)
    runs = [calib.fit_dask(dd.from_pandas(frame, npartitions=3), client=cluster, resamples=30),
            calib.fit_dask(folder, client=cluster, resamples=30, persist=True),
            calib.fit_streamed(tmp_path / "logits.npy", resamples=30, piece_rows=25_000, workers=2),
            calib.fit_streamed(tmp_path / "logits.npy", resamples=30, workers=1)]
    for other in runs[1:]:
        assert_same_report(other, runs[0])
        for key, change in runs[0]["decision"]["metrics"].items():
            for field in ("change", "lo", "hi"):
                assert abs(other["decision"]["metrics"][key][field] - change[field]) <= 1e-12
        assert np.allclose(other["decision"]["temperature_spread"]["values"],
                           runs[0]["decision"]["temperature_spread"]["values"], rtol=0, atol=1e-12)


def test_a_worker_killed_mid_run_leaves_the_answer_unchanged(data, dask_run, cluster):
    """The final and refine passes at the fixture's T (the passes of the fit are the same map-reduce)."""
    pids = cluster.run(os.getpid)
    result, t = {}, dask_run[0]["temperature"]
    thread = threading.Thread(target=lambda: result.update(report=calib.fit_dask(data[0], client=cluster,
                                                                                 temperature=t, resamples=0)))
    thread.start()
    victim, deadline = None, time.monotonic() + 120
    while victim is None and time.monotonic() < deadline:
        busy = [worker for worker, tasks in cluster.processing().items() if tasks and worker in pids]
        victim = busy[0] if busy else None
        time.sleep(0.05)
    assert victim is not None and thread.is_alive()
    os.kill(pids[victim], signal.SIGKILL)
    thread.join(timeout=600)
    assert "report" in result
    assert pids[victim] not in cluster.run(os.getpid).values()  # the worker really died (its nanny restarted it)
    report, first = result["report"], dask_run[0]
    assert report["temperature"] == pytest.approx(first["temperature"], abs=1e-12)
    assert_same_report(report, first)


def test_a_workers_peak_memory_is_bounded_by_its_partitions_not_the_data(dask_run):
    peaks = dask_run[1]
    assert len(peaks) == 2
    assert max(peaks) <= 4 * PARTITION_BYTES, [p / 2 ** 20 for p in peaks]  # about four partitions: bounded
    assert max(peaks) < ROWS * K * 8 / 2  # by the partition, well below the data


def test_streamed_memory_mapped_npy_agrees_with_the_in_memory_engine(tmp_path):
    z, y = model_rows(60_000, 7, 32)
    np.save(tmp_path / "logits.npy", z.astype(np.float16))
    np.save(tmp_path / "labels.npy", y)
    report = calib.fit_streamed(tmp_path / "logits.npy", resamples=0, workers=2, piece_rows=5_000)
    zz = z.astype(np.float16).astype(np.float64)
    cal = np.arange(len(y)) % 2 == 0
    assert abs(report["temperature"] - calib.fit_temperature(zz[cal], y[cal])) <= 1e-7
    metrics = calib.grid_metrics(zz[~cal], y[~cal], [1.0, report["temperature"]])
    for i, key in enumerate(("before", "after")):
        assert abs(report[key]["nll"] - metrics.nll[i]) <= 1e-12
        assert abs(report[key]["ece"]["equal-width"] - metrics.ece["equal-width"][15][i]) <= 1e-12
        assert report[key]["bins"]["count"] == metrics.bins["equal-width"][15].count[i].tolist()


def test_poisson_weights_depend_on_the_row_only_and_are_poisson():
    whole = poisson_weights(7, 0, 3 * POISSON_BLOCK, 40)
    for start, stop in ((0, 1), (POISSON_BLOCK - 3, POISSON_BLOCK + 5), (100, 2 * POISSON_BLOCK + 7)):
        assert np.array_equal(poisson_weights(7, start, stop, 40), whole[start:stop])
    share = np.bincount(whole.astype(int).ravel(), minlength=5)[:5] / whole.size
    assert np.allclose(share, scipy.stats.poisson.pmf(np.arange(5), 1.0), atol=0.004)
    assert not np.array_equal(poisson_weights(8, 0, 100, 40), whole[:100])


def test_fine_bins_are_numpys_search_of_their_edges():
    edges = calib.chunks.fine_edges()
    rng = np.random.default_rng(39)
    values = np.concatenate([rng.random(20_000), 1 - 10.0 ** -rng.uniform(0, 17, 20_000), edges,
                             np.nextafter(edges, 0), np.nextafter(edges, 2), [0.0, 1.0, 1 - 2 ** -53]])
    values = np.clip(values, 0.0, 1.0)
    expected = np.clip(np.searchsorted(edges, values, side="right") - 1, 0, edges.size - 2)
    assert np.array_equal(calib.chunks.fine_ids(values, edges), expected)


def test_poisson_ranges_equal_a_plain_loop_over_the_same_weights():
    z, y = model_rows(6_000, 4, 33)
    z = z.astype(np.float64)
    report = calib.fit_streamed(z, y, resamples=60, split="none", piece_rows=1_000)
    t = report["temperature"]
    w = poisson_weights(report["decision"]["resampling"]["seed"], 0, len(y), 60).T  # (R, n)
    rows = np.arange(len(y))
    nll = [scipy.special.logsumexp(z / s, axis=1) - z[rows, y] / s for s in (1.0, t)]
    change = (w @ (nll[1] - nll[0])) / w.sum(axis=1)
    lo, hi = np.quantile(change, [0.05, 0.95])
    got = report["decision"]["metrics"]["nll"]
    assert abs(got["lo"] - lo) <= 1e-9 and abs(got["hi"] - hi) <= 1e-9
    exact = calib.fit_weighted_temperatures(z, y, w, tolerance=1e-9)  # each resample refitted exactly
    spread = report["decision"]["temperature_spread"]["values"]
    assert np.allclose(spread, np.quantile(exact, [0.05, 0.95]), rtol=2e-3)


def test_adaptive_bins_with_tied_confidences_stay_within_their_bound():
    z, y = model_rows(30_000, 3, 34)
    z = z.astype(np.float64)
    z[:10_000, 0] += 80.0  # confidence exactly 1
    z[10_000:15_000] = 0.0  # confidence exactly 1/3
    order = np.random.default_rng(35).permutation(len(y))
    z, y = z[order], y[order]
    report = calib.fit_streamed(z, y, temperature=1.3, resamples=0, split="none")
    metrics = calib.grid_metrics(z, y, [1.0, 1.3])
    for i, key in enumerate(("before", "after")):
        for metric in ("ece", "mce"):
            bound = report["exactness"]["approximate"][f"{key}.{metric}.adaptive"]["bound"]
            assert abs(report[key][metric]["adaptive"] - getattr(metrics, metric)["adaptive"][15][i]) <= bound + 1e-12


def test_bad_rows_name_the_file_and_row_on_one_machine_and_on_the_cluster(tmp_path, cluster):
    z, y = model_rows(1_000, 3, 36)
    z[700, 2] = np.nan
    folder = write_parquet(tmp_path / "bad", z, y, groups=3)
    for run in (lambda: calib.fit_streamed(folder), lambda: calib.fit_dask(folder, client=cluster)):
        with pytest.raises(InputError, match=r"part-0\.parquet: logits\[700, 2\]: nan"):
            run()


def dotted(tree, prefix=""):
    """Every leaf path of a JSON object, as dotted names."""
    if not isinstance(tree, dict):
        return {prefix[:-1]}
    return set().union(*(dotted(value, f"{prefix}{key}.") for key, value in tree.items())) if tree else set()


def test_cli_on_a_local_cluster_and_a_scheduler_address_says_what_it_left_out(tmp_path, cluster, capsys,
                                                                              monkeypatch):
    import calib.large_cli
    from calib.__main__ import fit_report, main

    z, y = model_rows(600, 5, 37)
    split = np.arange(len(y)) % 3 == 0
    np.savez(tmp_path / "model.npz", logits=z, labels=y, split=split)
    plain = fit_report(tmp_path / "model.npz")[0]
    folder = write_parquet(tmp_path / "model", z, y, split, files=2, groups=2)
    done = subprocess.run([sys.executable, "-m", "calib", "fit", str(folder), "--json", "--local-cluster", "2"],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    assert main(["fit", str(folder), "--json", "--scheduler", cluster.scheduler.address]) == 0  # in this process
    for output in (done.stdout, capsys.readouterr().out):
        report = json.loads(output)
        assert report["engine"]["kind"] == "dask" and report["engine"]["partitions"] == 4
        assert abs(report["temperature"] - plain["temperature"]) <= 1e-7
        assert report["after"]["nll"] == pytest.approx(plain["after"]["nll"], abs=1e-7)
        exactness = report["exactness"]
        listed = set(exactness["exact"]) | set(exactness["approximate"]) | set(exactness["resampled"]) | set(
            exactness["left_out"])
        for field in dotted(plain):
            present = field in dotted(report)
            named = any(field == name or field.startswith(name + ".") for name in listed)
            assert present or named, f"{field} is neither in the report nor listed as left out"
    # nothing listens on port 9: Dask retries until the timeout (10 s, which the test does not need to wait)
    monkeypatch.setattr(calib.large_cli, "CONNECT_TIMEOUT", "1s")
    assert main(["fit", str(folder), "--scheduler", "tcp://127.0.0.1:9"]) == 2
    error = capsys.readouterr().err
    assert len(error.strip().splitlines()) == 1 and "cannot reach a Dask scheduler" in error


def test_import_calib_needs_neither_dask_nor_pyarrow():
    code = """
import importlib.abc, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("dask", "distributed", "pyarrow", "pandas"):
            raise ImportError(f"{name} is blocked")
sys.meta_path.insert(0, Block())
import numpy as np, calib
assert all(hasattr(calib, name) for name in calib.__all__)
z = np.random.default_rng(0).normal(size=(400, 3)); y = z.argmax(axis=1)
print(round(calib.fit_streamed(z, y, resamples=0)["temperature"], 3) > 0)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "True", done.stderr
