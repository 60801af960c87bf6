"""Static SVG figures drawn with matplotlib from precomputed arrays (no metric code here).

They are what a reader without JavaScript, a printer or a feed reader sees;
the page's script draws the interactive versions with the same marks and
colours. Colours are drawn as sentinel values and rewritten to CSS custom
properties (with a light-scheme fallback), so an inlined figure follows the
page's light or dark scheme. Text stays text (``svg.fonttype: none``).
"""

import io
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)
import numpy as np  # noqa: E402

from .settings import WORKED_EXAMPLE, WORKED_EXAMPLE_BINS  # noqa: E402

__all__ = ["PALETTE", "svg_of", "reliability_figure", "curves_figure", "render_figures"]

# sentinel colour → (CSS variable, light-scheme fallback); Okabe–Ito hues, colour-blind safe
PALETTE = {
    "#010101": ("--fig-ink", "#1d1d1f"),
    "#020202": ("--fig-muted", "#5b5b66"),
    "#030303": ("--fig-grid", "#d9d9e0"),
    "#0072b2": ("--fig-model", "#0072b2"),
    "#d55e00": ("--fig-gap", "#b34700"),
    "#009e73": ("--fig-ideal", "#007a5a"),
    "#cc79a7": ("--fig-accent", "#a2507f"),
    "#050505": ("--fig-bar", "#9bb8d3"),
}
INK, MUTED, GRID, MODEL, GAP, IDEAL, ACCENT, BAR = PALETTE

_STYLE = {
    "svg.fonttype": "none",
    "svg.hashsalt": "calibration-tutorial",
    "font.family": "sans-serif",
    "font.size": 10,
    "axes.edgecolor": MUTED,
    "axes.labelcolor": INK,
    "xtick.color": MUTED,
    "ytick.color": MUTED,
    "text.color": INK,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "figure.facecolor": "none",
    "axes.facecolor": "none",
    "savefig.facecolor": "none",
}


def svg_of(fig, prefix):
    """The figure as SVG text, deterministic, with ids prefixed by ``prefix`` and colours as CSS variables."""
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None}, bbox_inches="tight")
    plt.close(fig)
    svg = buffer.getvalue()
    svg = svg[svg.index("<svg"):]  # drop the XML prolog and DOCTYPE so it can be inlined
    # The metadata block is noise in HTML, and matplotlib's global "*{...}" style
    # would leak into the whole page once the SVG is inlined.
    svg = re.sub(r"<metadata>.*?</metadata>\s*", "", svg, flags=re.S)
    svg = re.sub(r"<style[^>]*>.*?</style>\s*", "", svg, flags=re.S)
    svg = re.sub(r'(width|height)="[\d.]+pt"\s*', "", svg, count=2)
    # Keep only the ids something refers to (clip paths); prefix them so inlined figures cannot collide.
    referenced = set(re.findall(r'(?:url\(#|href="#)([^)"]+)', svg))
    svg = re.sub(r'\s+id="([^"]+)"', lambda m: m.group(0) if m.group(1) in referenced else "", svg)
    svg = re.sub(r'(id="|url\(#|href="#)', lambda m: m.group(1) + prefix + "-", svg)
    for sentinel, (variable, fallback) in PALETTE.items():
        svg = svg.replace(sentinel, f"var({variable}, {fallback})")
    svg = re.sub(r"<!--.*?-->\s*", "", svg, flags=re.S)
    svg = re.sub(r"\s*\n\s*(?=[LMCQz])", " ", svg)  # path data on one line
    svg = re.sub(r"\n\s*", "\n", svg)
    # Sub-pixel digits only add bytes: keep two decimals of every coordinate.
    svg = re.sub(r"(\d+\.\d\d)\d+", r"\1", svg)
    return svg


