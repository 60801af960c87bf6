#!/usr/bin/env python3
"""``build.py --data`` benchmark: payload sizes, build time and peak memory for synthetic models. Prints only.

    python3 bench/yours.py                                  # 1,797 × 10, 50,000 × 1,000, 1,000,000 × 10, 3 runs
    python3 bench/yours.py --sizes 1797x10 --repeat 1       # any n×K list (float32 files in a temp folder)
    python3 bench/yours.py --keep DIR                       # keep the builds in DIR

It first runs a plain build (``build.py --lang en``, no ``--data``), which fills the build cache as any build
does; then for each size it writes a synthetic ``.npz`` (float32 logits: one boosted true class per row, scaled
by 2) and runs ``build.py --data FILE --lang en`` ``--repeat`` times, each time into a fresh cache folder that
starts as a copy of the plain build's (so each run recomputes the reader's model, and reuses the built-in
datasets as a build after a plain one does). Per run it prints the wall time, the CPU time (user + system
seconds of the build process and its threads: on a busy machine the figure that does not depend on what else
runs), the peak resident memory of the build (``ru_maxrss`` of that child alone, from ``os.wait4``), the
1-minute load average before and after, the gzip-compressed size (level 9) of ``data/yours.js`` (budget
300 KB) and ``data/yours-analysis.js`` (budget 100 KB), and the page's first-view HTML size against the plain
build (the difference is the "Your model" section); then the median of the runs against its budget (issue 29,
one language, a quiet 2-core machine): 1,797 × 10 (digits-sized) ≤ 15 s; 50,000 × 1,000 ≤ 90 s and ≤ 2.5 GB;
1,000,000 × 10 ≤ 120 s and ≤ 2 GB. A wall time measured at a load above 2 says little; the CPU time does.

    python3 bench/yours.py --compare 1000000x10 --repeat 3   # python -m calib compare only, no build

times ``python -m calib compare FILE --json`` on the same synthetic files instead (budget at 1,000,000 × 10:
≤ 60 s wall and ≤ 1.5 GB peak), each run as one child measured alone, and prints every run and the median of
the runs with the load before and after.
"""

import argparse
import gzip
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
BUDGETS = {"yours.js": 300_000, "yours-analysis.js": 100_000}
COMPARE_BUDGET = {"seconds": 60.0, "mib": 1.5e9 / 2 ** 20}  # python -m calib compare at 1,000,000 × 10
# build.py --data, one language, after a plain build: (wall seconds, peak MiB or None) by (n, K)
BUILD_BUDGETS = {(1_797, 10): (15.0, None), (50_000, 1_000): (90.0, 2.5e9 / 2 ** 20),
                 (1_000_000, 10): (120.0, 2e9 / 2 ** 20)}


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


class Run(NamedTuple):
    """One build: wall seconds, CPU seconds (user, system), peak RSS in MiB, 1-minute load before and after."""

    wall: float
    user: float
    system: float
    peak_mib: float
    load_before: float
    load_after: float
    stderr: str


def build(out, *options, cache=None):
    """Run build.py as one child (with ``cache`` as its build cache folder, if given) and measure it alone
    (:class:`Run`)."""
    return measured([sys.executable, str(ROOT / "build.py"), "--out", str(out), "--lang", "en", *options],
                    {} if cache is None else {"CALIB_BUILD_CACHE": str(cache)})


