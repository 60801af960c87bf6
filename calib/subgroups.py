"""Calibration per subgroup: one global temperature against one temperature per group.

A single temperature is fitted to the pooled calibration rows. When groups are
miscalibrated in different directions (one over-confident, one
under-confident), that one number is a compromise, and each group's own
calibration can stay poor even when the pooled numbers look fine. This module
scores every group, and the pool, under three *conditions*:

``"t1"``
    the raw model, T = 1 for every row;
``"global"``
    the temperature fitted on the pooled calibration rows, for every row;
``"group"``
    each row at the temperature fitted on its own group's calibration rows
    (for the pool, that is the mixture of per-group temperatures).

Every score is computed per row by the same softmax kernel as the rest of the
engine (:func:`calib.rowscores.row_scores`), with one temperature per row.
The bin counts are arguments: the engine makes no choice of them. The group
temperatures are fitted once per analysis, and every consumer (tables, the
explorer's group view, downloads) reads the one :class:`SubgroupAnalysis`.
"""

from typing import Dict, NamedTuple, Tuple

import numpy as np

from .binning import SCHEMES, ReliabilityBins, max_gap, reliability_bins
from .datasets import part_masks
from .fitting import fit_temperature
from .rowscores import row_scores
from .scaling import as_labels, as_logits
from .validation import as_bin_counts

__all__ = [
    "CONDITIONS", "POOLED",
    "GroupMetrics", "SubgroupAnalysis", "row_scores", "group_metrics",
    "fit_group_temperatures", "subgroup_analysis",
]

CONDITIONS = ("t1", "global", "group")
POOLED = "pooled"


class GroupMetrics(NamedTuple):
    """Scores of one set of rows under one condition (one temperature per row).

    ``accuracy``, ``mean_confidence``, every ECE and MCE are probabilities, ``nll``
    is in nats, ``brier`` in [0, 2]. ``ece[scheme][B]``, ``mce[scheme][B]`` and
    ``bins[scheme][B]`` (a :class:`calib.ReliabilityBins` of 1-D arrays) for each
    scheme and bin count B; ``extra[name]`` each extra metric asked for (a float).
    """

    n: int
    accuracy: float
    mean_confidence: float
    nll: float
    brier: float
    ece: Dict[str, Dict[int, float]]
    mce: Dict[str, Dict[int, float]]
    bins: Dict[str, Dict[int, ReliabilityBins]]
    extra: Dict[str, float] = {}


def group_metrics(logits, labels, temperature, bin_counts, extra=None):
    """:class:`GroupMetrics` of ``(logits, labels)`` with ``temperature`` a scalar or one value per row.

    ``bin_counts`` are the bin counts B of ``ece``, ``mce`` and ``bins`` (both schemes); ``extra`` maps a
    name to a metric ``f(confidence (G, n), correct (n,)) → (G,)`` (as :func:`calib.grid_metrics` takes),
    evaluated on the rows' one set of confidences.
    """
    counts = as_bin_counts(bin_counts)
    confidence, correct, nll, brier = row_scores(logits, labels, temperature)
    bins = {s: {b: reliability_bins(confidence, correct, b, s) for b in counts} for s in SCHEMES}
    return GroupMetrics(
        n=int(correct.size),
        accuracy=float(correct.mean()),
        mean_confidence=float(confidence.mean()),
        nll=float(nll.mean()),
        brier=float(brier.mean()),
        ece={s: {b: float(bins[s][b].weighted_gap.sum()) for b in counts} for s in SCHEMES},
        mce={s: {b: float(max_gap(bins[s][b])) for b in counts} for s in SCHEMES},
        bins=bins,
        extra={name: float(f(confidence[None, :], correct)[0]) for name, f in (extra or {}).items()},
    )


def fit_group_temperatures(logits, labels, groups, rows=None):
    """The NLL-minimising temperature of each group, fitted on ``rows`` (a boolean mask; default all rows).

    Returns ``{group: T}`` in order of first appearance. Each fit is the
    bounded golden-section search of :func:`calib.fitting.fit_temperature`.
    """
    z = as_logits(logits)
    y = as_labels(labels, z.shape[0], z.shape[1])
    names = np.asarray(groups)
    if names.shape != (z.shape[0],):
        raise ValueError(f"groups must have shape ({z.shape[0]},); got {names.shape}")
    mask = np.ones(z.shape[0], dtype=bool) if rows is None else np.asarray(rows, dtype=bool)
    if mask.shape != (z.shape[0],):
        raise ValueError(f"rows must be a boolean mask of shape ({z.shape[0]},); got {mask.shape}")
    fitted = {}
    for name in dict.fromkeys(names.tolist()):
        chosen = mask & (names == name)
        if not chosen.any():
            raise ValueError(f"group {name!r} has no rows to fit on")
        fitted[name] = fit_temperature(z[chosen], y[chosen], method="bounded")
    return fitted


class SubgroupAnalysis(NamedTuple):
    """Per-group calibration of one dataset.

    ``groups`` are the group names; ``temperatures`` maps ``"global"`` and each
    group name to its fitted T; ``metrics[part][who][condition]`` is a
    :class:`GroupMetrics`, ``who`` a group name or ``"pooled"``, ``condition``
    one of :data:`CONDITIONS`.
    """

    groups: Tuple[str, ...]
    temperatures: Dict[str, float]
    metrics: Dict[str, Dict[str, Dict[str, GroupMetrics]]]


def subgroup_analysis(dataset, global_t, bin_counts, round_temperature=None, extra=None):
    """Score every group and the pool of ``dataset`` under T = 1, ``global_t`` and per-group temperatures.

    Parameters
    ----------
    dataset : calib.datasets.Dataset
        Must have ``groups``. With ``is_calibration`` the group temperatures
        are fitted on the calibration rows and both parts are scored;
        without, everything uses all rows (part ``"all"``).
    global_t : float
        The pooled temperature (fitted on the same rows as the groups').
    bin_counts : sequence of int
        Bin counts B of each :class:`GroupMetrics`' ``ece``, ``mce`` and ``bins``.
    round_temperature : callable, optional
        Applied to each fitted group temperature (e.g. rounding to the
        precision the rest of the page uses).
    extra : dict, optional
        Extra metrics of each :class:`GroupMetrics` (see :func:`group_metrics`).
    """
    if dataset.groups is None:
        raise ValueError(f"dataset {dataset.name!r} has no groups")
    if not (np.isfinite(global_t) and global_t > 0):
        raise ValueError(f"global_t must be positive and finite; got {global_t!r}")
    names = np.asarray(dataset.groups)
    parts = part_masks(dataset)
    own = fit_group_temperatures(dataset.logits, dataset.labels, names, parts.get("calibration"))
    if round_temperature is not None:
        own = {g: float(round_temperature(t)) for g, t in own.items()}
    per_row = {
        "t1": np.ones(names.size),
        "global": np.full(names.size, float(global_t)),
        "group": np.array([own[g] for g in names.tolist()]),
    }
    metrics = {}
    for part, mask in parts.items():
        who = {g: mask & (names == g) for g in own}
        who[POOLED] = mask
        metrics[part] = {
            label: {c: group_metrics(dataset.logits[rows], dataset.labels[rows], per_row[c][rows], bin_counts,
                                     extra)
                    for c in CONDITIONS}
            for label, rows in who.items()
        }
    temperatures = {"global": float(global_t), **own}
    return SubgroupAnalysis(tuple(own), temperatures, metrics)
