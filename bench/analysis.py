#!/usr/bin/env python3
"""Time the uncertainty analyses stage by stage and measure each dataset's analysis payload.

    python bench/analysis.py              # every dataset, the page's settings
    python bench/analysis.py --workers 1  # single-threaded

Prints, per part, the wall time of each stage (bootstrap, noise floor with
and without the 1..50 sweep, bin sweep, smooth ECE), then the end-to-end time
of ``precompute_analyses`` (wall and process CPU) and, per dataset, the size of
``data/<name>-analysis.js`` raw and gzipped. Wall times on a shared machine
vary; CPU time is the steadier number.
"""

import argparse
import gzip
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from calib import (  # noqa: E402
    bootstrap_spread,
    ece_sweep,
    log_softmax,
    noise_floor,
    smooth_ece,
    smooth_reliability,
    subgroup_analysis,
)
from sitegen.analyses.uncertainty import _plan, part_generator, precompute_analyses  # noqa: E402
from sitegen.common.settings import (  # noqa: E402
    ANALYSIS_SEED,
    CURVE_POINTS,
    DRAWS,
    MAX_SWEEP_BINS,
    OFFERED_BIN_COUNTS,
    RESAMPLES,
    SWEEP_DRAWS,
)
from sitegen.compute.precompute import GROUP_BIN_COUNTS, precompute_all  # noqa: E402
from sitegen.render.analysis_payload import analysis_payload  # noqa: E402
from sitegen.render.payload import to_script  # noqa: E402


def timed(function, *args, **kwargs):
    """``(seconds of wall time, result)``."""
    start = time.perf_counter()
    result = function(*args, **kwargs)
    return time.perf_counter() - start, result


def stages(precomputed):
    """Per-part stage timings (wall seconds), printed as a table; returns the column totals."""
    columns = ("bootstrap", "floor", "sweep floor", "ece sweep", "smooth")
    totals = dict.fromkeys(columns, 0.0)
    print(f"{'dataset/part':<26}{'n':>6}" + "".join(f"{c:>13}" for c in columns))
    for name, result in precomputed.datasets.items():
        subgrid, _, jobs = _plan(result, precomputed.grid, precomputed.t1_index, ANALYSIS_SEED)
        for part, (_, logits, labels, temps, _, _) in jobs.items():
            log_p = log_softmax(logits, temps)
            rows = np.arange(labels.size)
            predicted = np.argmax(logits, axis=1)
            conf, correct = np.exp(log_p[:, rows, predicted]), predicted == labels
            losses = -log_p[:, rows, labels]
            outcome = np.broadcast_to(correct.astype(float), conf.shape)
            row = {
                "bootstrap": timed(bootstrap_spread, conf, correct, losses, bin_counts=OFFERED_BIN_COUNTS,
                                   n_resamples=RESAMPLES,
                                   rng=part_generator(ANALYSIS_SEED, name, part, "bootstrap"))[0],
                "floor": timed(noise_floor, conf, bin_counts=OFFERED_BIN_COUNTS, max_bins=MAX_SWEEP_BINS,
                               n_draws=DRAWS, sweep_draws=0, rng=1)[0],
                "sweep floor": timed(noise_floor, conf, bin_counts=OFFERED_BIN_COUNTS, max_bins=MAX_SWEEP_BINS,
                                     n_draws=2, sweep_draws=SWEEP_DRAWS, rng=1)[0],
                "ece sweep": timed(ece_sweep, conf, correct, max_bins=MAX_SWEEP_BINS)[0],
                "smooth": timed(lambda: smooth_reliability(conf, outcome, smooth_ece(conf, outcome).sigma,
                                                           np.linspace(0, 1, CURVE_POINTS)))[0],
            }
            for key, value in row.items():
                totals[key] += value
            print(f"{name + '/' + part:<26}{labels.size:>6}" + "".join(f"{row[c]:>13.3f}" for c in columns))
        if result.dataset.groups is not None:
            seconds, _ = timed(subgroup_analysis, result.dataset, result.fitted_t, GROUP_BIN_COUNTS)
            print(f"{name + '/subgroups':<26}{'':>6}{seconds:>13.3f}")
    print(f"{'total':<32}" + "".join(f"{totals[c]:>13.3f}" for c in columns))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2, help="threads for precompute_analyses (default 2)")
    parser.add_argument("--skip-stages", action="store_true", help="only the end-to-end run and the sizes")
    args = parser.parse_args(argv)

    seconds, precomputed = timed(precompute_all)
    print(f"precompute_all: {seconds:.2f} s (for reference)\n")
    if not args.skip_stages:
        stages(precomputed)
    cpu = time.process_time()
    seconds, analyses = timed(precompute_analyses, precomputed, workers=args.workers)
    cpu = time.process_time() - cpu
    print(f"\nprecompute_analyses (workers={args.workers}): {seconds:.2f} s wall, {cpu:.2f} s CPU\n")
    print(f"{'dataset':<16}{'raw bytes':>12}{'gzip bytes':>12}")
    for name in analyses.datasets:
        script = to_script("receiveAnalysis", analysis_payload(analyses, name)).encode()
        print(f"{name:<16}{len(script):>12}{len(gzip.compress(script, 9)):>12}")


if __name__ == "__main__":
    main()
