"""The explorer's method choice: each calibrator of :data:`calib.CALIBRATORS` fitted on a built-in dataset's
calibration rows and scored on its test rows (packed as ``data/<name>-methods.js`` by
:mod:`sitegen.render.methods_payload`).

Temperature scaling is the explorer's slider; the other methods give one set of probabilities each, so each is
one point: its test-row scores of every registered metric (:mod:`sitegen.common.metrics`; for the offered bin
counts) and its reliability diagram (the layout of a group at its own T in the groups file, docs/payload.md).

:func:`method_fits` fits each dataset's calibrators once per build process, and keeps them in the build cache: the
"Other calibrators, compared" deep dive (:mod:`sitegen.facts.beyond_dives`) passes the same fits to
:func:`calib.compare_calibrators`, so the explorer and the deep dive show one fit of each method, and a later build
(a warm one, a reader's ``--data`` build) reads them instead of fitting again.
"""

from functools import lru_cache

import numpy as np

from calib import (
    CALIBRATORS,
    DATASET_NAMES,
    SCHEMES,
    GroupMetrics,
    load,
    max_gap,
    method_row_scores,
    part_masks,
    reliability_bins,
)
from sitegen.common.cache import cached
from sitegen.common.metrics import point_extras
from sitegen.common.settings import OFFERED_BIN_COUNTS

__all__ = ["METHOD_PART", "METHODS", "offered_methods", "method_fits", "method_metrics", "method_rows"]

METHOD_PART = "test"  # the rows every method is scored on (each is fitted on the calibration rows)
METHODS = tuple(name for name in CALIBRATORS if name != "temperature")  # the choices beside the slider


def offered_methods(name, parts):
    """The methods the explorer offers on dataset ``name`` whose parts are ``parts``: :data:`METHODS` for a
    built-in dataset with calibration and test rows, else ``()`` (the page says the choice does not apply);
    vector scaling only where its fit settles (:attr:`calib.VectorScaling.settled_`; else it has no finite
    optimum, and where the optimiser stops would move with the CPU)."""
    if name not in DATASET_NAMES or not {"calibration", METHOD_PART} <= set(parts):
        return ()
    return tuple(m for m in METHODS if m != "vector" or _vector_settles(name))


def _vector_settles(name):
    """Whether vector scaling's fit on ``name``'s calibration rows settles: the fit of :func:`method_fits` (read
    from the build cache by a warm build)."""
    return method_fits(name)["vector"].settled_


def method_rows(name):
    """``(z_cal, y_cal, z_test, y_test)``: built-in dataset ``name``'s calibration and test rows."""
    data = load(name)
    masks = part_masks(data)
    cal, test = masks["calibration"], masks[METHOD_PART]
    return data.logits[cal], data.labels[cal], data.logits[test], data.labels[test]


@lru_cache(maxsize=None)
@cached("fits")  # the deep dive, the methods files and the explorer's choice all read one fit
def method_fits(name):
    """``{method: calibrator}``: every calibrator of :data:`calib.CALIBRATORS` fitted on built-in dataset
    ``name``'s calibration rows (kept for the process, and in the active build cache; the fits are
    deterministic)."""
    z, y = method_rows(name)[:2]
    return {method: cls().fit(z, y) for method, cls in CALIBRATORS.items()}


def method_metrics(probs, labels, bin_counts=OFFERED_BIN_COUNTS):
    """``(metrics, zero_rows)``: a :class:`calib.GroupMetrics` of probability rows ``probs`` (n, K) against
    ``labels`` (top-label confidence and correctness; NLL in nats, ``inf`` where a label got probability 0)
    for ``bin_counts`` in both schemes, with every extra metric of the registry, and how many rows got
    probability 0."""
    nll, brier, confidence, correct = method_row_scores(probs, labels)
    bins = {s: {b: reliability_bins(confidence, correct, b, s) for b in bin_counts} for s in SCHEMES}
    metrics = GroupMetrics(
        n=int(labels.size), accuracy=float(correct.mean()), mean_confidence=float(confidence.mean()),
        nll=float(nll.mean()), brier=float(brier.mean()),
        ece={s: {b: float(bins[s][b].weighted_gap.sum()) for b in bin_counts} for s in SCHEMES},
        mce={s: {b: float(max_gap(bins[s][b])) for b in bin_counts} for s in SCHEMES}, bins=bins,
        extra=point_extras(confidence, correct))
    return metrics, int(np.sum(~np.isfinite(nll)))
