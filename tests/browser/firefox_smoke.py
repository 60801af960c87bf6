"""The Firefox smoke run, started in the background as the browser tests start: tests/browser/test_firefox.py
asserts on its report.

Not a test module. One Node run (``firefox/smoke.mjs``) drives Debian's firefox-esr over WebDriver BiDi and
prints a JSON report. Firefox spends most of its half-minute starting and waiting for frames to settle, so
the run overlaps the Chromium tests instead of holding a pytest worker: the first pytest process of the run
whose browser tests start (:func:`start`, from tests/browser/conftest.py) claims a folder in the run's shared
folder, writes and serves the course pages of embed_hosts.py on another origin than its site server, and
starts Node; it keeps both servers up until Node ends. Any process of the run then reads the outcome with
:func:`finished`. Nothing is downloaded: puppeteer-core is pinned in package-lock.json, launches
/usr/bin/firefox-esr, and its cache folder is an empty folder that must stay empty.
"""

import contextlib
import json
import os
import shutil
import subprocess
import time
from pathlib import Path

from sitegen.write.serve import serving

from .conftest import NODE_MODULES, ROOT
from .embed_hosts import FRAME_PROBE, HOST_STATE, SCROLL_TO, SLIDER_PROBE, TALL, VIEW, write_hosts

FIREFOX = "/usr/bin/firefox-esr"
SCRIPT = ROOT / "tests" / "browser" / "firefox" / "smoke.mjs"
PUPPETEER = NODE_MODULES / "puppeteer-core" / "package.json"
CHECKED_METRICS = ("nll", "brier", "ece-w")
NODE_TIMEOUT = 300  # seconds: the run is stopped after this, and its report is a failure
MODULE = "test_firefox.py"


def run_folder():
    """The run's folder in the test run's shared folder (``$CALIB_TEST_SHARED``, set by tests/conftest.py)."""
    return Path(os.environ["CALIB_TEST_SHARED"]) / "firefox-smoke"


def missing_prerequisite():
    """``(what, install command)`` of the first thing the run needs that this machine lacks, or None."""
    if not os.path.exists(FIREFOX):
        return f"Firefox ESR ({FIREFOX})", "apt-get update && apt-get install -y firefox-esr"
    if shutil.which("node") is None:
        return "Node.js", "apt-get update && apt-get install -y nodejs npm"
    if not PUPPETEER.exists():
        return f"puppeteer-core ({PUPPETEER.parent.relative_to(ROOT)})", "npm ci"
    return None


def fitted_six(engine):
    """Six's fitted T on the grid: its slider index and the NLL, Brier and ECE cards the engine gives there."""
    from .test_explorer import expected_cards

    fitted = engine.datasets["six"].fitted_t
    cards = expected_cards("six", "all", fitted, "equal-width", 4)
    return {"index": engine.index_of(fitted), "expected": {m: cards[m] for m in CHECKED_METRICS}}


@contextlib.contextmanager
def start(folder, inputs):
    """Start the run in ``folder`` unless another process has (or a prerequisite is missing), on the
    ``(site_dir, site_url, engine)`` that ``inputs()`` gives; while the block runs, serve its host pages; on
    leaving, wait for Node (at most :data:`NODE_TIMEOUT` s) before they and the site's server stop."""
    try:
        folder.mkdir(parents=True)
    except FileExistsError:
        yield None
        return
    if missing_prerequisite() is not None:  # test_firefox.py says what is missing
        (folder / "rc").write_text("-1")
        yield None
        return
    try:
        site_dir, site_url, engine = inputs()
        hosts, cache = folder / "hosts", folder / "puppeteer-cache"
        hosts.mkdir()
        cache.mkdir()
        loads = write_hosts(hosts, site_dir, site_url)
        expected = fitted_six(engine)
    except Exception as error:  # noqa: BLE001 (test_firefox.py reports it; the other browser tests go on)
        (folder / "stderr").write_text(f"the Firefox run could not start: {error!r}")
        (folder / "rc").write_text("-2")
        yield None
        return
    with serving(hosts) as served:
        host_url = served.replace("127.0.0.1", "localhost")  # another origin than the site's
        config = {
            "firefox": FIREFOX, "fileUrl": (site_dir / "index.html").as_uri(), "httpUrl": site_url,
            "explorer": expected,
            "hosts": {"hostUrl": host_url, "loads": loads, "tall": TALL, "view": VIEW,
                      "js": {"hostState": HOST_STATE, "frameProbe": FRAME_PROBE, "sliderProbe": SLIDER_PROBE,
                             "scrollTo": SCROLL_TO}},
        }
        (folder / "run.json").write_text(json.dumps({"site_url": site_url, "loads": loads, "fitted": expected}))
        env = dict(os.environ, PUPPETEER_SKIP_DOWNLOAD="1", PUPPETEER_CACHE_DIR=str(cache))
        script = '"$@" >"$0/stdout" 2>"$0/stderr"; echo $? >"$0/rc.part" && mv "$0/rc.part" "$0/rc"'
        process = subprocess.Popen(["sh", "-c", script, str(folder), "timeout", str(NODE_TIMEOUT),
                                    shutil.which("node"), str(SCRIPT), json.dumps(config)],
                                   cwd=ROOT, env=env, start_new_session=True)
        try:
            yield process
        finally:
            process.wait(timeout=NODE_TIMEOUT + 30)


def finished(folder, wait=NODE_TIMEOUT + 60):
    """``(exit status, report or None, stderr's tail, run.json)`` of the run in ``folder`` once it ended
    (status -1: a prerequisite is missing; -2: it could not start; 124: Node ran out of time; None: it had
    not ended after ``wait`` s)."""
    deadline = time.monotonic() + wait
    while not (folder / "rc").exists():
        if time.monotonic() > deadline:
            return None, None, "", {}
        time.sleep(0.2)
    status = int((folder / "rc").read_text())

    def read(name):
        path = folder / name
        return path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""

    lines = read("stdout").strip().splitlines()
    report = json.loads(lines[-1]) if status == 0 and lines else None
    if report is not None:
        report["downloaded"] = sorted(p.name for p in (folder / "puppeteer-cache").iterdir())
    return status, report, read("stderr")[-3000:], json.loads(read("run.json") or "{}")
