"""Embeds in the hosts a teacher meets (issue 19), each played by a page of our own on another origin
than the site (``localhost:<port A>`` framing ``127.0.0.1:<port B>``), with the snippet the full page
offers, unchanged:

* a Canvas-style host, which sets the frame's height on ``lti.frameResize`` and replies to the frame
  with ``event.source.postMessage(reply, event.origin)`` as Canvas does: a frame whose origin is
  ``"null"`` makes that reply throw ("Invalid target origin"), an uncaught error that fails the test;
* a host that includes the site's ``embed/resizer.js`` once and nothing else;
* a 360 px column, where every widget must fit its frame without being cut;
* a long host page, where a frame that comes back into view re-posts its height.
"""

import html
import re
import time

import pytest

from sitegen.serve import serving

from .conftest import page_path
from .test_embeds import frame_at, snippets, src_of

# Canvas's part, after its LTI message handler: it sizes the frame that sent lti.frameResize, then
# answers that frame at the origin the message came from (a "null" origin throws here, uncaught).
CANVAS = """<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>A Canvas-style course page</title><link rel="icon" href="data:,"></head>
<body>
<h1>A Canvas-style course page</h1>
<script>
window.replies = 0;
window.resized = [];
window.addEventListener("message", function (event) {
  var data = event.data;
  if (!data || data.subject !== "lti.frameResize") return;
  var frames = document.getElementsByTagName("iframe");
  for (var i = 0; i < frames.length; i++) {
    if (frames[i].contentWindow !== event.source) continue;
    frames[i].height = String(data.height);
    window.resized.push([i, data.height, event.origin]);
  }
  event.source.postMessage({subject: "lti.frameResize.response", ok: true}, event.origin);
  window.replies += 1;
});
window.embed = function (snippet, src) {
  var holder = document.createElement("div");
  holder.innerHTML = snippet;
  var frame = holder.firstElementChild;
  frame.src = src;
  document.body.appendChild(frame);
};
</script>
</body>
</html>
"""


def host_folder(tmp_path_factory, name, text):
    folder = tmp_path_factory.mktemp(name)
    (folder / "index.html").write_text(text, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def canvas_url(tmp_path_factory):
    with serving(host_folder(tmp_path_factory, "canvas", CANVAS)) as url:
        yield url.replace("127.0.0.1", "localhost")


@pytest.fixture
def open_host(watched_page):
    def opener(url, width=760, **context_options):
        page = watched_page(timeout=15_000, viewport={"width": width, "height": 900}, **context_options)
        page.goto(url, wait_until="load")
        return page
    return opener


def wait_for(predicate, timeout=15.0, what="condition"):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.1)


@pytest.mark.parametrize("name", ["softmax-demo", "reliability-demo", "explorer"])
def test_a_canvas_style_host_replies_without_an_error(open_host, canvas_url, site_dir, site_url, name):
    """The frame has the site's origin (the snippet's sandbox allows same-origin), so Canvas's reply to
    ``event.origin`` is delivered; the host's watcher fails the test on any uncaught or console error."""
    page = open_host(canvas_url)
    snippet = snippets(site_dir, "en")[name]
    page.evaluate("([snippet, src]) => window.embed(snippet, src)", [snippet, site_url + src_of(snippet)])
    frame = frame_at(page, 0)
    wait_for(lambda: page.evaluate("window.replies") >= 1, what="a resize message")
    frame.wait_for_load_state("load")
    page.wait_for_timeout(500)
    origin = site_url.rstrip("/")
    resized = page.evaluate("window.resized")
    assert resized and {o for _, _, o in resized} == {origin}, resized
    assert frame.evaluate("() => window.origin") == origin
    box = frame.evaluate("() => Math.ceil(document.documentElement.getBoundingClientRect().height)")
    assert abs(resized[-1][1] - box) <= 2, (resized, box)
    assert page.evaluate("window.replies") == len(resized)


@pytest.mark.parametrize("lang", ["en", "es"])
def test_every_select_fits_its_longest_option_in_a_360px_column(open_page, lang):
    """In a 360 px wide embed the dataset select shows each dataset's whole name: the select stays in
    the column and is as wide as it would be uncapped (its longest option, padding and arrow), so
    max-width: 100% cuts nothing off."""
    page = open_page("embed/explorer.html", lang=lang, viewport={"width": 360, "height": 800})
    page.wait_for_function("() => { const e = document.querySelector('#ex1').explorer; return !!(e && e.state.model); }")
    rows = page.evaluate("""() => Array.from(document.querySelectorAll('select')).map(s => {
        const shown = s.getBoundingClientRect();
        const keep = [s.style.maxWidth, s.style.width];
        s.style.maxWidth = 'none'; s.style.width = 'max-content';
        const whole = s.getBoundingClientRect().width;
        [s.style.maxWidth, s.style.width] = keep;
        return {id: s.id, shown: shown.width, whole: whole, right: shown.right, page: document.documentElement.clientWidth};
    })""")
    assert any(r["id"] == "ex1-dataset" for r in rows)
    for r in rows:
        assert r["right"] <= r["page"], r
        assert r["shown"] >= r["whole"] - 0.5, r
