"""Four charts drawn with matplotlib from the facts (no metric code here): each is the figure of its deep dive,
shown to every reader as an image (JavaScript or not), with its numbers in a table behind a disclosure.

* ``compare``: the calibrator comparison as a forest plot: each calibrator's paired change from temperature
  scaling (the observed change and its resampling range), per score and dataset (``by.cmp``);
* ``bin-sweep``: ECE against the number of equal-width bins on the over-confident test rows at T = 1 and at the
  fitted T, with the band a perfectly calibrated model with the same confidences would score in
  (``an.overconfident.rep``: its median and 95th percentile);
* ``risk-coverage``: the error rate among the rows answered against the share answered, at T = 1 and at the
  fitted T (``by.decide``);
* ``rows``: the fitted T's spread against the number of calibration rows (``by.rows``);
* ``held-out`` (the core's #held-out): each split dataset's NLL improvement from T = 1 to its fitted T on the
  calibration rows (where T was fitted) and on the test rows, with the paired range (``nll_gain``,
  ``an.<dataset>.rep.paired.nll``).

Sizes, widths and colours are sitegen/common/style_tokens.toml's, through static_svg (one home for the
figures' look); every word is the page language's ``[charts]`` table, every number written with its ``[format]``.
"""

import numpy as np

from sitegen.common.numbers import number_filters
from sitegen.common.style import load_tokens
from sitegen.figures.static_svg import (
    ACCENT,
    GAP,
    GRID,
    IDEAL,
    INK,
    MODEL,
    MUTED,
    _pyplot,
    _style,
    local_formatter,
    svg_of,
)

__all__ = ["chart_figures", "CHARTS"]

CHARTS = ("held-out", "compare", "bin-sweep", "risk-coverage", "rows")
_ROW_STEP = 0.18  # the forest plot: vertical step between a calibrator's datasets (rows are 1 apart)
_DATASET_COLOURS = (MODEL, GAP, ACCENT, IDEAL)  # by.compared's order (no ideal line in that chart)
# The one-panel charts: drawn narrow, so that on a 390 px phone, where the image fills the column, their text
# (sitegen/common/style_tokens.toml's chart sizes, 12 pt and up) is still at least 12 CSS pixels (a 4.4 in
# figure shown 370 px wide scales 12 pt to about 14 px).
_NARROW = 4.4  # inches


def _chart_style():
    """matplotlib's settings for a chart: the figures' one style source (sitegen/common/style_tokens.toml)."""
    return _style(load_tokens())
_PERCENT_SCORES = ("ece_w", "ece_a", "cw_ece", "smooth")  # drawn in percentage points


def _axes_style(ax, decimal, x=True, y=True):
    if x:
        ax.xaxis.set_major_formatter(local_formatter(decimal))
    if y:
        ax.yaxis.set_major_formatter(local_formatter(decimal))
    ax.grid(True, color=GRID, linewidth=load_tokens()["chart"]["grid"])
    ax.set_axisbelow(True)


