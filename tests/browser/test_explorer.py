"""The explorer (component #ex1) against the engine: every card, the per-bin table, the slider,
the buttons and the #state/ URL hash show exactly what calib computes, rounded like the page
(sitegen.facts.fixed / pct: half away from zero)."""

import functools
import re
from urllib.parse import unquote

import numpy as np
import pytest

import calib
from sitegen.facts import fixed, pct

DATASETS = ["six", "twelve", "sim-60", "sim-600", "overconfident", "mixed"]
BIN_COUNTS = ["4", "5", "10", "15", "20"]
SCHEMES = ["equal-width", "adaptive"]
METRICS = ["nll", "brier", "ece-w", "ece-a", "mce", "accuracy", "confidence"]

# --------------------------------------------------------------------------- the engine's side


@functools.lru_cache(maxsize=None)
def is_split(name):
    """True for datasets shown as a calibration part and a test part."""
    return calib.load(name).is_calibration is not None


@functools.lru_cache(maxsize=None)
def rows_of(name, part):
    """Logits and labels of ``part`` ("all", "calibration" or "test") of dataset ``name``."""
    data = calib.load(name)
    if part == "all":
        assert data.is_calibration is None, f"{name} is split: ask for calibration or test"
        return data.logits, data.labels
    mask = data.is_calibration if part == "calibration" else ~data.is_calibration
    return data.logits[mask], data.labels[mask]


def expected_cards(name, part, t, scheme, bins):
    """The seven cards' texts for one state, computed with calib's public API."""
    logits, labels = rows_of(name, part)
    confidence, correct = calib.top_label(logits, labels, t)
    return {
        "nll": fixed(calib.nll(logits, labels, t), 5),
        "brier": fixed(calib.brier(logits, labels, t), 5),
        "ece-w": pct(calib.ece(confidence, correct, bins, "equal-width")),
        "ece-a": pct(calib.ece(confidence, correct, bins, "adaptive")),
        "mce": pct(calib.mce(confidence, correct, bins, scheme)),
        "accuracy": pct(np.mean(correct)),
        "confidence": pct(np.mean(confidence)),
    }


def expected_bin_counts(name, part, t, scheme, bins):
    """Example counts of the non-empty bins, in order."""
    logits, labels = rows_of(name, part)
    confidence, correct = calib.top_label(logits, labels, t)
    counts = calib.reliability_bins(confidence, correct, bins, scheme).count
    return [int(c) for c in counts if c > 0]


# --------------------------------------------------------------------------- the page's side

READ_STATE = """() => {
    const checked = name => {
        const e = document.querySelector(`input[name="${name}"]:checked`);
        return e ? e.value : null;
    };
    const partShown = Array.from(document.querySelectorAll('input[name="ex1-part"]'))
        .some(e => e.getClientRects().length > 0);
    const cards = {};
    for (const card of document.querySelectorAll('#ex1 [data-metric]')) {
        const value = card.querySelector('.value');
        cards[card.dataset.metric] = value ? value.textContent.trim() : null;
    }
    const rows = Array.from(document.querySelectorAll('#ex1-bin-table tbody tr'))
        .filter(tr => tr.getClientRects().length > 0)
        .map(tr => Array.from(tr.querySelectorAll('th, td')).map(c => c.textContent.trim()));
    return {
        dataset: document.getElementById('ex1-dataset').value,
        part: partShown ? checked('ex1-part') : 'all',
        scheme: checked('ex1-scheme'),
        bins: document.getElementById('ex1-bins').value,
        index: Number(document.getElementById('ex1-t').value),
        valuetext: document.getElementById('ex1-t').getAttribute('aria-valuetext'),
        readout: (document.getElementById('ex1-t-readout') || {}).textContent,
        cards, rows,
    };
}"""


def read_state(page):
    return page.evaluate(READ_STATE)


