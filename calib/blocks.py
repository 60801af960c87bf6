"""The grid engine's blocks: how much of a (temperature, row, class) tensor is evaluated at once, and the
threads that share the blocks.

No (G, n, K) array ever exists: :func:`block_shape` sizes a block to about :data:`BLOCK_ELEMENTS` values,
each worker thread owns one :class:`Workspace` (a reusable buffer), and :func:`run_tasks` hands the
blocks to the workers. Tasks write disjoint slices, so results never depend on the number of threads.
"""

import queue
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .validation import positive_int

__all__ = ["BLOCK_ELEMENTS", "ROW_ALIGN", "block_shape", "row_chunks", "Workspace", "worker_count", "run_tasks",
           "one_blas_thread"]

BLOCK_ELEMENTS = 1 << 17  # (temperature, row, class) values per work buffer: 1 MiB of float64, in a core's L2 cache
ROW_ALIGN = 64  # rows per chunk are a multiple of this (see block_shape)


def block_shape(n, k, n_temps, block_elements=BLOCK_ELEMENTS):
    """``(temperatures, rows)`` per block so that temperatures × rows × K ≤ ``block_elements``.

    When one temperature's n × K values fit, a block holds as many
    temperatures as fit (at most ``n_temps``) and all rows; otherwise one
    temperature and as many rows as fit, rounded down to a multiple of
    ``ROW_ALIGN`` (at least ``ROW_ALIGN``, so with more than
    ``block_elements / ROW_ALIGN`` classes a block is larger than the budget).
    Chunks that start on a multiple of ``ROW_ALIGN`` rows give every row the
    same row sum as one call over all rows (BLAS kernels treat the last rows
    of a call that is not a multiple of their unroll differently).

    >>> block_shape(6000, 10, 534), block_shape(50000, 1000, 534)
    ((2, 6000), (1, 128))
    """
    n = positive_int(n, "n")
    k = positive_int(k, "k")
    block_elements = positive_int(block_elements, "block_elements")
    if n * k <= block_elements:
        return max(1, min(positive_int(n_temps, "n_temps"), block_elements // (n * k))), n
    return 1, min(n, max(ROW_ALIGN, block_elements // k // ROW_ALIGN * ROW_ALIGN))


def row_chunks(n, rows):
    """The slices of ``range(n)`` that a pass in chunks of ``rows`` rows (from :func:`block_shape`) computes.

    Every chunk starts on a multiple of ``rows`` and holds ``rows`` rows, except the last, which holds
    the rest, and one more than ``rows`` when the rest would be a single row: numpy multiplies a one-row
    matrix by a vector on another path than BLAS's, so a lone last row would get a row sum a bit off
    the one it gets in a longer call (and the results would depend on the block size).

    >>> [(c.start, c.stop) for c in row_chunks(129, 64)], [(c.start, c.stop) for c in row_chunks(130, 64)]
    ([(0, 64), (64, 129)], [(0, 64), (64, 128), (128, 130)])
    """
    starts = list(range(0, n, rows))
    if len(starts) > 1 and n - starts[-1] == 1:
        starts.pop()
    return [slice(start, end) for start, end in zip(starts, starts[1:] + [n])]


class Workspace:
    """One worker's scratch memory: a flat float64 work buffer and the ones vector of the row sums."""

    def __init__(self, size, k):
        self.buffer = np.empty(size)
        self.ones = np.ones(k)
        self.hint = None  # the last sort order a worker computed (see calib.binning.stable_order)

    def work(self, g, r, k):
        """The buffer's first g × r × k values as a (g, r, k) array (overwritten by each use)."""
        if self.buffer.size < g * r * k:  # a last chunk of one row more (see row_chunks)
            self.buffer = np.empty(g * r * k)
        return self.buffer[: g * r * k].reshape(g, r, k)


def worker_count(workers):
    """``workers`` checked: a positive number of threads."""
    return positive_int(workers, "workers")


def run_tasks(task, count, workspaces):
    """Run ``task(i, workspace)`` for i in range(count) on ``len(workspaces)`` threads (each with its own
    workspace); numpy releases the GIL inside its loops, so the threads run in parallel. Results are
    written by the tasks into disjoint slices, so they do not depend on the number of threads."""
    if len(workspaces) == 1 or count == 1:
        for i in range(count):
            task(i, workspaces[0])
        return
    free = queue.SimpleQueue()
    for workspace in workspaces:
        free.put(workspace)

    def run_one(i):
        workspace = free.get()
        try:
            task(i, workspace)
        finally:
            free.put(workspace)

    with ThreadPoolExecutor(max_workers=len(workspaces)) as pool:
        for _ in pool.map(run_one, range(count)):
            pass


def one_blas_thread():
    """A context manager in which BLAS (numpy's and SciPy's matrix products) runs on one thread, for a whole
    command (``python -m calib``): the engine's own threads already share the cores, and BLAS threads beside
    them wait on each other on a busy machine (a calibrator comparison of 3,000 rows took 27 s instead of 3 s;
    ``calib compare`` on 1,000,000 × 10 went from 40 to 25 s on a quiet one)."""
    import scipy.linalg  # noqa: F401  (loads SciPy's own BLAS, so that the limit reaches it too)
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1, user_api="blas")
