"""The metric registry: one record per metric the page shows, and everything that follows from it.

A record names the metric's engine function, its display unit and format, whether lower is better, its
strings and where it shows (cards, CSV, comparison table). From the records follow the grid pass's extra
metrics (:func:`grid_extras`, passed to :func:`calib.grid_metrics`) and the point scores' (:func:`point_extras`),
the payload fields of every row set (a dataset part over the grid, a group at its own T, another
calibrator's test rows), the list the scripts decode (:func:`script_metrics`, the core payload's
``metrics``), the cards' markup (:func:`cards_of`), the CSV columns and the comparison table's columns
(:func:`compared`). Adding a metric: docs/architecture.md, "Adding a metric".
"""

from typing import NamedTuple, Tuple

import calib
from calib import SCHEMES, GridMetrics
from sitegen.common.errors import BuildError
from sitegen.common.settings import RATE_SCALE, SCORE_SCALE

__all__ = ["Card", "Metric", "METRICS", "SCALES", "registered", "by_key", "is_builtin", "values_of",
           "grid_extras", "point_extras", "cards_of", "compared", "csv_columns", "script_metrics"]

SCALES = {"score": SCORE_SCALE, "rate": RATE_SCALE}  # display units: integers of 1e-5 (scores), 1e-3 (rates)
KINDS = ("series", "constant", "binned")
FORMATS = ("score", "pct")


class Card(NamedTuple):
    """One metric card: ``name`` is its ``data-metric`` and its strings, ``[ui.cards.<name>]`` (``title``,
    ``note``, and ``sub`` when ``sub`` is "bins"); ``scheme`` fixes a binned metric's scheme ("" = the scheme
    the reader chose); ``sub``, the line under the title: "bins" (the strings' ``sub`` and the bin count),
    "scheme" (the scheme and bin count, written by cards.js) or "" (none); ``basic``: also one of the
    "cards-basic" panel's three."""

    name: str
    scheme: str = ""
    sub: str = ""
    basic: bool = False


class Metric(NamedTuple):
    """One metric the page shows.

    ``key``: its payload field and the scripts' series key. ``engine``: a field of :class:`calib.GridMetrics` (the grid
    pass's own), or the name of a ``calib`` function ``f(confidence (G, n), correct (n,)) → (G,)`` that the
    grid pass runs on each block of confidences. ``kind``: "series" (one value per T), "constant" (one per
    row set: no T changes it) or "binned" (per scheme and bin count, per T). ``scale``: its display unit,
    "score" (1e-5) or "rate" (1e-3); ``format``: how a value prints, "score" (five decimals, its change
    signed) or "pct" (a percentage, its change in points); ``lower_is_better``. Where it shows: ``cards``
    (:class:`Card`), ``csv`` (its column in the metrics CSV, the stem of ``<csv>_<scheme>_<B>`` for a binned
    metric; "" = not in the CSV), ``compare`` (the ``[ui]`` key of its comparison-table
    heading, "" = not in the table). ``smooth``: its series is smooth in T (sent delta-encoded twice).
    ``every_count`` (binned): sent for every selectable bin count, else for the offered ones (the others'
    in the bins file).
    """

    key: str
    engine: str
    kind: str
    scale: str
    format: str
    lower_is_better: bool
    cards: Tuple[Card, ...] = ()
    csv: str = ""
    compare: str = ""
    smooth: bool = False
    every_count: bool = False


# The page's metrics, in card order (the CSV lists the unbinned ones in this order, then the binned ones).
METRICS = (
    Metric("nll", "nll", "series", "score", "score", True, (Card("nll", basic=True),), csv="nll",
           compare="metric_nll", smooth=True),
    Metric("brier", "brier", "series", "score", "score", True, (Card("brier", basic=True),), csv="brier",
           compare="metric_brier", smooth=True),
    Metric("ece", "ece", "binned", "rate", "pct", True,
           (Card("ece-w", "equal-width", "bins", basic=True), Card("ece-a", "adaptive", "bins")), csv="ece",
           compare="col_ece_plain", every_count=True),
    Metric("mce", "mce", "binned", "rate", "pct", True, (Card("mce", sub="scheme"),), csv="mce"),
    Metric("accuracy", "accuracy", "constant", "rate", "pct", False, (Card("accuracy"),), csv="accuracy",
           compare="metric_accuracy"),
    Metric("confidence", "mean_confidence", "series", "rate", "pct", False, (Card("confidence"),),
           csv="mean_confidence"),
    Metric("ks", "ks_calibration_error", "series", "rate", "pct", True, (Card("ks"),), csv="ks"),
)


