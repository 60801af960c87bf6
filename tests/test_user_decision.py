"""The decision part of ``build.py --data``: a scikit-learn digits model (359 calibration and 360 test rows, as
issue 18 tried it) built once for the module, in both languages. Expected values are restated here with numpy
and the engine's building blocks on the file's own rows, never read back from the code under test."""

import html
import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest
from digits_model import digits_model

from calib import NEGLIGIBLE_CHANGE, classwise_ece, max_gap, reliability_bins, scaled_probs

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def built(digits_report):
    """The session's ``build.py --data`` on the digits model (tests/conftest.py), with the file's own rows."""
    data, out, done = digits_report
    model, x, y = digits_model()
    saved = np.load(data)
    logits, split = saved["logits"], saved["split"]
    assert np.array_equal(saved["labels"], y)  # the same model as the file's
    record = json.loads((out / "downloads" / "yours-temperature.json").read_text())
    test = split == "test"
    return dict(out=out, stderr=done.stderr, record=record, logits=logits, labels=y, test=test, model=model, x=x,
                data=data,
                pages={"en": (out / "index.html").read_text(), "es": (out / "es" / "index.html").read_text()})


def text_of(fragment):
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", fragment))).strip()


def nll(z, y, t):
    p = scaled_probs(z, t)
    return float(np.mean(-np.log(p[np.arange(y.size), y])))


def test_temperature_json_has_the_test_metrics_ranges_verdict_version_and_schema(built):
    record, z, y, test = built["record"], built["logits"], built["labels"], built["test"]
    with open(ROOT / "pyproject.toml", "rb") as handle:
        assert record["project_version"] == tomllib.load(handle)["project"]["version"]
    assert isinstance(record["schema_version"], int) and record["schema_version"] >= 2
    decision, t = record["decision"], record["temperature"]
    assert decision["evaluated_on"] == "test" and decision["rows"] == 360
    m = decision["metrics"]["nll"]
    assert m["before"] == pytest.approx(nll(z[test], y[test], 1.0), rel=1e-9)
    assert m["after"] == pytest.approx(nll(z[test], y[test], t), rel=1e-6)  # T rounded to 10 digits on the grid
    for key, c in decision["metrics"].items():
        assert c["lo"] < c["hi"] and c["change"] == pytest.approx(c["after"] - c["before"], abs=1e-9), key
    v = decision["verdict"]
    assert v["code"] == ("helps" if m["hi"] < 0 else "hurts" if m["lo"] > 0 else "unclear")
    assert v["worse"] == [k for k, c in decision["metrics"].items() if c["after"] > c["before"]]
    spread = decision["temperature_spread"]
    assert spread["rows"] == 359 and spread["values"][0] < t < spread["values"][1]


def test_temperature_jsons_decision_keeps_ten_significant_digits(built):
    """The paired ranges come from BLAS products whose last bits follow the machine's kernel and threads: the
    file keeps 10 significant digits of every figure, so builds on any machine write the same bytes."""
    def floats(value):
        if isinstance(value, dict):
            return [f for v in value.values() for f in floats(v)]
        if isinstance(value, list):
            return [f for v in value for f in floats(v)]
        return [value] if isinstance(value, float) else []

    found = floats(built["record"]["decision"])
    assert len(found) > 10
    assert all(float(f"{v:.10g}") == v for v in found), [v for v in found if float(f"{v:.10g}") != v][:5]


def test_the_verdict_and_every_worse_metric_are_on_the_page_in_both_languages(built):
    v = built["record"]["decision"]["verdict"]
    for lang, page in built["pages"].items():
        assert f'data-verdict="{v["code"]}"' in page, lang
        sentence = text_of(re.search(r'<p class="yours-verdict"[^>]*>(.*?)</p>', page, re.S).group(1))
        assert "360" in sentence and "{" not in sentence, (lang, sentence)
        for key in v["worse"]:
            assert f'class="yours-verdict-metric" data-metric="{key}"' in page, (lang, key)
        assert page.count('<tr data-metric="') == 4
    en = text_of(re.search(r'<p class="yours-verdict"[^>]*>(.*?)</p>', built["pages"]["en"], re.S).group(1))
    if v["code"] == "unclear":
        assert "cannot show that T helps" in en and "at most" in en


def test_build_prints_the_fitted_t_and_the_verdict_last(built):
    lines = built["stderr"].strip().splitlines()
    assert lines[-2] == f"your model: fitted T = {json.dumps(built['record']['temperature'])}"
    assert lines[-1].startswith(f"your model: verdict: {built['record']['decision']['verdict']['code']}")


