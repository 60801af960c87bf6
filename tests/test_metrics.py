"""The metric registry (sitegen/common/metrics.py) and docs/architecture.md's "Adding a metric": a throwaway
metric ("probe", the mean squared confidence) declared only by an engine function, its registry record and
its card's strings reaches the grid pass, every row set's payload (the dataset parts, the groups at their own
T, the other calibrators), the core payload's list the scripts decode, its card's markup and the metrics CSV,
with the values its function gives on the engine's confidences (computed here the plain way: calib.top_label,
calib.group_metrics, a calibrator's probabilities). tests/browser/test_metric_recipe.py sees its card in a
browser. The expected values are the function applied directly, never read back from the payload's writer."""

import contextlib
import csv
import io
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

import calib
import sitegen.common.metrics as metrics
from sitegen.common.errors import BuildError
from sitegen.common.metrics import SCALES, Card, Metric
from sitegen.render.codec import unpack

ROOT = Path(__file__).resolve().parents[1]
LANGUAGES = ("en", "es")
PROBE = Metric("probe", "probe_mean_square_confidence", "series", "rate", "pct", False, (Card("probe"),), csv="probe")
PROBE_STRINGS = '\n[ui.cards.probe]\ntitle = "Probe"\nnote = "mean squared confidence"\n'


def mean_square_confidence(confidence, correct):
    """The throwaway metric: each row's mean squared confidence, (G, n) → (G,)."""
    return np.mean(np.square(confidence), axis=1)


@contextlib.contextmanager
def probe_metric():
    """The registry with the probe metric added (and its engine function on ``calib``), for the ``with`` block."""
    # (the module's functions are looked up by calib attribute, so a test-only function is set on calib)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(calib, PROBE.engine, mean_square_confidence, raising=False)
        patch.setattr(metrics, "METRICS", metrics.METRICS + (PROBE,))
        yield PROBE


def add_probe_strings(root):
    """The probe card's words in the English strings of the private copy of the sources at ``root``."""
    strings = root / "content" / "en" / "strings.toml"
    text = strings.read_text(encoding="utf-8")
    assert text.count("\n[ui.cards.confidence]") == 1
    strings.write_text(text + PROBE_STRINGS, encoding="utf-8")


def probe_site(tmp_path, precomputed):
    """``(files, probe_precomputed)``: the English page stage of a private copy of the sources with the probe
    metric registered, over a precomputation made with it (the analyses and facts of ``precomputed``, and the
    calibrator fits it read, none of which the registry changes); computed once per test run (this module and
    the browser's share it). The build cache stays off while it runs: the probe is in no key."""
    from shared_values import shared_value
    from sitegen_inputs import page_inputs

    from sitegen.assemble.page import Edition, assemble_files
    from sitegen.compute.precompute import precompute_all
    from sitegen.content.sections import load_sections, load_strings

    def compute():
        root = tmp_path / "root"
        for name in ("templates", "static", "content"):
            shutil.copytree(ROOT / name, root / name, ignore=shutil.ignore_patterns("__pycache__"))
        add_probe_strings(root)
        analyses, facts, figures = page_inputs(precomputed)
        with probe_metric():
            probed = precompute_all()
            content = root / "content" / "en"
            edition = Edition("en", "", load_strings(content), load_sections(content), figures)
            return assemble_files(root, probed, analyses, facts, [edition]), probed

    return shared_value("probe_metric_site", compute)


def payload(files, path, kind=None):
    """The JSON payload a script queues (``….push(["<kind>",{…}])``; the first one, or the first of ``kind``)."""
    text = files[path]
    start = text.index(f'.push(["{kind}",' if kind else '.push(["')
    return json.JSONDecoder().raw_decode(text, text.index("{", start))[0]


def series_values(series):
    """A ``{t1, d}`` grid series of the payload, decoded the plain way: value at T = 1 plus the running sum."""
    return series["t1"] + np.cumsum(unpack(series["d"]))


def close_in_units(units, value, scale):
    """``units`` (display units) is ``value`` rounded to them: within half a unit (plus float noise)."""
    return np.all(np.abs(np.asarray(units) / scale - np.asarray(value)) <= 0.5 / scale + 1e-12)


# --- the registry itself ---------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_registered_card_and_column_has_its_words_in_each_language(lang):
    from sitegen.content.sections import load_strings

    ui = load_strings(ROOT / "content" / lang)["ui"]
    for metric in metrics.registered():
        for card in metric.cards:
            words = ui["cards"][card.name]
            assert words["title"] and words["note"], (lang, card.name)
            assert card.sub != "bins" or words["sub"], (lang, card.name)
        assert not metric.compare or ui[metric.compare], (lang, metric.key)


