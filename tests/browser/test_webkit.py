"""WebKit smoke tests: Debian's WebKitGTK MiniBrowser through WebKitWebDriver (classic WebDriver).

WebKitGTK has no headless mode (MiniBrowser stops with "cannot open display" without an X server, and
a session request then hangs), so the fixture starts Xvfb on a free display first. Classic WebDriver
has no console log, so the page's errors are caught by a listener installed right after load (errors
while a reader operates the page), and every request is recorded by the test's own server (no failed
request, nothing outside it). A missing WebKitWebDriver or Xvfb fails under ``CI`` and skips elsewhere.
"""

import contextlib
import functools
import glob
import http.server
import json
import os
import shutil
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request

import pytest

from .conftest import missing
from .test_explorer import expected_cards

pytestmark = pytest.mark.every_language  # each edition in a third engine

DRIVER = "/usr/bin/WebKitWebDriver"
MINIBROWSER = next(iter(sorted(glob.glob("/usr/lib/*/webkit2gtk-4.*/MiniBrowser"))), "MiniBrowser (not found)")
ARROW_RIGHT = "\ue014"


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class WebDriver:
    """The few W3C WebDriver commands these tests need, over plain HTTP."""

    def __init__(self, url):
        self.url = url
        self.session = None

    def call(self, method, path, body=None, timeout=60):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.url + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return json.load(response)["value"]
        except urllib.error.HTTPError as error:
            raise AssertionError(f"WebDriver {method} {path}: {json.load(error)['value']}") from None

    def start(self, binary):
        options = {"binary": binary, "args": ["--automation"]}
        caps = {"capabilities": {"alwaysMatch": {"webkitgtk:browserOptions": options}}}
        self.session = self.call("POST", "/session", caps, timeout=120)["sessionId"]

    def do(self, method, path, body=None):
        return self.call(method, f"/session/{self.session}{path}", body)

    def go(self, url):
        self.do("POST", "/url", {"url": url})

    def run(self, script, *args):
        return self.do("POST", "/execute/sync", {"script": script, "args": list(args)})

    def wait(self, script, *args, timeout=10):
        deadline = time.monotonic() + timeout
        while True:
            value = self.run(script, *args)
            if value or time.monotonic() > deadline:
                return value
            time.sleep(0.1)

    def element(self, css):
        found = self.do("POST", "/element", {"using": "css selector", "value": css})
        return next(iter(found.values()))

    def click(self, css):
        self.do("POST", f"/element/{self.element(css)}/click", {})

    def keys(self, css, text):
        self.do("POST", f"/element/{self.element(css)}/value", {"text": text})

    def quit(self):
        if self.session:
            with contextlib.suppress(Exception):
                self.do("DELETE", "")


@contextlib.contextmanager
def xvfb():
    """Xvfb on a display number it picks itself; yields ":N"."""
    read, write = os.pipe()
    server = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x900x24", "-nolisten", "tcp"],
                              pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    try:
        with os.fdopen(read) as pipe:
            number = pipe.readline().strip()
        assert number, "Xvfb did not start"
        yield f":{number}"
    finally:
        server.terminate()
        server.wait(timeout=10)


