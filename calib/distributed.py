"""The partitioned fit on a Dask cluster: each pass one map-reduce, the partitions' sums added on the workers.

:func:`fit_dask` takes a Dask array (with its labels), a Dask dataframe, or a ``.npy``/Parquet file, folder
or glob that the workers can read (shared storage); each pass of :func:`calib.chunked.chunked_report`
becomes one Dask graph: :func:`calib.chunks.partition_sums` per partition, then a tree of
:func:`calib.chunks.add_sums` in partition order (:data:`SPLIT_EVERY` at a time), so what the client
receives is one set of sums, whose value does not depend on the workers, their number, or which of
them computed what. A worker that dies mid-pass costs a recomputation of its partitions (Dask reruns
them from the graph), never a different answer.

Dask (``dask``, ``distributed``) and pyarrow are an optional extra, imported only when this runs:
``import calib`` never needs them.
"""

import logging
import warnings
from contextlib import contextmanager
from functools import reduce
from typing import Callable, NamedTuple, Optional

import numpy as np

from .chunked import DECISION_SEED, N_BINS, chunked_report
from .chunks import FINE_BINS, add_sums, partition_sums
from .io_checks import InputError
from .shards import (
    load_piece,
    loaded_sums,
    open_source,
    piece_sums,
    pilot_rows,
    pilot_size,
    source_files,
    split_rule,
    split_values_of,
)

__all__ = ["SPLIT_EVERY", "fit_dask", "local_client"]

SPLIT_EVERY = 8  # partitions' sums added per task of the reduction tree
_LIST_COLUMNS = ("logits", "probabilities")
_LABEL_COLUMNS = ("label", "labels")
_NOT_CLASSES = ("label", "labels", "split", "group", "groups")


def _add_all(parts):
    return reduce(add_sums, parts)


def _block_sums(logits, labels, split_values, offset, plan):
    return partition_sums(logits, labels, split_values, offset, plan, "dask array")


def _frame_arrays(frame, columns):
    """``(logits (m, K), labels (m,), split (m,) or None)`` of a pandas partition."""
    classes, label, split = columns
    if len(classes) == 1:
        column = frame[classes[0]]
        if hasattr(column.array, "__arrow_array__"):  # a pyarrow-backed list column: its values, without a copy
            import pyarrow as pa

            arrow = column.array.__arrow_array__()
            arrow = arrow.combine_chunks() if isinstance(arrow, pa.ChunkedArray) else arrow
            values = arrow.flatten().to_numpy(zero_copy_only=False)
            logits = values.reshape(len(frame), -1) if len(frame) else np.empty((0, 2))
        else:
            logits = np.stack(column.to_numpy()) if len(frame) else np.empty((0, 2))
    else:
        logits = frame[list(classes)].to_numpy()
    split_values = split_values_of("dask dataframe", frame[split].to_numpy()) if split else None
    return logits, frame[label].to_numpy(), split_values


def _frame_sums(frame, columns, offset, plan):
    logits, labels, split_values = _frame_arrays(frame, columns)
    return partition_sums(logits, labels, split_values, offset, plan, "dask dataframe")


def _frame_columns(frame):
    names = list(frame.columns)
    label = next((c for c in _LABEL_COLUMNS if c in names), None)
    if label is None:
        raise InputError(f"dask dataframe: needs a column 'label'; found {', '.join(map(str, names))}")
    listed = [c for c in _LIST_COLUMNS if c in names]
    classes = tuple(listed[:1]) or tuple(c for c in names if str(c).lower() not in _NOT_CLASSES)
    return classes, label, "split" if "split" in names else None


@contextmanager
def local_client(workers=2, threads=1):
    """``with local_client(2) as client:`` a :class:`distributed.Client` of a new :class:`distributed.LocalCluster`
    of ``workers`` processes (each ``threads`` threads) on this machine; both are closed when the block ends.
    Worker processes are spawned, so a script must start one under ``if __name__ == "__main__":``."""
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=workers, threads_per_worker=threads, processes=True, dashboard_address=":0",
                      silence_logs=logging.CRITICAL) as cluster:  # its complaints (a slow shutdown) are not ours
        with Client(cluster) as client:
            yield client


class _Partitions(NamedTuple):
    """A source as Dask sees it: ``tasks(plan)`` gives one delayed sums per partition, ``pilot()`` the first few
    rows (read by the client) where Newton starts; ``name``, ``n``, ``k``, ``has_split``, ``probabilities``, and
    ``files`` (the report's, for file sources)."""

    tasks: Callable
    pilot: Callable
    name: str
    n: int
    k: int
    has_split: bool
    probabilities: bool
    files: Optional[list] = None


