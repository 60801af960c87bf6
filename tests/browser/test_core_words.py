"""The core part's length by the counting rule of issue 26, in a browser: after every widget of the core part
has been built, with every <details> closed, the words of the text the browser renders there, counted by the
page's one counter (sitegen/content/reading_time.py ``count_words``, which also times the contents).

The browser's part of the rule: an element it does not render (``display: none``, ``visibility: hidden``, a
<select>'s options other than the chosen one, an SVG <title>) is marked ``hidden`` before the part's HTML goes to
the counter, which then leaves out what the rule leaves out (script, style, template, code, pre; a closed
<details> but its summary; a <math> is one word).
"""

import pytest

from sitegen.common.settings import CORE_WORD_BUDGET
from sitegen.content.reading_time import count_words

from .explorer_ui import frames

# Start every widget of the part (as a reader scrolling by does), then report whether all have been built.
START = """part => {
  const roots = Array.from(document.querySelectorAll(`[data-part="${part}"] [data-component]`));
  roots.forEach(root => root.dispatchEvent(new FocusEvent('focusin', {bubbles: true})));
  return roots.length;
}"""
BUILT = """part => Array.from(document.querySelectorAll(`[data-part="${part}"] [data-component]`)).every(root => {
  const kind = root.dataset.component;
  if (kind === 'explorer') return !!(root.explorer && root.explorer.state.model);
  if (kind === 'bins-figure') return !!root.hero;
  return kind !== 'bins-figure-copy';  // a copy of the hero not made yet
})"""
# Close every <details>, mark what the browser does not render, and hand back the part's HTML.
RENDERED = """part => {
  document.querySelectorAll('details[open]').forEach(d => { d.open = false; });
  const root = document.querySelector(`[data-part="${part}"]`);
  for (const el of root.querySelectorAll('*')) {
    const style = getComputedStyle(el);
    if (style.display === 'none' || style.visibility === 'hidden' || style.visibility === 'collapse'
        || (el.tagName === 'OPTION' && !el.selected) || el.tagName.toLowerCase() === 'title') {
      el.setAttribute('hidden', '');
    }
  }
  return root.outerHTML;
}"""


def core_words(page):
    page.wait_for_function("() => window.CalibTutorial && document.documentElement.classList.contains('js-ready')")
    count = page.evaluate(START, "core")
    assert count >= 3, f"the core part has {count} widgets"
    page.wait_for_function(BUILT, arg="core", timeout=30_000)
    frames(page, 3)  # the widgets' first draw
    return count_words(page.evaluate(RENDERED, "core"))


@pytest.fixture(scope="module")
def words(browser, site_url):
    found = {}
    for lang, path in (("en", ""), ("es", "es/")):
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        page.goto(site_url + path, wait_until="load")
        found[lang] = core_words(page)
        context.close()
    return found


def test_the_english_core_part_fits_its_budget(words):
    assert words["en"] <= CORE_WORD_BUDGET, f"the English core part has {words['en']} words (budget {CORE_WORD_BUDGET})"


def test_the_spanish_core_part_follows_its_english(words):
    # the same blocks in Spanish, which takes more words for the same sentences: not a quarter more
    assert words["es"] <= 1.25 * words["en"], words


def test_the_contents_mark_the_part_being_read(open_page, expect):
    """Reading a section of the measuring part, the contents name that part and how many of its minutes come
    before the section (the sum of the times they print above it)."""
    page = open_page(viewport={"width": 1280, "height": 900})
    page.wait_for_function("() => document.documentElement.classList.contains('js-ready')")
    page.evaluate("() => document.getElementById('bins').scrollIntoView({block: 'start'})")
    # the contents follow the scroll on the observer's next callback; on a loaded machine the part read at the
    # top (core) can still be marked when the scroll returns, so wait for the mark to move (as test_design does)
    part = page.locator(".toc-part.current")
    expect(part).to_have_attribute("data-part", "measuring", timeout=15_000)
    assert part.get_attribute("data-part") == "measuring"
    before = sum(int(t) for t in page.evaluate("""() => {
        const items = Array.from(document.querySelectorAll('.toc-part.current .toc-list > li'));
        const at = items.findIndex(li => li.querySelector('a[href="#bins"]'));
        return items.slice(0, at).map(li => li.querySelector('.toc-time').textContent.match(/\\d+/)[0]);
    }"""))
    text = page.locator(".toc-progress-text").inner_text()
    assert part.get_attribute("data-title") in text and f" {before} " in f" {text} ", (text, before)