def test_mce_over_bins_of_enough_rows_is_the_engines_max_gap_without_the_small_bins(built):
    from sitegen.common.numbers import pct
    from sitegen.common.settings import USER_MCE_MIN_ROWS
    z, y, test, t = built["logits"], built["labels"], built["test"], built["record"]["temperature"]
    p = scaled_probs(z[test], t)
    bins = reliability_bins(p.max(axis=1), p.argmax(axis=1) == y[test], 15)
    kept = max_gap(bins._replace(count=np.where(bins.count < USER_MCE_MIN_ROWS, 0, bins.count)))
    assert max_gap(bins) > kept  # the digits model's largest gap sits in a bin of a few rows
    row = re.search(r'<th scope="row">MCE, equal-width bins of ≥ 10 rows</th><td>[^<]*</td><td>([^<]*)</td>',
                    built["pages"]["en"]).group(1)
    assert row == pct(float(kept), 1, {"decimal": ".", "percent": "{value}%"})


def test_per_class_table_and_classwise_ece(built):
    z, y, test, t = built["logits"], built["labels"], built["test"], built["record"]["temperature"]
    page = built["pages"]["en"]
    table = re.search(r'<table class="yours-classes[ "].*?</table>', page, re.S).group(0)
    assert table.count("<tr><th scope=\"row\">") == 10
    mean = text_of(re.search(r'<p class="yours-classwise">(.*?)</p>', page, re.S).group(1))
    for value in (classwise_ece(scaled_probs(z[test], 1.0), y[test], 15),
                  classwise_ece(scaled_probs(z[test], t), y[test], 15)):
        assert f"{round(value * 100, 1):.1f}%" in mean


def test_the_report_explorer_opens_at_the_fitted_t(built):
    page = built["pages"]["en"]
    slider = re.search(r'<input type="range" id="yr1-t" [^>]*value="(\d+)"', page).group(1)
    readout = re.search(r'<output id="yr1-t-readout"[^>]*>([^<]*)</output>', page).group(1)
    t = built["record"]["temperature"]
    assert readout == f"{t:.3g}" and int(slider) > 0
    main = re.search(r'<input type="range" id="explorer-t" [^>]*value="(\d+)"', page)
    assert main is None or main.group(1) != slider  # the main explorer still opens at T = 1


def snippet(page, key):
    code = re.search(rf'<pre class="yours-snippet" data-snippet="{key}"[^>]*><code>(.*?)</code></pre>', page, re.S)
    return html.unescape(code.group(1))


def test_the_numpy_snippet_on_the_page_and_in_the_download_gives_the_engines_probabilities(built):
    z, t = built["logits"], built["record"]["temperature"]
    expected = scaled_probs(z, t)
    deploy_file = (built["out"] / "downloads" / "yours-deploy.py").read_text()
    for source in (snippet(built["pages"]["en"], "numpy"), deploy_file):
        space = {}
        exec(compile(source, "snippet", "exec"), space)
        assert space["T"] == t
        assert np.allclose(space["calibrated_probs"](z), expected, rtol=1e-12, atol=1e-15)


def test_the_pytorch_snippet_where_torch_is_importable(built):
    torch = pytest.importorskip("torch")
    z, t = built["logits"], built["record"]["temperature"]
    space = {}
    exec(compile(snippet(built["pages"]["en"], "pytorch"), "snippet", "exec"), space)
    got = space["calibrated_probs_torch"](torch.tensor(z, dtype=torch.float64)).numpy()
    assert np.allclose(got, scaled_probs(z, t), rtol=1e-12, atol=1e-15)


def test_the_sklearn_wrapper_scales_decision_function_and_keeps_a_binary_models_own_sigmoid(built):
    from sklearn.linear_model import LogisticRegression
    space = {}
    exec(compile(snippet(built["pages"]["en"], "sklearn"), "snippet", "exec"), space)
    model, x, t = built["model"], built["x"], built["record"]["temperature"]
    wrapped = space["TemperatureScaled"](model)
    assert np.allclose(wrapped.predict_proba(x), scaled_probs(model.decision_function(x), t), rtol=1e-10)
    assert (wrapped.predict(x) == model.predict(x)).all()
    binary = LogisticRegression().fit(x[:200], built["labels"][:200] % 2)
    at_one = space["TemperatureScaled"](binary, temperature=1.0)
    assert np.allclose(at_one.predict_proba(x), binary.predict_proba(x), rtol=1e-9)


