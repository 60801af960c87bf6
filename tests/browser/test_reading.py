"""The page as a student reads it: tables that never overlap or clip, components that start on any
first input and honour it, pins that keep their configuration, one rule for class labels and
temperatures, a NLL curve that shows its valley, reliability diagrams wide enough to read with their
consistency bands in the table, a bin-count chart with ticks and a readout, the contents and key
points, and one URL grammar for places and state (hash.js)."""

import re
from urllib.parse import unquote, urlsplit

import pytest

from sitegen.common.numbers import fixed, pct

from .explorer_ui import Explorer, frames, near

SECTIONS = ("intro", "promise", "temperature", "fitting", "reliability", "paradox", "held-out", "explorer", "chance",
            "bins", "smooth", "groups", "beyond", "contract", "reproduce", "equations", "data", "sources", "terms")


def strings():
    from sitegen.content.sections import load_strings

    from .conftest import ROOT
    return load_strings(ROOT / "content" / "en")


def temp(t):
    """The page's one rule for a temperature: three significant digits."""
    return f"{float(t):#.3g}"


def fill(template, **values):
    """A strings.toml template with its {placeholders} filled (as CT.fill does)."""
    for key, value in values.items():
        template = template.replace("{" + key + "}", str(value))
    return template


def counted(ui, noun, n):
    """``n`` with its noun as ``[ui.plural]`` writes it: the "one" form for exactly 1, "other" otherwise."""
    forms = ui["plural"][noun]
    return fill(forms["one"] if n == 1 else forms["other"], n=n)


def start_every_component(page):
    """Lay out every section and start every explorer (as a reader scrolling by would), then wait for
    their data and analyses."""
    page.evaluate("""() => document.querySelectorAll('[data-component="explorer"]').forEach(
        root => root.dispatchEvent(new FocusEvent('focusin')))""")
    page.wait_for_load_state("networkidle")
    page.wait_for_function("""() => Array.from(document.querySelectorAll('[data-component="explorer"]'))
        .every(root => root.explorer && root.explorer.state.model)""")
    frames(page, 3)  # their first draw


# --------------------------------------------------------------------------- tables

