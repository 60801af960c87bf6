"""What a student and a Spanish reader tripped over (issue 17), each at the width they read at: per-bin
tables that stack on a phone, centred column-group headers, a contents button that keeps off what is
being read, a bin-count slider the Spanish label leaves room for; at 1280 px tables that fit their
region with unbroken logits and band ranges, a band column only while the bands are asked for, a dataset
that opens at the bin count its prose quotes, step buttons beside the slider, no "cards" where there
are none, an example picker without twice the same name; and a language switch that keeps each group
at its own T and the section being read. Several checks per page load."""

import re

import pytest

from sitegen.common.settings import TABLE_BINS

from .explorer_ui import Explorer, frames, near

pytestmark = pytest.mark.every_language  # what a reader of each edition tripped over

NARROW = {"width": 390, "height": 844}
WIDE = {"width": 1280, "height": 900}
CARD_WORD = {"en": "card", "es": "tarjeta"}  # what the widgets without cards must not mention

CELLS_OUTSIDE = """sel => {
    const bad = [];
    for (const table of document.querySelectorAll(sel)) {
        const w = table.closest('.table-wrap').getBoundingClientRect();
        for (const c of table.querySelectorAll('tbody td, tbody th, tfoot td, tfoot th')) {
            if (!c.getClientRects().length || !c.textContent.trim()) continue;
            const r = c.getBoundingClientRect();
            if (r.left < w.left - 1 || r.right > w.right + 1) bad.push(c.textContent.trim());
        }
    }
    return bad;
}"""

# each column-group header's text, against the middle of the columns it spans (where the head is shown: a
# stacked table's head is kept for assistive technology only, out of sight)
GROUP_HEADERS = """() => Array.from(document.querySelectorAll('main th[scope=colgroup]'))
    .filter(th => getComputedStyle(th.closest('thead')).clip !== 'rect(0px, 0px, 0px, 0px)').map(th => {
    const range = document.createRange(); range.selectNodeContents(th);
    const t = range.getBoundingClientRect(), b = th.getBoundingClientRect();
    return [th.textContent.trim(), Math.round((t.left + t.right) / 2 - (b.left + b.right) / 2)];
})"""

# the lines a text takes: the distinct tops of its boxes (from the character at `from` on, if given)
LINES = """(el, from) => {
    const range = document.createRange(), text = el.textContent, node = el.firstChild;
    if (from && node && node.nodeType === 3 && text.indexOf(from) >= 0) {
        range.setStart(node, text.indexOf(from)); range.setEnd(node, node.length);
    } else range.selectNodeContents(el);
    return new Set(Array.from(range.getClientRects()).filter(r => r.width > 0).map(r => Math.round(r.top))).size;
}"""


