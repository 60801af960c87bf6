#!/usr/bin/env python3
"""Scale benchmark: a reader's own model at 10⁴–10⁶ rows and 1,000 classes, stage by stage.

Prints (never asserts), for generated float32 ``.npz`` files of n × K logits
(over-confident synthetic logits; labels drawn from softmax(z / 1.5)):

* each stage of the pipeline a ``--data`` build runs on the file, in a child
  process, with its wall time, its CPU time (all threads) and its own peak
  resident size (the child's
  VmHWM, reset before each stage through ``/proc/self/clear_refs``):
  ``load`` (:func:`calib.load_predictions`), ``fit`` (the page's bounded fit,
  :func:`sitegen.compute.precompute.fit_for`, on the calibration half of a seeded
  random split), ``grid metrics`` (:func:`calib.grid_metrics` on all rows:
  NLL, Brier, confidence, ECE/MCE with 15 equal-width bins over the 534-point
  grid, two workers: the issue's "grid metrics"; then with 15 adaptive bins
  too, which sorts every temperature's confidences), ``precompute`` (the
  page's grid figures of both parts, :func:`sitegen.compute.precompute.precompute_dataset`),
  the analyses of each part (``scores``: :func:`calib.row_scores_over_grid`;
  ``bootstrap``; ``noise floor``; ``sweep + smooth``), ``quoted`` (the
  prose's bootstrap at T = 1 and the fitted T, :func:`sitegen.analyses.uncertainty.quote_part`
  with :func:`sitegen.analyses.uncertainty.quoted_resamples_for` resamples) and
  ``payload`` (the dataset, bins and analysis files, with their gzip sizes
  against the issue's budgets: dataset file ≤ 300 KB, analysis file ≤ 100 KB);
* ``python -m calib fit FILE --json`` in its own process under
  ``/usr/bin/time -v`` (wall time, peak RSS);
* when ``build.py --help`` lists ``--data``: the whole
  ``build.py --data FILE --out TMP`` under ``/usr/bin/time -v``.

Targets (issue 10): 50,000 × 1,000, whole build ≤ 120 s and ≤ 3 GB; 1,000,000 × 10,
fit + grid metrics ≤ 120 s and ≤ 3 GB, whole build ≤ 10 min and ≤ 3 GB.

    python bench/scale.py                       # 10⁴, 10⁵, 10⁶ × 10 and 50,000 × 1,000 (about 15-25 min)
    python bench/scale.py --sizes 10000x10      # one size
    python bench/scale.py --groups 3            # add a `groups` column (three groups): subgroup figures too
"""

import argparse
import gzip
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SIZES = ((10_000, 10), (100_000, 10), (1_000_000, 10), (50_000, 1_000))
DATASET_BUDGET, ANALYSIS_BUDGET = 300_000, 100_000  # gzip bytes (issue 10)


