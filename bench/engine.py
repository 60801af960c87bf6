#!/usr/bin/env python3
"""Engine benchmark: the build's computation, the grid engine against numpy's exp and PyTorch, and large files.

Prints (never asserts):

1. the wall time of ``precompute_all()`` — every metric over the shared
   temperature grid for every built-in dataset, i.e. the build's "compute" stage;
2. the speed-up of the vectorised engine over a straightforward pure-Python
   loop (per temperature, per example) computing mean NLL and 15-bin
   equal-width ECE on the 6,000 × 10 ``overconfident`` set over the whole grid
   (a deliberate independent restatement; timed on a subset of temperatures
   and scaled to the grid size);
3. peak memory of ``precompute_all()`` (tracemalloc and peak resident size);
4. the scale table: for n × K in {10³, 10⁴, 10⁵} × 10 and 10⁴ × {100, 1000}
   (synthetic logits), the time of :func:`calib.grid_metrics` (NLL, Brier,
   top-label confidence and 15-bin equal-width ECE/MCE over the page's
   534-point grid) with 1 and 2 worker threads; numpy's ``exp`` over the same
   G·n·K float64 values (one thread, in blocks of the engine's buffer size,
   the cheapest way numpy can do it); and, when ``torch`` is importable (the
   optional ``bench`` extra, never needed otherwise), PyTorch doing the same
   work on blocks of temperatures at once with the same number of threads
   (the fastest of three trials: an exp-and-sum formulation with 128 Ki and
   2 Mi values per block, and a fused logsumexp with 128 Ki). Every time is
   the minimum over ``--repeats`` runs; BLAS is limited to one thread
   (threadpoolctl) so that the workers are the only parallelism;
5. large files (``--large``): ``python -m calib fit`` and the grid metrics
   (equal-width and adaptive, 15 bins, 534 temperatures) on generated
   1,000,000 × 10 and 50,000 × 1,000 float32 ``.npz`` files: wall time and
   peak resident size of each (a child process each, which reports its VmHWM).

    python bench/engine.py                      # sections 1-4, about 5-10 minutes on 2 cores
    python bench/engine.py --only scale         # the scale table only
    python bench/engine.py --only scale --clock cpu   # … timed by CPU seconds (steadier on a loaded machine)
    python bench/engine.py --large              # add section 5 (a few more minutes)
    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python bench/engine.py   # the machine's own BLAS kernel
"""

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from contextlib import nullcontext
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from calib import block_shape, ece, grid_metrics, load, load_predictions, scores_over_grid  # noqa: E402
from sitegen.compute.precompute import base_grid, precompute_all  # noqa: E402

try:
    import threadpoolctl
except ImportError:  # only used to pin BLAS to one thread
    threadpoolctl = None
try:
    import torch
except ImportError:  # the optional `bench` extra
    torch = None

SCALE_SIZES = ((1_000, 10), (10_000, 10), (100_000, 10), (10_000, 100), (10_000, 1_000))
LARGE_FILES = ((1_000_000, 10), (50_000, 1_000))

N_BINS = 15


CLOCK = time.perf_counter  # --clock cpu: time.process_time (CPU seconds of every thread of this process)


def best_of(repeats, function, *args):
    """``(seconds, result)``: the fastest of ``repeats`` calls of ``function(*args)``, by :data:`CLOCK`."""
    best, result = math.inf, None
    for _ in range(repeats):
        start = CLOCK()
        result = function(*args)
        best = min(best, CLOCK() - start)
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


def blas_threads(count):
    """A context pinning BLAS to ``count`` threads (a no-op without threadpoolctl)."""
    return threadpoolctl.threadpool_limits(count, user_api="blas") if threadpoolctl else nullcontext()


def synthetic(n, k, seed=20261130, dtype=np.float64):
    """Over-confident synthetic logits (n, K) and labels drawn from softmax(z / 1.5) by inverse CDF."""
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, k)) * 3.0
    p = np.exp((z - z.max(axis=1, keepdims=True)) / 1.5)
    cumulative = np.cumsum(p, axis=1)
    labels = np.minimum((cumulative < rng.random(n)[:, None] * cumulative[:, -1:]).sum(axis=1), k - 1)
    return z.astype(dtype), labels


