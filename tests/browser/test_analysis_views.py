"""The explorer's uncertainty views show exactly what sitegen.analyses.uncertainty computed, and their controls
live in the URL hash: the spread and noise-floor panel, the consistency bands, the smooth
reliability curve and the bin-count chart. Each test runs once per language edition; the expected
texts are the page's strings (``ui``) filled with numbers written by its filters (``number``)."""

import re
from urllib.parse import urlsplit

import numpy as np
import pytest
from sitegen_inputs import page_inputs


@pytest.fixture(scope="session")
def analyses(engine):
    """``sitegen.analyses.uncertainty.precompute_analyses`` on the session's precomputation, as the build computed
    it (read from the run's build cache: about 8 s of resampling otherwise)."""
    return page_inputs(engine)[0]


def nearest_sub(analysis, grid, index):
    """Position in the sub-grid of the computed temperature nearest (in log T) to grid index ``index``."""
    return int(np.argmin(np.abs(np.log(grid[analysis.subgrid]) - np.log(grid[index]))))


def fill(template, **values):
    """``template`` with its ``{name}`` placeholders replaced, as the page's CT.fill does."""
    for key, value in values.items():
        template = template.replace("{" + key + "}", str(value))
    return template


def expected_panel(analyses, engine, dataset, part, index, scheme, bins, ui, number):
    """The uncertainty panel's texts, computed here from the engine's arrays."""
    fixed, pct = number["fixed"], number["pct"]
    result = analyses.datasets[dataset]
    k = nearest_sub(result, engine.grid, index)
    p = result.parts[part]
    spread = p.bootstrap.ece[scheme][bins][k]
    floor = p.floor.ece[scheme][bins][k]
    nll = p.bootstrap.nll[k]
    return {
        "spread": fill(ui["range_value"], lo=pct(spread[0]), hi=pct(spread[-1])),
        "floor": fill(ui["floor_value"], lo=pct(floor[0]), mid=pct(floor[1]), hi=pct(floor[2])),
        "nll": fill(ui["unc_nll_value"].replace("{nll}", "").strip(), lo=fixed(nll[0], 5), hi=fixed(nll[-1], 5)),
        "smooth": fill(ui["smooth_value"], ece=pct(p.smooth.value[k]), sigma=fixed(p.smooth.sigma[k], 3)),
    }


def read_panel(ex):
    return {key: ex.uncertainty.locator(f'[data-u="{key}"]').inner_text()
            for key in ("spread", "floor", "nll", "smooth")}