def synthetic_file(path, n, k, groups=0, seed=20261130):
    """Write an over-confident synthetic ``.npz`` (float32 logits (n, K), labels, optional groups), in blocks."""
    rng = np.random.default_rng(seed)
    logits = np.empty((n, k), dtype=np.float32)
    labels = np.empty(n, dtype=np.int64)
    step = max(1, (1 << 22) // k)
    for start in range(0, n, step):
        z = rng.normal(size=(min(step, n - start), k)) * 3.0
        p = np.exp((z - z.max(axis=1, keepdims=True)) / 1.5)
        cumulative = np.cumsum(p, axis=1)
        drawn = (cumulative < rng.random(z.shape[0])[:, None] * cumulative[:, -1:]).sum(axis=1)
        logits[start:start + z.shape[0]] = z
        labels[start:start + z.shape[0]] = np.minimum(drawn, k - 1)
    arrays = dict(logits=logits, labels=labels)
    if groups:
        arrays["groups"] = np.array([f"group {g + 1}" for g in range(groups)])[rng.integers(0, groups, n)]
    np.savez(path, **arrays)


# --- the child: one file, stage by stage -------------------------------------------------------------

# This process's peak resident size in MiB: the one reader, in bench/engine.py (this folder is on sys.path).
from engine import peak_rss_of_this_process_mib as _peak_mib  # noqa: E402


def _reset_peak():
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as refs:
            refs.write("5")
    except OSError:
        pass


def child(path):
    """Run the pipeline on ``path``, printing one JSON line per stage: name, seconds, peak MiB (and extras)."""
    from calib import (
        Dataset,
        SmoothCurve,
        SmoothECE,
        bootstrap_spread,
        ece_sweep,
        grid_metrics,
        load_predictions,
        noise_floor,
        part_masks,
        row_scores_over_grid,
        smooth_ece,
        smooth_reliability,
        split_masks,
    )
    from sitegen.analyses.uncertainty import (
        Analyses,
        DatasetAnalysis,
        PartAnalysis,
        _extras,
        _plan,
        _subgroups,
        _temperature_blocks,
        part_generator,
        quoted_resamples_for,
    )
    from sitegen.common.settings import (
        ANALYSIS_SEED,
        CURVE_POINTS,
        DRAWS,
        MAX_SWEEP_BINS,
        OFFERED_BIN_COUNTS,
        QUOTED_RESAMPLES,
        RESAMPLES,
        SWEEP_DRAWS,
    )
    from sitegen.compute.precompute import Precomputed, base_grid, build_grid, fit_for, grid_index, precompute_dataset
    from sitegen.render.analysis_payload import analysis_payload
    from sitegen.render.payload import bins_payload, dataset_payload, to_script

    def stage(name, function, *args, **extra):
        _reset_peak()
        start, cpu = time.perf_counter(), time.process_time()
        result = function(*args)
        print(json.dumps({"stage": name, "seconds": time.perf_counter() - start, "cpu": time.process_time() - cpu,
                          "peak": _peak_mib(), **extra}), flush=True)
        return result

    data = stage("load", load_predictions, path)
    masks = split_masks(data.labels.size, "random")
    dataset = Dataset("yours", data.logits, data.labels, data.groups, masks["calibration"])
    fitted_t, fitted_on = stage("fit", fit_for, dataset)
    stage("grid metrics, 15 eq.-width", lambda: grid_metrics(data.logits, data.labels, base_grid(), (15,),
                                                            ("equal-width",), workers=2))
    stage("grid metrics, both schemes", lambda: grid_metrics(data.logits, data.labels, base_grid(), (15,),
                                                             workers=2))
    grid = build_grid([fitted_t])
    t1_index = grid_index(grid, 1.0)
    result = stage("precompute", precompute_dataset, dataset, grid, fitted_t, fitted_on, t1_index)
    subgrid, fitted_index, jobs = _plan(result, grid, t1_index, ANALYSIS_SEED)
    parts = {}
    for part, (name, logits, labels, temps, seed, dataset_name) in jobs.items():
        conf, correct, losses = stage(f"{part}: scores", row_scores_over_grid, logits, labels, temps)
        spread = stage(f"{part}: bootstrap", bootstrap_spread, conf, correct, losses, OFFERED_BIN_COUNTS, RESAMPLES,
                       part_generator(seed, dataset_name, name, "bootstrap"))
        floor = stage(f"{part}: noise floor", noise_floor, conf, OFFERED_BIN_COUNTS, MAX_SWEEP_BINS, DRAWS,
                      SWEEP_DRAWS, part_generator(seed, dataset_name, name, "floor"))
        del losses

        def rest(conf, correct):
            blocks = _temperature_blocks(conf.shape[0], conf.shape[1])
            sweeps = [ece_sweep(conf[b], correct, MAX_SWEEP_BINS) for b in blocks]
            mesh = np.linspace(0.0, 1.0, CURVE_POINTS)
            smooth, curves = [], []
            for b in blocks:
                outcome = np.broadcast_to(correct.astype(np.float64), conf[b].shape)
                smooth.append(smooth_ece(conf[b], outcome))
                curves.append(smooth_reliability(conf[b], outcome, smooth[-1].sigma, mesh))
            return ({s: np.concatenate([x[s] for x in sweeps]) for s in sweeps[0]},
                    SmoothECE(*(np.concatenate(v) for v in zip(*smooth))),
                    SmoothCurve(mesh, np.concatenate([c.accuracy for c in curves]),
                                np.concatenate([c.density for c in curves]),
                                np.concatenate([c.support for c in curves])))

        sweep, smooth, curve = stage(f"{part}: sweep + smooth", rest, conf, correct)
        parts[part] = PartAnalysis(part, int(labels.size), spread, floor, sweep, smooth, curve)
        del conf
    test_rows = int(part_masks(dataset)["test"].sum())
    extras = stage("quoted", _extras, result, ANALYSIS_SEED, QUOTED_RESAMPLES, RESAMPLES,
                   resamples=quoted_resamples_for(test_rows, QUOTED_RESAMPLES))
    groups = stage("subgroups", _subgroups, result)
    analyses = Analyses(ANALYSIS_SEED, grid, t1_index, RESAMPLES, DRAWS, SWEEP_DRAWS,
                        {"yours": DatasetAnalysis("yours", subgrid, fitted_index, parts, groups, **extras)})
    precomputed = Precomputed(grid, t1_index, {"yours": result})

    def payloads():
        sizes = {"dataset": dataset_payload(result, precomputed), "analysis": analysis_payload(analyses, "yours")}
        sizes.update({f"{p}-bins": bins_payload(result, precomputed, p) for p in result.parts})
        return {name: len(gzip.compress(to_script("receive", value).encode(), 6)) for name, value in sizes.items()}

    sizes = stage("payload", payloads)
    print(json.dumps({"sizes": sizes}), flush=True)


# --- the parent ------------------------------------------------------------------------------------

def timed_command(command):
    """``(seconds, CPU seconds, peak MiB, exit status, stderr tail)`` of ``command`` under ``/usr/bin/time -v``
    (CPU = user + system time of the command and its threads)."""
    start = time.perf_counter()
    done = subprocess.run(["/usr/bin/time", "-v"] + command, capture_output=True, text=True, cwd=str(ROOT))
    seconds = time.perf_counter() - start
    found = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
    peak = int(found.group(1)) / 1024 if found else math.nan
    cpu = sum(float(v) for v in re.findall(r"(?:User|System) time \(seconds\): ([\d.]+)", done.stderr)) or math.nan
    tail = "" if done.returncode == 0 else done.stderr.strip().splitlines()[0][-200:]
    return seconds, cpu, peak, done.returncode, tail


def has_data_option():
    """Whether ``build.py`` takes ``--data`` (read from its ``--help``)."""
    done = subprocess.run([sys.executable, str(ROOT / "build.py"), "--help"], capture_output=True, text=True,
                          cwd=str(ROOT))
    return "--data" in done.stdout


def run_size(folder, n, k, groups, whole_build):
    path = Path(folder) / f"synthetic-{n}x{k}.npz"
    start = time.perf_counter()
    synthetic_file(path, n, k, groups)
    print(f"\n{n:,} × {k:,} float32 logits{f', {groups} groups' if groups else ''} "
          f"({path.stat().st_size / 2 ** 20:.0f} MiB, generated in {time.perf_counter() - start:.0f} s)", flush=True)
    seconds, cpu, peak, status, tail = timed_command([sys.executable, "-m", "calib", "fit", str(path), "--json"])
    print(f"  {'python -m calib fit --json':<28}{seconds:8.1f} s {cpu:8.1f} s {peak:8.0f} MiB"
          f"{'' if status == 0 else f'  (exit {status}: {tail})'}", flush=True)
    done = subprocess.Popen([sys.executable, __file__, "--child", str(path)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=str(ROOT))
    total, total_cpu, peaks = 0.0, 0.0, []
    for line in done.stdout:
        row = json.loads(line)
        if "sizes" in row:
            sizes = row["sizes"]
            print(f"  payload gzip: dataset {sizes['dataset']:,} B (budget {DATASET_BUDGET:,}), analysis "
                  f"{sizes['analysis']:,} B (budget {ANALYSIS_BUDGET:,}), bins "
                  + ", ".join(f"{k} {v:,} B" for k, v in sizes.items() if k.endswith("bins")), flush=True)
            continue
        total += row["seconds"]
        total_cpu += row["cpu"]
        peaks.append(row["peak"])
        note = ", ".join(f"{k} {v}" for k, v in row.items() if k not in ("stage", "seconds", "cpu", "peak"))
        print(f"  {row['stage']:<28}{row['seconds']:8.1f} s {row['cpu']:8.1f} s {row['peak']:8.0f} MiB"
              f"{f'  ({note})' if note else ''}", flush=True)
    status = done.wait()
    if status:
        print(f"  child failed (exit {status}): {done.stderr.read().strip()[-400:]}", flush=True)
    print(f"  {'pipeline total':<28}{total:8.1f} s {total_cpu:8.1f} s {max(peaks, default=math.nan):8.0f} MiB "
          "(largest stage peak)", flush=True)
    if whole_build:
        with tempfile.TemporaryDirectory() as out:
            seconds, cpu, peak, status, tail = timed_command(
                [sys.executable, "build.py", "--data", str(path), "--out", str(Path(out) / "site")])
        print(f"  {'build.py --data (whole)':<28}{seconds:8.1f} s {cpu:8.1f} s {peak:8.0f} MiB"
              f"{'' if status == 0 else f'  (exit {status}: {tail})'}", flush=True)
    path.unlink()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", help="sizes as NxK,NxK,… (default: 10000x10,100000x10,1000000x10,50000x1000)")
    parser.add_argument("--groups", type=int, default=0, help="add a groups column with this many groups")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child)
        return 0
    sizes = SIZES if not args.sizes else [tuple(int(v) for v in s.split("x")) for s in args.sizes.split(",")]
    load = os.getloadavg() if hasattr(os, "getloadavg") else (math.nan,) * 3
    whole = has_data_option()
    print(f"numpy {np.__version__}, Python {sys.version.split()[0]}, {os.cpu_count()} cores, "
          f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print("per stage: wall seconds, CPU seconds (all threads; on a loaded machine the steadier figure), and the "
          "stage's own peak resident size in MiB (VmHWM reset before it)")
    print("build.py --data: " + ("found; the whole build is timed too" if whole else
                                 "not available in this checkout; the stages above are the build's pipeline"))
    with tempfile.TemporaryDirectory() as folder:
        for n, k in sizes:
            run_size(folder, n, k, args.groups, whole)
    return 0


if __name__ == "__main__":
    sys.exit(main())