TABLE_LAYOUT = """() => {
    const visible = e => e.getClientRects().length > 0;
    // a header row kept for assistive technology only (a stacked table on a narrow screen) is out of sight
    const unseen = e => e.closest('thead') && getComputedStyle(e.closest('thead')).clip === 'rect(0px, 0px, 0px, 0px)';
    const spills = [], unscrolled = [], clipped = [];
    for (const cell of document.querySelectorAll('main table th, main table td')) {
        if (!visible(cell) || unseen(cell) || !cell.textContent.trim()) continue;
        const box = cell.getBoundingClientRect(), range = document.createRange();
        range.selectNodeContents(cell);
        for (const r of range.getClientRects()) {
            if (r.width > 0 && (r.left < box.left - 1 || r.right > box.right + 1
                                || r.top < box.top - 1 || r.bottom > box.bottom + 1)) {
                const where = cell.closest('table').id || cell.closest('section').id;
                spills.push(`${where}: "${cell.textContent.trim().slice(0, 30)}"`);
                break;
            }
        }
    }
    for (const table of document.querySelectorAll('main table')) {
        if (!visible(table)) continue;
        const wrap = table.parentElement, where = table.id || table.closest('section').id;
        if (table.getBoundingClientRect().width > wrap.clientWidth + 1) {
            const style = getComputedStyle(wrap);
            const named = (wrap.getAttribute('aria-label') || '').trim()
                || (wrap.getAttribute('aria-labelledby') || '').trim();
            if (!wrap.classList.contains('table-wrap') || wrap.getAttribute('role') !== 'region' || !named
                || wrap.getAttribute('tabindex') !== '0' || !/auto|scroll/.test(style.overflowX)) {
                unscrolled.push(where);
            }
        }
        const caption = table.querySelector('caption');
        if (caption && visible(caption)) {  // its text, not its box (as wide as the table), must be in view
            const w = wrap.getBoundingClientRect(), range = document.createRange();
            range.selectNodeContents(caption);
            for (const c of range.getClientRects()) {
                if (c.width > 0 && (c.right > w.right + 1 || c.left < w.left - 1)) { clipped.push(where); break; }
            }
        }
    }
    // The column a table reads in: the explorer's panel for its own tables, else the section's text column.
    const column = table => {
        const holder = table.closest('.panel, .explorer');
        if (holder) { const b = holder.getBoundingClientRect(), s = getComputedStyle(holder);
            return {left: b.left + parseFloat(s.paddingLeft), right: b.right - parseFloat(s.paddingRight)}; }
        const p = table.closest('section').querySelector(':scope > p');
        const b = p.getBoundingClientRect();
        return {left: b.left, right: b.right};
    };
    const outside = [], squeezed = [], longRows = [];
    for (const table of document.querySelectorAll('main table')) {
        if (!visible(table)) continue;
        const wrap = table.parentElement, where = table.id || table.closest('section').id;
        const col = column(table), w = wrap.getBoundingClientRect(), width = col.right - col.left;
        const scrolls = wrap.classList.contains('table-wrap') && /auto|scroll/.test(getComputedStyle(wrap).overflowX);
        // Outside the explorer a table's region stays in the text column (a region marked wide, or one that
        // needs a little more on a wide screen, is centred on it).
        const centred = Math.abs((col.left - w.left) - (w.right - col.right)) <= 2;
        if (!table.closest('.explorer') && !wrap.closest('.wide') && !centred
            && (w.left < col.left - 1 || w.right > col.right + 1)) outside.push(where);
        if (table.getBoundingClientRect().width > width + 1 && !scrolls) outside.push(where + ' (no scrolling region)');
        // A table cut off in a region narrower than its column sits beside another: it should stack instead.
        if (!table.closest('.explorer') && wrap.scrollWidth > wrap.clientWidth + 1 && w.width < width - 1) {
            squeezed.push(where);
        }
        // A text table (words in at least half its body cells) wraps its text: none of its rows is wider
        // than the column.
        const cells = Array.from(table.querySelectorAll('tbody td'));
        const texty = cells.filter(td => /\\p{L}{4,}\\s+\\p{L}{3,}/u.test(td.textContent)).length * 2 >= cells.length;
        if (texty) for (const row of table.rows) {
            if (row.getBoundingClientRect().width > width + 1) {
                longRows.push(`${where}: ${Math.round(row.getBoundingClientRect().width)} px`);
                break;
            }
        }
    }
    return {spills, unscrolled, clipped, outside, squeezed, longRows,
            pageWidth: document.documentElement.scrollWidth, viewport: innerWidth};
}"""


@pytest.mark.parametrize("width", [320, 390, 768, 1280])
def test_tables_never_overlap_or_clip(open_page, width):
    page = open_page(viewport={"width": width, "height": 900})
    start_every_component(page)
    ex = Explorer(page, strings()["ui"], None)
    ex.choose(dataset="sim-600")  # a split dataset, its band column shown (with the bands)
    ex.bands.check()
    page.wait_for_load_state("networkidle")
    frames(page, 3)
    found = page.evaluate(TABLE_LAYOUT)
    assert found["spills"] == [], f"at {width} px, text spills out of its cell: {found['spills']}"
    assert found["unscrolled"] == [], (f"at {width} px, tables wider than their box do not scroll inside a labelled, "
                                       f"focusable region: {found['unscrolled']}")
    assert found["clipped"] == [], f"at {width} px, captions reach outside their table's region: {found['clipped']}"
    assert found["pageWidth"] <= found["viewport"], f"at {width} px the page scrolls sideways: {found}"
    assert found["outside"] == [], (f"at {width} px, tables reach outside the text column (or are wider than it "
                                    f"without a scrolling region): {found['outside']}")
    assert found["squeezed"] == [], (f"at {width} px, side-by-side tables are cut off instead of stacking: "
                                     f"{found['squeezed']}")
    assert found["longRows"] == [], f"at {width} px, rows of text tables do not wrap to the column: {found['longRows']}"


def scrolling_table(page):
    """The first region of a look-up section's table that still scrolls on a phone, deep dives opened
    (sitegen.common.settings.SCROLLING_TABLE_SECTIONS keep their columns; the others stack)."""
    from sitegen.common.settings import SCROLLING_TABLE_SECTIONS
    page.evaluate("() => document.querySelectorAll('main details.deep-dive').forEach(d => { d.open = true; })")
    regions = page.locator(", ".join(f'#{s} .table-wrap[role="region"]' for s in SCROLLING_TABLE_SECTIONS))
    wide = [r for r in regions.all() if r.evaluate("e => e.scrollWidth > e.clientWidth + 1")]
    assert wide, "every look-up table fits at 320 px: this test needs one that scrolls"
    wide[0].scroll_into_view_if_needed()
    return wide[0]


