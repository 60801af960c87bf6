"""The hero: the worked example's six confidences crossing the four bin edges as T moves, NLL and ECE beside them.

Everything it shows is the engine's, over the temperatures of the shared grid in ``HERO_T_RANGE``: each example's
confidence, each bin's count, right answers and mean confidence (equal-width, ``WORKED_EXAMPLE_BINS`` bins), the
mean NLL and the ECE. :func:`hero_series` takes them from the precomputed worked example in display units;
:func:`hero_payload` packs them for the core payload (``CT.core.hero``, static/js/hero.js looks them up);
:func:`hero_view` lays out the figure the page is built with, at T = 1 with the fitted T's positions as ghosts:
the no-JavaScript figure, and the one the script then moves. The script places marks with the same linear and
logarithmic maps, read from the figure's ``data-scale-*`` attributes, so the two cannot disagree.
"""

import math

import numpy as np

from sitegen.common.settings import (
    HERO_T_RANGE,
    HERO_T_TICKS,
    RATE_SCALE,
    SCORE_SCALE,
    WORKED_EXAMPLE,
    WORKED_EXAMPLE_BINS,
)
from sitegen.common.units import to_units
from sitegen.render.codec import delta_encode, pack

__all__ = ["hero_series", "hero_payload", "hero_view", "GEOMETRY"]

# The figure's two panels, in SVG user units (the page scales them): the confidence strip, and the curves of
# NLL and ECE against T. ``x``: the horizontal range of the plot; lanes, rows and axes: vertical positions.
GEOMETRY = {
    "strip": {"width": 600, "height": 300, "x": (74, 584), "label_y": 20, "lane0": 46, "lane_step": 24,
              "gap0": 196, "gap_step": 16, "axis_y": 246, "tick_y": 270, "title_y": 296},
    "curves": {"width": 600, "height": 300, "x": (74, 584), "nll": (124, 34), "ece": (234, 146), "axis_y": 246,
               "tick_y": 270, "title_y": 296},
}


def hero_series(precomputed):
    """The hero's numbers in display units (probabilities and rates in 1/RATE_SCALE, NLL in 1/SCORE_SCALE) over
    the grid indices ``start``…``stop - 1`` (the grid's temperatures in ``HERO_T_RANGE``)."""
    result = precomputed.datasets[WORKED_EXAMPLE]
    grid = np.asarray(precomputed.grid)
    inside = np.flatnonzero((grid >= HERO_T_RANGE[0]) & (grid <= HERO_T_RANGE[1]))
    start, stop = int(inside[0]), int(inside[-1]) + 1
    n = result.dataset.labels.size
    if list(result.showcase) != list(range(n)):
        raise ValueError(f"the hero needs every example of {WORKED_EXAMPLE} in its showcase, in order")
    part = result.parts["all"]
    bins = part.bins["equal-width"][WORKED_EXAMPLE_BINS]
    window = slice(start, stop)
    conf = result.showcase_probs[window].max(axis=-1).T            # (examples, temperatures)
    count = bins.count[window].T                                      # (bins, temperatures)
    hits = np.rint(np.nan_to_num(bins.accuracy[window].T) * count)
    fitted = precomputed.index_of(result.fitted_t)
    return {
        "start": start, "stop": stop, "t1_index": precomputed.t1_index, "fitted_index": int(fitted),
        "numbers": list(range(1, n + 1)), "correct": [bool(c) for c in result.examples.correct],
        "edges": [float(e) for e in np.append(bins.lower[start], bins.upper[start][-1])],
        "conf": to_units(conf, RATE_SCALE), "nll": to_units(part.nll[window], SCORE_SCALE),
        "ece": to_units(part.ece["equal-width"][WORKED_EXAMPLE_BINS][window], RATE_SCALE),
        "count": count.astype(np.int64), "hits": hits.astype(np.int64),
        "bin_conf": to_units(np.nan_to_num(bins.confidence[window].T), RATE_SCALE),
    }


def hero_payload(series):
    """The packed series for ``CT.core.hero``: each row delta-encoded and packed (sitegen.render.codec)."""
    def rows(values):
        return [pack(delta_encode(row)) for row in np.atleast_2d(values)]

    return {"start": series["start"], "stop": series["stop"], "fitted_index": series["fitted_index"],
            "correct": series["correct"], "conf": rows(series["conf"]), "nll": rows(series["nll"])[0],
            "ece": rows(series["ece"])[0], "count": rows(series["count"]), "hits": rows(series["hits"]),
            "bin_conf": rows(series["bin_conf"])}


def _linear(d0, d1, r0, r1):
    return lambda v: r0 + (v - d0) / (d1 - d0) * (r1 - r0)


def _log(d0, d1, r0, r1):
    return lambda v: r0 + (math.log(v) - math.log(d0)) / (math.log(d1) - math.log(d0)) * (r1 - r0)


PATH_TOLERANCE = 0.3  # SVG units: a curve's point closer than this to the line through its neighbours kept is dropped


