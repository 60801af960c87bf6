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

import math
import re
import time
import urllib.request

import pytest

from sitegen.serve import serving

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
    page.wait_for_function("() => { const e = document.querySelector('#ex1').explorer;"
                           " return !!(e && e.state.model); }")
    rows = page.evaluate("""() => Array.from(document.querySelectorAll('select')).map(s => {
        const shown = s.getBoundingClientRect();
        const keep = [s.style.maxWidth, s.style.width];
        s.style.maxWidth = 'none'; s.style.width = 'max-content';
        const whole = s.getBoundingClientRect().width;
        [s.style.maxWidth, s.style.width] = keep;
        return {id: s.id, shown: shown.width, whole: whole, right: shown.right,
                page: document.documentElement.clientWidth};
    })""")
    assert any(r["id"] == "ex1-dataset" for r in rows)
    for r in rows:
        assert r["right"] <= r["page"], r
        assert r["shown"] >= r["whole"] - 0.5, r


# --------------------------------------------------------------------------- the resizer script

RESIZER_HOST = """<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>A course page with the resizer</title><link rel="icon" href="data:,"></head>
<body>
<h1>A course page that includes one script</h1>
<div id="frames">FRAMES</div>
<div style="height: 6000px">(the rest of a long course page)</div>
<script>
window.posts = [];  // every height a frame posts, to count them (the page itself sizes nothing)
window.addEventListener("message", function (event) {
  var data = event.data;
  if (data && data.type === "calibration-tutorial:resize") {
    window.posts.push([data.widget, data.height, performance.now()]);
  }
});
window.embed = function (snippet, src) {
  var holder = document.createElement("div");
  holder.innerHTML = snippet;
  var frame = holder.firstElementChild;
  frame.src = src;
  document.getElementById("frames").appendChild(frame);
};
window.addResizer = function (src) {
  var script = document.createElement("script");
  script.src = src;
  script.async = true;
  document.head.appendChild(script);
};
</script>
</body>
</html>
"""


@pytest.fixture(scope="module")
def resizer_host(tmp_path_factory, site_dir, site_url):
    """Two course pages on another origin: one that includes embed/resizer.js in its markup with a
    snippet already in it (``with.html``), one that adds the script later (``late.html``, frames first)."""
    folder = tmp_path_factory.mktemp("resizer")
    snippet = snippets(site_dir, "en")["softmax-demo"].replace('src="embed/', f'src="{site_url}embed/')
    with_script = RESIZER_HOST.replace("FRAMES", snippet).replace(
        "</head>", f'<script src="{site_url}embed/resizer.js" async></script></head>')
    (folder / "with.html").write_text(with_script, encoding="utf-8")
    (folder / "late.html").write_text(RESIZER_HOST.replace("FRAMES", ""), encoding="utf-8")
    with serving(folder) as url:
        yield url.replace("127.0.0.1", "localhost")


def fitted(page, index):
    """[frame element height, embedded document height, its scroll height] of frame ``index``."""
    frame = frame_at(page, index)
    inner = frame.evaluate("() => [document.documentElement.getBoundingClientRect().height,"
                           " document.documentElement.scrollHeight]")
    return [page.locator("iframe").nth(index).evaluate("e => e.getBoundingClientRect().height")] + inner


def wait_fitted(page, index, timeout=15.0):
    last = None

    def check():
        nonlocal last
        last = fitted(page, index)
        outer, box, scroll = last
        return abs(outer - math.ceil(box)) <= 1 and scroll <= outer + 1
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            pytest.fail(f"frame {index} never fitted its content: frame, document, scroll = {last}")
        time.sleep(0.2)
    return last


def test_the_resizer_fits_each_frame_to_its_widget(open_host, resizer_host, site_dir, site_url):
    """A page that includes the resizer: the snippet in its markup and two added later all take their
    widget's height (no inner scrollbar, no gap), at 760 and at 360 px."""
    for width in (760, 360):
        page = open_host(resizer_host + "with.html", width=width)
        for name in ("reliability-demo", "explorer"):
            snippet = snippets(site_dir, "en")[name]
            page.evaluate("([snippet, src]) => window.embed(snippet, src)", [snippet, site_url + src_of(snippet)])
        for index in range(3):
            wait_fitted(page, index)
        # a message that is not from one of the frames changes nothing
        before = page.locator("iframe").nth(0).get_attribute("height")
        page.evaluate("() => window.postMessage({type: 'calibration-tutorial:resize', height: 5}, '*')")
        page.wait_for_timeout(300)
        assert page.locator("iframe").nth(0).get_attribute("height") == before


def test_the_resizer_asks_frames_that_loaded_before_it(open_host, resizer_host, site_dir, site_url):
    """Frames that posted their height before the script arrived are asked again, and fit."""
    page = open_host(resizer_host + "late.html")
    snippet = snippets(site_dir, "en")["nll-curve"]
    page.evaluate("([snippet, src]) => window.embed(snippet, src)", [snippet, site_url + src_of(snippet)])
    frame_at(page, 0).wait_for_load_state("load")
    wait_for(lambda: page.evaluate("window.posts.length") > 0, what="a first post")
    page.wait_for_timeout(500)
    stated = int(re.search(r' height="(\d+)"', snippet).group(1))
    assert page.locator("iframe").nth(0).get_attribute("height") == str(stated)  # nobody resized it yet
    posts = page.evaluate("window.posts.length")
    page.evaluate("src => window.addResizer(src)", site_url + "embed/resizer.js")
    wait_for(lambda: page.evaluate("window.posts.length") > posts, what="an answer to the resizer")
    wait_fitted(page, 0)


def test_a_frame_coming_back_into_view_posts_its_height_again(open_host, resizer_host, site_dir, site_url):
    """Scrolled away and back, a frame posts its (unchanged) height once more, so a host holding a stale
    height catches up as the reader returns."""
    page = open_host(resizer_host + "with.html")
    wait_fitted(page, 0)
    page.wait_for_timeout(600)
    settled = page.evaluate("window.posts.length")
    page.mouse.wheel(0, 5000)
    page.wait_for_timeout(600)
    page.evaluate("() => window.scrollTo(0, 0)")
    wait_for(lambda: page.evaluate("window.posts.length") > settled, what="a post on coming back into view")
    heights = [h for _, h, _ in page.evaluate("window.posts")]
    assert heights[-1] == heights[settled - 1], heights  # the same height again: no jump, no loop


def test_the_embed_box_guides_each_platform_and_links_the_resizer(open_page, site_url, lang, expect):
    page = open_page(lang=lang)
    box = page.locator("details.embed-box").first
    box.locator("summary").click()
    items = box.locator(".embed-guide li")
    expect(items).to_have_count(3)
    texts = items.all_inner_texts()
    assert texts[0].startswith("Canvas") and texts[1].startswith("Moodle"), texts
    line = box.locator(".embed-guide code").inner_text()
    src = re.search(r'<script src="([^"]+)" async></script>', line).group(1)
    assert src == site_url + "embed/resizer.js", src  # one resizer for every language
    with urllib.request.urlopen(src) as response:
        assert response.status == 200 and b"calibration-tutorial:resize" in response.read()
