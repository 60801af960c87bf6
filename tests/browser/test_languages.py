"""The language editions in the browser: each page speaks its language and its numbers, and the
language switcher takes the reader to the other edition without losing the explorer's state."""

import re

import pytest

from sitegen.common.settings import LANGUAGES

from .conftest import page_path
from .explorer_ui import Explorer

pytestmark = pytest.mark.every_language  # what each edition says


def language_links(page):
    """The language switcher's links: the navigation landmark whose links name another language."""
    return page.get_by_role("navigation").filter(has=page.locator("a[hreflang]")).get_by_role("link")


def other(lang):
    return next(code for code in LANGUAGES if code != lang)


def test_each_page_declares_its_language_and_links_the_others(shared_page, lang):
    page = shared_page(lang=lang)
    assert page.locator("html").get_attribute("lang") == lang
    assert page.title().strip()
    switch = language_links(page)
    assert switch.count() == len(LANGUAGES) - 1
    assert switch.first.get_attribute("hreflang") == other(lang)


@pytest.mark.parametrize("file", [False, True], ids=["http", "file"])
def test_switching_language_keeps_the_explorer_state(open_explorer, lang, file, expect):
    ex = open_explorer(file=file)
    ex.choose(dataset="sim-600", scheme="adaptive", bins=10)
    before = ex.expect_hash(dataset="sim-600", scheme="adaptive", bins="10").get("t")
    ex.press("ArrowRight", 3)
    # the hash follows T a moment after the slider settles: wait for the moved T, not the one before it
    ex.page.wait_for_function("""before => {
        const m = decodeURIComponent(location.hash).match(new RegExp('state/(.*)$'));
        const t = m && new URLSearchParams(m[1]).get('t');
        return t !== null && t !== before; }""", arg=before)
    state = ex.expect_hash(dataset="sim-600", scheme="adaptive", bins="10")
    language_links(ex.page).first.click()
    ex.page.wait_for_load_state("load")
    target = other(lang)
    expect(ex.page.locator("html")).to_have_attribute("lang", target)
    assert ex.page.url.split("#")[0].endswith(page_path(target, "index.html"))
    # The other edition's explorer restores the same state from the hash (its labels are in its language).
    again = Explorer(ex.page, ex.ui, expect)
    again.root.locator("[data-panel]").first.wait_for(state="attached")
    expect(ex.page.locator("#ex1-dataset")).to_have_value("sim-600")
    expect(ex.page.locator("#ex1-bins")).to_have_value("10")
    assert again.hash_state()["t"] == state["t"]


def test_without_javascript_the_switcher_is_a_plain_link(open_page, lang):
    page = open_page(lang=lang, java_script_enabled=False)
    link = language_links(page).first
    href = link.get_attribute("href")
    assert re.fullmatch(r"(\.\./)?([a-z-]+/)?index\.html", href), href
    link.click()
    page.wait_for_load_state("load")
    assert page.locator("html").get_attribute("lang") == other(lang)


def test_numbers_follow_the_page_language(open_explorer, number, lang, expect):
    ex = open_explorer()
    ex.choose(dataset="overconfident", scheme="equal-width", bins=15)
    summary = ex.page.locator("#ex1-summary")
    expect(summary).to_contain_text(number["thousands"](6000))
    expect(ex.card("ece-w")).to_have_text(re.compile(re.escape(number["pct"](0.5)).replace("50\\.0", r"\d+\.\d")))


# In Spain a point followed by exactly three digits groups thousands: "1.058" reads as 1058 (issue 28).
THOUSAND_LOOKALIKE = re.compile(r"(?<![\d.,])([1-9]\d*)\.\d{3}(?![\d])")

# The text a reader meets inside an element: its text nodes outside code, and its accessible text attributes.
READER_TEXT = """async root => {
  await new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));  // a frame drawn since
  const parts = [], skip = new Set(["CODE", "PRE", "TEXTAREA", "SCRIPT", "STYLE", "TEMPLATE"]);
  const walk = node => {
    if (node.nodeType === Node.TEXT_NODE) { parts.push(node.data); return; }
    if (node.nodeType !== Node.ELEMENT_NODE || skip.has(node.tagName)) return;
    for (const name of ["aria-label", "aria-valuetext", "title", "alt"]) {
      if (node.hasAttribute(name)) parts.push(node.getAttribute(name));
    }
    node.childNodes.forEach(walk);
  };
  walk(root);
  return parts.join("\\n");
}"""


def test_the_pages_formatter_follows_the_languages_three_decimals_rule(shared_page, lang):
    """core.js writes engine integers as the build's filters do: in Spanish a number of 1 or more never
    shows exactly three decimals (none when they are zeros; the payload has no fourth decimal, so two)."""
    page = shared_page(lang=lang)
    got = page.evaluate("""() => { const CT = window.CalibTutorial;
        return [CT.fixed(1000, 3), CT.fixed(-2000, 3), CT.fixed(1058, 3), CT.fixed(823, 3), CT.fixed(105812, 5),
                CT.fixed(12, 1), CT.num(1.645), CT.num(0.125), CT.num(2.5), CT.prob(1000), CT.prob(750)]; }""")
    minus = "\u2212"
    expected = {
        "en": ["1.000", minus + "2.000", "1.058", "0.823", "1.05812", "1.2", "1.645", "0.125", "2.5", "1.000", "0.750"],
        "es": ["1", minus + "2", "1.06", "0.823", "1.05812", "1.2", "1.6450", "0.125", "2.5", "1", "0.750"]}
    assert got == expected[lang]


def test_the_spanish_explorer_shows_no_number_read_as_a_thousand(open_page, edition_strings, expect):
    """Every dataset, both binning schemes, the ends of the slider and the fitted T, bands and the smooth
    curve shown: nothing the explorer writes (cards, tables, readouts, ticks, captions, aria text) reads as
    a grouped thousand."""
    from sitegen.common.numbers import number_filters

    from .explorer_ui import Explorer
    strings = edition_strings["es"]
    ex = Explorer(open_page(lang="es"), strings["ui"], expect, number=number_filters(strings["format"]))
    ex.bands.check()
    ex.smooth.check()
    seen, found = 0, set()
    for dataset in ("six", "twelve", "sim-60", "sim-600", "overconfident", "mixed"):
        for scheme, bins in (("equal-width", 4), ("equal-width", 15), ("adaptive", 10)):
            ex.choose(dataset=dataset, scheme=scheme, bins=bins)
            for step in ("Home", "End", "fit", "t1"):
                if step in ("fit", "t1"):
                    (ex.fit if step == "fit" else ex.reset).click()
                else:
                    ex.press(step)
                text = ex.root.evaluate(READER_TEXT)
                seen += len(re.findall(r"\d\.\d", text))
                found |= {f"{dataset}, {scheme} {bins}, {step}: …{text[max(0, m.start() - 40):m.end() + 10]}…"
                          for m in THOUSAND_LOOKALIKE.finditer(text)}
    assert seen > 1000, "the explorer wrote its numbers"
    assert not found, "\n  ".join(sorted(found)[:20])
