"""Static SVG figures drawn with matplotlib from precomputed arrays (no metric code here).

They are what a reader without JavaScript, a printer or a feed reader sees;
the page's script draws the interactive versions with the same marks and
colours. Colours are drawn as sentinel values and rewritten to CSS custom
properties without fallbacks (the stylesheet is their one home), so an inlined figure follows the
page's light or dark scheme. Text stays text (``svg.fonttype: none``).

The site's pages do not inline them: each is a file of its own (:func:`figure_file`), shown by an
``<img>`` inside ``<noscript>``, so a reader with JavaScript never downloads it. Such a file sees none
of the page's custom properties, so it carries the stylesheet's figure colours itself, light and dark
(:func:`figure_colours` reads them from the stylesheet: one home for each colour).

Every word and number in a figure is the page language's: labels, legends and titles come from the
``[figures]`` table of its strings.toml, and tick labels are written with its ``[format]`` (a figure
is drawn once per language).
"""

import io
import re

import numpy as np

from sitegen.common.numbers import number_filters
from sitegen.common.settings import WORKED_EXAMPLE, WORKED_EXAMPLE_BINS
from sitegen.common.style import FIGURE_DPI, FIGURE_PAD, figure_inches, load_tokens, mark, rc_params

__all__ = ["PALETTE", "svg_of", "reliability_figure", "curves_figure", "render_figures", "figure_colours",
           "figure_file", "figure_size", "classwise_figure", "render_evidence_figures"]

# sentinel colour → the CSS variable that colours it (static/css/base.css sets each, light and dark;
# Okabe–Ito hues, colour-blind safe). Every page that inlines a figure inlines that stylesheet too,
# and a figure file carries the stylesheet's values itself (figure_file): no fallback is needed.
PALETTE = {
    "#010101": "--fig-ink",
    "#020202": "--fig-muted",
    "#030303": "--fig-grid",
    "#0072b2": "--fig-model",
    "#d55e00": "--fig-gap",
    "#009e73": "--fig-ideal",
    "#cc79a7": "--fig-accent",
    "#050505": "--fig-bar",
}
INK, MUTED, GRID, MODEL, GAP, IDEAL, ACCENT, BAR = PALETTE

_SENTINEL = {variable[2:]: sentinel for sentinel, variable in PALETTE.items()}  # "fig-muted" → its sentinel


def _sentinel(name):
    """The sentinel colour drawn for the figure colour ``name`` (``fig-muted``), rewritten to its variable."""
    return _SENTINEL[name]


def _style(tokens):
    """matplotlib's settings for a figure: sitegen/common/style_tokens.toml's chart sizes, widths and colours."""
    return rc_params(tokens, _sentinel)


def _pyplot():
    """matplotlib's pyplot on the Agg backend, imported on first use: a build whose figures come from the
    build cache, and the page code that only reads figures (:func:`figure_file`), never load matplotlib."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def svg_of(fig, prefix):
    """The figure as SVG text, deterministic, with ids prefixed by ``prefix`` and colours as CSS variables."""
    plt = _pyplot()
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None}, bbox_inches="tight",
                pad_inches=FIGURE_PAD / FIGURE_DPI)
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
    # matplotlib names a clip path after a hash of its box's floats to the last bit, which can follow the BLAS
    # threads or kernel that computed the data (a held-out range's last bits moved one chart's ids): the file
    # must not, so the ids are numbered in the order they are defined
    names = {old: f"c{i}" for i, old in enumerate(dict.fromkeys(re.findall(r'\sid="([^"]+)"', svg)))}
    svg = re.sub(r'(id="|url\(#|href="#)([^)"]+)',
                 lambda m: f"{m.group(1)}{prefix}-{names.get(m.group(2), m.group(2))}", svg)
    for sentinel, variable in PALETTE.items():
        svg = svg.replace(sentinel, f"var({variable})")
    # its text in the page's body font (sitegen/common/style_tokens.toml), as the live charts write theirs
    body = load_tokens()["font"]["body"].replace('"', "'")
    svg = re.sub(r"font-family: [^;\"]+", lambda m: "font-family: " + body, svg)
    svg = re.sub(r"<!--.*?-->\s*", "", svg, flags=re.S)
    svg = re.sub(r"\s*\n\s*(?=[LMCQz])", " ", svg)  # path data on one line
    svg = re.sub(r"\n\s*", "\n", svg)
    # Sub-pixel digits only add bytes: keep two decimals of every coordinate.
    svg = re.sub(r"(\d+\.\d\d)\d+", r"\1", svg)
    return svg


def local_formatter(decimal):
    """matplotlib's plain tick labels (a ``ScalarFormatter``) with the language's decimal mark ``decimal``
    (never Python's ``locale``)."""
    from matplotlib.ticker import ScalarFormatter

    class LocalFormatter(ScalarFormatter):
        def __call__(self, x, pos=None):
            return super().__call__(x, pos).replace(".", decimal)

    return LocalFormatter()


def _localise_ticks(ax, decimal, log_x=False):
    """Tick labels of ``ax`` with ``decimal`` as decimal mark; on a log axis plain numbers without trailing
    zeros (0.25, 0.5, 1, 2), not powers of ten."""
    if log_x:
        from matplotlib.ticker import FuncFormatter

        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, pos: f"{x:g}".replace(".", decimal)))
    else:
        ax.xaxis.set_major_formatter(local_formatter(decimal))
    ax.yaxis.set_major_formatter(local_formatter(decimal))


