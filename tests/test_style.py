"""The one style source (sitegen/common/style_tokens.toml): a token changed there shows up in the stylesheet, in the
embed pages' forced dark palette, in a static figure's colours and in its text sizes and marks."""

import re
import shutil

import numpy as np
import pytest

from sitegen.common import style
from sitegen.common.errors import BuildError

ROOT = style.TOKENS.parents[2]


@pytest.fixture
def tokens_file(tmp_path, monkeypatch):
    """A copy of the tokens file the build reads instead of the real one: edit it with ``edit(old, new)``."""
    path = tmp_path / "style_tokens.toml"
    shutil.copy(style.TOKENS, path)
    monkeypatch.setattr(style, "TOKENS", path)

    def edit(old, new):
        text = path.read_text(encoding="utf-8")
        assert text.count(old) == 1, old
        path.write_text(text.replace(old, new), encoding="utf-8")

    return edit


def stylesheet():
    from sitegen.render.assets import read_static, shipped
    return shipped(read_static(ROOT)[0])


def figure():
    """A small curves figure (three grid points) drawn with the current tokens."""
    from sitegen.figures.static_svg import curves_figure
    grid = np.array([0.5, 1.0, 2.0])
    return curves_figure(grid, [("NLL", np.array([0.9, 0.8, 0.85]))], {"t1": 1, "current": 2, "argmin": 1},
                         "t", "T")


def test_the_stylesheet_starts_with_the_tokens_properties():
    css = stylesheet()
    tokens = style.load_tokens()
    root = css[css.index(":root{"):css.index("}")]
    assert f"--fig-model:{tokens['colour']['light']['fig-model']}" in root
    assert f"--chart-tick:{tokens['chart']['tick']}px" in root
    assert f"--text:{tokens['layout']['text']}" in root
    body = tokens["type"]["body"]
    assert f"--step-1:{body * tokens['type']['ratio']:.4f}".rstrip("0") in root
    dark = re.search(r'@media \(prefers-color-scheme:dark\)\{:root:not\(\[data-theme="light"\]\)\{([^}]*)\}', css)
    assert dark and f"--fig-model:{tokens['colour']['dark']['fig-model']}" in dark.group(1)


def test_a_changed_token_reaches_the_css_the_embeds_and_a_figure(tokens_file):
    from sitegen.embeds.theme import themed_css
    from sitegen.figures.static_svg import figure_colours, figure_file

    before_css, before_svg = stylesheet(), figure()
    assert "#123456" not in before_css
    tokens_file('fig-model = "#0072b2"', 'fig-model = "#123456"')   # the light model colour
    tokens_file('fig-ideal = "#3fc59a"', 'fig-ideal = "#654321"')   # the dark ideal colour
    tokens_file("tick = 12 ", "tick = 15 ")                          # chart tick labels, px
    tokens_file("radius = 6\n", "radius = 9\n")                      # the fitted T's ring
    css, svg = stylesheet(), figure()
    # the stylesheet's custom properties, the embed pages' forced dark palette
    assert "--fig-model:#123456" in css and "--chart-tick:15px" in css and "--mark-fitted-r:9px" in css
    assert "--fig-ideal:#654321" in themed_css(css).split(':root[data-theme="dark"]')[1]
    # a static figure: its colours (the file a page shows carries the stylesheet's), its tick text and ring
    light, dark = figure_colours(css)
    assert light["--fig-model"] == "#123456" and dark["--fig-ideal"] == "#654321"
    assert "--fig-model:#123456" in figure_file(svg, (light, dark))
    assert "font-size: 15px" in svg and "font-size: 15px" not in before_svg
    ring = re.compile(r"M 0 (-?[\d.]+) C")  # the ring marker's path starts at its top: 0, -radius
    assert "9" in ring.findall(svg) and "9" not in ring.findall(before_svg)


def test_unequal_light_and_dark_palettes_are_refused(tokens_file):
    tokens_file('fig-bar = "#4f6f8f"\n', "")
    with pytest.raises(BuildError, match=r"\[colour.light\] and \[colour.dark\] must name the same colours"):
        style.load_tokens()


def test_marks_follow_their_tokens():
    tokens = style.load_tokens()
    ring = style.mark(tokens, "fitted", str)
    assert ring["markerfacecolor"] == "none" and ring["markersize"] == 2 * tokens["chart"]["mark"]["fitted"]["radius"]
    rule = style.mark(tokens, "t1", str)
    width = tokens["chart"]["mark"]["t1"]["width"]
    assert rule["linewidth"] == width
    assert [d * width for d in rule["linestyle"][1]] == tokens["chart"]["mark"]["t1"]["dash"]