def test_a_table_that_scrolls_shows_a_hint(open_page):
    """On a phone a wide table hides its last columns: its region shows a shadow at the hidden edge. (Most
    tables stack into label–value rows on phones instead; the look-up sections' tables still scroll.)"""
    page = open_page(viewport={"width": 320, "height": 800})
    region = scrolling_table(page)
    background = region.evaluate("e => getComputedStyle(e).backgroundImage")
    assert background.count("gradient(") >= 2, f"a scrolling table region shows no hint that it scrolls: {background!r}"


def test_a_wide_table_scrolls_inside_its_region(open_page, expect):
    page = open_page(viewport={"width": 320, "height": 800})
    region = scrolling_table(page)
    region.focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    expect(region).to_be_focused()
    # Chromium scrolls for a key smoothly, over a few frames: wait for the region to move (a loaded machine
    # may not have drawn a frame yet), then check the page did not
    page.wait_for_function("e => e.scrollLeft > 0", arg=region.element_handle(), timeout=5_000)
    assert page.evaluate("() => scrollX") == 0


# --------------------------------------------------------------------------- the explorer's cards and bar

CARD_CLIPS = """() => {
    const clipped = [];
    for (const card of document.querySelectorAll('#ex1 .card')) {
        const c = card.getBoundingClientRect();
        for (const node of card.querySelectorAll('h3, p')) {
            if (!node.textContent.trim()) continue;
            const box = node.getBoundingClientRect(), range = document.createRange();
            range.selectNodeContents(node);
            for (const r of range.getClientRects()) {
                if (r.width > 0 && (r.right > Math.min(box.right, c.right) + 1
                                    || r.left < Math.max(box.left, c.left) - 1 || r.bottom > box.bottom + 1)) {
                    clipped.push(`${card.dataset.metric} .${node.className}: "${node.textContent.trim()}"`);
                    break;
                }
            }
        }
    }
    return clipped;
}"""


@pytest.mark.every_language
@pytest.mark.parametrize("width", [320, 390, 768, 1280])
def test_no_card_text_is_clipped(open_explorer, width):
    """Every line of every card (title, value, change, note) stays inside its card, in every language."""
    ex = open_explorer(viewport={"width": width, "height": 900})
    for dataset in ("mixed", "six"):  # values with most digits, then the shortest
        ex.choose(dataset=dataset, bins=15)
        ex.fit.click()
        ex.root.locator(".cards").scroll_into_view_if_needed()
        frames(ex.page)
        assert ex.page.evaluate(CARD_CLIPS) == [], f"at {width} px ({dataset}) card text is cut off"


@pytest.mark.parametrize("width", [320, 1280])
def test_the_slider_stays_in_reach_while_the_panels_scroll(open_explorer, width):
    ex = open_explorer(viewport={"width": width, "height": 800})
    ex.choose(dataset="sim-600")
    bar = ex.root.locator(".slider-row")
    table = ex.root.get_by_role("table", name=ex.ui["bin_table_caption"], exact=True)
    table.evaluate("e => window.scrollTo(0, e.getBoundingClientRect().top + scrollY - 400)")
    frames(ex.page)
    box, readout = bar.bounding_box(), ex.readout.bounding_box()
    # the lab on wide screens: the bar sits in its sticky column of controls, below the dataset's, in view
    in_column = bar.evaluate("e => { const side = e.closest('.lab-side');"
                             " return !!side && getComputedStyle(side).position === 'sticky'; }")
    if in_column:
        assert 0 <= box["y"] and box["y"] + box["height"] <= 800 and box["height"] <= 140, \
            f"the slider bar is not in view in the lab's column: {box}"
    else:
        assert -1 <= box["y"] <= 1 and box["height"] <= 140, f"the slider bar is not at the top of the viewport: {box}"
    assert readout["y"] >= 0 and ex.slider.bounding_box()["y"] >= 0
    # Operable from there: a key moves T and the readout follows.
    before = ex.readout.inner_text()
    ex.press("ArrowRight", 5)
    assert ex.readout.inner_text() != before
    # It stays inside its explorer: never over the contents column, never wider than the page.
    toc = ex.page.locator("nav.toc").bounding_box()
    if width >= 1200:
        assert box["x"] >= toc["x"] + toc["width"] - 1, f"the bar covers the contents column: {box} {toc}"
    assert box["x"] >= 0 and box["x"] + box["width"] <= width + 1
    # A control reached by Tab below the bar scrolls clear of it.
    margin = ex.bins.evaluate("e => parseFloat(getComputedStyle(e).scrollMarginTop)")
    assert margin >= box["height"], f"scroll margin {margin} px under a {box['height']} px bar"
    # Past the explorer the bar goes with it (sticky inside the explorer only): the next section's title.
    ex.page.locator("#chance-title").scroll_into_view_if_needed()
    title_top = ex.page.locator("#chance-title").bounding_box()["y"]
    assert bar.bounding_box()["y"] + bar.bounding_box()["height"] <= title_top
    ex.page.emulate_media(media="print")
    assert bar.evaluate("e => getComputedStyle(e).position") == "static"