def reliability_figure(bins, grid_index, title, prefix, labels, decimal="."):
    """Reliability diagram of one state: diagonal, one dot per non-empty bin, gap lines, count bars beneath.

    ``bins`` is a :class:`calib.ReliabilityBins` over the grid; row ``grid_index`` is drawn. ``labels``
    holds the legend and axis texts (``ideal``, ``gap``, ``bin``, ``accuracy``, ``confidence``, ``count``).
    Drawn ``figure_width`` CSS pixels wide with the chart sizes and marks of sitegen/common/style_tokens.toml.
    """
    plt = _pyplot()
    tokens = load_tokens()
    with plt.rc_context(_style(tokens)):
        fig, (top, bottom) = plt.subplots(
            2, 1, figsize=figure_inches(tokens, 1.5), gridspec_kw={"height_ratios": [3.4, 1]}, sharex=True,
            layout="constrained")
        lower, upper = bins.lower[grid_index], bins.upper[grid_index]
        count = bins.count[grid_index]
        filled = count > 0
        conf, acc = bins.confidence[grid_index][filled], bins.accuracy[grid_index][filled]
        for edge in np.unique(np.concatenate([lower, upper])):
            top.axvline(edge, color=GRID, linewidth=tokens["chart"]["grid"], zorder=0)
        top.plot([0, 1], [0, 1], label=labels["ideal"], **mark(tokens, "diagonal", _sentinel))
        top.vlines(conf, np.minimum(conf, acc), np.maximum(conf, acc), color=GAP, linewidth=3, label=labels["gap"])
        top.plot(conf, acc, "o", color=MODEL, markersize=7, label=labels["bin"], clip_on=False)
        top.set(xlim=(0, 1), ylim=(0, 1), ylabel=labels["accuracy"], title=title)
        top.set_aspect("equal")
        # the legend under the figure, clear of the dots whatever their place
        fig.legend(loc="outside lower left", frameon=False, handlelength=1.4, ncols=1)
        bottom.bar((lower + upper) / 2, count, width=np.maximum(upper - lower, 0.01) * 0.9, color=BAR)
        bottom.set(xlabel=labels["confidence"], ylabel=labels["count"], xlim=(0, 1))
        for ax in (top, bottom):
            ax.xaxis.set_major_locator(_ticks([0, 0.5, 1]))
        bottom.yaxis.set_major_locator(_max_ticks(3))
        _localise_ticks(top, decimal)
        _localise_ticks(bottom, decimal)
        return svg_of(fig, prefix)


def _ticks(values):
    from matplotlib.ticker import FixedLocator

    return FixedLocator(values)


def _max_ticks(n):
    from matplotlib.ticker import MaxNLocator

    return MaxNLocator(nbins=n, integer=True)