def _partitions(source, labels, split_mask, kind, piece_rows, persist, client):
    """The :class:`_Partitions` of ``source``."""
    import dask
    import dask.array as da

    if isinstance(source, da.Array):
        logits = source.rechunk({1: -1}) if source.numblocks[1] > 1 else source
        if np.isnan(logits.shape[0]) or any(np.isnan(c) for c in logits.chunks[0]):
            logits = logits.compute_chunk_sizes()
        rows = (logits.chunks[0],)
        columns = [labels] + ([] if split_mask is None else [split_mask])
        columns = [(c if isinstance(c, da.Array) else da.from_array(np.asarray(c), chunks=rows)).rechunk(rows)
                   for c in columns]
        arrays = [logits] + columns
        if persist:
            arrays = client.persist(arrays) if client is not None else list(dask.persist(*arrays))
        blocks = [a.to_delayed().ravel() for a in arrays] + ([] if split_mask is not None else [[None] * len(rows[0])])
        offsets = np.concatenate([[0], np.cumsum(rows[0])[:-1]])
        n, k = logits.shape

        def tasks(plan):
            return [dask.delayed(_block_sums)(b, lb, sb, int(o), plan) for b, lb, sb, o in zip(*blocks, offsets)]

        def pilot():
            head = dask.compute(*[a[:pilot_size(k)] for a in arrays])
            return head[0], head[1], head[2] if split_mask is not None else None
        return _Partitions(tasks, pilot, f"dask array {n} x {k}", int(n), int(k), split_mask is not None,
                           kind == "probabilities")
    if hasattr(source, "to_delayed") and hasattr(source, "map_partitions"):
        columns = _frame_columns(source)
        frame = source.persist() if persist else source
        lengths = frame.map_partitions(len).compute()
        offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]])
        parts = frame.to_delayed()
        classes = columns[0]
        k = len(classes) if len(classes) > 1 else len(frame[classes[0]].head(1).iloc[0])
        named = classes[0] == "probabilities" or all(str(c).lower().startswith(("p_", "prob_")) for c in classes)

        def tasks(plan):
            return [dask.delayed(_frame_sums)(p, columns, int(o), plan) for p, o in zip(parts, offsets)]

        def pilot():
            with warnings.catch_warnings():  # a first partition shorter than the pilot: fewer rows, as wanted
                warnings.simplefilter("ignore")
                return _frame_arrays(frame.head(pilot_size(k), npartitions=1), columns)
        return _Partitions(tasks, pilot, "dask dataframe", int(sum(lengths)), k, columns[2] is not None,
                           kind == "probabilities" or (kind is None and named))
    opened = open_source(source, labels, kind, piece_rows)
    if persist:  # each piece read once, its batches kept in the workers' memory
        loaded = [dask.delayed(load_piece)(piece, opened) for piece in opened.pieces]
        loaded = client.persist(loaded) if client is not None else list(dask.persist(*loaded))

    def tasks(plan):
        if persist:
            return [dask.delayed(loaded_sums)(batches, plan) for batches in loaded]
        return [dask.delayed(piece_sums)(piece, opened, plan) for piece in opened.pieces]
    return _Partitions(tasks, lambda: pilot_rows(opened), opened.name, opened.n, opened.k, opened.has_split,
                       opened.probabilities, source_files(opened))


def fit_dask(source, labels=None, *, client=None, split=None, temperature=None, resamples=None, seed=DECISION_SEED,
             kind=None, n_bins=N_BINS, fine_bins=FINE_BINS, piece_rows=None, persist=False, split_mask=None):
    """Fit T and report the scores on a Dask cluster: ``calib fit``'s report (a dict), each pass one map-reduce.

    ``source``: a Dask array (n, K) of logits with ``labels`` (a Dask or numpy array (n,); ``split_mask`` (n,),
    True for a calibration row, makes ``split="file"`` available and the default); a Dask dataframe
    with a ``label`` column, an optional ``split`` column and a list column ``logits`` or one column per
    class; or a ``.npy``/Parquet file, folder or glob the workers can read (:func:`calib.shards.open_source`).
    ``client``: a :class:`distributed.Client`, a scheduler address (``"tcp://host:8786"``), or None (Dask's
    default: the current client if there is one). ``persist`` keeps the partitions in the workers' memory
    between passes (faster, when the data fit the cluster's memory). The other arguments are those of
    :func:`calib.fit_streamed`; the answer is the same, whatever the partitions and workers (the sums are
    added in partition order). Bad input raises :class:`calib.InputError`.
    """
    import dask

    own = None
    if isinstance(client, str):
        from distributed import Client

        client = own = Client(client)
    try:
        found = _partitions(source, labels, split_mask, kind, piece_rows, persist, client)
        rule = split_rule(split, found.has_split)

        def run_pass(plan):
            parts = found.tasks(plan)
            while len(parts) > 1:
                parts = [dask.delayed(_add_all)(parts[i:i + SPLIT_EVERY]) for i in range(0, len(parts), SPLIT_EVERY)]
            if client is not None:
                return client.compute(parts[0]).result()
            return dask.compute(parts[0])[0]

        workers = len(client.scheduler_info().get("workers", {})) if client is not None else None
        engine = {"kind": "dask", "partitions": len(found.tasks(None)), "workers": workers}  # (never run)
        return chunked_report(run_pass, found.name, found.n, found.k, rule, temperature, resamples, seed, n_bins,
                              fine_bins, found.probabilities, engine, pilot=found.pilot, files=found.files)
    finally:
        if own is not None:
            own.close()
