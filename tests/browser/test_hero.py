"""The hero: the six predictions crossing the bin edges as T moves, NLL and ECE beside them (issue 26).

It is on the first screen (whole at 1280 × 800, starting within the first screen at 390 × 844); every number and
mark it shows is the engine's, checked against a plain numpy computation of the six examples (softmax, mean NLL,
a loop over four equal-width bins); its states are reachable by the prose's links and by keyboard; without
JavaScript it is a static figure with the same numbers.
"""

import json
import re

import numpy as np
import pytest

import calib
from sitegen.common.numbers import number_filters
from sitegen.content.sections import load_strings

from .conftest import ROOT

BINS = 4


def reference(t):
    """Plain numpy, no calib scoring: the six examples' confidences, correctness, mean NLL and 4-bin ECE at T."""
    six = calib.load("six")
    z = six.logits / t
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    conf, right = p.max(axis=1), p.argmax(axis=1) == six.labels
    nll = -np.mean(np.log(p[np.arange(six.labels.size), six.labels]))
    ece = 0.0
    for b in range(BINS):
        lo, hi = b / BINS, (b + 1) / BINS
        inside = (conf >= lo) & ((conf < hi) if b < BINS - 1 else (conf <= hi))
        if inside.any():
            ece += inside.sum() / conf.size * abs(right[inside].mean() - conf[inside].mean())
    return conf, right, nll, ece


def shown(page):
    """What the hero shows: T, each point's confidence (its x through the figure's own scale), the board."""
    return page.evaluate("""() => {
      const root = document.getElementById('hero'), strip = root.querySelector('.hero-strip');
      const [d0, d1, r0, r1] = strip.dataset.scaleConf.split(' ').map(Number);
      const x = el => el.tagName === 'circle' ? Number(el.getAttribute('cx'))
        : Number(/translate\\(([-\\d.]+)/.exec(el.getAttribute('transform'))[1]);
      return {
        t: root.querySelector('.hero-readout').textContent,
        conf: Array.from(strip.querySelectorAll('.hero-point')).map(el => d0 + (x(el) - r0) / (r1 - r0) * (d1 - d0)),
        nll: root.querySelector('[data-score="nll"] .hero-value').textContent,
        ece: root.querySelector('[data-score="ece"] .hero-value').textContent,
        index: Number(root.querySelector('#hero-t').value),
      };
    }""")


def check_state(page, t, filters):
    conf, _, nll, ece = reference(t)
    got = shown(page)
    assert got["nll"] == filters["fixed"](nll, 5), (got, nll)
    assert got["ece"] == filters["pct"](ece, 1), (got, ece)
    # a point's place is its confidence to within half a display unit and a tenth of an SVG unit
    assert np.allclose(got["conf"], conf, atol=1.5e-3), (got["conf"], conf)


@pytest.fixture(scope="module")
def grid(engine):
    return engine.grid


@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_hero_is_on_the_first_screen(open_page, lang):
    page = open_page(lang=lang, viewport={"width": 1280, "height": 800})
    hero = page.locator("#hero")
    for part in (".hero-board", ".hero-panels", ".hero-controls"):
        box = hero.locator(part).bounding_box()
        assert box and box["y"] >= 0 and box["y"] + box["height"] <= 800, f"{lang} {part} at 1280 × 800: {box}"
    narrow = open_page(lang=lang, viewport={"width": 390, "height": 844})
    box = narrow.locator("#hero .hero-panels").bounding_box()
    assert box["y"] < 844 - 100, f"{lang}: the hero's figure starts at {box['y']} px at 390 × 844"
    # its chart text is at least 12 CSS px at 390 px wide
    sizes = narrow.evaluate("""() => Array.from(document.querySelectorAll('#hero svg text')).map(t =>
        t.getBoundingClientRect().height)""")
    assert min(sizes) >= 12, sizes