def reliability_figure(bins, grid_index, title, prefix):
    """Reliability diagram of one state: diagonal, one dot per non-empty bin, gap lines, count bars beneath.

    ``bins`` is a :class:`calib.ReliabilityBins` over the grid; row ``grid_index`` is drawn.
    """
    with plt.rc_context(_STYLE):
        fig, (top, bottom) = plt.subplots(
            2, 1, figsize=(3.6, 4.4), gridspec_kw={"height_ratios": [3.2, 1]}, sharex=True)
        lower, upper = bins.lower[grid_index], bins.upper[grid_index]
        count = bins.count[grid_index]
        filled = count > 0
        conf, acc = bins.confidence[grid_index][filled], bins.accuracy[grid_index][filled]
        for edge in np.unique(np.concatenate([lower, upper])):
            top.axvline(edge, color=GRID, linewidth=0.8, zorder=0)
        top.plot([0, 1], [0, 1], color=IDEAL, linestyle="--", linewidth=1.2, label="perfect calibration")
        top.vlines(conf, np.minimum(conf, acc), np.maximum(conf, acc), color=GAP, linewidth=2.2, label="gap")
        top.plot(conf, acc, "o", color=MODEL, markersize=6, label="bin (mean confidence, accuracy)")
        top.set(xlim=(0, 1), ylim=(0, 1), ylabel="accuracy", title=title)
        top.set_aspect("equal")
        top.legend(loc="upper left", frameon=False, fontsize=8)
        bottom.bar((lower + upper) / 2, count, width=np.maximum(upper - lower, 0.01) * 0.9, color=BAR)
        bottom.set(xlabel="confidence", ylabel="count", xlim=(0, 1))
        return svg_of(fig, prefix)


def curves_figure(grid, series, markers, prefix):
    """Small multiples of scores against T (log axis), each with its own vertical scale.

    ``series`` is a list of ``(label, values (G,))``; ``markers`` a dict with
    grid indices ``t1`` (dashed line), ``current`` (dot) and ``argmin`` (ring).
    """
    with plt.rc_context(_STYLE):
        fig, axes = plt.subplots(1, len(series), figsize=(2.6 * len(series), 2.4))
        for ax, (label, values) in zip(np.atleast_1d(axes), series):
            ax.plot(grid, values, color=MODEL, linewidth=1.6)
            ax.axvline(grid[markers["t1"]], color=MUTED, linestyle="--", linewidth=1)
            ax.plot(grid[markers["current"]], values[markers["current"]], "o", color=GAP, markersize=6)
            ax.plot(grid[markers["argmin"]], values[markers["argmin"]], "o", markerfacecolor="none",
                    markeredgecolor=IDEAL, markersize=10, markeredgewidth=1.8)
            ax.set(xscale="log", xlabel="temperature T", title=label)
            ax.grid(True, color=GRID, linewidth=0.6)
        fig.tight_layout()
        return svg_of(fig, prefix)


def render_figures(precomputed, dataset=WORKED_EXAMPLE, n_bins=WORKED_EXAMPLE_BINS):
    """The page's static figures as ``{name: svg}``: ``dataset``'s reliability diagrams with ``n_bins``
    equal-width bins at T = 1 and at its fitted T, and its score curves."""
    result = precomputed.datasets[dataset]
    part = next(iter(result.parts.values()))
    fitted = precomputed.index_of(result.fitted_t)
    bins = part.bins["equal-width"][n_bins]
    ece = part.ece["equal-width"][n_bins]
    return {
        "reliability-t1": reliability_figure(bins, precomputed.t1_index, "T = 1", "rel1"),
        "reliability-fitted": reliability_figure(bins, fitted, f"T = {result.fitted_t:.5g} (fitted)", "relf"),
        "curves": curves_figure(
            precomputed.grid,
            [("NLL (nats)", part.nll), ("Brier score", part.brier), (f"ECE, {n_bins} equal-width bins", ece)],
            {"t1": precomputed.t1_index, "current": fitted, "argmin": part.nll_argmin},
            "curves"),
    }
