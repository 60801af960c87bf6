"""The partitioned fit on one machine: pieces of a memory-mapped ``.npy`` or of Parquet row groups, streamed.

:func:`fit_streamed` runs :func:`calib.chunked.chunked_report`'s passes over the pieces of
:func:`calib.shards.open_source` (or of in-memory arrays) on ``workers`` threads, adding the pieces' sums
in piece order, so the result does not depend on the number of threads. Memory: ``workers`` pieces'
kernel windows (a few tens of MiB each) plus, for Parquet, the row groups being read; a memory-mapped
file's pages are the operating system's page cache, not the process's own memory.
"""

from concurrent.futures import ThreadPoolExecutor
from functools import reduce

import numpy as np

from .blocks import ROW_ALIGN, one_blas_thread
from .chunked import DECISION_SEED, N_BINS, chunked_report
from .chunks import FINE_BINS, add_sums, partition_sums
from .shards import PIECE_BYTES, array_pieces, open_source, piece_sums, pilot_rows, pilot_size, source_files, split_rule
from .validation import positive_int

__all__ = ["fit_streamed"]


def fit_streamed(source, labels=None, *, split=None, temperature=None, resamples=None, seed=DECISION_SEED,
                 workers=1, kind=None, n_bins=N_BINS, fine_bins=FINE_BINS, piece_rows=None, split_mask=None):
    """Fit T and report the scores of data too large for memory, on one machine: ``calib fit``'s report (a dict).

    ``source`` is a ``.npy`` or Parquet file, folder or glob (:func:`calib.shards.open_source`; ``labels``
    the labels' ``.npy`` if not beside the logits), or an (n, K) array (a memory map works) with ``labels``
    (n,) and optionally ``split_mask`` (n,), True for a calibration row. ``split``: ``"file"`` (default when
    the data have a split column or mask), ``"even-odd"`` (default otherwise) or ``"none"``; ``temperature``:
    evaluate this T instead of fitting; ``resamples``: the Poisson bootstrap's R (None: ``calib fit``'s rule;
    0: none); ``workers``: threads; ``kind``: ``"logits"`` or ``"probabilities"``. T is fitted by Newton's
    method in 1/T on summed slopes and curvatures; which figures are exact and which approximate is listed
    under the report's ``exactness`` (:func:`calib.chunked.chunked_report`). Bad input raises :class:`calib.InputError`.
    """
    workers = positive_int(workers, "workers")
    if isinstance(source, np.ndarray) or hasattr(source, "__array__"):
        logits, y = source, np.asarray(labels)
        if np.ndim(logits) != 2 or y.shape != (np.shape(logits)[0],):
            raise ValueError(f"logits must be (n, K) and labels (n,); got {np.shape(logits)} and {y.shape}")
        n, k = np.shape(logits)
        rows = piece_rows or max(ROW_ALIGN, PIECE_BYTES // (8 * k) // ROW_ALIGN * ROW_ALIGN)
        mask = None if split_mask is None else np.asarray(split_mask, dtype=bool)
        if mask is not None and mask.shape != y.shape:
            raise ValueError(f"split_mask must have shape {y.shape}; got {mask.shape}")
        pieces, name, probabilities = array_pieces(n, rows), "array", kind == "probabilities"
        has_split, files = mask is not None, None

        def one(piece, plan):
            part = slice(piece.start, piece.stop)
            return partition_sums(logits[part], y[part], None if mask is None else mask[part], piece.offset, plan,
                                  "array")

        def pilot():
            rows = pilot_size(k)
            return np.asarray(logits[:rows]), y[:rows], None if mask is None else mask[:rows]
    else:
        opened = open_source(source, labels, kind, piece_rows)
        pieces, name, n, k = opened.pieces, opened.name, opened.n, opened.k
        has_split, probabilities, files = opened.has_split, opened.probabilities, source_files(opened)

        def one(piece, plan):
            return piece_sums(piece, opened, plan)

        def pilot():
            return pilot_rows(opened)
    rule = split_rule(split, has_split)

    def run_pass(plan):
        if workers == 1:
            return reduce(add_sums, (one(piece, plan) for piece in pieces))
        with ThreadPoolExecutor(max_workers=workers) as pool:
            return reduce(add_sums, pool.map(lambda piece: one(piece, plan), pieces))

    engine = {"kind": "streamed", "pieces": len(pieces), "threads": workers}
    with one_blas_thread():  # the threads share the cores; BLAS must not add its own
        return chunked_report(run_pass, name, n, k, rule, temperature, resamples, seed, n_bins, fine_bins,
                              probabilities, engine, pilot=pilot, files=files)