def registered():
    """The registry's records (:data:`METRICS`), checked: a malformed record stops the build naming it."""
    keys, cards = set(), set()
    for m in METRICS:
        where = f"sitegen/common/metrics.py: metric {m.key!r}"
        problems = [f"kind must be one of {', '.join(KINDS)}" if m.kind not in KINDS else "",
                    f"scale must be one of {', '.join(SCALES)}" if m.scale not in SCALES else "",
                    f"format must be one of {', '.join(FORMATS)}" if m.format not in FORMATS else "",
                    "is declared twice" if m.key in keys else "",
                    f"engine {m.engine!r} is neither a field of calib.GridMetrics nor a calib function"
                    if not is_builtin(m) and not callable(getattr(calib, m.engine, None)) else ""]
        for card in m.cards:
            if card.name in cards:
                problems.append(f"card {card.name!r} is declared twice")
            if card.scheme and (m.kind != "binned" or card.scheme not in SCHEMES):
                problems.append(f"card {card.name!r}: only a binned metric's card names a scheme (one of "
                                f"{', '.join(SCHEMES)})")
            cards.add(card.name)
        if any(problems):
            raise BuildError(f"{where} {'; '.join(p for p in problems if p)}")
        keys.add(m.key)
    return METRICS


def by_key(key):
    """The registered record of metric ``key``."""
    return next(m for m in registered() if m.key == key)


def is_builtin(metric):
    """Whether ``metric`` is one of the grid pass's own fields (else an extra metric the pass is handed)."""
    return metric.engine in GridMetrics._fields


def values_of(result, metric):
    """``metric``'s values in ``result``: a :class:`calib.GridMetrics`, a part of the precomputation or a
    :class:`calib.GroupMetrics` (any record with the grid pass's field names and ``extra``)."""
    return getattr(result, metric.engine) if is_builtin(metric) else result.extra[metric.key]


def grid_extras():
    """``{key: calib function}`` of the extra metrics, for :func:`calib.grid_metrics`'s ``extra``."""
    return {m.key: getattr(calib, m.engine) for m in registered() if not is_builtin(m)}


def point_extras(confidence, correct):
    """``{key: float}``: each extra metric of one row set scored at one point (a group at its own T, another
    calibrator's test rows), from its confidences (n,) and correctness (n,)."""
    return {key: float(f(confidence[None, :], correct)[0]) for key, f in grid_extras().items()}


def cards_of(panels):
    """``[(metric, card)]`` of the cards panel in ``panels``: every card for "cards", the basic ones for
    "cards-basic" (none for neither), in registry order."""
    full = "cards" in panels
    if not full and "cards-basic" not in panels:
        return []
    return [(m, card) for m in registered() for card in m.cards if full or card.basic]


def csv_columns(schemes, bin_counts):
    """``[(column, metric, scheme, B)]`` of the metrics CSV: the unbinned metrics in registry order
    (``scheme`` and ``B`` None), then each binned one for every scheme and bin count."""
    shown = [m for m in registered() if m.csv]
    return ([(m.csv, m, None, None) for m in shown if m.kind != "binned"]
            + [(f"{m.csv}_{s}_{b}", m, s, b) for m in shown if m.kind == "binned" for s in schemes for b in bin_counts])


def compared():
    """The metrics of the comparison table, in column order."""
    return [m for m in registered() if m.compare]


def script_metrics():
    """The registry as the scripts read it (the core payload's ``metrics``): per metric ``key``, ``kind``,
    ``format``, ``compare`` (1 for a column of the comparison table, else 0) and ``cards`` (``name``, and
    ``scheme`` and ``sub`` when set)."""
    return [{"key": m.key, "kind": m.kind, "format": m.format, "compare": int(bool(m.compare)),
             "cards": [{k: v for k, v in (("name", c.name), ("scheme", c.scheme), ("sub", c.sub)) if v}
                       for c in m.cards]}
            for m in registered()]
