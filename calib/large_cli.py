"""``python -m calib fit`` for data that outgrow memory: the options, and which path a command line takes.

A ``.npy`` or Parquet file, folder or glob is fitted by the partitioned path: streamed on this machine
(:func:`calib.fit_streamed`, ``--workers`` threads), or on Dask with ``--scheduler ADDRESS`` (an existing
cluster) or ``--local-cluster N`` (N worker processes started here) (:func:`calib.fit_dask`). A ``.npz``
or ``.csv`` without those options takes ``calib fit``'s in-memory path, unchanged.
"""

from pathlib import Path

from .io_checks import InputError

__all__ = ["PARTITIONED_SUFFIXES", "add_partitioned_options", "partitioned_requested", "partitioned_report",
           "exactness_lines"]

PARTITIONED_SUFFIXES = (".npy", ".parquet", ".pq")
CONNECT_TIMEOUT = "10s"  # how long --scheduler waits for the scheduler before saying it cannot reach it


def add_partitioned_options(fit):
    """Add the partitioned path's options to the ``fit`` subparser."""
    fit.add_argument("--scheduler", metavar="ADDRESS", default=None,
                     help="run on the Dask cluster whose scheduler listens at ADDRESS (e.g. tcp://host:8786); "
                          "the workers must read FILE at the same path")
    fit.add_argument("--local-cluster", metavar="N", type=int, default=None,
                     help="start a Dask cluster of N worker processes on this machine and run on it")
    fit.add_argument("--labels", metavar="NPY", default=None,
                     help="the labels' .npy file (or glob) when not beside a .npy of logits (partitioned path)")
    fit.add_argument("--resamples", type=int, default=None,
                     help="Poisson bootstrap resamples of the partitioned path (default: as calib fit; 0: none)")


def partitioned_requested(args):
    """Whether the command line asks for the partitioned path (a Dask option, or a .npy/Parquet/folder/glob)."""
    text = str(args.file)
    return (args.scheduler is not None or args.local_cluster is not None or any(c in text for c in "*?[")
            or Path(text).suffix.lower() in PARTITIONED_SUFFIXES or Path(text).is_dir())


def partitioned_report(args):
    """The report of the partitioned path for parsed ``args`` (raises :class:`calib.InputError`)."""
    if args.local_cluster is not None and args.local_cluster < 1:
        raise InputError("--local-cluster: need at least one worker")
    if args.resamples is not None and args.resamples < 0:
        raise InputError("--resamples: must be 0 or more")
    options = dict(split=args.split, resamples=args.resamples, kind=args.input)
    if args.scheduler is None and args.local_cluster is None:
        from .streamed import fit_streamed

        return fit_streamed(args.file, args.labels, workers=args.workers, **options)
    try:
        from distributed import Client

        from .distributed import fit_dask, local_client
    except ImportError as error:
        raise InputError(f"--scheduler and --local-cluster need Dask ({error.name} is missing): "
                         "pip install 'calibration-tutorial[dask]'") from error
    if args.local_cluster is not None:
        with local_client(args.local_cluster) as client:
            return fit_dask(args.file, args.labels, client=client, **options)
    try:
        client = Client(args.scheduler, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError, ValueError) as error:
        raise InputError(f"--scheduler {args.scheduler}: cannot reach a Dask scheduler there ({error})") from error
    with client:
        return fit_dask(args.file, args.labels, client=client, **options)


def exactness_lines(report):
    """Lines of text that say which of a partitioned report's figures are approximate or left out."""
    exactness = report.get("exactness")
    if not exactness:
        return []
    lines = []
    for field, note in exactness["approximate"].items():
        bound = "" if note["bound"] is None else f" within ±{note['bound']:.2g}"
        lines.append(f"approximate: {field}{bound} ({note['how']})")
    lines += [f"resampled: {field}: {note}" for field, note in exactness["resampled"].items()]
    lines += [f"left out: {field}: {note}" for field, note in exactness["left_out"].items()]
    return lines