def contrast(fg, bg):
    """WCAG contrast ratio of two computed rgb() colours."""
    def lum(text):
        r, g, b = (int(v) / 255 for v in re.findall(r"[\d.]+", text)[:3])
        lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in (r, g, b)]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    hi, lo = sorted((lum(fg), lum(bg)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_disabled_controls_look_disabled(open_explorer, expect, scheme):
    ex = open_explorer(color_scheme=scheme)
    ex.choose(dataset="mixed")
    enabled = ex.reset.evaluate("e => [getComputedStyle(e).borderStyle, getComputedStyle(e).cursor]")
    ex.root.get_by_role("checkbox", name=ex.ui["own_t"], exact=True).check()
    expect(ex.reset).to_be_disabled()
    style = ex.reset.evaluate("""e => { const s = getComputedStyle(e);
        return {cursor: s.cursor, border: s.borderStyle, color: s.color, background: s.backgroundColor}; }""")
    assert style["cursor"] == "not-allowed" and ex.slider.evaluate("e => getComputedStyle(e).cursor") == "not-allowed"
    assert [style["border"], style["cursor"]] != enabled, "a disabled button looks like an enabled one"
    assert contrast(style["color"], style["background"]) >= 4.5, style


# --------------------------------------------------------------------------- first input

def test_a_script_input_starts_the_softmax_demo_from_a_file_url(open_page, engine, expect):
    page = open_page(file=True)
    ui = strings()["ui"]
    demo = near(page, "#sm1")
    readout = demo.locator("output")
    expect(readout).to_have_text(temp(1.0))
    index = engine.t1_index + 40
    page.evaluate("""i => { const s = document.getElementById('sm1-t'); s.value = i;
        s.dispatchEvent(new Event('input', {bubbles: true})); }""", index)
    expect(readout).to_have_text(temp(engine.grid[index]))
    expect(demo.get_by_role("slider", name=ui["temperature"], exact=True)).to_have_value(str(index))
    # The bars moved with it: the first example's class probabilities at that temperature.
    expect(demo.locator(".bar-value").first).not_to_have_text("")


def test_the_bins_select_as_first_touch(open_page, engine, expect):
    page = open_page(file=True)
    demo = near(page, "#rel1")
    page.evaluate("""() => { const b = document.getElementById('rel1-bins'); b.value = '10';
        b.dispatchEvent(new Event('change', {bubbles: true})); }""")
    six = engine.datasets["six"].parts["all"]
    want = pct(six.ece["equal-width"][10][engine.t1_index])
    expect(demo.locator(".total-ece")).to_have_text(want)
    expect(demo.get_by_role("spinbutton", name=strings()["ui"]["bins"], exact=True)).to_have_value("10")


# --------------------------------------------------------------------------- pins

def pin_label(ex, number, dataset, part, scheme, bins):
    """A pinned row's label as the strings of the page's language write it."""
    ui = ex.ui
    name = ex.dataset.locator(f'option[value="{dataset}"]').text_content()
    return fill(ui["pin_config"], number=number, dataset=name, part=ui[f"part_short_{part}"],
                scheme=ui[f"scheme_{scheme}"], bins=counted(ui, "bins", bins))


def test_a_pin_keeps_its_whole_configuration(open_explorer, engine, expect):
    ex = open_explorer()
    ui, pct = ex.ui, ex.number["pct"]
    ex.choose(dataset="sim-600", scheme="adaptive", bins=10, part="calibration")
    ex.fit.click()
    ex.pin.click()
    compare = ex.root.get_by_role("table", name=re.compile("^" + re.escape(ui["compare_caption"][:20])))
    label = pin_label(ex, 1, "sim-600", "calibration", "adaptive", 10)
    pinned = compare.get_by_role("row", name=re.compile("^" + re.escape(label)))
    expect(pinned).to_have_count(1)
    result = engine.datasets["sim-600"]
    fit = engine.index_of(result.fitted_t)
    ece = pct(result.parts["calibration"].ece["adaptive"][10][fit])
    expect(pinned.get_by_role("cell").nth(3)).to_have_text(ece)
    expect(pinned.get_by_role("cell").nth(0)).to_have_text(ex.number["temp"](result.fitted_t))
    # Change everything: the pinned row stays as it was.
    ex.choose(bins=4, scheme="equal-width", part="test")
    ex.press("ArrowLeft", 30)
    ex.choose(dataset="six")
    assert ex.index() == fit - 30
    expect(ex.card("ece-w")).to_have_text(pct(engine.datasets["six"].parts["all"].ece["equal-width"][4][fit - 30]))
    expect(pinned.get_by_role("cell").nth(3)).to_have_text(ece)
    expect(pinned.get_by_role("cell").nth(0)).to_have_text(ex.number["temp"](result.fitted_t))


def test_pins_can_be_removed_one_by_one_or_all_at_once(open_explorer, expect):
    """Each pinned row has a labelled remove button; removing one moves focus to the next pin's button (or
    back to the pin button when none is left), pin numbers are never reused, and "clear all" shows from
    two pins on."""
    ex = open_explorer()
    ui = ex.ui
    compare = ex.root.get_by_role("table", name=re.compile("^" + re.escape(ui["compare_caption"][:20])))
    clear = ex.root.get_by_role("button", name=ui["clear_pins"], exact=True)

    def remove(n):
        return compare.get_by_role("button", name=fill(ui["remove_pin_label"], number=n), exact=True)

    ex.pin.click()
    expect(remove(1)).to_be_visible()
    expect(clear).to_be_hidden()  # one pin: its own button is enough
    for _ in range(2):
        ex.press("ArrowRight", 5)
        ex.pin.click()
    expect(compare.locator("tbody tr")).to_have_count(6)
    expect(clear).to_be_visible()
    remove(2).focus()
    ex.page.keyboard.press("Enter")  # keyboard operable
    expect(compare.locator("tbody tr")).to_have_count(5)
    expect(remove(2)).to_have_count(0)
    expect(remove(3)).to_be_focused()  # the next pin's button
    rows = compare.locator("tbody tr th").all_inner_texts()
    assert [r.split(":")[0] for r in rows[3:]] == [fill(ui["state_pinned"], number=n) for n in (1, 3)], rows
    remove(3).click()
    expect(remove(1)).to_be_focused()  # no next pin: the previous one's
    expect(clear).to_be_hidden()
    remove(1).click()
    expect(ex.pin).to_be_focused()  # no pin left: back to the button that pins
    expect(compare.locator("tbody tr")).to_have_count(3)
    for _ in range(2):
        ex.press("ArrowRight")
        ex.pin.click()
    pinned_four = re.compile("^" + re.escape(fill(ui["state_pinned"], number=4) + ":"))
    expect(compare.get_by_role("row", name=pinned_four)).to_have_count(1)
    clear.click()
    expect(compare.locator("tbody tr")).to_have_count(3)
    expect(ex.pin).to_be_focused()


# --------------------------------------------------------------------------- labels

def test_one_class_naming_and_one_temperature_rule(open_explorer, engine, facts_six, expect):
    ex = open_explorer()
    page, ui, temp = ex.page, ex.ui, ex.number["temp"]
    ex.root.scroll_into_view_if_needed()
    fitted = engine.datasets["six"].fitted_t
    expect(ex.fit).to_have_text(fill(ui["button_fitted"], t=temp(fitted)))
    expect(ex.readout).to_have_text(temp(1.0))
    expect(ex.root.locator(".dataset-summary")).to_contain_text(
        fill(ui["dataset_line"], n=ex.number["thousands"](6), t=temp(fitted), on=ui["fitted_on_all"]))
    # Classes: the bars name them as the prose's table does (numbers from zero).
    first = facts_six.examples[0]
    head = ex.root.locator(".example-head").first
    expect(head).to_have_text(fill(ui["example_head"], number=first.number, label=first.label,
                                   predicted=first.predicted,
                                   verdict=ui["verdict_right" if first.correct else "verdict_wrong"]))
    expect(ex.root.locator(".bar-name").first).to_have_text("0")
    # The six examples' fitted T: three significant digits everywhere but the fitting section (which
    # says so) and the reproduction's printout.
    text = page.evaluate("""() => Array.from(document.querySelectorAll('main section.section'))
        .filter(s => !['fitting', 'reproduce'].includes(s.id)).map(s => s.innerText).join('\\n')""")
    for digits in (3, 4, 5):
        printed = rf"(?<![\d.]){re.escape(fixed(fitted, digits))}(?!\d)"
        found = [text[max(0, m.start() - 60):m.end()] for m in re.finditer(printed, text)]
        assert not found, f"the fitted T printed to {digits} decimals: {found}"
    assert temp(fitted) in text
    fitting = page.locator("#fitting")
    expect(fitting).to_contain_text(fixed(fitted, 5))
    expect(fitting.locator(".t-rule-note")).to_have_text(fill(ui["t_rule_note"], t=fixed(fitted, 5)))


@pytest.fixture(scope="module")
def facts_six(engine):
    from sitegen.facts.results import build_facts
    return build_facts(engine)["six"]


# --------------------------------------------------------------------------- figures

def test_the_nll_curve_shows_its_valley(shared_page, engine):
    page = shared_page()
    near(page, "#fit1")
    curves = page.locator("#fit1-curves")
    # Sections above take their real heights as they render, which can move the target off screen
    # again: scroll until the explorer has started and drawn its curve.
    for _ in range(20):
        curves.scroll_into_view_if_needed()
        if page.locator("#fit1-curves svg path.curve-line").count():
            break
        page.wait_for_timeout(250)
    page.wait_for_function("() => document.querySelector('#fit1-curves svg path.curve-line')")
    nll = curves.locator("svg").first
    ring = nll.locator("circle.ring")
    dot = nll.locator("circle.dot")
    top = float(nll.locator("text.tick.end").first.get_attribute("y"))
    base = float(nll.locator("line.axis").first.get_attribute("y1"))
    ring_y, dot_y = float(ring.get_attribute("cy")), float(dot.get_attribute("cy"))
    height = base - top
    assert top <= dot_y <= base and top <= ring_y <= base, "a marker is outside the plot"
    # The rise from the minimum to T = 1 takes a visible share of the height (not a flat line).
    assert ring_y - dot_y >= 0.15 * height, f"valley too flat: ring at {ring_y}, T = 1 dot at {dot_y}, height {height}"
    six = engine.datasets["six"].parts["all"]
    assert six.nll[engine.t1_index] > six.nll.min()


def test_reliability_diagrams_are_wide_and_list_their_bands(open_explorer, engine, expect):
    ex = open_explorer(viewport={"width": 1280, "height": 900})
    ex.bands.check()
    ex.choose(dataset="sim-60", bins=15)
    ex.diagram.scroll_into_view_if_needed()
    width = ex.diagram.locator("svg").evaluate("e => e.getBoundingClientRect().width")
    assert width >= 360, f"the reliability diagram is {width:.0f} px wide at 1280 px"
    header = ex.bin_table.get_by_role("columnheader", name=ex.ui["col_band"])
    expect(header).to_be_visible()
    cells = ex.bin_table.locator("tbody tr:visible td.band-col")
    # the range as the page's language writes it ("0.250–0.750" in English, "de 0.250 a 1" in Spanish, where a
    # number of 1 or more never shows three decimals), "outside" as its strings say it
    number = r"(\d(?:\.\d{1,4})?)"
    ranged = re.escape(ex.ui["band_range"]).replace(r"\{lo\}", number).replace(r"\{hi\}", number)
    outside = re.escape(ex.ui["band_outside"]).replace(r"\{range\}", "")
    expect(cells.first).to_have_text(re.compile(rf"^{ranged}(?:{outside})?$"))
    # A bin marked outside has its accuracy beyond the listed range, and the others within it.
    for row in ex.bin_table.locator("tbody tr:visible").all():
        texts = [c.inner_text() for c in row.locator("th, td").all()]
        band = re.match(ranged, texts[5])
        if not band:
            continue
        lo, hi = float(band.group(1)), float(band.group(2))
        note = ex.root.locator(".band-note")
        shown_t = float(re.search(r"T = (\d+\.\d+)", note.inner_text()).group(1))
        if abs(shown_t - float(engine.grid[ex.index()])) < 1e-9 or temp(engine.grid[ex.index()]) == f"{shown_t:#.3g}":
            acc = float(texts[3])
            assert texts[5].endswith(ex.ui["band_outside"].replace("{range}", "")) == (acc < lo or acc > hi), texts


def test_the_bin_count_chart_has_ticks_and_a_readout(open_explorer, engine, expect):
    ex = open_explorer(viewport={"width": 1280, "height": 900}, has_touch=True)
    ui = ex.ui
    head = ui["sweep_read_value"].split("{ece}")[0]  # "{bins}: ECE " in English

    def reads(b):
        return fill(head, bins=counted(ui, "bins", b))

    ex.choose(dataset="overconfident", bins=15)
    chart = ex.root.locator(".sweep svg")
    chart.scroll_into_view_if_needed()
    expect(chart.locator("text.tick.end")).not_to_have_count(0)
    assert chart.locator("text.tick.end").count() >= 3, "the ECE axis needs labelled ticks"
    assert chart.locator("text.tick.middle").count() >= 6, "the bin axis needs labelled ticks"
    reader = ex.root.get_by_role("slider", name=ui["sweep_read"], exact=True)
    value = ex.root.locator(".sweep-value")
    expect(value).to_contain_text(reads(15))
    reader.focus()
    ex.page.keyboard.press("ArrowRight")
    expect(value).to_contain_text(reads(16))
    expect(reader).to_have_attribute("aria-valuetext", re.compile("^" + re.escape(reads(16))))
    ex.page.keyboard.press("Home")
    # one bin takes the singular form of the language ("1 bin", "1 intervalo"), never "1 bins"
    one = fill(ui["plural"]["bins"]["one"], n=1)
    assert one != fill(ui["plural"]["bins"]["other"], n=1)
    expect(value).to_have_text(re.compile("^" + re.escape(fill(head, bins=one))))
    # Touch: a tap near the right end reads the largest bin count.
    box = chart.bounding_box()
    ex.page.touchscreen.tap(box["x"] + box["width"] - 6, box["y"] + box["height"] / 2)
    expect(value).to_contain_text(reads(50))


# --------------------------------------------------------------------------- contents and key points

def test_contents_are_sticky_on_wide_screens_and_mark_the_section(open_page, expect):
    page = open_page(viewport={"width": 1280, "height": 900})
    toc = page.get_by_role("navigation", name=strings()["meta"]["toc"])
    expect(toc).to_be_visible()
    links = toc.get_by_role("link")
    expect(links).to_have_count(len(SECTIONS))
    expect(toc.locator("details")).to_have_attribute("open", "")
    toc.locator('a[href="#bins"]').click()  # (its text is the section's short title, docs/design.md)
    current = toc.locator('a[aria-current="location"]')
    expect(current).to_have_attribute("href", "#bins")
    assert toc.evaluate("e => getComputedStyle(e).position") == "sticky"
    assert toc.bounding_box()["y"] <= 1


def test_contents_collapse_on_narrow_screens_and_work_without_javascript(open_page, expect):
    page = open_page(viewport={"width": 390, "height": 800})
    summary = page.locator("summary").get_by_text(strings()["meta"]["toc"], exact=True)  # not the button back to it
    link = page.get_by_role("navigation").locator('a[href="#bins"]')
    expect(link).to_be_hidden()
    summary.click()
    expect(link).to_be_visible()
    plain = open_page(viewport={"width": 390, "height": 800}, java_script_enabled=False)
    plain.get_by_text(strings()["meta"]["toc"], exact=True).click()
    plain.get_by_role("navigation").locator('a[href="#bins"]').click()
    expect(plain).to_have_url(re.compile("#bins$"))


def test_key_points_link_into_their_sections(shared_page, expect):
    page = shared_page()
    box = page.get_by_role("complementary", name=strings()["meta"]["key_points"])
    expect(box).to_be_visible()
    items = box.get_by_role("listitem")
    expect(items).to_have_count(5)
    for item in items.all():
        href = item.get_by_role("link").first.get_attribute("href")  # a "show me" link may follow
        assert href.lstrip("#") in SECTIONS, href
        assert not re.search(r"\{\{|\{%", item.inner_text())


# --------------------------------------------------------------------------- one URL grammar

def test_following_a_section_link_keeps_the_explorer_state(open_explorer, engine, expect):
    ex = open_explorer()
    ex.choose(dataset="twelve", bins=10)
    ex.press("ArrowRight", 3)
    ex.expect_hash(dataset="twelve", bins=10)
    # the section's entry in the contents: its short title in the page's language (data-toc, docs/design.md)
    title = ex.page.locator("#bins-title").get_attribute("data-toc")
    ex.page.get_by_role("navigation").get_by_role("link", name=title, exact=True).click()
    expect(ex.page).to_have_url(re.compile(r"#bins/state/dataset=twelve&.*bins=10"))
    expect(ex.page.locator("#bins-title")).to_be_in_viewport()
    expect(ex.dataset).to_have_value("twelve")
    expect(ex.bins).to_have_value("10")
    assert ex.index() == engine.t1_index + 3
    # The explorer keeps writing its state behind the new place.
    ex.choose(bins=5)
    expect(ex.page).to_have_url(re.compile(r"#bins/state/dataset=twelve&.*bins=5"))


def test_a_link_with_a_place_and_a_state_restores_both(open_explorer, engine, expect):
    t = float(engine.grid[engine.t1_index + 25])
    ex = open_explorer(f"#groups/state/dataset=sim-600&t={t:.5g}&scheme=adaptive&bins=10&part=calibration")
    expect(ex.dataset).to_have_value("sim-600")
    expect(ex.bins).to_have_value("10")
    expect(ex.scheme("adaptive")).to_be_checked()
    expect(ex.part("calibration")).to_be_checked()
    assert ex.index() == engine.t1_index + 25
    expect(ex.page.locator("#groups-title")).to_be_in_viewport()
    fragment = unquote(urlsplit(ex.page.url).fragment)
    assert fragment.startswith("groups/state/")


def test_the_grammar_parses_and_builds(shared_page):
    page = shared_page()
    got = page.evaluate("""() => {
        const h = CalibTutorial.stateHash;
        return [h.parse('#bins'), h.parse('#state/a=1&b=x'), h.parse('#bins/state/a=1;b=x'), h.parse(''),
                h.build('bins', null), h.build('', {a: 1}), h.build('bins', {a: 1, b: 'x'})];
    }""")
    assert got[0] == {"place": "bins", "fields": None}
    assert got[1] == {"place": "", "fields": {"a": "1", "b": "x"}}
    assert got[2] == {"place": "bins", "fields": {"a": "1", "b": "x"}}
    assert got[3] == {"place": "", "fields": None}
    assert got[4:] == ["#bins", "#state/a=1", "#bins/state/a=1&b=x"]


# --------------------------------------------------------------------------- the softmax demo's picker

def test_every_example_option_shows_its_own_logits(open_page, expect):
    """The picker lists exactly the examples the demo's data carries, each under its real number, and
    picking one shows that example: its number and its logits, as the option names them."""
    page = open_page()
    demo = near(page, "#sm1")
    demo.scroll_into_view_if_needed()
    picker = demo.get_by_role("combobox", name=strings()["ui"]["example_picker"], exact=True)
    options = picker.locator("option").evaluate_all("os => os.map(o => [o.value, o.textContent.trim()])")
    groups = picker.locator("optgroup").evaluate_all("gs => gs.map(g => g.label)")
    # the softmax demo offers the six examples only: the twelve-example set is met later (test_first_reading)
    assert strings()["datasets"]["twelve"]["label"] not in groups
    for value, text in options:
        number, logits = re.match(r"^\D*(\d+)\D*(\[.*\])$", text).groups()
        picker.select_option(value)
        expect(demo.locator(".example-head")).to_have_text(re.compile(rf"^\D*\b{number}\b:"))
        expect(demo.locator(".example-logits")).to_contain_text(logits)
    carried = page.evaluate("""() => Object.fromEntries(Array.from(document.querySelectorAll('#sm1-example optgroup'))
        .map(g => [g.querySelector('option').value.split(':')[0], g.querySelectorAll('option').length]))""")
    for name, count in carried.items():
        picker.select_option(f"{name}:0")
        page.wait_for_function("n => (document.getElementById('sm1').explorer.state.model || {}).name === n", arg=name)
        shown = page.evaluate("() => document.getElementById('sm1').explorer.state.model.examples.index.length")
        assert shown == count, f"{name}: the picker lists {count} examples, the data carries {shown}"
