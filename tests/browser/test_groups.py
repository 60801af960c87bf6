"""The mixed population's groups in the main explorer: group A, group B or both pooled under the
slider's one T, and each group at its own fitted T. The values shown are sitegen's and the
engine's: calib.subgroups' analysis (as sitegen.analysis runs it) under the global T and the
groups' own temperatures."""

import re

import pytest

from calib.subgroups import subgroup_analysis
from sitegen.facts import fixed, pct
from sitegen.precompute import round_significant
from sitegen.settings import OFFERED_BIN_COUNTS, SUBGROUP_BIN_COUNTS, TABLE_BINS


@pytest.fixture(scope="module")
def subgroups(engine):
    """sitegen's subgroup analysis of the mixed population (the same call as sitegen.analysis)."""
    result = engine.datasets["mixed"]
    return subgroup_analysis(result.dataset, result.fitted_t, SUBGROUP_BIN_COUNTS, TABLE_BINS,
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


def test_a_group_view_offers_the_detailed_bin_counts(open_explorer, ui, expect):
    ex = open_explorer("#state/dataset=mixed&t=1&scheme=equal-width&bins=7&part=test")
    group_radio(ex, ui, "B").check()
    expect(ex.bins).to_have_value("5")
    expect(ex.status).to_have_text(re.compile(re.escape(ui["group_bins_note"].split("{")[0])))
    disabled = ex.bins.locator("option:disabled").evaluate_all("options => options.map(o => Number(o.value))")
    assert disabled == [b for b in range(1, 51) if b not in OFFERED_BIN_COUNTS]
    group_radio(ex, ui, "pooled").check()
    assert ex.bins.locator("option:disabled").count() == 0


def test_datasets_without_groups_hide_the_group_controls(open_explorer, ui, expect):
    ex = open_explorer()
    expect(group_radio(ex, ui, "pooled")).to_be_hidden()
    ex.choose(dataset="mixed")
    expect(group_radio(ex, ui, "pooled")).to_be_visible()
    expect(group_radio(ex, ui, "pooled")).to_be_checked()
