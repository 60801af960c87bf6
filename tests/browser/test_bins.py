"""Every bin count 1–50 in the main explorer: the cards follow the slider on the full grid for any
count; a count beyond the detailed ones draws its diagram from data/<name>-<part>-bins.js at the
nearest computed temperature and says so; bands stay with the detailed counts; a bins file from
another build is refused in words. Expected values come from calib (and sitegen's sub-grid)."""

import json
import re

import pytest

import calib
from sitegen.common.numbers import pct
from sitegen.common.settings import LANGUAGES, OFFERED_BIN_COUNTS, SUBGRID_STEP
from sitegen.compute.precompute import subgrid_indices
from sitegen.render.payload import SCHEMA_VERSION

from .explorer_ui import Explorer
from .test_explorer import rows_of


@pytest.fixture(autouse=True)
def _numbers_as_the_page_writes_them(number):
    """Expected numbers in the language of the page under test (every test here runs once per language)."""
    global pct
    pct = number["pct"]


def engine_cards(name, part, t, scheme, bins):
    """ECE (both schemes) and MCE (``scheme``) of one state, as the cards print them."""
    logits, labels = rows_of(name, part)
    confidence, correct = calib.top_label(logits, labels, t)
    return {"ece-w": pct(calib.ece(confidence, correct, bins, "equal-width")),
            "ece-a": pct(calib.ece(confidence, correct, bins, "adaptive")),
            "mce": pct(calib.mce(confidence, correct, bins, scheme))}


def engine_counts(name, part, t, scheme, bins):
    logits, labels = rows_of(name, part)
    confidence, correct = calib.top_label(logits, labels, t)
    return [int(c) for c in calib.reliability_bins(confidence, correct, bins, scheme).count if c > 0]


def shown_cards(ex):
    return {metric: ex.card(metric).inner_text().strip() for metric in ("ece-w", "ece-a", "mce")}


def shown_counts(ex):
    rows = ex.bin_table.locator("tbody tr:not([hidden])")
    return [int(re.sub(r"\D", "", rows.nth(i).locator("td").first.inner_text())) for i in range(rows.count())]


