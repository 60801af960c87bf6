"""The mixed population's groups in the main explorer: group A, group B or both pooled under the
slider's one T, and each group at its own fitted T. The values shown are sitegen's and the
engine's: calib.subgroups' analysis (as sitegen.analyses.uncertainty runs it) under the global T and the
groups' own temperatures."""

import re

import pytest

from calib.subgroups import subgroup_analysis
from sitegen.common.numbers import fixed, pct
from sitegen.common.settings import OFFERED_BIN_COUNTS, SUBGROUP_BIN_COUNTS, TABLE_BINS
from sitegen.compute.precompute import round_significant


@pytest.fixture(autouse=True)
def _numbers_as_the_page_writes_them(number):
    """Expected numbers in the language of the page under test (every test here runs once per language)."""
    global fixed, pct
    fixed, pct = number["fixed"], number["pct"]


@pytest.fixture(scope="module")
def subgroups(engine):
    """sitegen's subgroup analysis of the mixed population (the same call as sitegen.analyses.uncertainty)."""
    result = engine.datasets["mixed"]
    return subgroup_analysis(result.dataset, result.fitted_t, SUBGROUP_BIN_COUNTS,
                             round_temperature=lambda t: round_significant(t)[0])


def group_radio(ex, ui, name):
    label = ui["group_pooled"] if name == "pooled" else ui["group_one"].replace("{name}", name)
    return ex.root.get_by_role("radio", name=label, exact=True)


def own_box(ex, ui):
    return ex.root.get_by_role("checkbox", name=ui["own_t"], exact=True)


def open_mixed(open_explorer, engine, expect):
    """The main explorer on the mixed population's test rows at the global (fitted) T."""
    ex = open_explorer("#state/dataset=mixed&t=1&scheme=equal-width&bins=15&part=test")
    expect(ex.fit).to_have_text(re.compile(r"\d"))  # the dataset is loaded: the button names its T
    ex.fit.click()
    expect(ex.slider).to_have_value(str(engine.index_of(engine.datasets["mixed"].fitted_t)))
    return ex


@pytest.mark.parametrize("group", ["A", "B"])
def test_a_group_at_the_global_t_shows_sitegens_values(open_explorer, engine, ui, expect, subgroups, group):
    ex = open_mixed(open_explorer, engine, expect)
    group_radio(ex, ui, group).check()
    metrics = subgroups.metrics["test"][group]["global"]
    expect(ex.card("nll")).to_have_text(fixed(metrics.nll, 5))
    expect(ex.card("ece-w")).to_have_text(pct(metrics.ece["equal-width"][TABLE_BINS]))
    expect(ex.card("ece-a")).to_have_text(pct(metrics.ece["adaptive"][TABLE_BINS]))
    expect(ex.card("brier")).to_have_text(fixed(metrics.brier, 5))
    expect(ex.card("accuracy")).to_have_text(pct(metrics.accuracy))
    expect(ex.card("confidence")).to_have_text(pct(metrics.mean_confidence))


def test_the_slider_moves_every_group_shown(open_explorer, engine, ui, expect, subgroups):
    ex = open_mixed(open_explorer, engine, expect)
    group_radio(ex, ui, "A").check()
    ex.reset.click()
    expect(ex.card("nll")).to_have_text(fixed(subgroups.metrics["test"]["A"]["t1"].nll, 5))
    expect(ex.card("ece-w")).to_have_text(pct(subgroups.metrics["test"]["A"]["t1"].ece["equal-width"][TABLE_BINS]))
    group_radio(ex, ui, "pooled").check()
    expect(ex.card("nll")).to_have_text(fixed(subgroups.metrics["test"]["pooled"]["t1"].nll, 5))


@pytest.mark.parametrize("who", ["B", "pooled"])
def test_each_group_at_its_own_fitted_t(open_explorer, engine, ui, expect, subgroups, who):
    ex = open_mixed(open_explorer, engine, expect)
    group_radio(ex, ui, who).check()
    own_box(ex, ui).check()
    metrics = subgroups.metrics["test"][who]["group"]
    expect(ex.card("nll")).to_have_text(fixed(metrics.nll, 5))
    expect(ex.card("ece-w")).to_have_text(pct(metrics.ece["equal-width"][TABLE_BINS]))
    expect(ex.slider).to_be_disabled()
    note = ex.root.locator("#ex1-diagram-at")
    for group in (["A", "B"] if who == "pooled" else [who]):
        t = subgroups.temperatures[group]
        expect(note).to_contain_text(ui["own_temp"].replace("{name}", group).replace("{t}", f"{t:#.3g}"))
    # the per-bin table adds up to that ECE
    expect(ex.bin_table.locator("tfoot .total-ece")).to_have_text(pct(metrics.ece["equal-width"][TABLE_BINS]))
    own_box(ex, ui).uncheck()
    expect(ex.slider).to_be_enabled()
    expect(ex.card("nll")).to_have_text(fixed(subgroups.metrics["test"][who]["global"].nll, 5))


def test_a_group_view_offers_the_offered_bin_counts(open_explorer, ui, expect):
    ex = open_explorer("#state/dataset=mixed&t=1&scheme=equal-width&bins=7&part=test")
    group_radio(ex, ui, "B").check()
    expect(ex.bins).to_have_value("5")
    expect(ex.status).to_have_text(re.compile(re.escape(ui["group_bins_note"].split("{")[0])))
    # the arrow keys step through the offered counts only, a typed count goes to the nearest offered one
    after = [b for b in OFFERED_BIN_COUNTS if b > 5][0]
    ex.bins.press("ArrowUp")
    expect(ex.bins).to_have_value(str(after))
    ex.set_bins(after + 1)
    expect(ex.bins).to_have_value(str(after))
    group_radio(ex, ui, "pooled").check()
    ex.bins.press("ArrowUp")   # every count again: the native step
    ex.bins.press("Enter")
    expect(ex.bins).to_have_value(str(after + 1))