def settle(page, engine, timeout=5000):
    """Wait until the cards and table agree with the engine for the state the controls show.

    Returns that state; on time-out, fails with the full difference.
    """
    deadline = timeout
    # Panels off screen catch up when they scroll into view, as a reader would see them.
    page.locator("#ex1-bin-table").scroll_into_view_if_needed()
    page.wait_for_function("() => { const e = document.getElementById('ex1').explorer;"
                           " return e && !e.stale.reliability; }", timeout=timeout)
    while True:
        state = read_state(page)
        t = float(engine.grid[state["index"]])
        split = is_split(state["dataset"])
        parts_ok = state["part"] in (("calibration", "test") if split else ("all",))
        part = state["part"] if parts_ok else ("test" if split else "all")
        want = expected_cards(state["dataset"], part, t, state["scheme"], int(state["bins"]))
        counts = expected_bin_counts(state["dataset"], part, t, state["scheme"], int(state["bins"]))
        shown_counts = [int(re.sub(r"\D", "", row[1]) or -1) if len(row) > 1 else None for row in state["rows"]]
        if parts_ok and state["cards"] == want and shown_counts == counts:
            return state
        if deadline <= 0:
            where = (f"dataset={state['dataset']} part={state['part']} index={state['index']} (T={t!r}) "
                     f"scheme={state['scheme']} bins={state['bins']}")
            diff = {k: (state["cards"].get(k), want[k]) for k in want if state["cards"].get(k) != want[k]}
            if not parts_ok:
                pytest.fail(f"{where}: the part radios are {'hidden' if split else 'shown'} for this dataset")
            pytest.fail(f"{where}: cards (shown, engine) differ: {diff}; "
                        f"bin counts shown {shown_counts}, engine {counts}")
        page.wait_for_timeout(100)
        deadline -= 100


def choose(page, *, dataset=None, scheme=None, bins=None, part=None):
    """Set explorer controls the way a person would."""
    explorer = page.locator("#ex1")
    if dataset is not None:
        explorer.locator("#ex1-dataset").select_option(dataset)
    if part is not None:
        explorer.locator(f'input[name="ex1-part"][value="{part}"]').check()
    if scheme is not None:
        explorer.locator(f'input[name="ex1-scheme"][value="{scheme}"]').check()
    if bins is not None:
        explorer.locator("#ex1-bins").select_option(str(bins))


def press(page, key, times=1):
    page.locator("#ex1-t").focus()
    for _ in range(times):
        page.keyboard.press(key)


def hash_state(page):
    """The ``#state/`` hash of the page's URL as a dict, once the explorer has written it.

    The explorer writes the hash a moment after a control settles (it debounces
    replaceState), so wait until no write is pending.
    """
    page.wait_for_function("() => !document.getElementById('ex1').explorer.hashTimer"
                           " || document.getElementById('ex1').explorer.hashDone", timeout=5000)
    fragment = page.evaluate("location.hash")
    assert fragment.startswith("#state/"), f"hash {fragment!r} lacks the #state/ prefix"
    return dict(pair.split("=", 1) for pair in unquote(fragment[len("#state/"):]).split("&") if pair)


VALUETEXT = r"T \d+(\.\d+)?, ECE \d+\.\d%"


def shows_temperature(text, t):
    """True when ``text`` starts with a number within 0.5 % of ``t`` (three significant digits or more)."""
    match = re.search(r"\d+(\.\d+)?", text or "")
    return bool(match) and abs(float(match.group()) / t - 1) <= 0.005


def nearest_index(engine, t):
    return int(np.argmin(np.abs(np.log(engine.grid) - np.log(t))))


# --------------------------------------------------------------------------- tests


def test_controls_follow_the_contract(open_page, engine, expect):
    page = open_page()
    explorer = page.locator('div.explorer#ex1[data-component="explorer"]')
    expect(explorer).to_have_count(1)
    dataset = page.locator("#ex1-dataset")
    assert dataset.evaluate("e => Array.from(e.options).map(o => o.value)") == DATASETS
    expect(dataset).to_have_value("six")
    assert page.locator("#ex1-bins").evaluate("e => Array.from(e.options).map(o => o.value)") == BIN_COUNTS
    slider = page.locator('input[type="range"]#ex1-t')
    expect(slider).to_have_attribute("min", "0")
    expect(slider).to_have_attribute("max", str(len(engine.grid) - 1))
    expect(page.locator("output#ex1-t-readout")).to_have_count(1)
    for button in ("#ex1-reset", "#ex1-fit", "#ex1-pin"):
        expect(page.locator(button)).to_be_visible()
    assert sorted(page.locator('input[name="ex1-scheme"]').evaluate_all("es => es.map(e => e.value)")) == sorted(SCHEMES)
    assert sorted(page.locator('input[name="ex1-part"]').evaluate_all("es => es.map(e => e.value)")) == ["calibration", "test"]
    expect(page.locator('input[name="ex1-part"]').first).to_be_hidden()
    for metric in METRICS:
        card = page.locator(f'#ex1 [data-metric="{metric}"]')
        expect(card).to_have_count(1)
        expect(card.locator(".value")).to_have_count(1)
        expect(card.locator(".change")).to_have_count(1)
    expect(page.locator("#ex1-status")).to_have_attribute("role", "status")
    expect(page.locator("#ex1-bin-table tbody")).to_have_count(1)
    page.locator("#ex1-reset").click()
    expect(slider).to_have_value(str(engine.t1_index))
    settle(page, engine)


