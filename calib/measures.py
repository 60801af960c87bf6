"""Calibration measures of top-label rows that need no choice of bins, in the form the grid pass takes.

Each measure is a function ``f(confidence, correct)`` of the rows' top-label confidences, (n,) or (G, n) with
one row per temperature (as :func:`calib.top_label` gives them), and their correctness (n,), returning a float
or an array (G,); vectorised over rows and temperatures. :func:`calib.grid_metrics` runs such a function on
each block of confidences (its ``extra``), and the page's metric registry (``sitegen/common/metrics.py``)
names one as a metric's ``engine``. Every name of this module's ``__all__`` is public: ``calib/__init__.py``
exports them all.
"""

import numpy as np

from .runs import rows_order
from .validation import as_correct, as_probability_rows

__all__ = ["ks_calibration_error"]


def ks_calibration_error(confidence, correct, order=None, sorted_rows=None):
    """Kolmogorov–Smirnov calibration error of top-label predictions (Gupta et al. 2021): a probability in [0, 1].

    With the rows sorted by confidence, the cumulative share of right answers and the cumulative
    confidence (each summed over the rows up to a confidence and divided by n) are two curves; the error is
    their largest vertical distance, ``max_c |Σ_{conf_i ≤ c} (correct_i − conf_i)| / n``. It needs no
    bins. Rows of equal confidence enter together (the curves are read after each run of ties), so the
    order of ties does not matter. ``confidence`` is (n,) or (G, n), one row per temperature; ``correct``
    (n,). A float for 1-D input, an array (G,) for (G, n). ``order`` (G, n), if given, is each row's stable
    ascending order (:func:`calib.runs.rows_order`), already known to the caller (the grid pass), and
    ``sorted_rows``, with it, the rows in that order, ``(confidence, correct)`` (each (G, n)).

    >>> round(ks_calibration_error([0.2, 0.6, 0.7, 1.0], [0, 1, 0, 1]), 6)
    0.125
    """
    conf = as_probability_rows(confidence)
    hits = as_correct(correct, conf.shape[1:])
    if order is None and sorted_rows is None:  # each row's stable order: the running sums are reproducible
        order = rows_order(conf)
    if sorted_rows is None:
        order = np.asarray(order).reshape(conf.shape)
        sorted_rows = np.take_along_axis(conf, order, axis=1), hits[order]
    ordered, sorted_hits = (np.asarray(rows).reshape(conf.shape) for rows in sorted_rows)
    running = np.cumsum(sorted_hits - ordered, axis=1)
    last = np.ones(ordered.shape, dtype=bool)  # the last row of each run of equal confidences
    np.not_equal(ordered[:, 1:], ordered[:, :-1], out=last[:, :-1])
    np.abs(running, out=running)
    values = np.multiply(running, last, out=running).max(axis=1) / conf.shape[1]  # 0 inside a run of ties
    return float(values[0]) if np.ndim(confidence) == 1 else values
