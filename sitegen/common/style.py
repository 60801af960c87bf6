"""The page's one style source, ``sitegen/common/style_tokens.toml``, as each of its readers needs it.

* :func:`css_properties`: the stylesheet's custom properties, light and dark (``static/css/order.txt``
  places them with its ``<tokens>`` line; ``sitegen/embeds/theme.py`` derives the embed palettes from the
  dark block, ``sitegen/figures/static_svg.py`` a figure file's colours from both);
* :func:`rc_params` and :func:`mark`: matplotlib's settings and the marks' styles for the static figures;
* the JavaScript charts read the same custom properties through ``static/css/explorer.css``.

docs/design.md describes the system; tests/test_style.py changes a token and finds it in a figure and
in the stylesheet.
"""

import tomllib
from pathlib import Path

from sitegen.common.errors import BuildError

__all__ = ["TOKENS", "load_tokens", "css_properties", "rc_params", "mark", "step_size", "figure_inches",
           "FIGURE_DPI", "FIGURE_PAD"]

TOKENS = Path(__file__).with_name("style_tokens.toml")
TOKENS_MARK = "<tokens>"  # the line of static/css/order.txt the custom properties go at
FIGURE_DPI = 72  # matplotlib's SVG unit is the point: 72 to the inch, one CSS pixel at the figure's own size
FIGURE_PAD = 4  # CSS px of margin around a figure's tight box (matplotlib's pad_inches), inside figure_width
_DARK = '@media (prefers-color-scheme: dark){:root:not([data-theme="light"]){'


def load_tokens(path=None):
    """The tokens file (``path``, by default :data:`TOKENS`) as a dict; a file that cannot be read or parsed
    is a one-line :class:`BuildError`."""
    path = TOKENS if path is None else path
    try:
        with open(path, "rb") as handle:
            tokens = tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise BuildError(f"{path}: {error}") from None
    light, dark = tokens["colour"]["light"], tokens["colour"]["dark"]
    if set(light) != set(dark):
        raise BuildError(f"{path}: [colour.light] and [colour.dark] must name the same colours "
                         f"(differ in {', '.join(sorted(set(light) ^ set(dark)))})")
    return tokens


def _number(value):
    """A number as CSS writes it: no trailing zeros."""
    return f"{value:.4f}".rstrip("0").rstrip(".")


def step_size(tokens, step):
    """The type scale's size at ``step`` (0 is the body) in rem."""
    return tokens["type"]["body"] * tokens["type"]["ratio"] ** step


def _colour(name):
    """A mark's colour token (a colour's name, ``fig-muted``) as CSS."""
    return f"var(--{name})"


def _declarations(values):
    return ";".join(f"--{name.replace('_', '-')}:{value}" for name, value in values.items())


def css_properties(tokens):
    """The custom properties of ``tokens`` as CSS: a ``:root`` rule (fonts, type scale, grid widths, chart
    sizes and marks, light colours) and the dark colours inside ``prefers-color-scheme: dark`` (which an
    embed page's ``data-theme="light"`` skips: sitegen/embeds/theme.py)."""
    font, kind, layout, chart = tokens["font"], tokens["type"], tokens["layout"], tokens["chart"]
    values = {"font-body": font["body"], "font-mono": font["mono"], "line-height": _number(kind["line"]),
              "line-tight": _number(kind["tight"]), "step-0": _number(kind["body"]) + "rem"}
    for step in kind["steps"]:
        name = f"step-{step}" if step >= 0 else f"step--{-step}"
        values[name] = _number(step_size(tokens, step)) + "rem"
    values.update({name.replace("_", "-"): value for name, value in layout.items()})
    for name in ("text", "tick", "title"):
        values[f"chart-{name}"] = f"{_number(chart[name])}px"
    for name in ("axis", "grid", "line"):
        values[f"chart-{name}"] = _number(chart[name])
    values["figure-max"] = f"{_number(chart['figure_width'] * chart['figure_zoom'])}px"
    for name, style in chart["mark"].items():
        values[f"mark-{name}-colour"] = _colour(style["colour"])
        if "width" in style:
            values[f"mark-{name}-width"] = _number(style["width"])
        if "radius" in style:
            values[f"mark-{name}-r"] = f"{_number(style['radius'])}px"
        if "dash" in style:
            values[f"mark-{name}-dash"] = " ".join(_number(d) for d in style["dash"])
    light, dark = tokens["colour"]["light"], tokens["colour"]["dark"]
    values.update(light)
    return f":root{{{_declarations(values)}}}\n{_DARK}{_declarations(dark)}}}}}\n"


def rc_params(tokens, sentinel):
    """matplotlib's ``rcParams`` for the static figures: text at the chart sizes (a point is a CSS pixel at
    the figure's own size), the axis, grid and curve widths; colours are ``sentinel(name)``, the placeholder
    sitegen/figures/static_svg.py later rewrites to the custom property ``--name``."""
    chart = tokens["chart"]
    return {
        "svg.fonttype": "none",
        "svg.hashsalt": "calibration-tutorial",
        "font.family": "sans-serif",
        "font.size": chart["text"],
        "axes.titlesize": chart["title"],
        "axes.titleweight": "bold",
        "axes.labelsize": chart["text"],
        "xtick.labelsize": chart["tick"],
        "ytick.labelsize": chart["tick"],
        "legend.fontsize": chart["text"],
        "axes.linewidth": chart["axis"],
        "xtick.major.width": chart["axis"],
        "ytick.major.width": chart["axis"],
        "grid.linewidth": chart["grid"],
        "lines.linewidth": chart["line"],
        "axes.edgecolor": sentinel("fig-muted"),
        "axes.labelcolor": sentinel("fig-ink"),
        "xtick.color": sentinel("fig-muted"),
        "ytick.color": sentinel("fig-muted"),
        "text.color": sentinel("fig-ink"),
        "grid.color": sentinel("fig-grid"),
        "axes.spines.top": False,
        "axes.spines.right": False,
        "figure.facecolor": "none",
        "axes.facecolor": "none",
        "savefig.facecolor": "none",
    }


def mark(tokens, name, sentinel):
    """matplotlib keywords for the mark ``name`` of ``[chart.mark]`` (``t1``, ``fitted``, ``current``,
    ``diagonal``): a rule's colour, width and dashes, or a marker's size and edge, for ``plot``/``axvline``."""
    style = tokens["chart"]["mark"][name]
    colour = sentinel(style["colour"])
    if "radius" in style and "width" in style:  # an open ring
        return {"marker": "o", "linestyle": "none", "markerfacecolor": "none", "markeredgecolor": colour,
                "markersize": 2 * style["radius"], "markeredgewidth": style["width"]}
    if "radius" in style:  # a filled dot
        return {"marker": "o", "linestyle": "none", "color": colour, "markersize": 2 * style["radius"]}
    out = {"color": colour, "linewidth": style["width"]}
    if "dash" in style:
        out["linestyle"] = (0, tuple(d / style["width"] for d in style["dash"]))  # matplotlib scales dashes by width
    return out


def figure_inches(tokens, height_ratio):
    """A static figure's size in inches: ``figure_width`` CSS pixels wide with its margins (:data:`FIGURE_PAD`
    each side), ``height_ratio`` times as tall. Drawn with ``layout="constrained"``, its labels stay inside."""
    width = (tokens["chart"]["figure_width"] - 2 * FIGURE_PAD) / FIGURE_DPI
    return width, width * height_ratio
