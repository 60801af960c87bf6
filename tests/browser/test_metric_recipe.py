"""docs/architecture.md's "Adding a metric", in a browser: a throwaway metric ("probe", the mean squared
confidence) declared only by an engine function, its registry record and its card's strings
(tests/test_metrics.py ``probe_site``) gets a card on the main explorer that shows the value its function
gives on the engine's confidences at the slider's T, and follows the slider and the dataset."""

import numpy as np
import pytest

import calib
from sitegen.common.numbers import pct

from .explorer_ui import near


@pytest.fixture(scope="module")
def probe_site_dir(precomputed, tmp_path_factory):
    """The probe metric's English page stage, written out."""
    from test_metrics import probe_site

    files, _ = probe_site(tmp_path_factory.mktemp("metric"), precomputed)
    out = tmp_path_factory.mktemp("metric-site")
    for path, content in files.items():
        target = out / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return out


def expected(name, part, t):
    """The probe card's text for dataset ``name``'s ``part`` at temperature ``t``: the function on calib.top_label."""
    data = calib.load(name)
    rows = calib.part_masks(data)[part]
    confidence, _ = calib.top_label(data.logits[rows], data.labels[rows], t)
    return pct(float(np.mean(confidence ** 2)))


def test_a_metric_added_by_the_recipe_shows_on_its_card_and_follows_the_slider(probe_site_dir, precomputed,
                                                                                 watched_page, expect):
    page = watched_page(viewport={"width": 1280, "height": 900})
    page.goto((probe_site_dir / "index.html").as_uri(), wait_until="load")
    root = near(page, "#ex1")
    card, slider = root.locator('[data-metric="probe"]'), root.locator("#ex1-t")
    card.scroll_into_view_if_needed()
    expect(card.locator(".card-title")).to_have_text("Probe")
    t1 = precomputed.t1_index
    expect(card.locator(".value")).to_have_text(expected("six", "all", precomputed.grid[t1]), timeout=20_000)
    slider.focus()
    page.keyboard.press("PageUp")
    expect(card.locator(".value")).to_have_text(expected("six", "all", precomputed.grid[t1 + 10]))
    expect(card.locator(".change")).not_to_have_text("")
    root.locator("#ex1-dataset").select_option("sim-600")
    part = root.locator('input[name="ex1-part"]:checked').get_attribute("value")
    expect(card.locator(".value")).to_have_text(expected("sim-600", part, precomputed.grid[t1 + 10]))
