"""Firefox smoke suite: Debian's firefox-esr, driven over WebDriver BiDi by puppeteer-core.

One Node run (``firefox/smoke.mjs``) does the browser work and prints a JSON report; the tests
below each assert one part of it. The expected explorer values come from the engine, computed here
and passed to the script. Nothing is downloaded: puppeteer-core is pinned in package-lock.json and
launches /usr/bin/firefox-esr, with ``PUPPETEER_SKIP_DOWNLOAD`` set and its cache folder pointed at an
empty temporary folder that must stay empty. A missing firefox-esr, Node.js or puppeteer-core fails
these tests under ``CI`` and skips them elsewhere, like Chromium.
"""

import json
import os
import re
import shutil
import subprocess

import pytest

from sitegen.write.serve import serving

from .conftest import NODE_MODULES, ROOT, missing
from .embed_hosts import (
    FRAME_PROBE,
    HOST_STATE,
    LOADS,
    SCROLL_TO,
    SLIDER_PROBE,
    TALL,
    VIEW,
    problems,
    slider_problems,
    write_hosts,
)
from .test_explorer import expected_cards

pytestmark = pytest.mark.every_language  # each edition in a second engine

FIREFOX = "/usr/bin/firefox-esr"
SCRIPT = ROOT / "tests" / "browser" / "firefox" / "smoke.mjs"
PUPPETEER = NODE_MODULES / "puppeteer-core" / "package.json"
CHECKED_METRICS = ("nll", "brier", "ece-w")


@pytest.fixture(scope="module")
def fitted_six(engine):
    """Six's fitted T on the grid: its slider index and the NLL, Brier and ECE cards the engine gives there."""
    fitted = engine.datasets["six"].fitted_t
    cards = expected_cards("six", "all", fitted, "equal-width", 4)
    return {"index": engine.index_of(fitted), "expected": {m: cards[m] for m in CHECKED_METRICS}}


@pytest.fixture(scope="module")
def hosts(tmp_path_factory, site_dir, site_url):
    """The course pages of embed_hosts.py, served on another origin than the site: (address, loads)."""
    folder = tmp_path_factory.mktemp("hosts")
    loads = write_hosts(folder, site_dir, site_url)
    with serving(folder) as url:
        yield url.replace("127.0.0.1", "localhost"), loads


@pytest.fixture(scope="module")
def report(site_dir, site_url, fitted_six, hosts, tmp_path_factory):
    """The smoke script's JSON report (one Firefox run for the whole module)."""
    if not os.path.exists(FIREFOX):
        missing(f"Firefox ESR ({FIREFOX})", "apt-get update && apt-get install -y firefox-esr")
    node = shutil.which("node")
    if node is None:
        missing("Node.js", "apt-get update && apt-get install -y nodejs npm")
    if not PUPPETEER.exists():
        missing(f"puppeteer-core ({PUPPETEER.parent.relative_to(ROOT)})", "npm ci")
    config = {
        "firefox": FIREFOX,
        "fileUrl": (site_dir / "index.html").as_uri(),
        "httpUrl": site_url,
        "explorer": fitted_six,
        "hosts": {"hostUrl": hosts[0], "loads": hosts[1], "tall": TALL, "view": VIEW,
                  "js": {"hostState": HOST_STATE, "frameProbe": FRAME_PROBE, "sliderProbe": SLIDER_PROBE,
                         "scrollTo": SCROLL_TO}},
    }
    cache = tmp_path_factory.mktemp("puppeteer-cache")
    env = dict(os.environ, PUPPETEER_SKIP_DOWNLOAD="1", PUPPETEER_CACHE_DIR=str(cache))
    result = subprocess.run([node, str(SCRIPT), json.dumps(config)], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=300)
    lines = result.stdout.strip().splitlines()
    if result.returncode != 0 or not lines:
        pytest.fail(f"{SCRIPT.name} exited {result.returncode}:\n{result.stderr[-3000:]}", pytrace=False)
    data = json.loads(lines[-1])
    assert "crash" not in data, f"the smoke script stopped: {data['crash']}\n{result.stderr[-3000:]}"
    data["downloaded"] = sorted(p.name for p in cache.iterdir())
    return data


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
def test_every_widget_fits_each_host_without_an_error(report, hosts, site_url, kind, lang, scheme):
    """The Chromium test's course pages (embed_hosts.py), judged by the same rule in Firefox."""
    load = next(x for x in hosts[1] if (x["kind"], x["lang"], x["scheme"]) == (kind, lang, scheme))
    got = next(x for x in report["hosts"] if x["file"] == load["file"])
    assert "crash" not in got, got["crash"]
    seen = got["seen"]
    assert seen["errors"] == [] and seen["failed"] == [] and seen["external"] == [], seen
    found = problems(load, got["state"], got["probes"], site_url.rstrip("/"))
    if got["slider"] is not None:
        found += slider_problems(load, got["slider"]["before"], got["slider"]["after"], got["slider"]["geometry"])
    assert not found, found
