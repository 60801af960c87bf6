#!/usr/bin/env python3
"""Large-data benchmark: the partitioned fit (calib.fit_dask, calib.fit_streamed) in rows per second, and a
larger-than-comfortable memory-mapped file fitted in bounded memory.

Prints (never asserts):

* rows per second of ``calib.fit_dask`` on a Dask ``LocalCluster`` of 1 and 2 worker processes (one thread
  each) and of ``calib.fit_streamed`` on 1 and 2 threads, for 10⁷ binary rows (written as 2-column logits:
  calib has no one-column binary input yet) and 10⁶ × 10 multiclass rows, each read from Parquet files
  on disk (4 files, row groups of 250,000 rows), with the fit, the exact scores, the refine pass of the
  adaptive bins, and no Poisson bootstrap (``resamples=0``); then the 10⁶ × 10 set again with ``calib
  fit``'s default Poisson resamples, which cost more than the fit itself;
* ``python -m calib fit logits.npy --json`` (the streamed path, two threads) on a 10⁵ × 32,000 float16
  ``.npy`` (6.4 GB on disk), in a child process whose peak anonymous memory (``RssAnon`` of
  ``/proc/PID/status``, sampled every 20 ms: the mapped file's pages are page cache, counted in ``RssFile``,
  not in ``RssAnon``) and ``VmHWM`` (anonymous and file pages together) are printed; the file is deleted
  afterwards. ``--skip-memmap`` leaves it out; ``--memmap-rows`` shrinks it.

The machine's load average is printed with every figure: the project's machine is shared, and a busy
machine makes every wall-clock rate lower; rows per CPU second (the client's and every worker's CPU time)
are the figures a busy machine leaves nearly unchanged.

    python bench/large.py                 # about 10-20 minutes on an idle 2-core machine
    python bench/large.py --skip-memmap   # throughput only
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SETS = (("binary", 10_000_000, 2), ("multiclass", 1_000_000, 10))
ROW_GROUP = 250_000
MEMMAP_SHAPE = (100_000, 32_000)


def load():
    return "load {:.1f}".format(os.getloadavg()[0])


def write_set(folder, n, k, seed=20261206, files=4):
    """Over-confident float32 logits (n, k) and labels (70% the argmax) as Parquet files with a list column."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    per = n // files
    for f in range(files):
        z = (rng.standard_normal((per, k), dtype=np.float32) * 2.5)
        y = np.where(rng.random(per) < 0.7, z.argmax(axis=1), rng.integers(0, k, per))
        table = pa.table({"logits": pa.FixedSizeListArray.from_arrays(pa.array(z.ravel()), k), "label": y})
        pq.write_table(table, folder / f"part-{f}.parquet", row_group_size=ROW_GROUP)
    return folder


def _warm_up():
    """Import in a worker what a fit needs (not counted in the rate)."""
    import pyarrow.parquet  # noqa: F401

    import calib.distributed  # noqa: F401


def _cpu():
    return time.process_time()


def throughput(folder, n, label, resamples=0):
    """Print rows/s (wall) and rows per CPU second (all processes: the client and the workers)."""
    import calib

    for workers in (1, 2):
        with calib.local_client(workers) as client:
            client.run(_warm_up)
            cpu = sum(client.run(_cpu).values()) + time.process_time()
            start = time.perf_counter()
            report = calib.fit_dask(folder, client=client, resamples=resamples)
            seconds = time.perf_counter() - start
            cpu = sum(client.run(_cpu).values()) + time.process_time() - cpu
        print(f"  {label:34s} dask, {workers} worker(s): {n / seconds:11,.0f} rows/s wall ({seconds:6.1f} s), "
              f"{n / cpu:11,.0f} rows per CPU s ({cpu:6.1f} s); {report['fit']['passes']} Newton passes, "
              f"T = {report['temperature']:.6f}; {load()}", flush=True)
    for threads in (1, 2):
        cpu, start = time.process_time(), time.perf_counter()
        report = calib.fit_streamed(folder, resamples=resamples, workers=threads)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        print(f"  {label:34s} streamed, {threads} thread(s): {n / seconds:11,.0f} rows/s wall ({seconds:6.1f} s), "
              f"{n / cpu:11,.0f} rows per CPU s ({cpu:6.1f} s); {load()}", flush=True)


