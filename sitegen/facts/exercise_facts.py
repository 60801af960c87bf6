"""Facts for the exercises' worked answers, read from the precomputation (``ex`` in the prose).

Like :mod:`sitegen.facts.results`, nothing here runs a metric: every value is a precomputed result, or
simple arithmetic on one that the answer shows the reader how to do by hand.

``ex.softmax`` — the softmax walk-through's first example at its softening temperature, worked the way
the engine computes it: ``t``, ``logits``, ``shifted`` ((z − max z) / T), ``exps`` (e to each shifted
logit, = p_k / p_max), ``total`` (their sum, = 1 / p_max) and ``probs``.

``ex.three_bins`` — the worked example with three equal-width bins: ``t1`` and ``fit``, each a list of
its non-empty bins (``lower``, ``upper``, ``count``, ``hits``, ``conf``, ``acc``, ``gap`` = acc − conf)
and its ``ece``; ``crossers``, the number of examples whose bin differs between the two.

``ex.dots`` — two dots of fifteen-bin reliability diagrams at T = 1 (test rows): ``over``, the fullest
bin of the over-confident set, and ``under``, the mixed set's bin whose accuracy most exceeds its
confidence; each with ``lower``, ``upper``, ``count``, ``conf`` and ``acc``.
"""

from types import SimpleNamespace

import numpy as np

from sitegen.common.settings import TABLE_BINS, WORKED_EXAMPLE

__all__ = ["build_exercise_facts"]

EXERCISE_BINS = 3  # the bin count whose verdict the paradox exercise asks the reader to predict


def _softmax(walk):
    """The walk-through's example at its softening temperature, worked with the max-shift."""
    key = "soft"
    t = float(walk.temperatures[key])
    probs = walk.probs[list(walk.temperatures).index(key)]
    logits = np.asarray(walk.logits, dtype=float)
    top = float(probs.max())
    return SimpleNamespace(t=t, logits=logits.tolist(), shifted=((logits - logits.max()) / t).tolist(),
                           exps=(probs / top).tolist(), total=1.0 / top, probs=probs.tolist())


def _bins_at(bins, position):
    """The non-empty bins of a :class:`calib.ReliabilityBins` at one row of its temperature axis."""
    out = []
    for j in range(bins.count.shape[1]):
        count = int(bins.count[position, j])
        if count:
            conf, acc = float(bins.confidence[position, j]), float(bins.accuracy[position, j])
            out.append(SimpleNamespace(lower=float(bins.lower[position, j]), upper=float(bins.upper[position, j]),
                                       count=count, hits=int(round(acc * count)), conf=conf, acc=acc,
                                       gap=acc - conf))
    return out


def _three_bins(precomputed):
    result = precomputed.datasets[WORKED_EXAMPLE]
    part = next(iter(result.parts.values()))
    bins = part.sub_bins["equal-width"][EXERCISE_BINS]
    where = [int(np.searchsorted(result.subgrid, precomputed.t1_index)),
             int(np.searchsorted(result.subgrid, precomputed.index_of(result.fitted_t)))]
    t1, fit = (_bins_at(bins, w) for w in where)
    ece = part.ece_by_bins["equal-width"][:, EXERCISE_BINS - 1]
    moved = [i for i in range(len(t1)) if i >= len(fit) or t1[i].count != fit[i].count or t1[i].lower != fit[i].lower]
    return SimpleNamespace(bins=EXERCISE_BINS, t1=SimpleNamespace(bins=t1, ece=float(ece[0])),
                           fit=SimpleNamespace(bins=fit, ece=float(ece[1])), crossers=len(moved))


def _dot(precomputed, name, pick):
    part = precomputed.datasets[name].parts["test"]
    bins = _bins_at(part.bins["equal-width"][TABLE_BINS], precomputed.t1_index)
    return pick(bins)


def build_exercise_facts(precomputed):
    """``{"ex": namespace}``: the facts described in the module docstring."""
    return {"ex": SimpleNamespace(
        softmax=_softmax(precomputed.softmax),
        three_bins=_three_bins(precomputed),
        dots=SimpleNamespace(over=_dot(precomputed, "overconfident", lambda bins: max(bins, key=lambda b: b.count)),
                             under=_dot(precomputed, "mixed", lambda bins: max(bins, key=lambda b: b.gap))),
    )}
