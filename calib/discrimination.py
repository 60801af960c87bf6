"""How well a score separates two outcomes: the area under the ROC curve.

:func:`auroc` is the Mann–Whitney form: the chance that a randomly chosen
positive case scores higher than a randomly chosen negative one, ties counting
one half. Applied to (confidence, correct) pairs it measures how well the
confidence ranks right predictions above wrong ones; a temperature can change
that ranking between rows whose logit gaps are shaped differently.

References
----------
J. A. Hanley and B. J. McNeil, "The meaning and use of the area under a
receiver operating characteristic (ROC) curve", Radiology 143(1), 1982.
"""

import numpy as np

from .validation import as_correct

__all__ = ["auroc"]


def auroc(scores, positive):
    """Area under the ROC curve of ``scores`` (n,) for the boolean outcome ``positive`` (n,): a probability.

    Computed from average ranks (ties share their mean rank), so ties count one
    half: (Σ ranks of positives − n₊(n₊ + 1)/2) / (n₊ n₋). Needs at least one
    positive and one negative case.

    >>> auroc([0.9, 0.8, 0.7, 0.6], [1, 0, 1, 0])
    0.75
    >>> auroc([0.5, 0.5], [1, 0])
    0.5
    """
    values = np.asarray(scores, dtype=np.float64)
    if values.ndim != 1 or not np.all(np.isfinite(values)):
        raise ValueError(f"scores must be a 1-D array of finite numbers; got shape {values.shape}")
    hits = as_correct(positive, values.shape).astype(bool)
    n_pos, n_neg = int(hits.sum()), int((~hits).sum())
    if n_pos == 0 or n_neg == 0:
        raise ValueError("positive must hold at least one True and one False")
    order = np.argsort(values, kind="stable")
    ranks = np.empty(values.size)
    sorted_values = values[order]
    starts = np.flatnonzero(np.r_[True, sorted_values[1:] != sorted_values[:-1]])
    ends = np.r_[starts[1:], values.size]
    mean_rank = (starts + ends + 1) / 2.0  # the mean of ranks start+1 … end
    ranks[order] = np.repeat(mean_rank, ends - starts)
    return float((ranks[hits].sum() - n_pos * (n_pos + 1) / 2.0) / (n_pos * n_neg))
