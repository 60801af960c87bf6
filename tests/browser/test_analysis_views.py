"""The explorer's uncertainty views show exactly what sitegen.analysis computed, and their controls
live in the URL hash: the spread and noise-floor panel, the consistency bands, the smooth
reliability curve and the bin-count chart."""

import re

import pytest

from sitegen.analysis import precompute_analyses
from sitegen.facts import fixed, pct

from .test_explorer import choose, hash_state, press


@pytest.fixture(scope="session")
def analyses(engine):
    """``sitegen.analysis.precompute_analyses`` on the session's precomputation (about 8 s)."""
    return precompute_analyses(engine)


def nearest_sub(analysis, grid, index):
    """Position in the sub-grid of the computed temperature nearest (in log T) to grid index ``index``."""
    import numpy as np
    return int(np.argmin(np.abs(np.log(grid[analysis.subgrid]) - np.log(grid[index]))))


def slider_index(page):
    return int(page.locator("#ex1-t").input_value())


def expected_panel(analyses, engine, dataset, part, index, scheme, bins):
    """The uncertainty panel's texts, computed here from the engine's arrays."""
    result = analyses.datasets[dataset]
    k = nearest_sub(result, engine.grid, index)
    p = result.parts[part]
    spread = p.bootstrap.ece[scheme][bins][k]
    floor = p.floor.ece[scheme][bins][k]
    nll = p.bootstrap.nll[k]
    return {
        "spread": f"{pct(spread[0])} to {pct(spread[-1])}",
        "floor": f"{pct(floor[0])} · {pct(floor[1])} · {pct(floor[2])}",
        "nll": f"({fixed(nll[0], 5)} to {fixed(nll[-1], 5)})",
        "smooth": f"{pct(p.smooth.value[k])} (σ = {fixed(p.smooth.sigma[k], 3)})",
    }


def read_panel(page):
    return {key: page.locator(f'#ex1-uncertainty [data-u="{key}"]').inner_text()
            for key in ("spread", "floor", "nll", "smooth")}


def wait_panel(page, want, timeout=8000):
    """Poll the panel until it shows ``want`` (the analysis file loads on demand)."""
    shown = None
    for _ in range(timeout // 100):
        shown = read_panel(page)
        if all((want[k] in shown[k]) if k == "nll" else shown[k] == want[k] for k in want):
            return shown
        page.wait_for_timeout(100)
    pytest.fail(f"uncertainty panel shows {shown}, engine says {want}")


@pytest.mark.parametrize("dataset, part", [("six", "all"), ("sim-600", "test"), ("overconfident", "calibration")])
def test_uncertainty_panel_shows_the_engine_values(open_page, engine, analyses, dataset, part):
    page = open_page()
    choose(page, dataset=dataset, scheme="equal-width", bins=10)
    if part != "all":
        choose(page, part=part)
    page.locator("#ex1-reset").click()
    wait_panel(page, expected_panel(analyses, engine, dataset, part, engine.t1_index, "equal-width", 10))
    page.locator("#ex1-fit").click()
    fitted = engine.index_of(engine.datasets[dataset].fitted_t)
    wait_panel(page, expected_panel(analyses, engine, dataset, part, fitted, "equal-width", 10))
    choose(page, scheme="adaptive", bins=5)
    press(page, "ArrowRight", 4)  # off the sub-grid: the panel shows the nearest computed point
    index = slider_index(page)
    wait_panel(page, expected_panel(analyses, engine, dataset, part, index, "adaptive", 5))
    grid_t = engine.grid[analyses.datasets[dataset].subgrid[nearest_sub(analyses.datasets[dataset], engine.grid, index)]]
    assert re.search(re.escape(f"{grid_t:#.4g}"), page.locator("#ex1-unc-at").inner_text())


def test_bands_follow_the_engine_and_the_hash(open_page, engine, analyses, expect):
    page = open_page()
    choose(page, dataset="overconfident", scheme="equal-width", bins=15)
    page.locator("#ex1-fit").click()
    bands = page.locator("#ex1-reliability .bands rect")
    expect(page.locator("#ex1-bands")).not_to_be_checked()
    page.locator("#ex1-bands").check()
    fitted = engine.index_of(engine.datasets["overconfident"].fitted_t)
    result = analyses.datasets["overconfident"]
    k = nearest_sub(result, engine.grid, fitted)
    band = result.parts["test"].floor.band["equal-width"][15][k]
    counts = engine.datasets["overconfident"].parts["test"].bins["equal-width"][15].count[result.subgrid[k]]
    want = [f"Bin {b + 1}: a perfectly calibrated model's accuracy here would lie between "
            f"{fixed(band[b][0], 3)} and {fixed(band[b][1], 3)} (5–95%)."
            for b in range(15) if counts[b] > 0]
    page.wait_for_function("document.querySelectorAll('#ex1-reliability .bands rect[visibility=visible]').length > 0")
    shown = page.eval_on_selector_all(
        "#ex1-reliability .bands rect[visibility=visible]", "nodes => nodes.map(n => n.textContent)")
    assert shown == want
    assert hash_state(page)["bands"] == "1"
    page.locator("#ex1-bands").uncheck()
    expect(page.locator("#ex1-reliability .bands")).to_have_attribute("visibility", "hidden")
    assert hash_state(page)["bands"] == "0"
    assert bands.count() >= len(want)


def test_smooth_curve_toggle_round_trips_through_the_hash(open_page, expect):
    page = open_page()
    choose(page, dataset="sim-600")
    page.locator("#ex1-smooth").check()
    curve = page.locator("#ex1-reliability .smooth-curve")
    expect(curve).to_have_attribute("visibility", "visible")
    assert re.match(r"M[\d.]+ [\d.]+L", curve.get_attribute("d"))
    state = hash_state(page)
    assert state["smooth"] == "1" and state["dataset"] == "sim-600"
    fragment = page.evaluate("location.hash")
    again = open_page(fragment)
    expect(again.locator("#ex1-smooth")).to_be_checked()
    expect(again.locator("#ex1-reliability .smooth-curve")).to_have_attribute("visibility", "visible")
    expect(again.locator("#ex1-dataset")).to_have_value("sim-600")


def test_bin_count_chart_describes_the_engine_sweep(open_page, engine, analyses, expect):
    page = open_page()
    choose(page, dataset="overconfident", scheme="equal-width", bins=15)
    page.locator("#ex1-fit").click()
    fitted = engine.index_of(engine.datasets["overconfident"].fitted_t)
    result = analyses.datasets["overconfident"]
    k = nearest_sub(result, engine.grid, fitted)
    part = result.parts["test"]
    sweep, floor = part.sweep["equal-width"][k], part.floor.sweep["equal-width"][k]
    want = (f"ECE against the number of bins: {pct(sweep[0])} with one bin, {pct(sweep[-1])} with "
            f"{len(sweep)} bins; a perfectly calibrated model's median at {len(sweep)} bins is {pct(floor[-1, 0])}.")
    expect(page.locator("#ex1-sweep svg title")).to_have_text(want)