@pytest.mark.parametrize("record, message", [
    (PROBE._replace(kind="curve"), "kind must be one of series, constant, binned"),
    (PROBE._replace(scale="percent"), "scale must be one of score, rate"),
    (PROBE._replace(engine="no_such_function"), "engine 'no_such_function' is neither"),
    (PROBE._replace(key="nll"), "is declared twice"),
    (PROBE._replace(cards=(Card("nll"),)), "card 'nll' is declared twice"),
    (PROBE._replace(cards=(Card("probe", scheme="adaptive"),)), "only a binned metric's card names a scheme"),
])
def test_a_malformed_record_stops_the_build_naming_it(monkeypatch, record, message):
    monkeypatch.setattr(calib, PROBE.engine, mean_square_confidence, raising=False)
    monkeypatch.setattr(metrics, "METRICS", metrics.METRICS + (record,))
    with pytest.raises(BuildError) as raised:
        metrics.registered()
    assert "sitegen/common/metrics.py" in str(raised.value) and message in str(raised.value)


def test_the_grid_pass_computes_the_extra_metrics_it_is_handed():
    data = calib.load("sim-600")
    temps = np.geomspace(0.3, 4.0, 7)
    m = calib.grid_metrics(data.logits, data.labels, temps, bin_counts=(5,), extra={"probe": mean_square_confidence},
                           binning_elements=2 * data.labels.size)  # four blocks
    confidence, _ = calib.top_label(data.logits, data.labels, temps)
    np.testing.assert_allclose(m.extra["probe"], np.mean(confidence ** 2, axis=1), rtol=1e-12)


# --- the recipe: a throwaway metric everywhere a metric shows ----------------------------------------


@pytest.fixture(scope="module")
def probed(precomputed, tmp_path_factory):
    return probe_site(tmp_path_factory.mktemp("metric"), precomputed)


def test_a_registered_metric_is_in_every_row_sets_payload(probed, precomputed):
    files, result = probed
    grid = precomputed.grid
    scale = SCALES[PROBE.scale]
    core = payload(files, "app.js", "core")
    assert {"key": "probe", "kind": "series", "format": "pct", "compare": 0, "cards": [{"name": "probe"}]} \
        in core["metrics"]
    for name, data in ((n, calib.load(n)) for n in precomputed.datasets):
        for part, rows in calib.part_masks(data).items():
            confidence, _ = calib.top_label(data.logits[rows], data.labels[rows], grid)
            shown = series_values(payload(files, f"data/{name}.js")["parts"][part]["probe"])
            assert close_in_units(shown, np.mean(confidence ** 2, axis=1), scale), (name, part)
    # each group at its own T: every row at its own group's fitted T (the groups file's "own")
    mixed = calib.load("mixed")
    groups = payload(files, "data/mixed-groups.js")
    temps = result.datasets["mixed"].groups.temperatures
    names = np.asarray(mixed.groups)
    for part, rows in calib.part_masks(mixed).items():
        for g in temps:
            chosen = rows & (names == g)
            confidence, _, _, _ = calib.row_scores(mixed.logits[chosen], mixed.labels[chosen], temps[g])
            assert close_in_units(groups["own"][part][g]["probe"], np.mean(confidence ** 2), scale), (part, g)
    # another calibrator's test rows
    from sitegen.analyses.calibrator_fits import method_fits, method_rows

    methods = payload(files, "data/overconfident-methods.js")["methods"]
    _, _, z_test, _ = method_rows("overconfident")
    for method, record in methods.items():
        confidence = method_fits("overconfident")[method].predict_proba(z_test).max(axis=1)
        assert close_in_units(record["probe"], np.mean(confidence ** 2), scale), method


def test_a_registered_metric_is_a_column_of_the_metrics_csv(probed, precomputed):
    files, _ = probed
    rows = list(csv.DictReader(io.StringIO(files["downloads/sim-600-metrics.csv"])))
    header = list(rows[0])
    assert header.index("mean_confidence") < header.index("probe") < header.index("ece_equal-width_4")
    data = calib.load("sim-600")
    test = calib.part_masks(data)["test"]
    confidence, _ = calib.top_label(data.logits[test], data.labels[test], precomputed.grid)
    shown = [float(r["probe"]) for r in rows if r["part"] == "test"]
    np.testing.assert_allclose(shown, np.mean(confidence ** 2, axis=1), rtol=0, atol=1e-8)


def test_a_registered_metric_gets_a_card_in_the_full_panel_only(probed):
    files, _ = probed
    page = files["index.html"] + files.get("data/markup-en.js", "")
    assert '<div class="card" data-metric="probe">' in page.replace('\\"', '"')
    assert '<h3 class="card-title">Probe</h3>' in page.replace('\\"', '"').replace("\\/", "/")
    explorer = files["index.html"][files["index.html"].index('id="fit1"'):]
    assert 'data-metric="probe"' not in explorer.split('<div class="explorer-wrap')[0]  # "cards-basic": three