def median(values):
    """The median of an odd count, the upper middle of an even one."""
    return sorted(values)[len(values) // 2]


def measured(command, env=None):
    """Run ``command`` as one child from the repository (``env``: extra variables) and measure it alone
    (:class:`Run`)."""
    load_before = os.getloadavg()[0]
    start = time.perf_counter()
    with tempfile.TemporaryFile("w+") as err:
        child = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=err, text=True,
                                 env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1", **(env or {})))
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - start
        err.seek(0)
        stderr = err.read()
    if child.returncode != 0:
        raise SystemExit(f"{Path(command[1]).name} failed ({child.returncode}): {stderr.strip().splitlines()[-1]}")
    return Run(wall, usage.ru_utime, usage.ru_stime, usage.ru_maxrss / 1024, load_before, os.getloadavg()[0], stderr)


def compare_runs(work, sizes, repeat):
    """``python -m calib compare FILE --json`` on each size, ``repeat`` times: every run, then the median."""
    print(f"python -m calib compare (budget at 1,000,000 × 10: {COMPARE_BUDGET['seconds']:.0f} s wall, "
          f"{COMPARE_BUDGET['mib']:,.0f} MiB peak)")
    print(f"{'n × K':>16} {'run':>4} {'wall':>8} {'CPU':>8} {'(user+sys)':>14} {'peak RSS':>10} {'load 1 min':>12}")
    for n, k in sizes:
        data = synthetic(work / f"model-{n}x{k}.npz", n, k)
        runs = []
        for i in range(repeat):
            run = measured([sys.executable, "-m", "calib", "compare", str(data), "--json"])
            runs.append(run)
            print(f"{n:>7,} × {k:<6,} {i + 1:>4} {run.wall:7.1f}s {run.user + run.system:7.1f}s "
                  f"({run.user:5.1f}+{run.system:5.1f}) {run.peak_mib:8.0f} MiB "
                  f"{run.load_before:5.2f}→{run.load_after:<5.2f}", flush=True)
        wall, peak = median([r.wall for r in runs]), median([r.peak_mib for r in runs])
        cpu = median([r.user + r.system for r in runs])
        verdict = ""
        if (n, k) == (1_000_000, 10):
            verdict = "  within budget" if wall <= COMPARE_BUDGET["seconds"] and peak <= COMPARE_BUDGET["mib"] else \
                "  OVER budget"
        print(f"{n:>7,} × {k:<6,} median of {len(runs)}: {wall:.1f} s wall, {cpu:.1f} s CPU, {peak:.0f} MiB{verdict}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1797x10,50000x1000,1000000x10",
                        help="comma-separated n×K (default: %(default)s)")
    parser.add_argument("--keep", default=None, help="keep the builds in this folder")
    parser.add_argument("--stages", action="store_true", help="also print each build's stage times (its stderr)")
    parser.add_argument("--compare", default=None, metavar="SIZES",
                        help="time python -m calib compare on these n×K instead of building (e.g. 1000000x10)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per size (default 3)")
    args = parser.parse_args()
    if args.compare:
        with tempfile.TemporaryDirectory(prefix="bench-compare-") as scratch:
            work = Path(args.keep or scratch)
            work.mkdir(parents=True, exist_ok=True)
            compare_runs(work, [tuple(int(v) for v in item.lower().split("x")) for item in args.compare.split(",")],
                         max(1, args.repeat))
        return
    sizes = [tuple(int(v) for v in item.lower().split("x")) for item in args.sizes.split(",")]
    with tempfile.TemporaryDirectory(prefix="bench-yours-") as scratch:
        work = Path(args.keep or scratch)
        work.mkdir(parents=True, exist_ok=True)
        warm = work / "cache-plain"
        shutil.rmtree(warm, ignore_errors=True)
        plain = build(work / "plain", cache=warm)
        plain_html = gz(work / "plain" / "index.html")
        print(f"without --data (fills the cache): {plain.wall:.1f} s wall, {plain.user + plain.system:.1f} s CPU, "
              f"index.html {plain_html:,} B gzip")
        print(f"{'n × K':>16} {'run':>4} {'wall':>8} {'CPU':>8} {'(user+sys)':>14} {'peak RSS':>10} {'load 1 min':>12} "
              f"{'yours.js gz':>13} {'analysis gz':>13} {'index.html gz':>15}")
        for n, k in sizes:
            data = synthetic(work / f"model-{n}x{k}.npz", n, k)
            runs = []
            for i in range(max(1, args.repeat)):
                cache = work / f"cache-{n}x{k}"
                shutil.rmtree(cache, ignore_errors=True)
                shutil.copytree(warm, cache)
                run = build(work / f"site-{n}x{k}", "--data", str(data), cache=cache)
                runs.append(run)
                site = work / f"site-{n}x{k}"
                sizes_gz = {name: gz(site / "data" / name) for name in BUDGETS}
                marks = {name: "" if size <= BUDGETS[name] else " OVER" for name, size in sizes_gz.items()}
                html = gz(site / "index.html")
                load = f"{run.load_before:5.2f}→{run.load_after:<5.2f}"
                print(f"{n:>7,} × {k:<6,} {i + 1:>4} {run.wall:7.1f}s {run.user + run.system:7.1f}s "
                      f"({run.user:5.1f}+{run.system:5.1f}) {run.peak_mib:8.0f} MiB {load}"
                      f" {sizes_gz['yours.js']:>11,} B{marks['yours.js']}"
                      f" {sizes_gz['yours-analysis.js']:>11,} B{marks['yours-analysis.js']}"
                      f" {html:>11,} B (+{html - plain_html:,})", flush=True)
                if args.stages:
                    print("\n".join("    " + line for line in run.stderr.strip().splitlines()), flush=True)
            wall, cpu = median([r.wall for r in runs]), median([r.user + r.system for r in runs])
            peak = median([r.peak_mib for r in runs])
            verdict = ""
            if (n, k) in BUILD_BUDGETS:
                seconds, mib = BUILD_BUDGETS[n, k]
                within = wall <= seconds and (mib is None or peak <= mib)
                limit = f"{seconds:.0f} s" + ("" if mib is None else f", {mib:,.0f} MiB")
                verdict = f"  {'within' if within else 'OVER'} budget ({limit})"
            print(f"{n:>7,} × {k:<6,} median of {len(runs)}: {wall:.1f} s wall, {cpu:.1f} s CPU, {peak:.0f} MiB"
                  f"{verdict}", flush=True)
        print("(CPU: user + system seconds of the build alone; peak RSS of the build alone; load: 1-minute average "
              "before → after; budgets: yours.js 300 KB, analysis 100 KB gzip)")


if __name__ == "__main__":
    main()