def _simplified(points, tolerance=PATH_TOLERANCE):
    """``points`` with every point dropped whose distance from the chord of the points kept around it is below
    ``tolerance`` (Ramer–Douglas–Peucker): the curve as drawn, in far fewer bytes; a jump's ends stay."""
    points = np.asarray(points, dtype=float)
    keep = np.zeros(len(points), bool)
    keep[[0, -1]] = True
    stack = [(0, len(points) - 1)]
    while stack:
        a, b = stack.pop()
        if b - a < 2:
            continue
        (x0, y0), (x1, y1) = points[a], points[b]
        inner = points[a + 1:b]
        length = math.hypot(x1 - x0, y1 - y0) or 1.0
        distance = np.abs((x1 - x0) * (y0 - inner[:, 1]) - (x0 - inner[:, 0]) * (y1 - y0)) / length
        worst = int(np.argmax(distance))
        if distance[worst] > tolerance:
            keep[a + 1 + worst] = True
            stack += [(a, a + 1 + worst), (a + 1 + worst, b)]
    return points[keep]


def _path(xs, ys):
    """An SVG path through the simplified points: the first absolute, then relative steps (fewer bytes)."""
    points = np.round(_simplified(np.column_stack([xs, ys])), 1)
    steps = np.diff(points, axis=0)
    return f"M{_num(points[0][0])} {_num(points[0][1])}l" + " ".join(f"{_num(dx)} {_num(dy)}" for dx, dy in steps)


def _num(value):
    """A coordinate written short: one decimal, no trailing ".0", no leading zero."""
    text = f"{value:.1f}".rstrip("0").rstrip(".")
    text = "0" if text == "-0" else text
    return text.replace("0.", ".", 1) if text.startswith(("0.", "-0.")) else text


def _round(value):
    return float(f"{value:.1f}")


def hero_view(series, grid):
    """What templates/components/hero.html.j2 draws: the scales (as the ``data-scale-*`` attributes the script
    reads), the lanes, the bin bands and edges, the curves' paths, and every mark at the fitted T (``now``: the
    figure opens there) and at T = 1 (``ghost``: where the marks came from)."""
    strip, curves = GEOMETRY["strip"], GEOMETRY["curves"]
    grid = np.asarray(grid)
    start, stop = series["start"], series["stop"]
    temps = grid[start:stop]
    nll, ece = series["nll"] / SCORE_SCALE, series["ece"] / RATE_SCALE
    # vertical domains: the curves' ranges over the window, with a little room
    nll_lo, nll_hi = float(nll.min()), float(nll.max())
    ece_lo, ece_hi = 0.0, float(ece.max())
    scales = {
        "conf": (0.0, 1.0, *strip["x"]),
        "t": (*HERO_T_RANGE, *curves["x"]),
        "nll": (nll_lo - 0.04 * (nll_hi - nll_lo), nll_hi, *curves["nll"]),
        "ece": (ece_lo, ece_hi * 1.04, *curves["ece"]),
    }
    x_conf, x_t = _linear(*scales["conf"]), _log(*scales["t"])
    y_nll, y_ece = _linear(*scales["nll"]), _linear(*scales["ece"])

    # the bins that hold an example at some temperature of the window: one row of gaps each
    used = [b for b in range(len(series["edges"]) - 1) if series["count"][b].any()]

    def marks(index):
        i = index - start
        points = [{"number": number, "correct": right, "x": _round(x_conf(series["conf"][k][i] / RATE_SCALE)),
                   "y": strip["lane0"] + k * strip["lane_step"]}
                  for k, (number, right) in enumerate(zip(series["numbers"], series["correct"]))]
        gaps = []
        for row, b in enumerate(used):
            count = int(series["count"][b][i])
            acc = series["hits"][b][i] / count if count else 0.0
            conf = series["bin_conf"][b][i] / RATE_SCALE
            gaps.append({"bin": b, "count": count, "hits": int(series["hits"][b][i]), "x1": _round(x_conf(acc)),
                         "x2": _round(x_conf(conf)), "over": conf > acc,
                         "y": strip["gap0"] + row * strip["gap_step"]})
        return {"points": points, "gaps": gaps, "t": float(grid[index]), "x": _round(x_t(grid[index])),
                "nll": int(series["nll"][i]), "ece": int(series["ece"][i]),
                "nll_y": _round(y_nll(nll[i])), "ece_y": _round(y_ece(ece[i]))}

    edges = series["edges"]
    ticks_t = [t for t in HERO_T_TICKS if HERO_T_RANGE[0] <= t <= HERO_T_RANGE[1]]
    return {
        "geometry": GEOMETRY, "scales": {k: " ".join(f"{v:.6g}" for v in s) for k, s in scales.items()},
        "edges": [{"value": e, "x": _round(x_conf(e))} for e in edges],
        "bands": [{"x": _round(x_conf(lo)), "width": _round(x_conf(hi) - x_conf(lo)),
                   "mid": _round(x_conf((lo + hi) / 2))} for lo, hi in zip(edges, edges[1:])],
        "lanes": [strip["lane0"] + k * strip["lane_step"] for k in range(len(series["numbers"]))],
        "nll_path": _path([x_t(t) for t in temps], [y_nll(v) for v in nll]),
        "ece_path": _path([x_t(t) for t in temps], [y_ece(v) for v in ece]),
        "ticks_t": [{"t": t, "x": _round(x_t(t))} for t in ticks_t],
        "now": marks(series["fitted_index"]), "ghost": marks(series["t1_index"]),
        "start": start, "stop": stop, "t1_index": series["t1_index"], "fitted_index": series["fitted_index"],
    }