def test_every_number_and_mark_is_the_engines(open_page, engine, expect):
    page = open_page(viewport={"width": 1280, "height": 800})
    page.wait_for_function("() => document.getElementById('hero').hero")
    filters = number_filters(load_strings(ROOT / "content" / "en")["format"])
    fitted = engine.datasets["six"].fitted_t
    check_state(page, engine.grid[engine.index_of(fitted)], filters)
    slider = page.locator("#hero-t")
    slider.focus()
    for _ in range(3):
        page.keyboard.press("ArrowLeft")
    index = engine.index_of(fitted) - 3
    assert shown(page)["index"] == index
    check_state(page, engine.grid[index], filters)
    # the slider says what the figure shows
    expect(slider).to_have_attribute("aria-valuetext", re.compile(re.escape(filters["fixed"](reference(
        engine.grid[index])[2], 5))))


def test_the_hero_data_is_small_and_not_the_datasets_file(site_dir):
    app = (site_dir / "app.js").read_text(encoding="utf-8")
    start = app.index('["core",') + len('["core",')
    core = json.JSONDecoder().raw_decode(app, start)[0]  # the core payload, whatever keys sit beside the hero's
    assert "hero" in core, "the core payload carries the hero's series"
    hero = json.dumps(core["hero"], separators=(",", ":"))
    assert len(hero) < 4000, len(hero)


@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_prose_links_set_the_hero_by_link_and_keyboard(open_page, engine, lang):
    filters = number_filters(load_strings(ROOT / "content" / lang)["format"])
    page = open_page(lang=lang, viewport={"width": 1280, "height": 800})
    page.wait_for_function("() => document.getElementById('hero').hero")
    links = page.locator('#intro a[href*="widget=hero"]')
    assert links.count() >= 2
    t1 = links.first
    t1.focus()
    page.keyboard.press("Enter")
    page.wait_for_function("i => document.getElementById('hero-t').value === String(i)", arg=engine.t1_index)
    check_state(page, 1.0, filters)
    assert "widget=hero" in page.url
    # the step buttons, by keyboard
    page.locator('#hero [data-step]').nth(1).focus()
    page.keyboard.press("Enter")
    fitted = engine.index_of(engine.datasets["six"].fitted_t)
    assert shown(page)["index"] == fitted
    # a link followed from elsewhere: the page opens on that state
    href = t1.get_attribute("href")
    fresh = open_page(href, lang=lang, viewport={"width": 1280, "height": 800})
    fresh.wait_for_function("i => document.getElementById('hero-t').value === String(i)", arg=engine.t1_index)


@pytest.mark.parametrize("lang", ["en", "es"])
def test_without_javascript_the_hero_is_a_static_figure(open_page, engine, lang):
    filters = number_filters(load_strings(ROOT / "content" / lang)["format"])
    page = open_page(lang=lang, java_script_enabled=False)
    hero = page.locator("#hero")
    assert hero.locator(".hero-point").count() == 6 and hero.locator(".hero-ghost").count() == 6
    assert not hero.locator(".hero-controls").is_visible()
    six = engine.datasets["six"]
    _, _, nll, ece = reference(engine.grid[engine.index_of(six.fitted_t)])
    assert hero.locator('[data-score="nll"] .hero-value').inner_text() == filters["fixed"](nll, 5)
    assert hero.locator('[data-score="ece"] .hero-value').inner_text() == filters["pct"](ece, 1)


def test_dragging_along_the_curves_sets_t(open_page, engine):
    """A press on the curves at T = 1's place (read from the figure's own T scale) sets T = 1; dragging to the
    right end sets the window's last temperature."""
    page = open_page(viewport={"width": 1280, "height": 800})
    page.wait_for_function("() => document.getElementById('hero').hero")
    curves = page.locator("#hero .hero-curves")
    box = curves.bounding_box()
    t0, t1, r0, r1 = map(float, curves.get_attribute("data-scale-t").split())
    view = page.evaluate("() => document.querySelector('#hero .hero-curves').viewBox.baseVal.width")
    def x_of(t):
        return box["x"] + (r0 + (np.log(t) - np.log(t0)) / (np.log(t1) - np.log(t0)) * (r1 - r0)) / view * box["width"]

    y = box["y"] + box["height"] * 0.4
    page.mouse.move(x_of(1.0), y)
    page.mouse.down()
    assert shown(page)["index"] == engine.t1_index
    page.mouse.move(x_of(t1) + 40, y, steps=5)
    page.mouse.up()
    assert shown(page)["index"] == int(page.locator("#hero-t").get_attribute("max"))