@pytest.fixture(scope="module")
def webkit():
    """One WebKitGTK MiniBrowser session for the module."""
    if not os.path.exists(DRIVER) or not os.path.exists(MINIBROWSER):
        missing(f"WebKitGTK's WebDriver ({DRIVER})", "apt-get update && apt-get install -y webkit2gtk-driver")
    if shutil.which("Xvfb") is None:
        missing("Xvfb (WebKitGTK needs an X display)", "apt-get update && apt-get install -y xvfb")
    with xvfb() as display:
        port = free_port()
        driver = subprocess.Popen([DRIVER, f"--port={port}"], env=dict(os.environ, DISPLAY=display),
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        client = WebDriver(f"http://127.0.0.1:{port}")
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    client.call("GET", "/status", timeout=5)
                    break
                except (urllib.error.URLError, ConnectionError):
                    assert time.monotonic() < deadline, "WebKitWebDriver did not answer"
                    time.sleep(0.2)
            client.start(MINIBROWSER)
            yield client
        finally:
            client.quit()
            driver.terminate()
            driver.wait(timeout=10)


class RecordingHandler(http.server.SimpleHTTPRequestHandler):
    def log_request(self, code="-", size="-"):
        self.server.log.append((self.path, int(code) if str(code).isdigit() else code))


@pytest.fixture(scope="module")
def recorded_site(site_dir):
    """The site on loopback, recording (path, status) of every request; yields (url, log)."""
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(RecordingHandler, directory=str(site_dir)))
    server.daemon_threads = True
    server.log = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/", server.log
    finally:
        server.shutdown()
        server.server_close()


CATCH_ERRORS = """window.smokeErrors = [];
window.addEventListener('error', e => window.smokeErrors.push(String(e.message)));
window.addEventListener('unhandledrejection', e => window.smokeErrors.push(String(e.reason)));
const original = console.error;
console.error = (...a) => { window.smokeErrors.push(a.map(String).join(' ')); original.apply(console, a); };"""
READY = "return document.documentElement.classList.contains('js-ready')"
MATH = ("return Array.from(document.querySelectorAll('math')).slice(0, 20)"
        ".map(e => { const r = e.getBoundingClientRect(); return [r.width, r.height]; })")
CARD = "return document.querySelector(`#ex1 [data-metric='${arguments[0]}'] .value`).textContent.trim()"


def test_webkit_loads_the_page_from_disk(webkit, site_dir):
    webkit.go((site_dir / "index.html").as_uri())
    assert webkit.wait(READY), "the page's scripts never ran from file://"
    sizes = webkit.run(MATH)
    assert sizes and all(w > 0 and h > 0 for w, h in sizes), sizes


def test_webkit_runs_the_explorer_over_http(webkit, recorded_site, engine):
    url, log = recorded_site
    webkit.go(url)
    assert webkit.wait(READY), "the page's scripts never ran"
    webkit.run(CATCH_ERRORS)
    webkit.run("document.getElementById('ex1').scrollIntoView({block: 'center'})")
    # its controls are built as it comes near the viewport (static/js/main.js)
    assert webkit.wait("return !!document.getElementById('ex1-t-readout')"), "the explorer was never built"
    readout = webkit.run("return document.getElementById('ex1-t-readout').textContent")
    webkit.keys("#ex1-t", ARROW_RIGHT * 3)
    assert webkit.wait("return document.getElementById('ex1-t-readout').textContent !== arguments[0]", readout), \
        "the T slider's readout did not change"

    fitted = engine.datasets["six"].fitted_t
    want = expected_cards("six", "all", fitted, "equal-width", 4)
    webkit.click("#ex1-fit")
    assert webkit.wait("return Number(document.getElementById('ex1-t').value) === arguments[0]",
                       engine.index_of(fitted))
    webkit.wait("return arguments[0].every(([m, v]) => document.querySelector(`#ex1 [data-metric='${m}'] .value`)"
                ".textContent.trim() === v)", [[m, want[m]] for m in ("nll", "brier", "ece-w")], timeout=5)
    shown = ("nll", "brier", "ece-w")
    assert {m: webkit.run(CARD, m) for m in shown} == {m: want[m] for m in shown}

    webkit.click("#ex1-dataset option[value='mixed']")
    assert webkit.wait("return document.querySelector(`#ex1 [data-metric='nll'] .value`).textContent.trim()"
                       " !== arguments[0]", want["nll"]), "choosing another dataset changed nothing"
    assert webkit.run("return window.smokeErrors") == []
    assert any(path.endswith("/data/mixed.js") for path, _ in log), log
    assert [entry for entry in log if entry[1] != 200] == []
