"""The room each widget of the page holds before it is built, so the page keeps its height as it is read.

A widget's interactive markup waits in a ``<template>`` until it nears the viewport (static/js/main.js): until
then its box would be empty, and building it would push everything below down (the page grew by about a
quarter while being scrolled). ``tools/widget_heights.py`` measures each widget outside a closed deep dive,
built, in each language at the viewport widths of :data:`WIDTHS`, into ``templates/widget-heights.toml``;
:func:`reserve_css` turns that table into rules of the page's inline stylesheet: an unbuilt widget's
``min-height`` at any width, interpolated linearly between the measured ones (the rule stops applying once
the widget is built: it holds its template no more).
"""

import tomllib
from pathlib import Path

from sitegen.common.errors import BuildError

__all__ = ["WIDTHS", "HEIGHTS_FILE", "reserve_css", "write_heights", "read_heights"]

# Viewport widths measured (CSS px): phones, the 40rem, 48rem and 75rem breakpoints from both sides, wide screens
# (1280 and 1360 too: past 75rem the lab changes its layout as the column widens, not linearly).
WIDTHS = (320, 390, 480, 639, 640, 767, 768, 960, 1199, 1200, 1280, 1360, 1440, 1920)
HEIGHTS_FILE = "templates/widget-heights.toml"
_HEADER = ("# The height of each widget outside a closed deep dive, built, at each viewport width of\n"
           "# sitegen.render.reserve.WIDTHS (CSS pixels): written by tools/widget_heights.py (do not edit by\n"
           "# hand; run it again after changing a widget or the layout). sitegen/render/reserve.py reserves\n"
           "# these heights.\n")


def read_heights(root):
    """``{lang: {widget id: [height at each of WIDTHS]}}`` (empty when nothing was measured)."""
    path = Path(root) / HEIGHTS_FILE
    if not path.is_file():
        return {}
    try:
        with open(path, "rb") as handle:
            table = tomllib.load(handle)
    except tomllib.TOMLDecodeError as error:
        raise BuildError(f"{path}: {error}") from None
    widths = table.pop("widths", list(WIDTHS))
    if list(widths) != list(WIDTHS):
        return {}  # measured at other widths: measure again (tools/widget_heights.py)
    return table


def write_heights(root, results):
    """Write ``results`` (:func:`read_heights`' shape) to :data:`HEIGHTS_FILE`."""
    lines = [_HEADER, f"widths = [{', '.join(str(w) for w in WIDTHS)}]\n"]
    for lang in sorted(results):
        lines.append(f"\n[{lang}]\n")
        for name in sorted(results[lang]):
            lines.append(f"{name} = [{', '.join(str(h) for h in results[lang][name])}]\n")
    (Path(root) / HEIGHTS_FILE).write_text("".join(lines), encoding="utf-8")


def _number(value):
    return f"{value:.3f}".rstrip("0").rstrip(".")


def reserve_css(root, lang):
    """The inline rules that give each measured widget of ``lang``'s page its height before it is built."""
    widgets = read_heights(root).get(lang, {})
    if not widgets:
        return ""
    rules = []
    for i, low in enumerate(WIDTHS):
        high = WIDTHS[i + 1] if i + 1 < len(WIDTHS) else None
        if i == 0:
            query = f"(width<{WIDTHS[1]}px)"
        elif high is None:
            query = f"({low}px<=width)"
        else:
            query = f"({low}px<=width<{high}px)"
        body = []
        for name, heights in sorted(widgets.items()):
            start = heights[i]
            if high is None or high - low <= 1:
                value = f"{start}px"
            else:
                slope = (heights[i + 1] - start) / (high - low)
                value = f"calc({start}px + (100vw - {low}px) * {_number(slope)})" if slope else f"{start}px"
            body.append(f"#{name}:has(>template[data-widget-markup]){{min-height:{value}}}")
        rules.append(f"@media {query}{{{''.join(body)}}}")
    return "\n" + "\n".join(rules) + "\n"
