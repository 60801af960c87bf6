"""The evidence a skeptical reader asks for, computed by the engine for the built-in datasets: facts under ``ev``.

:func:`build_evidence_facts` returns ``{"ev": namespace}`` for the prose context (build.py merges it):

``ev.brier_t.<key>`` — per built-in dataset (dashes as underscores), the temperature that minimises the mean
Brier score on its fitting rows (calibration rows, or all rows if it is not split): a bounded search, as the
NLL-minimising T is found (:func:`calib.fit_temperature` with ``score="brier"``).
"""

from types import SimpleNamespace

from calib import fit_temperature, load, part_masks

from .facts import fact_key
from .settings import DATASETS, FIT_BOUNDS, FIT_TOLERANCE

__all__ = ["build_evidence_facts", "brier_temperatures"]


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


def build_evidence_facts():
    """The facts of the module docstring, ``{"ev": namespace}``."""
    return {"ev": SimpleNamespace(brier_t=SimpleNamespace(**brier_temperatures()))}