def exp_seconds(z, temps, repeats):
    """numpy's exp over G·n·K float64 values, one thread, in blocks of the engine's buffer size."""
    n, k = z.shape
    g, rows = block_shape(n, k, temps.size)
    block = ((z[:rows] - z[:rows].max(axis=1, keepdims=True))[None] / temps[:g, None, None]).ravel()
    out = np.empty_like(block)
    total = temps.size * n * k
    calls, rest = divmod(total, block.size)

    def run():
        for _ in range(calls):
            np.exp(block, out=out)
        np.exp(block[:rest], out=out[:rest])

    return best_of(repeats, run)[0]


def torch_grid_metrics(z, labels, temps, n_bins, block_elements, variant):
    """NLL, Brier, mean confidence and equal-width ECE over ``temps`` with PyTorch, blocks of temperatures at once.

    ``variant`` "exp-sum": the engine's algorithm (exp of the max-shifted logits, row sums, 1 / norm);
    "logsumexp": fused ``logsumexp`` for the NLL, then the probabilities by a second exp.
    """
    s = torch.from_numpy(z - z.max(axis=1, keepdims=True))
    n, k = s.shape
    y = torch.from_numpy(np.asarray(labels, dtype=np.int64))
    true = s.gather(1, y[:, None])[:, 0]
    hits = torch.from_numpy((np.argmax(z, axis=1) == labels).astype(np.float64))
    edges = torch.linspace(0.0, 1.0, n_bins + 1, dtype=torch.float64)
    t_all = torch.from_numpy(np.asarray(temps, dtype=np.float64))
    g_max = max(1, block_elements // (n * k))
    out = {name: torch.empty(t_all.numel(), dtype=torch.float64) for name in ("nll", "brier", "conf", "ece")}
    for start in range(0, t_all.numel(), g_max):
        t = t_all[start:start + g_max]
        g = t.numel()
        x = s.unsqueeze(0) / t.view(-1, 1, 1)
        ts = true.unsqueeze(0) / t.view(-1, 1)
        if variant == "exp-sum":
            x.exp_()
            norm = x.sum(dim=2)
            squares = torch.linalg.vecdot(x, x)
            log_norm = norm.log()
            nll = log_norm - ts
            brier = squares / norm ** 2 - 2.0 * torch.exp(ts - log_norm) + 1.0
            conf = norm.reciprocal()
        else:
            lse = torch.logsumexp(x, dim=2)
            nll = lse - ts
            p = torch.exp(x - lse.unsqueeze(2))
            brier = (p * p).sum(dim=2) - 2.0 * torch.exp(ts - lse) + 1.0
            conf = torch.exp(-lse)
        ids = (torch.bucketize(conf, edges, right=True) - 1).clamp_(0, n_bins - 1)
        ids += (torch.arange(g) * n_bins).view(-1, 1)
        flat = ids.flatten()
        conf_sum = torch.bincount(flat, weights=conf.flatten(), minlength=g * n_bins).view(g, n_bins)
        hit_sum = torch.bincount(flat, weights=hits.expand(g, n).flatten(), minlength=g * n_bins).view(g, n_bins)
        out["ece"][start:start + g] = ((hit_sum - conf_sum).abs() / n).sum(dim=1)
        out["nll"][start:start + g] = nll.mean(dim=1)
        out["brier"][start:start + g] = brier.mean(dim=1)
        out["conf"][start:start + g] = conf.mean(dim=1)
    return {name: values.numpy() for name, values in out.items()}


def torch_seconds(z, labels, temps, threads, repeats):
    """PyTorch's best time and results: each formulation and block size is tried once, and the fastest is
    then timed ``repeats`` times."""
    torch.set_num_threads(threads)
    trials = []
    for variant, block_elements in (("exp-sum", 1 << 17), ("logsumexp", 1 << 17), ("exp-sum", 1 << 21)):
        seconds, _ = best_of(1, torch_grid_metrics, z, labels, temps, N_BINS, block_elements, variant)
        trials.append((seconds, variant, block_elements))
    _, variant, block_elements = min(trials)
    seconds, result = best_of(repeats, torch_grid_metrics, z, labels, temps, N_BINS, block_elements, variant)
    return min(seconds, min(trials)[0]), result, f"{variant}, {block_elements // 1024} Ki values per block"


def scale_table(temps, repeats, sizes=SCALE_SIZES):
    """Print section 4: the engine against numpy's exp and PyTorch at five sizes."""
    threads = "BLAS pinned to 1 thread" if threadpoolctl else "threadpoolctl missing: BLAS threads not pinned"
    kernel = ""
    if threadpoolctl:
        info = [i for i in threadpoolctl.threadpool_info() if i.get("user_api") == "blas"]
        kernel = f"; BLAS {info[0].get('internal_api')} {info[0].get('version')} kernel {info[0].get('architecture')}" \
            if info else ""
    load = os.getloadavg() if hasattr(os, "getloadavg") else (math.nan,) * 3
    print(f"scale: NLL + Brier + confidence + {N_BINS}-bin ECE over {temps.size} temperatures; "
          f"best of {repeats} by {'CPU' if CLOCK is time.process_time else 'wall'} time; load average "
          f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {threads}{kernel}; "
          f"OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '(unset)')}")
    torch_note = f"torch {torch.__version__}" if torch else "torch not importable: no PyTorch column"
    print(f"  {torch_note}")
    header = (f"  {'n × K':>14s} {'exp 1t':>8s} {'engine 1t':>10s} {'÷exp':>6s} {'engine 2t':>10s}"
              f" {'torch 1t':>9s} {'torch 2t':>9s} {'torch/engine 1t':>15s} {'2t':>5s}")
    print(header)
    for n, k in sizes:
        z, labels = synthetic(n, k)
        with blas_threads(1):
            exp_time = exp_seconds(z, temps, repeats)
            engine = {w: best_of(repeats, grid_metrics, z, labels, temps, (N_BINS,), ("equal-width",), w)
                      for w in (1, 2)}
        row = (f"  {f'{n:,} × {k:,}':>14s} {exp_time:8.3f} {engine[1][0]:10.3f} {engine[1][0] / exp_time:6.2f}"
               f" {engine[2][0]:10.3f}")
        if torch:
            t1 = torch_seconds(z, labels, temps, 1, repeats)
            t2 = torch_seconds(z, labels, temps, 2, repeats)
            row += (f" {t1[0]:9.3f} {t2[0]:9.3f} {t1[0] / engine[1][0]:15.2f}× {t2[0] / engine[2][0]:4.2f}×")
            metrics = engine[1][1]
            diff = max(np.max(np.abs(t1[1]["nll"] - metrics.nll) / metrics.nll),
                       np.max(np.abs(t1[1]["ece"] - metrics.ece["equal-width"][N_BINS])))
            row += f"   (torch best: {t1[2]} / {t2[2]}; max diff {diff:.0e})"
        print(row, flush=True)
    print("  s = seconds; ÷exp = engine 1t / exp 1t (targets: ≤ 5 for K = 10, ≤ 3 for K ≥ 100); "
          "torch/engine > 1 means the engine is faster (target ≥ 1 with 2 threads)")


def peak_rss_of_this_process_mib():
    """VmHWM, the peak resident size of this process's own memory image, in MiB (Linux; NaN elsewhere).

    Unlike ``ru_maxrss``, it does not include the image a child was forked from before ``exec``.
    """
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return math.nan


CLI_CHILD = (
    "import sys\n"
    f"sys.path.insert(0, {str(ROOT)!r}); sys.path.insert(0, {str(Path(__file__).resolve().parent)!r})\n"
    "import calib.__main__ as cli, engine\n"
    "code = cli.main(sys.argv[1:])\n"
    "print(f'VmHWM {engine.peak_rss_of_this_process_mib()}', file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def run_child(command):
    """``(seconds, exit status, stdout, stderr)`` of a child process."""
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=str(ROOT))
    return time.perf_counter() - start, done.returncode, done.stdout, done.stderr


def child_grid(path, workers):
    """Section 5's child: load ``path``, then the grid metrics with equal-width bins, then with both schemes;
    print the seconds of each and this process's peak RSS as JSON."""
    start = time.perf_counter()
    data = load_predictions(path)
    loaded = time.perf_counter()
    grid_metrics(data.logits, data.labels, base_grid(), (N_BINS,), ("equal-width",), workers=workers)
    width = time.perf_counter()
    grid_metrics(data.logits, data.labels, base_grid(), (N_BINS,), ("equal-width", "adaptive"), workers=workers)
    both = time.perf_counter()
    print(json.dumps({"load": loaded - start, "equal-width": width - loaded, "both": both - width,
                      "rss": peak_rss_of_this_process_mib()}))


def large_files(workers):
    """Print section 5: ``python -m calib fit`` and the grid metrics on two large generated files."""
    print(f"large files (float32 .npz, generated; {workers} workers; budget 120 s and 3 GB each; "
          "peak RSS = the child's VmHWM):")
    with tempfile.TemporaryDirectory() as folder:
        for n, k in LARGE_FILES:
            path = Path(folder) / f"synthetic-{n}x{k}.npz"
            z, labels = synthetic(n, k, dtype=np.float32)
            np.savez(path, logits=z, labels=labels)
            del z, labels
            name = f"{n:,} × {k:,} ({path.stat().st_size / 2 ** 20:.0f} MiB)"
            seconds, status, _, err = run_child(
                [sys.executable, "-c", CLI_CHILD, "fit", str(path), "--json", "--workers", str(workers)])
            rss = float(err.rsplit("VmHWM ", 1)[1]) if "VmHWM " in err else math.nan
            print(f"  {name}: python -m calib fit {seconds:6.1f} s, peak RSS {rss:6.0f} MiB"
                  f"{'' if status == 0 else f' (exit {status}: {err.strip()[-200:]})'}", flush=True)
            seconds, status, out, err = run_child(
                [sys.executable, __file__, "--child-grid", str(path), "--workers", str(workers)])
            parts = json.loads(out) if status == 0 else {}
            print(f"  {'':{len(name)}s}  grid metrics over 534 T, 15 bins: load {parts.get('load', math.nan):.1f} s, "
                  f"equal-width {parts.get('equal-width', math.nan):.1f} s, equal-width + adaptive "
                  f"{parts.get('both', math.nan):.1f} s; peak RSS {parts.get('rss', math.nan):6.0f} MiB"
                  f"{'' if status == 0 else f' (exit {status}: {err.strip()[-200:]})'}", flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--loop-temps", type=int, default=10,
                        help="temperatures on which to time the pure-Python loop (default: 10)")
    parser.add_argument("--repeats", type=int, default=3, help="repeats of each timing; the best is kept (default: 3)")
    parser.add_argument("--only", choices=("build", "scale"), help="run only sections 1-3 (build) or 4 (scale)")
    parser.add_argument("--sizes", help="section 4's sizes as NxK,NxK,… (default: the five of the table)")
    parser.add_argument("--large", action="store_true", help="also run section 5 (large generated files)")
    parser.add_argument("--workers", type=int, default=2, help="worker threads for section 5 (default: 2)")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="time sections 2 and 4 by wall time (default) or by this process's CPU time, the steadier "
                             "figure on a loaded machine (with 2 threads it adds both threads' time)")
    parser.add_argument("--child-grid", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    global CLOCK
    CLOCK = time.process_time if args.clock == "cpu" else time.perf_counter
    if args.child_grid:
        child_grid(args.child_grid, args.workers)
        return 0

    print(f"numpy {np.__version__}, Python {sys.version.split()[0]}, {os.cpu_count()} cores")
    if args.only != "scale":
        build_sections(args)
    if args.only != "build":
        sizes = SCALE_SIZES if not args.sizes else [tuple(int(v) for v in size.split("x"))
                                                     for size in args.sizes.split(",")]
        scale_table(base_grid(), args.repeats, sizes)
    if args.large:
        large_files(args.workers)
    return 0


def build_sections(args):
    """Sections 1-3: the build's precomputation, the pure-Python loop, memory."""
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


if __name__ == "__main__":
    sys.exit(main())
