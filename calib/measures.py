"""Calibration measures of top-label rows that need no choice of bins, in the form the grid pass takes.

Each measure is a function ``f(confidence, correct)`` of the rows' top-label confidences, (n,) or (G, n) with
one row per temperature (as :func:`calib.top_label` gives them), and their correctness (n,), returning a float
or an array (G,); vectorised over rows and temperatures. :func:`calib.grid_metrics` runs such a function on
each block of confidences (its ``extra``), and the page's metric registry (``sitegen/common/metrics.py``)
names one as a metric's ``engine``. Every name of this module's ``__all__`` is public: ``calib/__init__.py``
exports them all.
"""

__all__ = []