def test_a_phone_shows_every_cell_and_keeps_the_contents_button_off_the_text(open_page, edition_strings, lang, expect):
    strings = edition_strings[lang]
    page = open_page(lang=lang, viewport=NARROW)
    # The paradox's per-bin tables (behind its figure's disclosure) stack: every cell, "Weighted gap" and the ECE
    # total included, in view.
    page.evaluate("() => document.querySelectorAll('#paradox details.figure-table').forEach(d => { d.open = true; })")
    assert page.evaluate(CELLS_OUTSIDE, "#paradox table.stack") == []
    # Column-group headers ("NLL", "ECE (15 bins)") sit centred over their columns where they show (a phone
    # stacks those tables: at 1280 px, test_a_wide_screen_fits_its_tables_and_the_explorer_follows_the_prose).
    groups = page.evaluate(GROUP_HEADERS)
    assert all(abs(off) <= 2 for _, off in groups), groups
    # The main explorer's per-bin table stacks too, and the bin-count slider keeps a usable width.
    ex = Explorer(page, strings["ui"], expect)
    ex.root.scroll_into_view_if_needed()
    expect(ex.bin_table.locator("tbody tr:visible").first).to_be_visible()
    assert page.evaluate(CELLS_OUTSIDE, "#ex1 table.bin-table") == []
    sweep = page.locator("#ex1-sweep-b")
    sweep.scroll_into_view_if_needed()
    assert sweep.bounding_box()["width"] >= 100, sweep.bounding_box()
    # The contents button stays off the page while the reader reads on downwards, and comes back when
    # they scroll up (looking for something).
    button = page.get_by_role("button", name=strings["meta"]["toc"], exact=True)
    page.evaluate("() => window.scrollTo(0, 0)")
    page.mouse.move(NARROW["width"] // 2, NARROW["height"] // 2)
    page.wait_for_timeout(100)
    target = page.evaluate("() => document.querySelector('#paradox table.stack').getBoundingClientRect().top + scrollY")
    for _ in range(int(target // 500)):
        page.mouse.wheel(0, 500)
        page.wait_for_timeout(30)
    frames(page, 3)
    expect(button).to_be_hidden()
    page.mouse.wheel(0, -300)
    expect(button).to_be_visible()


def test_a_wide_screen_fits_its_tables_and_the_explorer_follows_the_prose(open_page, edition_strings, engine, number,
                                                                          lang, expect):
    strings = edition_strings[lang]
    ui = strings["ui"]
    page = open_page(lang=lang, viewport=WIDE)
    # The softmax demo's picker offers the six examples only: no name twice before the twelve appear.
    options = near(page, "#sm1").locator("#sm1-example option")
    names = [re.sub(r"\[.*", "", text) for text in options.all_inner_texts()]  # logits cut
    assert names and len(names) == len(set(names)), names
    # Prose tables fit their region (no scroll shadow); a logit vector stays on one line; column-group
    # headers sit centred over their columns.
    page.evaluate("() => document.querySelectorAll('details').forEach(d => d.open = true)")
    groups = page.evaluate(GROUP_HEADERS)
    assert groups and all(abs(off) <= 2 for _, off in groups), groups
    wide = page.evaluate("""() => Array.from(document.querySelectorAll('main .table-wrap'))
        .filter(w => !w.closest('.explorer') && w.getClientRects().length && w.scrollWidth > w.clientWidth + 1)
        .map(w => w.closest('section').id + ': ' + (w.scrollWidth - w.clientWidth))""")
    assert wide == []
    logits = page.locator("#fitting table td").filter(has_text=re.compile(r"^\["))
    assert logits.count() >= 6
    assert [cell.evaluate(LINES, None) for cell in logits.all()] == [1] * logits.count()
    # The main explorer: another dataset opens at the bin count its prose quotes, with that ECE.
    ex = Explorer(page, ui, expect, number=number)
    ex.root.scroll_into_view_if_needed()
    ex.choose(dataset="overconfident")
    expect(ex.bins).to_have_value(str(TABLE_BINS))
    ece = engine.datasets["overconfident"].parts["test"].ece["equal-width"][TABLE_BINS][engine.t1_index]
    expect(ex.card("ece-w")).to_have_text(number["pct"](ece))
    # The band column and its flags show only while the bands are asked for; its range never breaks.
    band = ex.bin_table.locator("thead th.band-col")
    ex.bin_table.scroll_into_view_if_needed()
    expect(ex.bin_table.locator("td.band-col").first).to_be_hidden()
    expect(band).to_be_hidden()
    ex.bands.check()
    expect(band).to_be_visible()
    expect(ex.bin_table.locator("tbody tr:visible td.band-col").first).to_have_text(re.compile(r"\d"))
    assert band.evaluate(LINES, "(") == 1, band.inner_text()
    ex.bands.uncheck()
    expect(band).to_be_hidden()
    # Step buttons beside the slider move T one grid point; the keys still do.
    start = ex.index()
    up = ex.root.get_by_role("button", name=ui["t_up_label"], exact=True)
    up.click()
    expect(ex.slider).to_have_value(str(start + 1))
    expect(ex.readout).to_have_text(number["temp"](engine.grid[start + 1]))
    ex.root.get_by_role("button", name=ui["t_down_label"], exact=True).click()
    ex.root.get_by_role("button", name=ui["t_down_label"], exact=True).click()
    expect(ex.slider).to_have_value(str(start - 1))
    ex.press("ArrowRight", 2)
    expect(ex.slider).to_have_value(str(start + 1))
    # The chance and smooth-ECE widgets have no cards, and say nothing of cards.
    for id_ in ("ch1", "sm2"):
        root = page.locator("#" + id_)
        root.scroll_into_view_if_needed()
        measured = root.locator(".uncertainty-list dd").first
        expect(measured).to_have_text(re.compile(r"\d"), timeout=15_000)  # its analyses file loads first
        assert root.locator(".cards").count() == 0
        assert CARD_WORD[lang] not in measured.inner_text().lower()


def test_the_language_switch_keeps_each_group_at_its_own_t_and_the_section_read(open_page, edition_strings, expect):
    en, es = edition_strings["en"]["ui"], edition_strings["es"]["ui"]
    page = open_page("#state/dataset=mixed&t=1&scheme=equal-width&bins=15&part=test", lang="en", viewport=WIDE)
    ex = Explorer(page, en, expect)
    own = ex.root.get_by_role("checkbox", name=en["own_t"], exact=True)
    own.check()
    ex.expect_hash(own="1", group="pooled")
    # The reader scrolls by hand into the next section: that is the place the other edition opens at.
    page.locator("#explorer").scroll_into_view_if_needed()
    below = page.evaluate("() => document.getElementById('held-out').getBoundingClientRect().top + 40")
    page.mouse.move(WIDE["width"] // 2, WIDE["height"] // 2)  # over the text (not the contents column)
    page.mouse.wheel(0, below)
    page.wait_for_timeout(1300)  # a moment's stay (languages.js DWELL) makes it the section being read
    page.locator("a[data-language-link]").first.click()
    page.wait_for_url(re.compile(r"/es/"))
    assert "held-out/state/" in page.url and "own=1" in page.url, page.url
    other = Explorer(page, es, expect)
    expect(other.root.get_by_role("checkbox", name=es["own_t"], exact=True)).to_be_checked()
    expect(other.readout).to_have_text(es["own_readout"])
    page.wait_for_timeout(300)
    top = page.evaluate("() => document.getElementById('held-out').getBoundingClientRect().top")
    assert -5 <= top <= 5, top