def wait_panel(ex, want, timeout=8000):
    """Poll the panel until it shows ``want`` (the analysis file loads on demand)."""
    shown = None
    for _ in range(timeout // 100):
        shown = read_panel(ex)
        if all((want[k] in shown[k]) if k == "nll" else shown[k] == want[k] for k in want):
            return shown
        ex.page.wait_for_timeout(100)
    pytest.fail(f"uncertainty panel shows {shown}, engine says {want}")


@pytest.mark.parametrize("dataset, part", [("six", "all"), ("sim-600", "test"), ("overconfident", "calibration")])
def test_uncertainty_panel_shows_the_engine_values(open_explorer, engine, analyses, ui, number, expect, dataset, part):
    ex = open_explorer()
    ex.choose(dataset=dataset, scheme="equal-width", bins=10)
    if part != "all":
        ex.choose(part=part)
    ex.reset.click()
    wait_panel(ex, expected_panel(analyses, engine, dataset, part, engine.t1_index, "equal-width", 10, ui, number))
    ex.fit.click()
    fitted = engine.index_of(engine.datasets[dataset].fitted_t)
    wait_panel(ex, expected_panel(analyses, engine, dataset, part, fitted, "equal-width", 10, ui, number))
    ex.choose(scheme="adaptive", bins=5)
    ex.press("ArrowRight", 4)  # off the sub-grid: the panel shows the nearest computed point
    index = ex.index()
    wait_panel(ex, expected_panel(analyses, engine, dataset, part, index, "adaptive", 5, ui, number))
    result = analyses.datasets[dataset]
    grid_t = engine.grid[result.subgrid[nearest_sub(result, engine.grid, index)]]
    at = fill(ui["unc_at"], t=number["temp"](grid_t), count=len(result.subgrid))
    expect(ex.uncertainty.get_by_text(at, exact=True)).to_be_visible()


def test_bands_follow_the_engine_and_the_hash(open_explorer, engine, analyses, ui, number, expect):
    ex = open_explorer()
    ex.choose(dataset="overconfident", scheme="equal-width", bins=15)
    ex.fit.click()
    bands = ex.diagram.locator(".bands rect")
    expect(ex.bands).not_to_be_checked()
    ex.bands.check()
    fitted = engine.index_of(engine.datasets["overconfident"].fitted_t)
    result = analyses.datasets["overconfident"]
    k = nearest_sub(result, engine.grid, fitted)
    band = result.parts["test"].floor.band["equal-width"][15][k]
    counts = engine.datasets["overconfident"].parts["test"].bins["equal-width"][15].count[result.subgrid[k]]
    want = [fill(ui["band_title"], bin=b + 1, lo=number["fixed"](band[b][0], 3), hi=number["fixed"](band[b][1], 3))
            for b in range(15) if counts[b] > 0]
    assert want
    expect(ex.diagram.locator(".bands rect[visibility=visible]")).to_have_text(want)
    # the caption describes the bands while they are drawn, and the smooth curve only when it is on
    bands_caption, smooth_caption = ex.root.locator("[id$=-caption-bands]"), ex.root.locator("[id$=-caption-smooth]")
    expect(bands_caption).to_be_visible()
    expect(smooth_caption).to_be_hidden()
    ex.expect_hash(dataset="overconfident", bands="1")
    ex.bands.uncheck()
    expect(ex.diagram.locator(".bands")).to_have_attribute("visibility", "hidden")
    expect(bands_caption).to_be_hidden()
    ex.expect_hash(dataset="overconfident", bands="0")
    assert bands.count() >= len(want)


def test_smooth_curve_toggle_round_trips_through_the_hash(open_explorer, expect):
    ex = open_explorer()
    ex.choose(dataset="sim-600")
    ex.smooth.check()
    curve = ex.diagram.locator(".smooth-curve")
    expect(curve).to_have_attribute("visibility", "visible")
    expect(ex.root.locator("[id$=-caption-smooth]")).to_be_visible()
    expect(ex.root.locator("[id$=-caption-bands]")).to_be_hidden()
    assert re.match(r"M[\d.]+ [\d.]+L", curve.get_attribute("d"))
    ex.expect_hash(smooth="1", dataset="sim-600")
    again = open_explorer("#" + urlsplit(ex.page.url).fragment)
    expect(again.smooth).to_be_checked()
    expect(again.diagram.locator(".smooth-curve")).to_have_attribute("visibility", "visible")
    expect(again.dataset).to_have_value("sim-600")


def test_bin_count_chart_describes_the_engine_sweep(open_explorer, engine, analyses, ui, number, expect):
    ex = open_explorer()
    ex.choose(dataset="overconfident", scheme="equal-width", bins=15)
    ex.fit.click()
    fitted = engine.index_of(engine.datasets["overconfident"].fitted_t)
    result = analyses.datasets["overconfident"]
    k = nearest_sub(result, engine.grid, fitted)
    part = result.parts["test"]
    sweep, floor = part.sweep["equal-width"][k], part.floor.sweep["equal-width"][k]
    pct = number["pct"]
    bins = fill(ui["plural"]["bins"]["other"], n=len(sweep))  # the page's count and noun ("50 bins")
    want = fill(ui["sweep_alt"], first=pct(sweep[0]), last=pct(sweep[-1]), bins=bins, floor=pct(floor[-1, 0]))
    # an accessible name normalises a no-break space (Spanish "95\u00a0%") to a space
    caption = re.sub(r"(\\ |\u00a0)", r"\\s", re.escape(ui["sweep_caption"]))
    chart = ex.root.get_by_role("figure", name=re.compile(caption))
    expect(chart.get_by_role("img", name=want, exact=True)).to_be_visible()


def test_the_noise_panel_states_the_cards_ece_beside_its_own_temperature(open_explorer, engine, analyses, ui, number,
                                                                          expect):
    """Off the sub-grid, the panel's first row shows the ECE the cards show, at the slider's T, and beside it
    the ECE at the nearest computed T with that T printed: the two never read as one contradicting number."""
    ex = open_explorer()
    ex.choose(dataset="sim-600", scheme="equal-width", bins=10)
    ex.reset.click()
    ex.press("ArrowRight", 3)
    index = ex.index()
    result = analyses.datasets["sim-600"]
    gi = int(result.subgrid[nearest_sub(result, engine.grid, index)])
    assert gi != index, "pick a slider position off the sub-grid for this test"
    ece = engine.datasets["sim-600"].parts["test"].ece["equal-width"][10]
    pct, temp = number["pct"], number["temp"]
    bins = fill(ui["plural"]["bins"]["other"], n=10)
    measured = ex.uncertainty.locator('[data-u="measured"]')
    near = ex.uncertainty.locator('[data-u="measured-near"]')
    expect(ex.card("ece-w")).to_have_text(pct(ece[index]))
    expect(measured).to_have_text(fill(ui["unc_measured_value"], ece=pct(ece[index]), t=temp(engine.grid[index]),
                                       scheme=ui["scheme_equal-width"], bins=bins))
    expect(near).to_have_text(fill(ui["unc_measured_near"], ece=pct(ece[gi]), t=temp(engine.grid[gi])))
    # Both rows sit in the panel's first entry, under one term.
    assert measured.evaluate("e => e.parentElement === e.nextElementSibling.parentElement")
    # On a computed temperature the second line goes away: one T, one number.
    ex.reset.click()
    expect(measured).to_have_text(fill(ui["unc_measured_value"], ece=pct(ece[engine.t1_index]),
                                       t=temp(engine.grid[engine.t1_index]), scheme=ui["scheme_equal-width"],
                                       bins=bins))
    expect(near).to_have_text("")