def curves_figure(grid, series, markers, prefix, xlabel, decimal="."):
    """Small multiples of scores against T (log axis), stacked on one shared T axis, each with its own
    vertical scale: a figure ``figure_width`` CSS pixels wide whose text stays legible on a phone.

    ``series`` is a list of ``(label, values (G,))``; ``markers`` a dict with grid indices ``t1`` (the T = 1
    rule), ``current`` (the dot) and ``argmin`` (the fitted T's ring): the marks of sitegen/common/style_tokens.toml;
    ``xlabel`` names the axis.
    """
    plt = _pyplot()
    tokens = load_tokens()
    with plt.rc_context(_style(tokens)):
        fig, axes = plt.subplots(len(series), 1, figsize=figure_inches(tokens, 0.42 * len(series)), sharex=True,
                                 layout="constrained")
        axes = np.atleast_1d(axes)
        ticks = [t for t in (0.25, 0.5, 1, 2, 4, 8, 16) if grid[0] <= t <= grid[-1]]
        for ax, (label, values) in zip(axes, series):
            ax.plot(grid, values, color=MODEL)
            ax.axvline(grid[markers["t1"]], **mark(tokens, "t1", _sentinel))
            ax.plot(grid[markers["current"]], values[markers["current"]], **mark(tokens, "current", _sentinel))
            ax.plot(grid[markers["argmin"]], values[markers["argmin"]], **mark(tokens, "fitted", _sentinel))
            ax.set_xscale("log")
            ax.set_title(label, loc="left")
            ax.yaxis.set_major_locator(_nice(3))
            ax.grid(True, axis="y")
            ax.xaxis.set_major_locator(_ticks(ticks))
            ax.xaxis.set_minor_locator(_ticks([]))
            _localise_ticks(ax, decimal, log_x=True)
        axes[-1].set_xlabel(xlabel)
        return svg_of(fig, prefix)


def _nice(n):
    from matplotlib.ticker import MaxNLocator

    return MaxNLocator(nbins=n)


def render_figures(precomputed, strings, dataset=WORKED_EXAMPLE, n_bins=WORKED_EXAMPLE_BINS):
    """The page's static figures as ``{name: svg}`` in the language of ``strings`` (its strings.toml):
    ``dataset``'s reliability diagrams with ``n_bins`` equal-width bins at T = 1 and at its fitted T,
    and its score curves."""
    text, fmt = strings["figures"], strings["format"]
    number = number_filters(fmt)
    result = precomputed.datasets[dataset]
    part = next(iter(result.parts.values()))
    fitted = precomputed.index_of(result.fitted_t)
    bins = part.bins["equal-width"][n_bins]
    ece = part.ece["equal-width"][n_bins]
    labels = {"ideal": text["legend_ideal"], "gap": text["legend_gap"], "bin": text["legend_bin"],
              "accuracy": text["axis_accuracy"], "confidence": text["axis_confidence"], "count": text["axis_count"]}
    fitted_title = text["title_fitted"].replace("{t}", number["temp"](result.fitted_t))  # the page's one T rule
    return {
        "reliability-t1": reliability_figure(bins, precomputed.t1_index, text["title_t1"], "rel1", labels,
                                             fmt["decimal"]),
        "reliability-fitted": reliability_figure(bins, fitted, fitted_title, "relf", labels, fmt["decimal"]),
        "curves": curves_figure(
            precomputed.grid,
            [(text["curve_nll"], part.nll), (text["curve_brier"], part.brier),
             (text["curve_ece"].replace("{bins}", str(n_bins)), ece)],
            {"t1": precomputed.t1_index, "current": fitted, "argmin": part.nll_argmin},
            "curves", text["axis_temperature"], fmt["decimal"]),
    }


