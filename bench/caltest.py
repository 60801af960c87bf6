#!/usr/bin/env python3
"""The calibration tests' false-alarm rate on calibrated data, at full size (the suite runs a few hundred sets).

    python bench/caltest.py                 # 4,000 calibrated data sets per test
    python bench/caltest.py --sets 1000     # quicker

For each test of calib.caltest, draws ``--sets`` data sets that are calibrated by construction (the ECE test:
top-label confidences spread over [0.3, 1) and outcomes drawn from them; the SKCE test: three-class probability
vectors from a Dirichlet(0.7) and labels drawn from them), runs the test on each, and prints the share rejected
at 1%, 5% and 10% with its binomial 95% interval (Wilson), beside the level it should match, and the time taken.
"""

import argparse
import math
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from calib import ece_consistency_test, skce_test  # noqa: E402

LEVELS = (0.01, 0.05, 0.1)


def wilson(k, n, z=1.959964):
    """The Wilson 95% interval of a binomial share k / n."""
    share = k / n
    centre = (share + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def ece_set(gen, n):
    conf = 0.3 + 0.7 * gen.beta(2.0, 1.2, n)
    return ece_consistency_test(conf, gen.random(n) < conf, n_draws=199, rng=gen).p_value


def skce_set(gen, n):
    p = gen.dirichlet(np.full(3, 0.7), n)
    y = (p.cumsum(axis=1) < gen.random((n, 1))).sum(axis=1).clip(0, 2)
    return skce_test(p, y, n_draws=199, rng=gen).p_value


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=int, default=4000, help="calibrated data sets per test (default 4000)")
    args = parser.parse_args(argv)
    for name, one, rows in (("ECE consistency, 15 bins, 199 draws", ece_set, 300),
                            ("SKCE consistency, 199 draws", skce_set, 200)):
        gen = np.random.default_rng(20270227)
        start = time.perf_counter()
        p = np.array([one(gen, rows) for _ in range(args.sets)])
        took = time.perf_counter() - start
        print(f"{name}: {args.sets} calibrated sets of {rows} rows, {took:.1f} s")
        for level in LEVELS:
            k = int(np.sum(p <= level))
            lo, hi = wilson(k, args.sets)
            print(f"  level {level:5.0%}: rejected {k / args.sets:6.2%}  (95% interval {lo:6.2%} to {hi:6.2%})")


if __name__ == "__main__":
    main()
