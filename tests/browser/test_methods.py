"""The explorer's method choice (control "method", static/js/method.js): each calibrator other than temperature
scaling shows the engine's test-row scores, the slider is set aside with its reason, and the data load only when
a method is first chosen. One page load per language."""

import re

from calib import CALIBRATORS
from sitegen.facts.results import fact_key

DATASET = "mixed"  # one of the deep dive's compared datasets: its table holds the values the cards must show
BINS = 15          # the deep dive's bins (sitegen.common.settings.TABLE_BINS), an offered count


def test_each_method_shows_the_engines_test_scores(open_explorer, edition_strings, lang, engine, expect):
    from sitegen_inputs import page_inputs

    facts = page_inputs(engine)[1]
    table = getattr(facts["by"].cmp, fact_key(DATASET))
    assert facts["by"].bins == BINS
    names = edition_strings[lang]["beyond"]["method"]
    ex = open_explorer(f"#state/dataset={DATASET}&bins={BINS}&part=test&t=1")
    ui, number = ex.ui, ex.number
    expect(ex.card("nll")).not_to_have_text("\u2026")
    requests = ex.page.monitor.requests
    assert not any(url.endswith("-methods.js") for url in requests), "method data loaded before a choice"
    note = ex.root.locator("#ex1-method-note")
    picker = ex.root.get_by_role("combobox", name=ui["method"], exact=True)
    expect(picker).to_have_value("temperature")
    accuracy_note = ex.root.locator('[data-metric="accuracy"] .note')
    # the NLL card: T is no longer what is fitted, and its change is against the uncalibrated model
    nll_note, nll_change = (ex.root.locator(f'[data-metric="nll"] {part}') for part in (".note", ".change"))
    after = {key: ui[key].split("{change}")[1] for key in ("change_vs_t1", "change_vs_uncalibrated")}
    for method in CALIBRATORS:
        picker.select_option(label=names[method])
        if method == "temperature":
            expect(ex.slider).to_be_enabled()
            expect(accuracy_note).to_have_text(ui["cards"]["accuracy"]["note"])
            expect(nll_note).to_have_text(ui["cards"]["nll"]["note"])
            expect(nll_change).to_have_text(re.compile(re.escape(after["change_vs_t1"]) + "$"))
            expect(ex.slider).not_to_have_attribute("aria-describedby", re.compile("."))
            expect(note).to_have_text("")
            continue
        row = getattr(table, fact_key(method))
        # the engine's values (the deep dive's comparison, computed apart from the explorer's payload) as the
        # page writes them: to the digits shown (an infinite NLL is "∞")
        nll = number["fixed"](row.nll.value, 5) if row.nll.finite else "\u221e"
        expect(ex.card("nll")).to_have_text(nll)
        expect(ex.card("brier")).to_have_text(number["fixed"](row.brier.value, 5))
        expect(ex.card("ece-w")).to_have_text(number["pct"](row.ece_w.value))
        expect(ex.card("ece-a")).to_have_text(number["pct"](row.ece_a.value))
        expect(accuracy_note).to_have_text(ui["accuracy_method_note"])  # a calibrator may change the winning class
        expect(nll_note).to_have_text(ui["nll_method_note"])
        expect(nll_change).to_have_text(re.compile(re.escape(after["change_vs_uncalibrated"]) + "$"))
        # the slider is set aside, and says why: the note under the picker describes it
        expect(ex.slider).to_be_disabled()
        expect(ex.readout).to_have_text(names[method])
        expect(ex.slider).to_have_attribute("aria-describedby", note.get_attribute("id"))
        expect(note).to_contain_text(names[method])
        expect(ex.root.get_by_role("radio", name=ui["part_test"], exact=True, include_hidden=True)).to_be_checked()
        expect(ex.root.locator("#ex1-diagram-at")).to_contain_text(names[method])  # the diagram is the method's
        if not row.nll.finite:
            expect(note).to_contain_text("\u221e")
    assert sum(url.endswith(f"data/{DATASET}-methods.js") for url in requests) == 1, "loaded once, when first chosen"
    # a choice is kept in the link; the calibration rows bring temperature scaling back
    picker.select_option(label=names["histogram"])
    ex.expect_hash(method="histogram", part="test", dataset=DATASET)
    ex.part("calibration").check()
    expect(picker).to_have_value("temperature")
    expect(ex.slider).to_be_enabled()
    # a dataset without calibration and test rows offers temperature scaling only, and says so
    ex.choose(dataset="six")
    expect(note).to_have_text(ui["method_none"])
    expect(picker).to_be_disabled()
    expect(picker).to_have_value("temperature")
