#!/usr/bin/env python3
"""Engine benchmark: how long the build's computation takes, and what vectorising buys.

Prints (never asserts) three figures:

1. the wall time of ``precompute_all()`` — every metric over the shared
   temperature grid for every built-in dataset, i.e. the build's "compute" stage;
2. the speed-up of the vectorised engine over a straightforward pure-Python
   loop (per temperature, per example) computing mean NLL and 15-bin
   equal-width ECE on the 6,000 × 10 ``overconfident`` set over the whole grid.
   The loop is timed on a subset of temperatures and scaled to the grid size;
3. peak memory: the largest traced allocation during ``precompute_all()``
   (tracemalloc, which numpy reports to) and the process's peak resident size.

    python bench/engine.py                  # about 15–30 s
    python bench/engine.py --loop-temps 20  # time the pure-Python loop on more temperatures
"""

import argparse
import math
import resource
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from calib import ece, load, scores_over_grid  # noqa: E402
from sitegen.precompute import precompute_all  # noqa: E402

N_BINS = 15


def best_of(repeats, function, *args):
    """``(seconds, result)``: the fastest of ``repeats`` calls of ``function(*args)``."""
    best, result = math.inf, None
    for _ in range(repeats):
        start = time.perf_counter()
        result = function(*args)
        best = min(best, time.perf_counter() - start)
    return best, result


def vectorised_nll_ece(logits, labels, temps):
    """Mean NLL and 15-bin ECE at every temperature with the engine's grid path (blocked log-softmax, one bincount)."""
    nll, _, confidence = scores_over_grid(logits, labels, temps)
    correct = np.argmax(logits, axis=1) == labels
    return nll, ece(confidence, correct, N_BINS)


def loop_nll_ece(rows, labels, temps):
    """The same two metrics the obvious way: Python floats, one example and one temperature at a time."""
    nll_out, ece_out = [], []
    n = len(rows)
    for t in temps:
        total_nll = 0.0
        members = [[] for _ in range(N_BINS)]  # (confidence, hit) pairs per bin
        for row, label in zip(rows, labels):
            top = max(row)
            predicted = row.index(top)
            weights = [math.exp((v - top) / t) for v in row]
            norm = sum(weights)
            total_nll -= (row[label] - top) / t - math.log(norm)
            confidence = weights[predicted] / norm
            members[min(int(confidence * N_BINS), N_BINS - 1)].append((confidence, predicted == label))
        nll_out.append(total_nll / n)
        gap = 0.0
        for group in members:
            if group:
                gap += abs(sum(hit for _, hit in group) - sum(c for c, _ in group)) / n
        ece_out.append(gap)
    return nll_out, ece_out


def peak_rss_mib():
    """Peak resident set size of this process so far, in MiB (Linux reports KiB, macOS bytes)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 1024 / (1024 if sys.platform == "darwin" else 1)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loop-temps", type=int, default=10,
                        help="temperatures on which to time the pure-Python loop (default: 10)")
    parser.add_argument("--repeats", type=int, default=3, help="repeats of each timing; the best is kept (default: 3)")
    args = parser.parse_args(argv)

    print(f"numpy {np.__version__}, Python {sys.version.split()[0]}")

    # 1. the whole precomputation
    seconds, precomputed = best_of(1, precompute_all)
    grid = precomputed.grid
    sizes = ", ".join(f"{name} {r.dataset.logits.shape[0]}×{r.dataset.logits.shape[1]}"
                      for name, r in precomputed.datasets.items())
    print(f"precompute_all: {seconds:.2f} s for {len(precomputed.datasets)} datasets ({sizes}) "
          f"over {grid.size} temperatures")

    # 2. vectorised vs pure Python on `overconfident`
    data = load("overconfident")
    logits, labels = data.logits, data.labels
    vec_seconds, (vec_nll, vec_ece) = best_of(args.repeats, vectorised_nll_ece, logits, labels, grid)
    subset_index = np.linspace(0, grid.size - 1, args.loop_temps).round().astype(int)
    subset = grid[subset_index].tolist()
    rows, label_list = logits.tolist(), labels.tolist()
    loop_subset_seconds, (loop_nll, loop_ece) = best_of(args.repeats, loop_nll_ece, rows, label_list, subset)
    loop_seconds = loop_subset_seconds * grid.size / len(subset)
    print(f"overconfident ({logits.shape[0]}×{logits.shape[1]}), NLL + {N_BINS}-bin ECE over {grid.size} temperatures:")
    print(f"  vectorised engine: {vec_seconds:8.3f} s (best of {args.repeats}; the build's grid path, Brier included)")
    print(f"  pure-Python loop:  {loop_seconds:8.3f} s (best of {args.repeats} on {len(subset)} temperatures, "
          f"{loop_subset_seconds:.3f} s, scaled ×{grid.size / len(subset):.1f})")
    print(f"  speed-up:          {loop_seconds / vec_seconds:8.1f}×  (target ≥ 50×)")
    nll_diff = np.max(np.abs(np.array(loop_nll) - vec_nll[subset_index]))
    ece_diff = np.max(np.abs(np.array(loop_ece) - vec_ece[subset_index]))
    print(f"  agreement on the subset: max |ΔNLL| = {nll_diff:.1e} nats, max |ΔECE| = {ece_diff:.1e}")

    # 3. memory
    tracemalloc.start()
    precompute_all()
    _, traced_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"peak memory: {traced_peak / 2 ** 20:.1f} MiB traced during precompute_all (tracemalloc), "
          f"{peak_rss_mib():.1f} MiB peak resident size of this process")
    return 0


if __name__ == "__main__":
    sys.exit(main())