def test_six_at_t1_and_at_the_fitted_t(open_page, engine, expect):
    page = open_page()
    choose(page, scheme="equal-width", bins=4)
    page.locator("#ex1-reset").click()
    expect(page.locator("#ex1-t")).to_have_value(str(engine.t1_index))
    value = lambda metric: page.locator(f'#ex1 [data-metric="{metric}"] .value')
    expect(value("nll")).to_have_text("0.82278")
    expect(value("ece-w")).to_have_text("12.9%")
    state = settle(page, engine)
    assert state["cards"] == expected_cards("six", "all", 1.0, "equal-width", 4)

    page.locator("#ex1-fit").click()
    fitted = engine.datasets["six"].fitted_t
    assert abs(fitted - calib.fit_temperature(*rows_of("six", "all"))) < 1e-6
    expect(page.locator("#ex1-t")).to_have_value(str(engine.index_of(fitted)))
    expect(value("nll")).to_have_text("0.81243")
    expect(value("ece-w")).to_have_text("38.0%")
    state = settle(page, engine)
    assert state["cards"] == expected_cards("six", "all", fitted, "equal-width", 4)
    assert state["valuetext"] == "T 1.23, ECE 38.0%"
    assert shows_temperature(state["readout"], fitted), f"readout {state['readout']!r} does not show T"


def test_every_scheme_and_bin_count_at_the_fitted_t(open_page, engine):
    page = open_page()
    page.locator("#ex1-fit").click()
    for scheme in SCHEMES:
        for bins in BIN_COUNTS:
            choose(page, scheme=scheme, bins=bins)
            state = settle(page, engine)
            assert (state["scheme"], state["bins"]) == (scheme, bins)
            ece = state["cards"]["ece-w" if scheme == "equal-width" else "ece-a"]
            assert state["valuetext"].endswith(f"ECE {ece}"), state["valuetext"]


@pytest.mark.parametrize("dataset", DATASETS)
def test_keyboard_on_the_slider(open_page, engine, dataset, expect):
    page = open_page()
    choose(page, dataset=dataset)
    if is_split(dataset):
        expect(page.locator('input[name="ex1-part"][value="test"]')).to_be_visible()
    else:
        expect(page.locator('input[name="ex1-part"]').first).to_be_hidden()
    page.locator("#ex1-reset").click()
    top = len(engine.grid) - 1
    state = settle(page, engine)
    assert state["index"] == engine.t1_index and state["dataset"] == dataset

    press(page, "ArrowRight", 3)
    state = settle(page, engine)
    assert state["index"] == engine.t1_index + 3
    press(page, "PageUp")
    state = settle(page, engine)
    assert state["index"] > engine.t1_index + 3
    press(page, "Home")
    assert settle(page, engine)["index"] == 0
    press(page, "ArrowRight", 2)
    assert settle(page, engine)["index"] == 2
    press(page, "End")
    assert settle(page, engine)["index"] == top
    press(page, "ArrowLeft", 4)
    assert settle(page, engine)["index"] == top - 4
    press(page, "PageDown")
    assert settle(page, engine)["index"] < top - 4
    choose(page, scheme="adaptive", bins=10)
    settle(page, engine)
    page.locator("#ex1-fit").click()
    state = settle(page, engine)
    assert state["index"] == engine.index_of(engine.datasets[dataset].fitted_t)
    assert re.fullmatch(VALUETEXT, state["valuetext"] or ""), state["valuetext"]
    assert shows_temperature(state["valuetext"], engine.grid[state["index"]]), state["valuetext"]
    assert shows_temperature(state["readout"], engine.grid[state["index"]]), state["readout"]


def test_split_dataset_shows_either_part(open_page, engine, expect):
    page = open_page()
    choose(page, dataset="sim-600", scheme="equal-width", bins=10)
    test_radio = page.locator('input[name="ex1-part"][value="test"]')
    expect(test_radio).to_be_visible()
    test_radio.check()
    page.locator("#ex1-reset").click()
    state = settle(page, engine)
    assert state["part"] == "test"
    assert state["cards"] == expected_cards("sim-600", "test", 1.0, "equal-width", 10)

    page.locator("#ex1-fit").click()
    fitted = engine.datasets["sim-600"].fitted_t
    assert engine.datasets["sim-600"].fitted_on == "calibration"
    assert abs(fitted - calib.fit_temperature(*rows_of("sim-600", "calibration"))) < 1e-6
    state = settle(page, engine)
    assert state["index"] == engine.index_of(fitted)
    assert state["cards"] == expected_cards("sim-600", "test", fitted, "equal-width", 10)

    choose(page, part="calibration")
    state = settle(page, engine)
    assert state["part"] == "calibration"
    assert state["cards"] == expected_cards("sim-600", "calibration", fitted, "equal-width", 10)
    assert hash_state(page)["part"] == "calibration"

    choose(page, dataset="six")
    expect(page.locator('input[name="ex1-part"]').first).to_be_hidden()
    assert settle(page, engine)["part"] == "all"


