"""The evidence a skeptical reader asks for, computed by the engine for the built-in datasets: facts under ``ev``.

:func:`build_evidence_facts` returns ``{"ev": namespace}`` for the prose context (build.py merges it):

``ev.brier_t.<key>`` — per built-in dataset (dashes as underscores), the temperature that minimises the mean
Brier score on its fitting rows (calibration rows, or all rows if it is not split): a bounded search, as the
NLL-minimising T is found (:func:`calib.fit_temperature` with ``score="brier"``).

``ev.pair.t1`` / ``ev.pair.fit`` — on the over-confident set's test rows at T = 1 and at its fitted T, how well the
top-label confidence separates right from wrong: ``auroc`` (:func:`calib.auroc`) and ``dsc``, the discrimination
component of the pair's Brier score in CORP's decomposition (:func:`calib.corp`). A temperature maps each
probability vector one-to-one, so it cannot change the refinement of the vectors; these are the pair's.

``ev.kl.t1`` / ``ev.kl.fit`` — on the same rows, the mean Kullback–Leibler divergence (nats) of the released
probability vectors p from the frequencies that follow them, E[Y | p]: known exactly here, since the labels were
drawn from the latent model, whose logits are the released ones divided by
:data:`calib.datasets.OVERCONFIDENT_SHARPNESS`. That divergence is NLL's calibration term.
"""

from types import SimpleNamespace

import numpy as np

from calib import auroc, corp, datasets, fit_temperature, load, part_masks, scaled_probs, top_label
from sitegen.common.settings import DATASETS, FIT_BOUNDS, FIT_TOLERANCE
from sitegen.facts.results import fact_key

__all__ = ["build_evidence_facts", "brier_temperatures", "pair_discrimination", "calibration_divergence"]


def _fitting_rows(name):
    """Logits and labels of the rows a dataset's T is fitted on (calibration rows, or all of them)."""
    data = load(name)
    masks = part_masks(data)
    rows = masks.get("calibration", masks.get("all"))
    return data.logits[rows], data.labels[rows]


def brier_temperatures(names=DATASETS):
    """``{key: T}``: each dataset's Brier-minimising temperature on its fitting rows (module docstring)."""
    return {fact_key(name): fit_temperature(*_fitting_rows(name), bounds=FIT_BOUNDS, tolerance=FIT_TOLERANCE,
                                            score="brier") for name in names}


def _overconfident():
    """The over-confident set's test logits and labels, and the T fitted on its calibration rows."""
    data = load("overconfident")
    masks = part_masks(data)
    cal, test = masks["calibration"], masks["test"]
    t = fit_temperature(data.logits[cal], data.labels[cal], bounds=FIT_BOUNDS, tolerance=FIT_TOLERANCE)
    return data.logits[test], data.labels[test], t


def pair_discrimination(logits, labels, temperature):
    """``auroc`` and CORP's ``dsc`` of the (top-label confidence, right) pairs at ``temperature``."""
    conf, hits = top_label(logits, labels, temperature)
    return SimpleNamespace(auroc=auroc(conf, hits), dsc=corp(conf, hits).brier.discrimination)


def calibration_divergence(logits, truth, temperature):
    """Mean KL(truth ‖ softmax(logits / T)) over rows (nats): the divergence of the tempered vectors from ``truth``
    (n, K), the frequencies that follow them."""
    p = scaled_probs(logits, temperature)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(truth > 0, truth * (np.log(truth) - np.log(p)), 0.0)
    return float(terms.sum(axis=1).mean())


def build_evidence_facts():
    """The facts of the module docstring, ``{"ev": namespace}``."""
    zt, yt, t = _overconfident()
    truth = scaled_probs(zt, datasets.OVERCONFIDENT_SHARPNESS)  # the latent model's probabilities: E[Y | p] exactly
    return {"ev": SimpleNamespace(
        brier_t=SimpleNamespace(**brier_temperatures()),
        pair=SimpleNamespace(t1=pair_discrimination(zt, yt, 1.0), fit=pair_discrimination(zt, yt, t)),
        kl=SimpleNamespace(t1=calibration_divergence(zt, truth, 1.0), fit=calibration_divergence(zt, truth, t),
                           truth_t=datasets.OVERCONFIDENT_SHARPNESS))}