def classwise_figure(view, prefix, labels, decimal="."):
    """Small multiples: the top-label reliability diagram, then one per class, at T = 1 and at the fitted T.

    ``view`` is an ``ev.classwise.<key>`` of :mod:`sitegen.facts.evidence` (bins already computed: no metric code here);
    ``labels`` holds ``top``, ``class`` (with ``{k}``), ``t1``, ``fit``, ``ideal``, ``predicted``, ``observed``.
    A dot's area follows its bin's share of the rows, so a bin of three rows does not look like one of thousands.
    """
    plt = _pyplot()
    panels = [(labels["top"], view.t1.top, view.fit.top)]
    panels += [(labels["class"].replace("{k}", str(k)), view.t1.classes[k], view.fit.classes[k]) for k in range(view.k)]
    columns = 4
    rows = -(-len(panels) // columns)
    with plt.rc_context(_style(load_tokens())):
        fig, axes = plt.subplots(rows, columns, figsize=(1.9 * columns, 2.0 * rows), sharex=True, sharey=True)
        for ax, (title, before, after) in zip(axes.ravel(), panels):
            ax.plot([0, 1], [0, 1], color=IDEAL, linestyle="--", linewidth=1)
            for state, colour, marker, name in ((before, GAP, "s", labels["t1"]), (after, MODEL, "o", labels["fit"])):
                sizes = 4 + 60 * np.sqrt(np.asarray(state.count) / max(1, sum(state.count)))
                ax.plot(state.conf, state.acc, color=colour, linewidth=0.8, alpha=0.7)
                ax.scatter(state.conf, state.acc, s=sizes, color=colour, marker=marker, label=name, zorder=3)
            ax.set(xlim=(0, 1), ylim=(0, 1), title=title)
            ax.set_aspect("equal")
            ax.title.set_fontsize(9)
            _localise_ticks(ax, decimal)
        for ax in axes.ravel()[len(panels):]:
            ax.set_axis_off()
        for ax in axes[-1]:
            ax.set_xlabel(labels["predicted"], fontsize=8)
        for ax in axes[:, 0]:
            ax.set_ylabel(labels["observed"], fontsize=8)
        handles, names = axes.ravel()[0].get_legend_handles_labels()
        fig.legend(handles, names, loc="lower right", frameon=False, fontsize=8)
        fig.tight_layout()
        return svg_of(fig, prefix)


def render_evidence_figures(ev, strings):
    """The evidence section's static figures, ``{name: svg}``: ``classwise-<dataset>`` for every dataset of
    ``ev.classwise`` (:mod:`sitegen.facts.evidence`), in the language of ``strings``."""
    text, fmt = strings["figures"], strings["format"]
    number = number_filters(fmt)
    out = {}
    for key in ev.classwise.keys:
        view = getattr(ev.classwise, key)
        labels = {"top": text["classwise_top"], "class": text["classwise_class"], "t1": text["title_t1"],
                  "fit": text["title_fitted"].replace("{t}", number["temp"](view.t)), "ideal": text["legend_ideal"],
                  "predicted": text["classwise_predicted"], "observed": text["classwise_observed"]}
        out[f"classwise-{view.name}"] = classwise_figure(view, f"cw-{key}", labels, fmt["decimal"])
    return out


_DARK_SCHEME = "@media (prefers-color-scheme: dark)"
_FIGURE_COLOUR = re.compile(r"(--fig-[a-z-]+)\s*:\s*([^;}]+?)\s*(?:[;}]|$)")


def _block_after(css, start):
    """The text between the ``{`` at or after ``start`` and its matching ``}``."""
    opening = css.index("{", start)
    depth = 0
    for i in range(opening, len(css)):
        depth += {"{": 1, "}": -1}.get(css[i], 0)
        if depth == 0:
            return css[opening + 1:i]
    raise ValueError("unbalanced braces in the stylesheet")


def figure_colours(css):
    """The figure colours of the stylesheet ``css``: ``(light, dark)``, each ``{"--fig-…": value}``,
    read from its first ``:root`` block and from the ``:root`` inside its dark-scheme media query."""
    dark_at = re.search(r"@media\s*\(\s*prefers-color-scheme\s*:\s*dark\s*\)", css)
    if not dark_at:
        raise ValueError(f"the stylesheet has no {_DARK_SCHEME} block")
    dark_block = _block_after(css, dark_at.start())
    light = dict(_FIGURE_COLOUR.findall(_block_after(css, css.index(":root"))))
    dark = dict(_FIGURE_COLOUR.findall(_block_after(dark_block, dark_block.index(":root"))))
    missing = sorted(set(PALETTE.values()) - (set(light) & set(dark)))
    if missing:
        raise ValueError(f"the stylesheet does not set {', '.join(missing)} in both schemes")
    return light, dark


def figure_size(svg):
    """``(width, height)`` of a figure in CSS pixels, rounded up, from its ``viewBox``."""
    width, height = re.search(r'viewBox="[-\d.]+ [-\d.]+ ([\d.]+) ([\d.]+)"', svg).groups()
    return -int(-float(width) // 1), -int(-float(height) // 1)


def figure_file(svg, colours):
    """A figure of :func:`svg_of` as a file of its own, for an ``<img>``: its size in pixels, and the
    figure colours ``colours`` (:func:`figure_colours`) set on its root, the dark ones under
    ``prefers-color-scheme: dark``, since an image sees none of the page's custom properties."""
    light, dark = colours

    def declarations(values):
        return ";".join(f"{name}:{value}" for name, value in sorted(values.items()))

    width, height = figure_size(svg)
    style = (f"<style>svg{{{declarations(light)}}}"
             f"{_DARK_SCHEME}{{svg{{{declarations(dark)}}}}}</style>\n")
    svg = svg.replace("<svg ", f'<svg width="{width}" height="{height}" ', 1)
    head_end = svg.index(">") + 1
    return svg[:head_end] + "\n" + style + svg[head_end:].lstrip("\n")