def test_pin_keeps_the_explorer_consistent(open_page, engine):
    page = open_page()
    press(page, "ArrowLeft", 5)
    page.locator("#ex1-pin").click()
    press(page, "ArrowRight", 10)
    state = settle(page, engine)
    assert state["index"] == engine.t1_index + 5
    page.locator("#ex1-pin").click()
    settle(page, engine)


def test_state_round_trips_through_the_url(open_page, engine, expect):
    page = open_page()
    choose(page, dataset="twelve", scheme="adaptive", bins=15)
    page.locator("#ex1-reset").click()
    press(page, "ArrowLeft", 7)
    first = settle(page, engine)
    assert first["index"] == engine.t1_index - 7
    expect(page).to_have_url(re.compile(r"#state/.*dataset=twelve"))
    state = hash_state(page)
    assert {k: state.get(k) for k in ("dataset", "scheme", "bins", "part")} == {
        "dataset": "twelve", "scheme": "adaptive", "bins": "15", "part": "all"}
    assert nearest_index(engine, float(state["t"])) == first["index"], state["t"]

    fragment = page.evaluate("location.hash")
    again = open_page(fragment)
    second = settle(again, engine)
    for key in ("dataset", "part", "scheme", "bins", "index", "cards", "rows", "valuetext"):
        assert second[key] == first[key], f"{key}: {second[key]!r} after reload, {first[key]!r} before"


@pytest.mark.parametrize("fragment, want", [
    ("#state/dataset=six&t=1.2298&scheme=equal-width&bins=4&part=all",
     {"dataset": "six", "part": "all", "scheme": "equal-width", "bins": "4", "t": 1.229751214}),
    ("#state/dataset=sim-600&t=0.8&scheme=adaptive&bins=10&part=calibration",
     {"dataset": "sim-600", "part": "calibration", "scheme": "adaptive", "bins": "10", "t": 0.8}),
])
def test_a_state_url_is_restored(open_page, engine, fragment, want):
    page = open_page(fragment)
    state = settle(page, engine)
    assert {k: state[k] for k in ("dataset", "part", "scheme", "bins")} == {
        k: want[k] for k in ("dataset", "part", "scheme", "bins")}
    assert state["index"] == nearest_index(engine, want["t"])
    if fragment.startswith("#state/dataset=six"):
        assert state["cards"]["nll"] == "0.81243" and state["cards"]["ece-w"] == "38.0%"


def test_a_state_url_also_works_from_a_file_url(open_page, engine):
    page = open_page("#state/dataset=sim-60&t=2&scheme=equal-width&bins=5&part=test", file=True)
    state = settle(page, engine)
    assert (state["dataset"], state["part"], state["bins"]) == ("sim-60", "test", "5")
    assert state["index"] == nearest_index(engine, 2.0)


def test_a_malformed_state_url_falls_back_without_errors(open_page, engine):
    page = open_page("#state/dataset=nope&t=abc&scheme=zigzag&bins=7&part=elsewhere")
    state = settle(page, engine)
    assert state["dataset"] in DATASETS and state["bins"] in BIN_COUNTS and state["scheme"] in SCHEMES


def test_every_dataset_loads_from_a_file_url(open_page, engine):
    page = open_page(file=True)
    for dataset in DATASETS[1:]:
        choose(page, dataset=dataset)
        assert settle(page, engine)["dataset"] == dataset


def test_a_dataset_that_fails_to_load_is_reported_in_words(open_page, engine, expect):
    page = open_page()
    page.monitor.allow(r"twelve\.js|Failed to load resource|ERR_FAILED|net::")
    page.route("**/data/twelve.js", lambda route: route.abort())
    status = page.locator("#ex1-status")
    choose(page, dataset="twelve")
    expect(status).to_have_text(re.compile(r"[A-Za-z]{3,}.*[A-Za-z]{3,}"))
    expect(status).to_have_text(re.compile(r"twelve|Twelve|load|data", re.I))
    choose(page, dataset="six")  # the explorer still works afterwards
    settle(page, engine)


def test_explorer_exposes_its_timings(open_page):
    page = open_page()
    press(page, "ArrowRight", 3)
    perf = page.evaluate("window.CalibTutorial && window.CalibTutorial.perf")
    assert isinstance(perf, list) and len(perf) >= 3, f"window.CalibTutorial.perf = {perf!r}"
    assert all(isinstance(v, (int, float)) and v >= 0 for v in perf)
