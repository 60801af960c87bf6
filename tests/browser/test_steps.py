"""The core part's figures are bound to their prose (issue 26): every link a core sentence names ("T = 1", "just
before the first jump", "the fitted T") that carries a figure's state (``#<place>/state/…&widget=<figure id>``)
puts that figure, in its own section, into the state the sentence describes: followed from the keyboard
(focus, Enter) and as a link opened from elsewhere. Each language."""

from urllib.parse import parse_qsl

import numpy as np
import pytest

from .explorer_ui import frames

# section → the figure its step links drive (the hero's are tests/browser/test_hero.py's)
FIGURES = {"temperature": "sm1", "fitting": "fit1", "reliability": "rel1", "paradox": "pdx"}

STATE = """id => {
  const root = document.getElementById(id);
  if (!root) return null;
  if (root.dataset.component === 'bins-figure') return root.hero ? root.hero.index : null;
  return root.explorer && root.explorer.state.model ? root.explorer.state.index : null;
}"""


def step_links(page, section, figure):
    """``[(href, t)]`` of the section's links outside closed deep dives that carry ``figure``'s state."""
    hrefs = page.evaluate("""([section, figure]) => Array.from(document.querySelectorAll(
        `#${section} a[href*="widget=${figure}"]`)).filter(a => !a.closest('details:not([open])'))
        .map(a => a.getAttribute('href'))""", [section, figure])
    return [(href, float(dict(parse_qsl(href.split("/state/", 1)[1]))["t"])) for href in hrefs]


@pytest.mark.every_language
@pytest.mark.parametrize("section", sorted(FIGURES))
def test_each_step_link_puts_its_figure_in_that_state(open_page, engine, lang, section):
    figure = FIGURES[section]
    page = open_page(lang=lang, viewport={"width": 1280, "height": 900})
    page.wait_for_function("() => document.documentElement.classList.contains('js-ready')")
    links = step_links(page, section, figure)
    assert len(links) >= 2, f"#{section}: {links}"
    if section == "paradox":
        assert len(links) >= 6  # T = 1, each side of both jumps, the fitted T
    grid = np.asarray(engine.grid)
    for href, t in links:
        link = page.locator(f'#{section} a[href="{href}"]')
        link.focus()
        page.keyboard.press("Enter")
        want = int(np.argmin(np.abs(grid - t)))
        page.wait_for_function(f"id => ({STATE})(id) === {want}", arg=figure, timeout=15_000)
        # the figure is in view, where the reader was sent
        box = page.locator(f"#{figure}").bounding_box()
        assert box["y"] < 900 and box["y"] + box["height"] > 0, (href, box)
    # a link opened from elsewhere (a bookmark, a message) opens the page on that state
    href, t = links[-1]
    fresh = open_page(href, lang=lang, viewport={"width": 1280, "height": 900})
    want = int(np.argmin(np.abs(grid - t)))
    fresh.wait_for_function(f"id => ({STATE})(id) === {want}", arg=figure, timeout=15_000)


def test_the_paradox_steps_cross_the_edges(open_page, engine, expect):
    """Between "just before" and "just after" a jump the figure's bin counts change; T = 1 and the fitted T
    differ in the ECE as the engine computes it."""
    page = open_page(viewport={"width": 1280, "height": 900})
    page.wait_for_function("() => document.documentElement.classList.contains('js-ready')")
    labels = []
    for href, _ in step_links(page, "paradox", "pdx"):
        page.locator(f'#paradox a[href="{href}"]').click()
        page.wait_for_function("() => (document.getElementById('pdx') || {}).hero")
        frames(page)
        labels.append(page.locator("#pdx .hero-bin-label").all_text_contents())
    t1, before1, after1, before2, after2, fit = labels
    assert before1 != after1 and before2 != after2 and after1 == before2 and after2 == fit, labels
    assert t1 == before1


@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_lab_keeps_its_controls_and_scores_on_one_screen(open_page, lang):
    """The lab (#explorer, the main explorer) at 1280 × 800: with its top at the top of the window, every control
    (dataset, temperature, buttons, bins) and every score card is on screen; after scrolling to its last
    figure, the controls are still there (their column is sticky)."""
    page = open_page(lang=lang, viewport={"width": 1280, "height": 800})
    page.wait_for_function("() => document.documentElement.classList.contains('js-ready')")
    page.evaluate("() => document.getElementById('ex1').dispatchEvent(new FocusEvent('focusin', {bubbles: 1}))")
    page.wait_for_function("() => (document.getElementById('ex1').explorer || {state: {}}).state.model")
    page.evaluate("() => document.getElementById('ex1').scrollIntoView({block: 'start'})")
    frames(page, 3)
    boxes = page.evaluate("""() => Array.from(document.querySelectorAll(
        '#ex1 .lab-side select, #ex1 .lab-side input, #ex1 .lab-side button, #ex1 .card'))
        .filter(e => e.getClientRects().length).map(e => { const b = e.getBoundingClientRect();
          return [e.id || e.className || e.tagName, b.top, b.bottom]; })""")
    assert len(boxes) >= 15, boxes
    off = [b for b in boxes if b[1] < 0 or b[2] > 800]
    assert not off, f"{lang}: off the first screen of the lab: {off}"
    page.evaluate("() => document.querySelector('#ex1 .sweep').scrollIntoView({block: 'end'})")
    frames(page, 3)
    slider = page.locator("#ex1-t").bounding_box()
    assert 0 <= slider["y"] and slider["y"] + slider["height"] <= 800, slider
