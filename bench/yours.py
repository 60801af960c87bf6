#!/usr/bin/env python3
"""``build.py --data`` benchmark: payload sizes, build time and peak memory for synthetic models. Prints only.

    python3 bench/yours.py                       # n × K = 2,000 × 10, 20,000 × 100
    python3 bench/yours.py --sizes 50000x1000    # any n×K list (the file is float32, written to a temp folder)
    python3 bench/yours.py --keep DIR            # keep the builds in DIR

For each size it writes a synthetic ``.npz`` (float32 logits: one boosted true class per row, scaled by 2),
runs ``build.py --data FILE --lang en`` into a temporary folder, and prints the wall time, the peak resident
memory of the build (``ru_maxrss`` of the child), the gzip-compressed size (level 9) of ``data/yours.js``
(budget 300 KB) and ``data/yours-analysis.js`` (budget 100 KB), and the page's first-view HTML size against a
build without ``--data`` (the difference is the "Your model" section).
"""

import argparse
import gzip
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
BUDGETS = {"yours.js": 300_000, "yours-analysis.js": 100_000}


def synthetic(path, n, k, seed=7):
    """A float32 model file with labels uniform over the K classes."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, k, n)
    logits = rng.standard_normal((n, k), dtype=np.float32)
    logits[np.arange(n), labels] += 3.0
    np.savez(path, logits=logits * np.float32(2.0), labels=labels)
    return path


def gz(path):
    return len(gzip.compress(Path(path).read_bytes(), 9, mtime=0))


def build(out, *options):
    """Run build.py; return (seconds, peak RSS in MiB of this child, stderr)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    done = subprocess.run([sys.executable, str(ROOT / "build.py"), "--out", str(out), "--lang", "en", *options],
                          cwd=ROOT, capture_output=True, text=True, env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if done.returncode != 0:
        raise SystemExit(f"build.py failed ({done.returncode}): {done.stderr.strip().splitlines()[-1]}")
    return seconds, max(peak, before) / 1024, done.stderr


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2000x10,20000x100", help="comma-separated n×K (default: %(default)s)")
    parser.add_argument("--keep", default=None, help="keep the builds in this folder")
    args = parser.parse_args()
    sizes = [tuple(int(v) for v in item.lower().split("x")) for item in args.sizes.split(",")]
    with tempfile.TemporaryDirectory(prefix="bench-yours-") as scratch:
        work = Path(args.keep or scratch)
        work.mkdir(parents=True, exist_ok=True)
        seconds, _, _ = build(work / "plain")
        plain_html = gz(work / "plain" / "index.html")
        print(f"without --data: {seconds:.1f} s, index.html {plain_html:,} B gzip")
        print(f"{'n × K':>16} {'build':>8} {'peak RSS':>10} {'yours.js gz':>13} {'analysis gz':>13} "
              f"{'index.html gz':>15}")
        for n, k in sizes:
            data = synthetic(work / f"model-{n}x{k}.npz", n, k)
            seconds, peak, _ = build(work / f"site-{n}x{k}", "--data", str(data))
            site = work / f"site-{n}x{k}"
            sizes_gz = {name: gz(site / "data" / name) for name in BUDGETS}
            marks = {name: "" if size <= BUDGETS[name] else " OVER" for name, size in sizes_gz.items()}
            html = gz(site / "index.html")
            print(f"{n:>7,} × {k:<6,} {seconds:7.1f}s {peak:8.0f} MiB {sizes_gz['yours.js']:>11,} B{marks['yours.js']}"
                  f" {sizes_gz['yours-analysis.js']:>11,} B{marks['yours-analysis.js']}"
                  f" {html:>11,} B (+{html - plain_html:,})")
        print("(peak RSS: the largest of this run's children so far; budgets: yours.js 300 KB, analysis 100 KB gzip)")


if __name__ == "__main__":
    main()
