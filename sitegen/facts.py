"""The engine's results as a context for prose, and the filters that format them.

Prose quotes numbers through these objects, e.g. ``{{ six.fit.nll | fixed(5) }}``
or ``{{ six.t1.ece_w[4] | pct(1) }}``. The filters round with the payload's
rule (:func:`calib.payload.to_units`), so a sentence and a slider readout
always print the same digits.

Per dataset (dashes become underscores: ``sim_600``):

``n``, ``k``, ``fitted_t``, ``fitted_on``, ``grid_fitted_t`` (grid argmin of NLL on the fitting part),
``t1`` / ``fit`` — a :class:`State` on the reported part (``all`` if unsplit, else ``test``),
``cal`` — ``{"t1": State, "fit": State}`` on the calibration part (split datasets only),
``examples`` — a row per example (six and twelve only).
"""

from types import SimpleNamespace

import numpy as np

from calib import top_label
from calib.payload import to_units

__all__ = ["fixed", "pct", "build_facts", "FILTERS"]


def fixed(value, digits=3):
    """``value`` with ``digits`` decimals, rounded half away from zero like the payload."""
    scale = 10 ** int(digits)
    units = int(to_units(float(value), scale))
    sign = "−" if units < 0 else ""
    whole, frac = divmod(abs(units), scale)
    return f"{sign}{whole}.{frac:0{digits}d}" if digits else f"{sign}{whole}"


def pct(value, digits=1):
    """``value`` (a probability) as a percentage with ``digits`` decimals and a % sign."""
    return fixed(float(value) * 100, digits) + "%"


FILTERS = {"fixed": fixed, "pct": pct}


def _state(part, index):
    """Scalar metrics of one part at grid point ``index``."""
    def at(table):
        return {b: float(v[index]) for b, v in table.items()}

    bins_w = part.bins["equal-width"]
    return SimpleNamespace(
        nll=float(part.nll[index]), brier=float(part.brier[index]),
        conf=float(part.mean_confidence[index]), accuracy=part.accuracy,
        ece_w=at(part.ece["equal-width"]), ece_a=at(part.ece["adaptive"]),
        mce_w=at(part.mce["equal-width"]), mce_a=at(part.mce["adaptive"]),
        bins_w={b: [
            SimpleNamespace(lower=float(s.lower[index, j]), upper=float(s.upper[index, j]),
                            count=int(s.count[index, j]), conf=float(np.nan_to_num(s.confidence[index, j])),
                            acc=float(np.nan_to_num(s.accuracy[index, j])), gap=float(s.weighted_gap[index, j]))
            for j in range(s.count.shape[1]) if s.count[index, j] > 0] for b, s in bins_w.items()},
    )


def _examples(result, t1_index, fit_index, grid):
    data = result.dataset
    conf, correct = top_label(data.logits, data.labels, grid[[t1_index, fit_index]])
    predicted = np.argmax(data.logits, axis=1)
    return [
        SimpleNamespace(number=i + 1, logits=data.logits[i].tolist(), label=int(data.labels[i]),
                        predicted=int(predicted[i]), correct=bool(correct[i]),
                        conf_t1=float(conf[0, i]), conf_fit=float(conf[1, i]))
        for i in range(data.labels.size)
    ]


def build_facts(precomputed):
    """``{dataset_key: namespace}`` for every dataset, as described in the module docstring."""
    grid, t1 = precomputed.grid, precomputed.t1_index
    facts = {}
    for name, result in precomputed.datasets.items():
        fit = precomputed.index_of(result.fitted_t)
        reported = result.parts.get("test") or result.parts["all"]
        fitting_part = result.parts[result.fitted_on]
        ns = SimpleNamespace(
            name=name, n=int(result.dataset.labels.size), k=int(result.dataset.logits.shape[1]),
            fitted_t=result.fitted_t, fitted_on=result.fitted_on,
            grid_fitted_t=float(grid[fitting_part.nll_argmin]),
            t1=_state(reported, t1), fit=_state(reported, fit),
        )
        if "calibration" in result.parts:
            cal = result.parts["calibration"]
            ns.cal = SimpleNamespace(t1=_state(cal, t1), fit=_state(cal, fit))
        if result.dataset.labels.size <= 12:
            ns.examples = _examples(result, t1, fit, grid)
        facts[name.replace("-", "_")] = ns
    return facts