def counts_when_drawn(ex, expected, timeout_ms=5000):
    """The table's counts once they equal ``expected`` (the bins file loads when the table comes into view), or
    what it shows at the time-out, for the assertion to report."""
    for _ in range(timeout_ms // 100):
        if (shown := shown_counts(ex)) == expected:
            return shown
        ex.page.wait_for_timeout(100)
    return shown_counts(ex)


def subgrid_of(engine, name):
    fitted = engine.index_of(engine.datasets[name].fitted_t)
    return subgrid_indices(engine.grid.size, [engine.t1_index, fitted], SUBGRID_STEP).tolist()


def test_the_box_takes_every_count_from_1_to_50_and_suggests_the_offered_ones(open_explorer):
    ex = open_explorer()
    ex.expect(ex.bins).to_have_attribute("min", "1")
    ex.expect(ex.bins).to_have_attribute("max", "50")
    offered = ex.bins.evaluate("e => Array.from(e.list.options, o => Number(o.value))")
    assert offered == list(OFFERED_BIN_COUNTS)
    ex.set_bins(0)    # out of range: the box goes back to the count shown
    ex.expect(ex.bins).to_have_value(ex.root.get_attribute("data-bins"))
    ex.set_bins(50)
    ex.expect_hash(bins=50)
    ex.bins.press("ArrowDown")   # the native step: 49, then Enter commits it
    ex.bins.press("Enter")
    ex.expect_hash(bins=49)


@pytest.mark.parametrize("name,part,scheme,bins", [("mixed", "test", "equal-width", 7),
                                                   ("six", "all", "adaptive", 3),
                                                   ("sim-600", "calibration", "adaptive", 33)])
def test_any_count_shows_the_engines_values_and_the_nearest_computed_diagram(open_explorer, engine, expect, ui,
                                                                               name, part, scheme, bins):
    ex = open_explorer()
    ex.choose(dataset=name, scheme=scheme, bins=bins, **({} if part == "all" else {"part": part}))
    ex.reset.click()
    ex.bin_table.scroll_into_view_if_needed()
    subgrid = subgrid_of(engine, name)
    note = ex.root.locator(f"#{ex.root.get_attribute('id')}-diagram-at")
    # T = 1 is a computed temperature: the diagram is exact and says nothing more
    t1 = engine.t1_index
    expect(ex.card("mce")).not_to_have_text("\u2026")
    assert shown_cards(ex) == engine_cards(name, part, 1.0, scheme, bins)
    expect(ex.root.locator('[data-panel="reliability"]')).to_have_attribute("data-index", str(t1))
    assert shown_counts(ex) == engine_counts(name, part, 1.0, scheme, bins)
    expect(note).to_have_text("")
    # three steps right: the cards follow the grid, the diagram the nearest computed temperature
    ex.press("ArrowRight", 3)
    ex.bin_table.scroll_into_view_if_needed()  # a panel off screen catches up when it scrolls into view
    index = ex.index()
    assert index == t1 + 3 and index not in subgrid
    t = float(engine.grid[index])
    nearest = min(subgrid, key=lambda g: abs(float(engine.grid[g]) / t - 1))
    expect(ex.root.locator('[data-panel="reliability"]')).to_have_attribute("data-index", str(nearest))
    assert shown_cards(ex) == engine_cards(name, part, t, scheme, bins)
    assert shown_counts(ex) == engine_counts(name, part, float(engine.grid[nearest]), scheme, bins)
    expect(note).to_have_text(re.compile(re.escape(ui["diagram_nearest"].split("{")[0])))
    # the per-bin table still adds up to the ECE the cards print at the temperature it shows
    logits, labels = rows_of(name, part)
    confidence, correct = calib.top_label(logits, labels, float(engine.grid[nearest]))
    total = ex.bin_table.locator("tfoot .total-ece").inner_text()
    assert total == pct(calib.ece(confidence, correct, bins, scheme))


def test_bands_stay_with_the_detailed_counts(open_explorer, expect, ui):
    ex = open_explorer()
    ex.choose(dataset="mixed")
    ex.expect_hash(dataset="mixed")  # loaded (it opens at its own bin count), as a reader sees it before typing
    ex.choose(bins=7)
    ex.bands.check()
    overlay = ex.root.locator(f"#{ex.root.get_attribute('id')}-overlay-at")
    counts = ", ".join(str(b) for b in OFFERED_BIN_COUNTS)
    expect(overlay).to_contain_text(ui["bands_offered_only"].replace("{counts}", counts))
    ex.choose(bins=10)
    expect(overlay).not_to_contain_text(ui["bands_offered_only"].replace("{counts}", counts))


def test_the_hash_keeps_any_bin_count(open_explorer, engine):
    ex = open_explorer("#state/dataset=twelve&t=1&scheme=equal-width&bins=23&part=all")
    ex.expect(ex.bins).to_have_value("23")
    ex.bin_table.scroll_into_view_if_needed()
    expected = engine_counts("twelve", "all", 1.0, "equal-width", 23)
    assert counts_when_drawn(ex, expected) == expected
    ex.choose(bins=41)
    ex.expect_hash(bins=41)


def test_a_count_typed_while_the_data_load_reaches_the_url_once_they_arrive(open_page, ui, expect, lang):
    """The reader commits a bin count before the explorer's dataset file has arrived: the count stands,
    and the URL's state carries it as soon as the file is in."""
    page = open_page(lang=lang)
    held = []  # the dataset requests held until the count is committed (then None: requests go through)
    page.route("**/data/**", lambda route: route.continue_() if held is None or "/data/markup-" in route.request.url
               else held.append(route))
    ex = Explorer(page, ui, expect)
    ex.set_bins(50)
    expect(ex.bins).to_have_value("50")
    assert "state/" not in page.url   # nothing to write while the model is missing
    held, waiting = None, held
    assert waiting, "no data request was held: the test would prove nothing"
    for route in waiting:
        route.continue_()
    ex.expect_hash(bins=50)


def test_a_bins_file_from_another_build_is_refused_in_words(open_page, site_dir, expect, ui, lang):
    page = open_page(lang=lang)
    root = "../" * (LANGUAGES[lang].count("/") + 1) if LANGUAGES[lang] else ""  # the page's way to the data
    text = (site_dir / "data" / "twelve-all-bins.js").read_text(encoding="utf-8")
    older = text.replace(f'"schema_version":{SCHEMA_VERSION}', f'"schema_version":{SCHEMA_VERSION - 1}')
    assert older != text
    # routed before the explorer comes near: the widgets around it, built with it, may load the file too
    page.route("**/data/twelve-all-bins.js",
               lambda route: route.fulfill(status=200, content_type="text/javascript", body=older))
    ex = Explorer(page, ui, expect)
    ex.choose(dataset="twelve", bins=7)
    expect(ex.status).to_have_text(ui["error_bins"].replace("{file}", root + "data/twelve-all-bins.js"))
    expect(ex.card("mce")).to_have_text("\u2026")   # no MCE from a file of another build
    assert json.loads(json.dumps(ex.card("ece-w").inner_text())) != "\u2026"  # the ECE is in the dataset file


def test_bin_counts_and_the_total_use_the_pages_thousands_format(open_explorer, number):
    """3,000 test rows in one bin: the count and the total are written as the rest of the page writes counts."""
    ex = open_explorer("#state/dataset=overconfident&t=1&scheme=equal-width&bins=1&part=test")
    ex.expect(ex.bins).to_have_value("1")
    ex.bin_table.scroll_into_view_if_needed()
    n = engine_counts("overconfident", "test", 1.0, "equal-width", 1)
    assert len(n) == 1 and n[0] >= 1000
    ex.expect(ex.bin_table.locator("tbody tr").first.locator("td").first).to_have_text(number["thousands"](n[0]))
    ex.expect(ex.bin_table.locator("tfoot .total-count")).to_have_text(number["thousands"](n[0]))
