"""Firefox smoke suite: Debian's firefox-esr, driven over WebDriver BiDi by puppeteer-core.

One Node run (``firefox/smoke.mjs``) does the browser work and prints a JSON report; the tests
below each assert one part of it. The run starts in the background with the browser tests
(firefox_smoke.py), so this file only waits for its report. The expected explorer values come from the
engine, computed there and passed to the script. Nothing is downloaded: puppeteer-core is pinned in
package-lock.json and launches /usr/bin/firefox-esr, with ``PUPPETEER_SKIP_DOWNLOAD`` set and its cache
folder pointed at an empty temporary folder that must stay empty. A missing firefox-esr, Node.js or
puppeteer-core fails these tests under ``CI`` and skips them elsewhere, like Chromium.
"""

import json
import re
import shutil
import subprocess

import pytest

from .conftest import ROOT, missing
from .embed_hosts import LOADS, problems, slider_problems
from .firefox_smoke import SCRIPT, finished, missing_prerequisite, run_folder

pytestmark = pytest.mark.every_language  # each edition in a second engine


@pytest.fixture(scope="module")
def run(site_dir):
    """``(report, used)``: the smoke script's JSON report on the session's site (``site_dir``: so the file is
    ordered with the tests that wait for the site, tests/conftest.py), and the site address, host pages and
    expected values the run used (firefox_smoke.py's run.json)."""
    lacking = missing_prerequisite()
    if lacking is not None:
        missing(*lacking)
    status, report, stderr, used = finished(run_folder())
    if status is None:
        pytest.fail(f"the Firefox run in {run_folder()} did not end", pytrace=False)
    if report is None:
        pytest.fail(f"{SCRIPT.name} exited {status}:\n{stderr}", pytrace=False)
    assert "crash" not in report, f"the smoke script stopped: {report['crash']}\n{stderr}"
    return report, used


@pytest.fixture(scope="module")
def report(run):
    return run[0]


@pytest.fixture(scope="module")
def fitted_six(run):
    """Six's fitted T on the grid: its slider index and the NLL, Brier and ECE cards the engine gives there."""
    return run[1]["fitted"]


def test_puppeteer_core_is_pinned_to_a_version_for_this_node():
    pinned = json.loads((ROOT / "package.json").read_text(encoding="utf-8"))["devDependencies"]["puppeteer-core"]
    packages = json.loads((ROOT / "package-lock.json").read_text(encoding="utf-8"))["packages"]
    entry = packages["node_modules/puppeteer-core"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", pinned) and entry["version"] == pinned, (pinned, entry["version"])
    assert "node_modules/puppeteer" not in packages, "the full puppeteer package downloads a browser"
    node = shutil.which("node")
    if node is None:
        missing("Node.js", "apt-get update && apt-get install -y nodejs npm")
    have = tuple(int(x) for x in subprocess.run([node, "--version"], capture_output=True, text=True,
                                                check=True).stdout.strip().lstrip("v").split("."))
    match = re.fullmatch(r">=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?", entry["engines"]["node"])
    assert match, f"read this engines range by hand: {entry['engines']['node']}"
    least = tuple(int(x or 0) for x in match.groups())
    assert have >= least, f"puppeteer-core {pinned} needs node {entry['engines']['node']}, this is {have}"


def page_is_clean(part):
    assert part["ready"], "the page's scripts never ran (no js-ready mark)"
    assert part["errors"] == [], part["errors"]
    assert part["failed"] == [], part["failed"]
    assert part["external"] == [], part["external"]


def test_it_is_firefox_and_nothing_was_downloaded(report):
    assert report["version"].startswith("firefox/"), report["version"]
    assert report["downloaded"] == [], f"puppeteer fetched something: {report['downloaded']}"


def test_the_page_loads_from_disk_without_errors(report):
    page_is_clean(report["file"])


def test_the_page_loads_over_http_without_errors(report):
    page_is_clean(report["http"])
    assert report["http"]["requests"] > 1


def test_every_range_select_radio_and_checkbox_changes_its_readout(report):
    controls = report["controls"]
    kinds = {c["kind"] for c in controls}
    assert kinds == {"range", "select", "radio", "checkbox", "number"}, kinds
    assert len(controls) >= 30, f"only {len(controls)} controls found"
    hidden = [c["id"] for c in controls if c.get("hidden")]
    unchanged = [f"{c['kind']} {c['id']}" for c in controls if not c["changed"] and not c.get("hidden")]
    assert hidden == [], f"controls still hidden when operated: {hidden}"
    assert unchanged == [], f"operating these changed nothing on the page: {unchanged}"


def test_the_explorer_at_the_fitted_t_of_six_shows_the_engines_scores(report, fitted_six):
    shown = report["fitted"]
    assert shown["index"] == fitted_six["index"], "the Fitted T button did not move the slider to the fitted T"
    assert shown["shown"] == fitted_six["expected"]


def test_mathml_is_rendered(report):
    math = report["math"]
    assert math["count"] > 0 and math["mathNamespace"], math
    for size in (math["first"], math["firstDisplay"]):
        assert size and size[0] > 0 and size[1] > 0, math


@pytest.mark.parametrize("kind, lang, scheme", LOADS, ids=["-".join(load) for load in LOADS])
def test_every_widget_fits_each_host_without_an_error(run, kind, lang, scheme):
    """The Chromium test's course pages (embed_hosts.py), judged by the same rule in Firefox."""
    report, used = run
    site_url = used["site_url"]
    load = next(x for x in used["loads"] if (x["kind"], x["lang"], x["scheme"]) == (kind, lang, scheme))
    got = next(x for x in report["hosts"] if x["file"] == load["file"])
    assert "crash" not in got, got["crash"]
    seen = got["seen"]
    assert seen["errors"] == [] and seen["failed"] == [] and seen["external"] == [], seen
    found = problems(load, got["state"], got["probes"], site_url.rstrip("/"))
    if got["slider"] is not None:
        found += slider_problems(load, got["slider"]["before"], got["slider"]["after"], got["slider"]["geometry"])
    assert not found, found
