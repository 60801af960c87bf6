"""The deep dives' four charts (issue 26): each an SVG file of the site in every language, shown to every reader as
an image with a text alternative (JavaScript or not), its numbers in a table behind a disclosure beside it, its
words and numbers in the page's language; and what a chart draws agrees with the engine, recomputed here.
The site is the session's one build (``built_site``, or ``CALIB_TEST_SITE``)."""

import re
from pathlib import Path

import numpy as np
import pytest

import calib
from sitegen.content.sections import load_strings

ROOT = Path(__file__).resolve().parents[1]

LANGUAGES = {"en": "", "es": "es/"}
# chart → the deep dive (or the section) it belongs to (the bin sweep's is the live chart's fallback)
CHARTS = {"compare": "beyond-compare-more", "rows": "beyond-rows-more", "risk-coverage": "beyond-decide-more",
          "bin-sweep": "bins-more", "held-out": "held-out"}


@pytest.fixture(scope="module")
def pages(built_site):
    return {lang: (built_site / folder / "index.html").read_text(encoding="utf-8")
            for lang, folder in LANGUAGES.items()}


def dive(html, ident):
    """The deep dive ``ident``'s element, or the section ``ident`` (the core's chart is not in a dive)."""
    if f'<section id="{ident}"' in html:
        start = html.index(f'<section id="{ident}"')
        return html[start:html.index("</section>", start)]
    start = html.index(f'<details class="deep-dive" id="{ident}"')
    depth = 0
    for match in re.finditer(r"<details\b|</details>", html[start:]):
        depth += 1 if match.group(0) != "</details>" else -1
        if depth == 0:
            return html[start:start + match.end()]
    raise AssertionError(ident)


@pytest.mark.parametrize("lang", sorted(LANGUAGES))
@pytest.mark.parametrize("chart", sorted(CHARTS))
def test_each_chart_is_an_image_with_its_table_behind_a_disclosure(built_site, pages, lang, chart):
    body = dive(pages[lang], CHARTS[chart])
    image = re.search(rf'<img class="chart" src="(?:\.\./)?figures/{chart}\.{lang}\.svg" alt="([^"]+)"', body)
    assert image and len(image.group(1).split()) >= 8, f"{lang} {chart}: no chart image with a text alternative"
    assert '<details class="figure-table">' in body[image.end():], f"{lang} {chart}: no table after the chart"
    after = body[body.index('<details class="figure-table">', image.end()):]
    assert "<table" in after and "<summary>" in after
    if chart != "bin-sweep":  # the live chart's static twin is the fallback; the others show to every reader
        assert "<noscript" not in body[max(0, image.start() - 200):image.start()]
    svg = (built_site / "figures" / f"{chart}.{lang}.svg").read_text(encoding="utf-8")
    assert svg.startswith("<svg") and "prefers-color-scheme: dark" in svg and "var(--fig-" in svg


def test_the_charts_speak_the_pages_language(built_site):
    for chart in CHARTS:
        svgs = {lang: (built_site / "figures" / f"{chart}.{lang}.svg").read_text(encoding="utf-8")
                for lang in LANGUAGES}
        words = {lang: set(re.findall(r"[a-záéíóúñ]{4,}", " ".join(re.findall(r">([^<>]+)</text>", svg))))
                 for lang, svg in svgs.items()}
        assert words["en"] != words["es"], chart
        for lang, svg in svgs.items():
            decimal = load_strings(ROOT / "content" / lang)["format"]["decimal"]
            other = "," if decimal == "." else "."
            ticks = re.findall(r">([−-]?\d+[.,]\d{1,2})</text>", svg)  # decimals, not a grouped "1,000"
            assert not any(other in t for t in ticks), (chart, lang, ticks)  # (a percentage axis has none)


def test_the_risk_coverage_chart_ends_at_the_engines_error_rate(built_site, pages):
    """The curve's last point (every row answered) is the over-confident test rows' error rate, recomputed
    here; the chart's y axis is read from its own tick labels and positions."""
    data = calib.load("overconfident")
    test = ~data.is_calibration
    error = float(np.mean(data.logits[test].argmax(axis=1) != data.labels[test]) * 100)
    svg = (built_site / "figures" / "risk-coverage.en.svg").read_text(encoding="utf-8")
    # y ticks: each tick mark (a <use> at its y) followed by its right-aligned label
    ticks = [(float(y), float(label)) for y, label in
             re.findall(r'<use xlink:href="#[^"]+" x="[\d.]+" y="([\d.]+)"[^>]*/>\s*</g>\s*</g>\s*<g>\s*'
                        r'<text [^>]*text-anchor: end[^>]*>(\d+)</text>', svg)]
    assert len(ticks) >= 3, svg[:400]
    (y0, v0), (y1, v1) = ticks[0], ticks[-1]
    lines = re.findall(r'<path d="M ([^"]+)"[^>]*style="[^"]*stroke: var\(--fig-model\)', svg)
    last_y = float(lines[0].split()[-1])
    value = v0 + (last_y - y0) / (y1 - y0) * (v1 - v0)
    assert abs(value - error) < 0.3, (value, error)