def test_for_a_file_of_probabilities_the_wrapper_tempers_the_log_of_predict_proba():
    """A model whose predict_proba is not the softmax of its decision_function (a one-vs-rest sigmoid, say): T
    fitted on log(predict_proba) must be applied to log(predict_proba), not to decision_function."""
    from sitegen.yours.decision import deploy_snippets

    rng = np.random.default_rng(4)
    x = rng.normal(size=(50, 3))

    class OneVsRest:
        classes_ = np.arange(3)

        def decision_function(self, rows):
            return rows * 2.0

        def predict_proba(self, rows):
            odds = 1.0 / (1.0 + np.exp(-self.decision_function(rows)))
            return odds / odds.sum(axis=1, keepdims=True)

    t = 1.7
    space = {}
    exec(compile(deploy_snippets(repr(t), "probabilities")["sklearn"], "snippet", "exec"), space)
    got = space["TemperatureScaled"](OneVsRest()).predict_proba(x)
    assert np.allclose(got, scaled_probs(np.log(OneVsRest().predict_proba(x)), t), rtol=1e-12)
    assert not np.allclose(got, scaled_probs(OneVsRest().decision_function(x), t), rtol=1e-3)


@pytest.fixture(scope="module")
def compared(built, tmp_path_factory):
    """``python -m calib compare FILE --json --save pick.json`` on the report's file, once for the module: the
    printed report and the saved calibrator's path."""
    saved = tmp_path_factory.mktemp("compare") / "pick.json"
    done = subprocess.run([sys.executable, "-m", "calib", "compare", str(built["data"]), "--json", "--save",
                           str(saved)], cwd=str(ROOT), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), saved


def test_the_calibrator_comparison_on_both_pages_is_calib_compare_json(built, compared):
    """The report's table, cell by cell, and its verdict are what ``python -m calib compare FILE --json`` prints
    for the same file (another entry point: the command reads the file itself)."""
    from sitegen.common.numbers import fixed, pct, pp
    report = compared[0]
    assert report["split"]["parts"] == {"calibration": 359, "test": 360} and report["skipped"] == {}
    fmt = {"decimal": ".", "percent": "{value}%", "points": "{value} pp"}
    for lang, page in built["pages"].items():
        table = re.search(r'<table class="beyond-table[^"]*" aria-labelledby="yours-compare-caption">(.*?)</table>',
                          page, re.S).group(1)
        assert table.count("<tr data-method=") == len(report["methods"]) == 8, lang
        verdict = re.search(r'<p class="yours-compare-verdict" data-verdict="([a-z]+)">(.*?)</p>', page, re.S)
        assert verdict.group(1) == report["verdict"]["code"] and "360" in verdict.group(2), lang
        # the decision's verdict points to the table when another calibrator beats temperature scaling
        assert ('class="yours-verdict-others"' in page) == (report["verdict"]["code"] == "beats"), lang
        assert "yours-compare-skipped" not in page
        if lang != "en":
            continue
        for m in report["methods"]:
            row = re.search(rf'<tr data-method="{m["method"]}">(.*?)</tr>', table, re.S).group(1)
            for score, cell in m["scores"].items():
                text = text_of(re.search(rf'<td data-score="{score}"[^>]*>(.*?)</td>', row, re.S).group(1))
                money = score in ("nll", "brier")
                show = (lambda v: "∞" if v is None else fixed(v, 4, fmt)) if money else (lambda v: pct(v, 1, fmt))
                assert text.startswith(show(cell["value"])), (m["method"], score, text)
                if m["method"] != "temperature":
                    lo, hi = cell["range"]
                    # a range in percentage points names its unit once, after the upper end
                    span = f"{show(lo)} to {show(hi)}" if money else f"{fixed(lo * 100, 1, fmt)} to {pp(hi, 1, fmt)}"
                    if money and lo is None and hi is None:  # both ends infinite: the strings' own words
                        span = tomllib.loads((ROOT / "content" / "en" / "strings.toml").read_text(
                            encoding="utf-8"))["beyond"]["infinite_range"]
                    assert text.endswith(span), (m["method"], score, text, span)
                    # a change wholly below zero is better for a loss, worse for accuracy (higher is better)
                    below = "worse" if score == "accuracy" else "better"
                    above = "better" if score == "accuracy" else "worse"
                    # beyond its range: wholly below or above zero, by more than the least change the verdict counts
                    least = NEGLIGIBLE_CHANGE
                    beyond = below if hi is not None and hi < -least else above if lo is not None and lo > least else ""
                    assert (f'data-score="{score}" class="{beyond}"' in row) == bool(beyond)
        sentence = text_of(verdict.group(2))
        for method, scores in report["verdict"]["beats"].items():
            assert method.split("-")[0].lower() in sentence.lower(), (method, sentence)
        if report["verdict"]["code"] == "none":
            assert sentence.startswith("On these 360 test rows, no other calibrator beats temperature scaling")