def compare_chart(by, text, names, decimal):
    """The forest plot: one panel per score, one row per calibrator, one mark per dataset (observed change from
    temperature scaling, with its paired range); a dashed line at no change."""
    plt = _pyplot()
    tables = [getattr(by.cmp, dataset.key) for dataset in by.compared]
    methods = [row.method for row in tables[0].rows if row.method != "temperature"]
    scores = ("nll", "brier", "ece_w", "ece_a", "cw_ece", "smooth")
    with plt.rc_context(_chart_style()):
        fig, axes = plt.subplots(2, 3, figsize=(8.4, 5.6), sharey=True)
        y = np.arange(len(methods))[::-1]
        for ax, score in zip(axes.ravel(), scores):
            scale = 100 if score in _PERCENT_SCORES else 1
            # drawn at the digits the tables print (4 decimals, 0.01 pp): the matrix and vector fits are L-BFGS
            # runs whose last digits move with numpy's SIMD paths, and the SVG would carry them
            digits = 2 if scale == 100 else 4
            ax.axvline(0, color=MUTED, linestyle="--", linewidth=1)
            finite = [round(bound * scale, digits) for table in tables for row in table.rows
                      if row.method != "temperature"
                      for cell in [getattr(row, score)] if cell.lo_finite and cell.hi_finite and cell.finite
                      for bound in (cell.lo, cell.hi)]
            lo, hi = (min(finite), max(finite)) if finite else (-1, 1)
            pad = 0.08 * (hi - lo or 1)
            left, right = min(lo, 0) - pad, max(hi, 0) + pad
            for d, (table, colour) in enumerate(zip(tables, _DATASET_COLOURS)):
                rows = {row.method: getattr(row, score) for row in table.rows}
                offset = ((len(tables) - 1) / 2 - d) * _ROW_STEP
                label = names["datasets"][d]  # on the dataset's first drawn mark (its first row may be left out)
                for yi, method in zip(y, methods):
                    if method not in rows:  # left out on this dataset (no finite optimum): no mark
                        continue
                    cell = rows[method]
                    if not cell.finite:  # an infinite mean NLL (a label got probability zero): an arrow off the edge
                        ax.plot(right, yi + offset, ">", color=colour, markersize=6)
                        continue
                    a = round(cell.lo * scale, digits) if cell.lo_finite else left
                    b = round(cell.hi * scale, digits) if cell.hi_finite else right
                    ax.plot([max(a, left), min(b, right)], [yi + offset] * 2, color=colour, linewidth=1.6)
                    ax.plot(np.clip(round(cell.change * scale, digits), left, right), yi + offset, "o", color=colour,
                            markersize=4.5, label=label)
                    label = None
            ax.set_xlim(left, right)
            ax.set_title(names["scores"][score] + (text["pp"] if scale == 100 else ""), fontsize=10)
            _axes_style(ax, decimal)
            ax.grid(False, axis="y")
        axes[0, 0].set_yticks(y, [names["methods"][m] for m in methods])
        axes[1, 0].set_yticks(y, [names["methods"][m] for m in methods])
        handles, labels = axes[0, 0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="upper center", ncol=len(labels), frameon=False, fontsize=9,
                   bbox_to_anchor=(0.55, 1.02))
        fig.supxlabel(text["change"], fontsize=10)
        fig.tight_layout(rect=(0, 0, 1, 0.95))
        return svg_of(fig, "chart-compare")


def bin_sweep_chart(rep, text, decimal, t_label):
    """ECE against the number of bins at T = 1 and the fitted T, over the calibrated model's band (median
    dashed, shaded up to its 95th percentile)."""
    plt = _pyplot()
    counts = sorted(rep.fit.ece_w)
    with plt.rc_context(_chart_style()):
        fig, ax = plt.subplots(figsize=(_NARROW, 4.2))
        hi = [rep.fit.floor_sweep_w[b].hi * 100 for b in counts]
        mid = [rep.fit.floor_sweep_w[b].mid * 100 for b in counts]
        ax.fill_between(counts, 0, hi, color=IDEAL, alpha=0.18, linewidth=0, label=text["band"])
        ax.plot(counts, mid, color=IDEAL, linestyle="--", linewidth=1.2, label=text["band_mid"])
        ax.plot(counts, [rep.t1.ece_w[b] * 100 for b in counts], color=MUTED, linewidth=1.6, label=text["at_t1"])
        ax.plot(counts, [rep.fit.ece_w[b] * 100 for b in counts], color=MODEL, linewidth=2, label=t_label)
        ax.set(xlim=(counts[0], counts[-1]), ylim=(0, None), xlabel=text["bins"], ylabel=text["ece_pct"])
        ax.legend(frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=2, fontsize=11)
        _axes_style(ax, decimal)
        fig.tight_layout()
        return svg_of(fig, "chart-bins")


def risk_coverage_chart(decide, text, decimal, t_label):
    """The error rate among the answered rows against the share answered, at T = 1 and at the fitted T."""
    plt = _pyplot()
    with plt.rc_context(_chart_style()):
        fig, ax = plt.subplots(figsize=(_NARROW, 3.4))
        for view, colour, style, label in ((decide.t1, MUTED, "--", text["at_t1"]), (decide.fit, MODEL, "-", t_label)):
            coverage, risk = zip(*sorted(view.curve.items()))
            ax.plot(np.array(coverage) * 100, np.array(risk) * 100, color=colour, linestyle=style, linewidth=1.8,
                    label=label)
        ax.set(xlim=(0, 100), ylim=(0, None), xlabel=text["answered_pct"], ylabel=text["error_pct"])
        ax.legend(frameon=False, loc="upper left")
        _axes_style(ax, decimal)
        fig.tight_layout()
        return svg_of(fig, "chart-rc")