def write_memmap(folder, rows, k, seed=20261207, block=1_000):
    """A float16 (rows, k) logits .npy and its labels, written a block of rows at a time."""
    logits = np.lib.format.open_memmap(folder / "logits.npy", mode="w+", dtype=np.float16, shape=(rows, k))
    labels = np.empty(rows, dtype=np.int64)
    rng = np.random.default_rng(seed)
    for start in range(0, rows, block):
        z = rng.standard_normal((min(block, rows - start), k), dtype=np.float32) * 2.0
        z[:, :16] += 3.0  # a few likely classes, as a language model's logits have
        logits[start:start + z.shape[0]] = z
        labels[start:start + z.shape[0]] = np.where(rng.random(z.shape[0]) < 0.5, z.argmax(axis=1),
                                                    rng.integers(0, 16, z.shape[0]))
    logits.flush()
    del logits
    np.save(folder / "labels.npy", labels)


def peak_memory(command):
    """Run ``command``; return (seconds, peak RssAnon bytes sampled every 20 ms, VmHWM bytes, stdout, CPU seconds of
    the child)."""
    before = os.times()  # before the child starts: poll() reaps it, adding its CPU time to children_*
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    start, peak, hwm = time.perf_counter(), 0, 0
    status = Path(f"/proc/{process.pid}/status")
    while process.poll() is None:
        try:
            fields = dict(line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)
            peak = max(peak, int(fields["RssAnon"].split()[0]) * 1024)
            hwm = max(hwm, int(fields["VmHWM"].split()[0]) * 1024)
        except (OSError, KeyError, ValueError):
            pass
        time.sleep(0.02)
    out, err = process.communicate()
    after = os.times()
    if process.returncode:
        raise RuntimeError(err)
    cpu = after.children_user + after.children_system - before.children_user - before.children_system
    return time.perf_counter() - start, peak, hwm, out, cpu


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-memmap", action="store_true", help="leave out the 6.4 GB memory-mapped file")
    parser.add_argument("--skip-throughput", action="store_true", help="leave out the rows-per-second figures")
    parser.add_argument("--memmap-rows", type=int, default=MEMMAP_SHAPE[0], help="rows of the memory-mapped file")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="calib-large-") as tmp:
        tmp = Path(tmp)
        if not args.skip_throughput:
            print("rows per second (Parquet on disk, row groups of 250,000 rows; fit, exact scores, refine pass):")
            for name, n, k in SETS:
                folder = write_set(tmp / name, n, k)
                label = f"{n:,} x {k}" + (" (binary as 2 logits)" if k == 2 else "")
                throughput(folder, n, label)
                if k > 2:
                    throughput(folder, n, label + " + Poisson R=default", resamples=None)
                shutil.rmtree(folder)
        if not args.skip_memmap:
            rows, k = args.memmap_rows, MEMMAP_SHAPE[1]
            folder = tmp / "memmap"
            folder.mkdir()
            start = time.perf_counter()
            write_memmap(folder, rows, k)
            size = (folder / "logits.npy").stat().st_size
            print(f"memory-mapped {rows:,} x {k:,} float16: {size / 1e9:.2f} GB written in "
                  f"{time.perf_counter() - start:.0f} s")
            command = [sys.executable, "-m", "calib", "fit", str(folder / "logits.npy"), "--json", "--workers", "2"]
            seconds, anon, hwm, out, cpu = peak_memory(command)
            report = json.loads(out)
            print(f"  python -m calib fit logits.npy --json --workers 2: {seconds:.0f} s wall, {cpu:.0f} CPU s, "
                  f"{rows / seconds:,.0f} rows/s, "
                  f"peak RssAnon {anon / 2 ** 20:,.0f} MiB (VmHWM, with the mapped file's pages: "
                  f"{hwm / 2 ** 20:,.0f} MiB); T = {report['temperature']:.6f}, {report['fit']['passes']} Newton "
                  f"passes, {report['decision']['paired_resamples']} Poisson resamples; {load()}")
            shutil.rmtree(folder)
            print(f"  deleted {folder}")


if __name__ == "__main__":
    main()
