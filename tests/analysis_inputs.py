"""Inputs shared by the tests of the uncertainty analyses (runs, bootstrap, noise floor)."""

import numpy as np

from calib.datasets import load
from calib.scaling import log_softmax

BIN_COUNTS = (4, 5, 10, 15, 20)  # the engine has no default; these are the counts the tests always used


def part_rows(name, part):
    """``(logits, labels)`` of one part (``"calibration"`` or ``"test"``) of a built-in dataset."""
    data = load(name)
    mask = data.is_calibration if part == "calibration" else ~data.is_calibration
    return data.logits[mask], data.labels[mask]


def scores(logits, labels, temps):
    """(confidence (G, n), correct (n,), per-example NLL (G, n)) from calib.scaling."""
    log_p = log_softmax(logits, np.asarray(temps, dtype=float))
    rows = np.arange(labels.size)
    predicted = np.argmax(logits, axis=1)
    return np.exp(log_p[:, rows, predicted]), predicted == labels, -log_p[:, rows, labels]