def rows_chart(rows, text, decimal, all_label, thousands):
    """The fitted T's median and range against the number of calibration rows (log axis), with the T fitted on
    all of them."""
    plt = _pyplot()
    sizes = list(rows.sizes)
    with plt.rc_context(_chart_style()):
        fig, ax = plt.subplots(figsize=(_NARROW, 3.3))
        mids = [rows.at[s].t.mid for s in sizes]
        ax.vlines(sizes, [rows.at[s].t.lo for s in sizes], [rows.at[s].t.hi for s in sizes], color=MODEL,
                  linewidth=2.2, label=text["t_range"])
        ax.plot(sizes, mids, "o", color=MODEL, markersize=5)
        ax.axhline(rows.full_t, color=INK, linestyle="--", linewidth=1, label=all_label)
        ax.set_xscale("log")
        ax.set_xticks(sizes, [thousands(s) for s in sizes])
        ax.minorticks_off()
        ax.set(xlabel=text["cal_rows"], ylabel=text["fitted_t"])
        ax.legend(frameon=False, loc="upper right")
        _axes_style(ax, decimal, x=False)
        fig.tight_layout()
        return svg_of(fig, "chart-rows")


def held_out_chart(facts, text, names, decimal):
    """The NLL improvement on the calibration rows (hollow) and on the test rows (filled, with its paired range)
    for each split dataset; a dashed line at no improvement."""
    plt = _pyplot()
    keys = ("sim_60", "sim_600", "overconfident")
    with plt.rc_context(_chart_style()):
        fig, ax = plt.subplots(figsize=(_NARROW, 3.2))
        y = np.arange(len(keys))[::-1]
        ax.axvline(0, color=MUTED, linestyle="--", linewidth=1)
        for yi, key in zip(y, keys):
            gain, paired = facts[key].nll_gain, getattr(facts["an"], key).rep.paired.nll
            ax.plot([paired.gain_lo, paired.gain_hi], [yi - 0.12] * 2, color=MODEL, linewidth=2)
            ax.plot(gain.test, yi - 0.12, "o", color=MODEL, markersize=6,
                    label=text["test_rows"] if yi == y[0] else None)
            ax.plot(gain.cal, yi + 0.12, "o", markerfacecolor="none", markeredgecolor=GAP, markeredgewidth=1.6,
                    markersize=6, label=text["cal_rows_fit"] if yi == y[0] else None)
        ax.set_yticks(y, [names[k] for k in keys])
        ax.set_ylim(-0.6, len(keys) - 0.4)
        ax.set_xlabel(text["nll_gain"])
        fig.legend(frameon=False, loc="upper center", ncol=1, bbox_to_anchor=(0.55, 1.0))
        _axes_style(ax, decimal, y=False)
        ax.grid(False, axis="y")
        fig.tight_layout(rect=(0, 0, 1, 0.78))
        return svg_of(fig, "chart-held")


def chart_figures(facts, strings):
    """The four charts as ``{name: svg}`` in the language of ``strings`` (its ``[charts]``, ``[beyond]`` and
    ``[datasets]`` tables and ``[format]``)."""
    fmt, beyond = strings["format"], strings["beyond"]
    number = number_filters(fmt)
    by, an = facts["by"], facts["an"]
    # the engine's constants the labels quote, written as the page writes them (sitegen.render.page_strings)
    constants = {"floor_hi_rank": number["fixed"](an.floor_q.hi * 100, 0),
                 "spread_lo": number["fixed"](by.q.lo * 100, 0), "spread_hi": number["pct"](by.q.hi, 0)}
    text = {}
    for key, value in strings["charts"].items():
        for name, written in constants.items():
            value = value.replace("{" + name + "}", written)
        text[key] = value
    names = {"datasets": [strings["datasets"][dataset.name]["short"] for dataset in by.compared],
             "methods": beyond["method"], "scores": beyond["score"]}
    decimal = fmt["decimal"]
    fitted = text["at_fit"].replace("{t}", number["temp"](by.decide.t))
    fitted_sweep = text["at_fit"].replace("{t}", number["temp"](facts["overconfident"].fitted_t))
    all_rows = text["all_rows"].replace("{n}", number["thousands"](by.rows.n_full))
    split_names = {"sim_60": strings["datasets"]["sim-60"]["short"], "sim_600": strings["datasets"]["sim-600"]["short"],
                   "overconfident": strings["datasets"]["overconfident"]["short"]}
    return {
        "held-out": held_out_chart(facts, text, split_names, decimal),
        "compare": compare_chart(by, text, names, decimal),
        "bin-sweep": bin_sweep_chart(an.overconfident.rep, text, decimal, fitted_sweep),
        "risk-coverage": risk_coverage_chart(by.decide, text, decimal, fitted),
        "rows": rows_chart(by.rows, text, decimal, all_rows, number["thousands"]),
    }