def test_the_calibrator_to_deploy_is_offered_as_calib_compare_saves_it(built, compared):
    """When the comparison picks a calibrator other than T, the page names it and offers the JSON and code that
    ``python -m calib compare FILE --save`` writes (another entry point, which reads the file itself); the code,
    run alone, gives that calibrator's probabilities. When it picks T, no such file is offered."""
    report, saved = compared
    deploy = report["deploy"]
    method = deploy["method"]
    pick = re.search(r'<p class="yours-compare-pick" data-method="([a-z-]*)">', built["pages"]["en"])
    assert pick.group(1) == ("" if deploy["code"] == "check" else method)
    offered = sorted(p.name for p in (built["out"] / "downloads").glob("yours-*"))
    if method == "temperature" or deploy["code"] == "check":
        assert not [name for name in offered if name.split(".")[0] not in (
            "yours-temperature", "yours-deploy", "yours-metrics", "yours-groups")], offered
        return
    page_json = built["out"] / "downloads" / f"yours-{method}.json"
    ours, theirs = json.loads(page_json.read_text()), json.loads(saved.read_text())
    assert ours.pop("data")["sha256"] == theirs.pop("data")["sha256"]
    assert ours == theirs
    assert f"yours-{method}.json" in built["pages"]["en"] and f"yours-{method}.py" in built["pages"]["en"]
    code = {}
    exec(compile((built["out"] / "downloads" / f"yours-{method}.py").read_text(), "deploy", "exec"), code)
    z, test = built["logits"], built["test"]
    probs = code["calibrated_probs"](z[test], code["load_calibrator"](str(page_json)))
    import calib
    fitted = calib.load_calibrator(str(saved))
    np.testing.assert_allclose(probs, fitted.predict_proba(z[test]), rtol=0, atol=1e-12)


@pytest.mark.parametrize("method", ["histogram", "isotonic", "vector"])
def test_the_offered_calibrator_files_deploy_what_was_fitted(tmp_path, method):
    """The page's files for a recommended calibrator other than T (sitegen.yours.model.calibrator_files): the JSON
    read back by ``calib.load_calibrator``, and the .py run alone on it, give the fitted calibrator's probabilities;
    T, or a warning, offers none."""
    from types import SimpleNamespace

    import calib
    from sitegen.yours.model import calibrator_files, load_user_model

    rng = np.random.default_rng(5)
    labels = rng.integers(0, 4, 600)
    logits = rng.normal(0, 1, (600, 4)) + 3.0 * np.eye(4)[labels] + np.array([0.8, 0.0, -0.5, 0.2])
    np.savez(tmp_path / "m.npz", logits=logits, labels=labels)
    user = load_user_model(tmp_path / "m.npz")
    rows = user.parts["calibration"]
    fitted = calib.CALIBRATORS[method]().fit(logits[rows], labels[rows])
    decided = SimpleNamespace(recommended=method, recommended_calibrator=fitted, verdict=SimpleNamespace(code="helps"))
    files = calibrator_files(user, decided)
    assert sorted(files) == [f"downloads/yours-{method}.json", f"downloads/yours-{method}.py"]
    for path, text in files.items():
        (tmp_path / path.split("/")[1]).write_text(text)
    record = json.loads(files[f"downloads/yours-{method}.json"])
    assert record["kind"] == method and record["data"]["rows"] == int(rows.sum())
    want = fitted.predict_proba(logits)
    np.testing.assert_allclose(calib.load_calibrator(record).predict_proba(logits), want, rtol=0, atol=1e-12)
    code = {}
    exec(compile(files[f"downloads/yours-{method}.py"], "deploy", "exec"), code)
    got = code["calibrated_probs"](logits, code["load_calibrator"](str(tmp_path / f"yours-{method}.json")))
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    assert calibrator_files(user, SimpleNamespace(recommended="temperature", verdict=SimpleNamespace(code="helps"))) \
        == {}
    decided.verdict = SimpleNamespace(code="check")  # a warning stands: nothing to deploy
    assert calibrator_files(user, decided) == {}