def test_datasets_without_groups_hide_the_group_controls(open_explorer, ui, expect):
    ex = open_explorer()
    expect(group_radio(ex, ui, "pooled")).to_be_hidden()
    ex.choose(dataset="mixed")
    expect(group_radio(ex, ui, "pooled")).to_be_visible()
    expect(group_radio(ex, ui, "pooled")).to_be_checked()


def test_one_group_at_its_own_t_states_the_t_applied(open_explorer, engine, ui, number, expect, subgroups):
    """Group B at its own fitted T: the readout, the NLL curve's marker, the comparison table's current
    row and a pin state B's own T; the "T = 1" row keeps B's values at T = 1."""
    import numpy as np
    ex = open_mixed(open_explorer, engine, expect)
    group_radio(ex, ui, "B").check()
    own_box(ex, ui).check()
    t_b = subgroups.temperatures["B"]
    at_t1, own = subgroups.metrics["test"]["B"]["t1"], subgroups.metrics["test"]["B"]["group"]
    temp = number["temp"]  # the page's one rule for a temperature
    assert abs(t_b - engine.datasets["mixed"].fitted_t) > 0.1, (
        "B's own T is the global T: the test cannot tell them apart")
    expect(ex.readout).to_have_text(temp(t_b))
    compare = ex.root.get_by_role("table", name=re.compile("^" + re.escape(ui["compare_caption"][:20])))
    t1_row = compare.get_by_role("row", name=re.compile("^" + re.escape(ui["state_t1"])))
    expect(t1_row.get_by_role("cell").nth(0)).to_have_text(temp(1.0))
    expect(t1_row.get_by_role("cell").nth(1)).to_have_text(number["fixed"](at_t1.nll, 5))
    expect(t1_row.get_by_role("cell").nth(3)).to_have_text(number["pct"](at_t1.ece["equal-width"][TABLE_BINS]))
    current = compare.get_by_role("row", name=re.compile("^" + re.escape(ui["state_current"])))
    expect(current.get_by_role("cell").nth(0)).to_have_text(temp(t_b))
    expect(current.get_by_role("cell").nth(1)).to_have_text(number["fixed"](own.nll, 5))
    # The NLL curve's current-T marker sits at B's own T (the grid point nearest to it).
    grid = np.asarray(engine.grid)
    expect(ex.root.locator("#ex1-curves")).to_have_attribute(
        "data-index", str(int(np.argmin(np.abs(np.log(grid / t_b))))))
    ex.pin.click()
    pinned = compare.get_by_role("row", name=re.compile("^" + re.escape(ui["pin_config"].split("{")[0]) + "1:"))
    expect(pinned.get_by_role("cell").nth(0)).to_have_text(temp(t_b))
    expect(pinned.get_by_role("cell").nth(1)).to_have_text(number["fixed"](own.nll, 5))


def test_every_group_view_states_the_t_it_applies(open_explorer, engine, ui, number, expect, subgroups):
    """Both groups each at its own T: no one T applies, so the readout, the comparison table's current row
    and the noise panel say so in words (never the slider's left-over T). One group at its own T: the
    thumb moves to that T. Clearing the box gives the slider and its T back, and each empty noise panel
    names its own reason."""
    import numpy as np
    ex = open_mixed(open_explorer, engine, expect)
    fitted_index = str(engine.index_of(engine.datasets["mixed"].fitted_t))
    compare = ex.root.get_by_role("table", name=re.compile("^" + re.escape(ui["compare_caption"][:20])))
    note = ex.uncertainty.locator(".panel-note")
    own_box(ex, ui).check()
    expect(ex.readout).to_have_text(ui["own_readout"])
    expect(ex.slider).to_have_attribute("aria-valuetext", re.compile("^" + re.escape(ui["own_readout"])))
    current = compare.get_by_role("row", name=re.compile("^" + re.escape(ui["state_own"])))
    each = ", ".join(f"{g}\u00a0{number['temp'](subgroups.temperatures[g])}" for g in ("A", "B"))
    expect(current.get_by_role("cell").nth(0)).to_have_text(each)
    expect(current.get_by_role("cell").nth(1)).to_have_text(
        number["fixed"](subgroups.metrics["test"]["pooled"]["group"].nll, 5))
    expect(note).to_have_text(ui["unc_own_only"].replace("{own}", ui["own_t"]))
    group_radio(ex, ui, "A").check()
    t_a = subgroups.temperatures["A"]
    grid = np.asarray(engine.grid)
    expect(ex.readout).to_have_text(number["temp"](t_a))
    expect(ex.slider).to_have_value(str(int(np.argmin(np.abs(np.log(grid / t_a))))))
    expect(compare.get_by_role("row", name=re.compile("^" + re.escape(ui["state_own"])))).to_have_count(1)
    own_box(ex, ui).uncheck()
    expect(ex.slider).to_have_value(fitted_index)
    expect(ex.readout).to_have_text(number["temp"](engine.grid[int(fitted_index)]))
    expect(compare.get_by_role("row", name=re.compile("^" + re.escape(ui["state_own"])))).to_have_count(0)
    expect(note).to_have_text(ui["unc_pooled_only"])
