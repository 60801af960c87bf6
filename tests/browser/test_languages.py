"""The language editions in the browser: each page speaks its language and its numbers, and the
language switcher takes the reader to the other edition without losing the explorer's state."""

import re

import pytest

from sitegen.common.settings import LANGUAGES

from .conftest import page_path
from .explorer_ui import Explorer


def language_links(page):
    """The language switcher's links: the navigation landmark whose links name another language."""
    return page.get_by_role("navigation").filter(has=page.locator("a[hreflang]")).get_by_role("link")


def other(lang):
    return next(code for code in LANGUAGES if code != lang)


def test_each_page_declares_its_language_and_links_the_others(open_page, lang):
    page = open_page(lang=lang)
    assert page.locator("html").get_attribute("lang") == lang
    assert page.title().strip()
    switch = language_links(page)
    assert switch.count() == len(LANGUAGES) - 1
    assert switch.first.get_attribute("hreflang") == other(lang)


@pytest.mark.parametrize("file", [False, True], ids=["http", "file"])
def test_switching_language_keeps_the_explorer_state(open_explorer, lang, file, expect):
    ex = open_explorer(file=file)
    ex.choose(dataset="sim-600", scheme="adaptive", bins=10)
    ex.press("ArrowRight", 3)
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
