"""Embeds for course sites (issue 11): every widget's embed page, framed as a teacher frames it.

A host page (a "course page") is served from another origin than the site: ``localhost:<port A>``
against the site's ``127.0.0.1:<port B>``. It frames embed pages with the very snippet the full
page offers (``sandbox="allow-scripts allow-same-origin allow-popups allow-popups-to-escape-sandbox"``:
the frame keeps the site's origin, which is not the host's), records every message it receives, and sizes a frame
to the height it posts, as a platform
that listens does. The tests check that

* every widget of every language posts its height, as Canvas's ``lti.frameResize`` and as the site's
  own ``calibration-tutorial:resize``, in whole pixels within 2 px of its document's height, and
  that the messages stop once the height settles (no resize loop);
* the height follows a change inside the frame (a longer per-bin table);
* operating a widget inside the frame shows the engine's values, and the ``#state/`` hash presets it;
* "open in the full tutorial" opens a new tab at the widget's section, in the state the reader left;
* the same works from ``file://``;
* the full page's "Embed" box holds a snippet that works, copies it, and is plain text without JavaScript.
"""

import html
import re
import time
import urllib.request

import numpy as np
import pytest

from sitegen.common.settings import EMBED_MEASURED_WIDTHS
from sitegen.embeds.heights import measured
from sitegen.write.serve import serving

from .conftest import ROOT, page_path
from .explorer_ui import Explorer, near
from .test_explorer import expected_bin_counts, expected_cards

SANDBOX = "allow-scripts allow-same-origin allow-popups allow-popups-to-escape-sandbox"
SNIPPET = re.compile(r'<textarea id="embed-([a-z0-9-]+)-code"[^>]*>(.*?)</textarea>', re.S)

# A course page: it frames snippets, keeps every message it receives, and sets the height of the frame
# that sent a resize message (the site's own kind; Canvas does the same with lti.frameResize).
HOST = """<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>A course page</title><link rel="icon" href="data:,"></head>
<body>
<h1>A course page</h1>
<script>
window.received = [];
window.addEventListener("message", function (event) {
  var frames = document.getElementsByTagName("iframe"), index = -1;
  for (var i = 0; i < frames.length; i++) if (frames[i].contentWindow === event.source) index = i;
  window.received.push({data: event.data, frame: index, origin: event.origin, at: performance.now()});
  var data = event.data;
  if (index >= 0 && data && data.type === "calibration-tutorial:resize") frames[index].height = String(data.height);
});
/* Add a snippet (its HTML) to the page, with its address replaced by `src`. */
window.embed = function (snippet, src) {
  var holder = document.createElement("div");
  holder.innerHTML = snippet;
  var frame = holder.firstElementChild;
  frame.src = src;
  document.body.appendChild(frame);
  document.body.appendChild(document.createElement("hr"));
};
</script>
</body>
</html>
"""


def snippets(site_dir, lang):
    """``{widget: snippet HTML}`` as the ``lang`` page's Embed boxes offer them."""
    page = (site_dir / page_path(lang, "index.html")).read_text(encoding="utf-8")
    return {name: html.unescape(text) for name, text in SNIPPET.findall(page)}


def src_of(snippet):
    return html.unescape(re.search(r' src="([^"]*)"', snippet).group(1))


@pytest.fixture(scope="module")
def host_url(tmp_path_factory):
    """The course page's folder served on another origin than the site (``localhost``, its own port)."""
    folder = tmp_path_factory.mktemp("host")
    (folder / "index.html").write_text(HOST, encoding="utf-8")
    with serving(folder) as url:
        yield url.replace("127.0.0.1", "localhost")


@pytest.fixture
def open_host(watched_page):
    """``open_host(url)`` → a watched page on the course page (problems fail the test, as with ``open_page``)."""
    def opener(url, **context_options):
        context_options.setdefault("viewport", {"width": 760, "height": 900})
        page = watched_page(timeout=15_000, **context_options)
        page.goto(url, wait_until="load")
        return page

    return opener


def frame_at(page, index, scroll=True):
    """The Playwright frame of the page's ``index``-th iframe (scrolled into view unless ``scroll`` is
    False: a browser defers the work of an off-screen cross-origin frame)."""
    element = page.locator("iframe").nth(index)
    if scroll:
        element.scroll_into_view_if_needed()
    handle = element.element_handle()
    frame = handle.content_frame()
    assert frame is not None, f"iframe {index} has no document"
    return frame


def heights(page, index, kind="calibration-tutorial:resize"):
    """The heights frame ``index`` posted, in order, as messages of ``kind`` (or Canvas's subject)."""
    return page.evaluate("""([index, kind]) => window.received
        .filter(m => m.frame === index && m.data && (m.data.type === kind || m.data.subject === kind))
        .map(m => m.data.height)""", [index, kind])


def document_height(frame):
    """The embedded document's height: its root box (content) and its scroll height."""
    return frame.evaluate("() => [document.documentElement.getBoundingClientRect().height,"
                          " document.documentElement.scrollHeight]")


def settle(page, index, frame, timeout=15.0):
    """Wait until frame ``index`` has posted a height that matches its document, the host applied it,
    and nothing changed for 300 ms; returns (posted heights, [box height, scroll height], the frame
    element's height)."""
    deadline, last = time.monotonic() + timeout, None
    while True:
        posted = heights(page, index)
        box, scroll = document_height(frame)
        applied = page.locator("iframe").nth(index).evaluate("e => e.getBoundingClientRect().height")
        now = (posted, [box, scroll], applied)
        if posted and abs(posted[-1] - box) <= 2 and abs(applied - posted[-1]) < 1:
            if now == last:
                return now
            last = now
            time.sleep(0.3)
            continue
        if time.monotonic() > deadline:
            pytest.fail(f"frame {index}: posted {posted}, document {box:.1f}/{scroll}, frame {applied}")
        last = None
        time.sleep(0.1)


def assert_sandboxed(frame, site_url):
    """The frame runs at the site's own origin (the sandbox allows same-origin) and cannot reach the
    host's document, which is on another origin."""
    origin, parent = frame.evaluate("""() => [window.origin,
        (() => { try { return typeof window.parent.document; } catch (error) { return "refused"; } })()]""")
    assert origin == site_url.rstrip("/") and parent == "refused", (origin, parent)


# --------------------------------------------------------------------------- every widget, every language

def test_every_widget_posts_its_height_from_a_sandboxed_frame_of_another_origin(open_host, host_url, site_dir,
                                                                                  site_url, lang):
    offered = snippets(site_dir, lang)
    names = sorted(offered)
    assert set(names) == {p.stem for p in (site_dir / page_path(lang, "embed")).glob("*.html")}
    assert {"softmax-demo", "nll-curve", "reliability-demo", "explorer", "chance-demo", "bin-sweep",
            "smooth-demo"} <= set(names)
    page = open_host(host_url)
    for name in names:
        snippet = offered[name]
        assert f'sandbox="{SANDBOX}"' in snippet and 'loading="lazy"' in snippet and 'width="100%"' in snippet
        assert src_of(snippet) == f"embed/{name}.html"  # relative: this build has no --base-url
        page.evaluate("([snippet, src]) => window.embed(snippet, src)",
                      [snippet, site_url + page_path(lang, src_of(snippet))])
    for index, name in enumerate(names):
        frame = frame_at(page, index)
        posted, (box, scroll), applied = settle(page, index, frame)
        assert_sandboxed(frame, site_url)
        assert all(isinstance(h, int) and h > 0 for h in posted), posted
        assert heights(page, index, "lti.frameResize") == posted, "the two kinds of message disagree"
        assert abs(posted[-1] - scroll) <= 2, (name, posted, box, scroll)
        kinds = page.evaluate("""index => window.received.filter(m => m.frame === index)
            .map(m => [m.origin, m.data.widget || m.data.subject])""", index)
        assert {origin for origin, _ in kinds} == {site_url.rstrip("/")}
        assert {what for _, what in kinds} == {name, "lti.frameResize"}
    # settled: a second of idling brings no more messages (no resize loop between host and frame)
    before = page.evaluate("window.received.length")
    page.wait_for_timeout(1000)
    assert page.evaluate("window.received.length") - before <= 2


# --------------------------------------------------------------------------- one widget, changed inside its frame

def loaded(frame, dataset, root="#ex1"):
    """Wait until the explorer ``root`` in ``frame`` holds ``dataset`` (its data file has arrived)."""
    frame.wait_for_function("([root, name]) => { const e = document.querySelector(root).explorer;"
                            " return !!(e && e.state.model && e.state.model.name === name); }", arg=[root, dataset])


def embed_one(page, site_dir, site_url, lang, name, fragment=""):
    snippet = snippets(site_dir, lang)[name]
    page.evaluate("([snippet, src]) => window.embed(snippet, src)",
                  [snippet, site_url + page_path(lang, src_of(snippet)) + fragment])
    frame = frame_at(page, 0)
    settle(page, 0, frame)
    return frame


def test_the_height_follows_a_longer_bin_table(open_host, host_url, site_dir, site_url, edition_strings, expect):
    page = open_host(host_url)
    frame = embed_one(page, site_dir, site_url, "en", "reliability-demo",
                      "#state/dataset=overconfident&t=1&scheme=equal-width&bins=4&part=test")
    ex = Explorer(frame, edition_strings["en"]["ui"], expect, root="#rel1")
    rows = ex.bin_table.locator("tbody tr:not([hidden])")
    expect(rows).to_have_count(len(expected_bin_counts("overconfident", "test", 1.0, "equal-width", 4)))
    first, _, _ = settle(page, 0, frame)
    ex.set_bins(20)
    expect(rows).to_have_count(len(expected_bin_counts("overconfident", "test", 1.0, "equal-width", 20)))
    deadline = time.monotonic() + 10
    while heights(page, 0)[-1] <= first[-1] and time.monotonic() < deadline:
        time.sleep(0.1)
    posted, (box, scroll), applied = settle(page, 0, frame)
    assert posted[-1] > first[-1], f"the height did not follow the table: {first[-1]} → {posted}"
    assert abs(posted[-1] - scroll) <= 2 and abs(applied - posted[-1]) < 1


def test_operating_the_explorer_in_its_frame_shows_the_engines_values(open_host, host_url, site_dir, site_url,
                                                                       lang, ui, number, engine, expect):
    page = open_host(host_url)
    frame = embed_one(page, site_dir, site_url, lang, "explorer")
    ex = Explorer(frame, ui, expect, number=number)
    ex.choose(dataset="sim-600")
    loaded(frame, "sim-600")
    ex.choose(part="calibration", scheme="adaptive", bins=10)
    ex.fit.click()
    fitted = engine.datasets["sim-600"].fitted_t
    expect(ex.slider).to_have_value(str(engine.index_of(fitted)))
    want = expected_cards("sim-600", "calibration", fitted, "adaptive", 10, number)
    for metric, text in want.items():
        expect(ex.card(metric)).to_have_text(text)
    shown = ex.bin_table.locator("tbody tr:not([hidden])")
    expect(shown).to_have_count(len(expected_bin_counts("sim-600", "calibration", fitted, "adaptive", 10)))


def test_the_state_hash_presets_an_embed_and_its_link_opens_the_full_tutorial_there(
        open_host, host_url, site_dir, site_url, lang, ui, number, engine, expect):
    page = open_host(host_url)
    grid = engine.grid
    start = int(np.argmin(np.abs(np.log(grid) - np.log(2.0))))
    frame = embed_one(page, site_dir, site_url, lang, "reliability-demo",
                      "#state/dataset=twelve&t=2&scheme=adaptive&bins=10&part=all")
    ex = Explorer(frame, ui, expect, root="#rel1", number=number)
    expect(ex.slider).to_have_value(str(start))
    expect(ex.bins).to_have_value("10")
    expect(ex.scheme("adaptive")).to_be_checked()
    rows = ex.bin_table.locator("tbody tr:not([hidden])")
    expect(rows).to_have_count(len(expected_bin_counts("twelve", "all", grid[start], "adaptive", 10)))
    for _ in range(5):
        ex.slider.press("ArrowRight")
    expect(ex.slider).to_have_value(str(start + 5))

    link = frame.get_by_role("link", name=re.compile(re.escape(frame.evaluate(
        "() => document.querySelector('a[data-full-tutorial]').textContent"))))
    assert link.get_attribute("target") == "_blank" and link.get_attribute("rel") == "noopener"
    assert link.get_attribute("href") == "../index.html#reliability"  # before the reader reaches for it
    with page.context.expect_page() as opened:
        link.click()
    tab = opened.value
    tab.wait_for_load_state("load")
    assert tab.url.startswith(site_url + page_path(lang, "index.html#reliability/state/")), tab.url
    assert "widget=rel1" in tab.url and "dataset=twelve" in tab.url and "bins=10" in tab.url
    full = Explorer(tab, ui, expect, root="#rel1", number=number)
    expect(full.slider).to_have_value(str(start + 5))
    expect(full.bins).to_have_value("10")
    expect(full.scheme("adaptive")).to_be_checked()
    expect(tab.locator("#reliability")).to_be_in_viewport()  # the link lands on the widget's section
    expect(full.bin_table.locator("tbody tr:not([hidden])")).to_have_count(
        len(expected_bin_counts("twelve", "all", grid[start + 5], "adaptive", 10)))
    # the hash was for rel1: the main explorer keeps its own defaults
    tab.bring_to_front()  # a background tab runs no IntersectionObserver: ex1 would never build
    expect(near(tab, "#ex1").locator("#ex1-dataset")).to_have_value("six")


# --------------------------------------------------------------------------- file://

def test_embeds_work_from_disk(open_host, site_dir, tmp_path, engine, edition_strings, expect):
    """A course page on disk framing embed pages on disk. With the snippet as offered (its sandbox keeps
    the frame's origin) or without a sandbox everything works; sandboxed without same-origin access,
    Chromium gives the (opaque-origin) frame no file from disk, so the embed loads no script: it then
    says so, shows its static figures, and still reports its height."""
    offered = snippets(site_dir, "en")
    host = tmp_path / "course.html"
    host.write_text(HOST, encoding="utf-8")
    page = open_host(host.as_uri())
    page.monitor.allow(r"Not allowed to load local resource: file://.*/(app|widgets)\.js"
                       r"|request failed: file://.*/(app|widgets)\.js")
    plain = re.sub(r' sandbox="[^"]*"', "", offered["softmax-demo"])
    opaque = offered["nll-curve"].replace(" allow-same-origin", "")
    for snippet, name in zip((offered["explorer"], plain, opaque), ("explorer", "softmax-demo", "nll-curve")):
        page.evaluate("([snippet, src]) => window.embed(snippet, src)",
                      [snippet, (site_dir / "embed" / f"{name}.html").as_uri()])
    for index in range(3):
        frame = frame_at(page, index)
        posted, (box, scroll), _ = settle(page, index, frame)
        assert abs(posted[-1] - scroll) <= 2
    frame = frame_at(page, 0)
    ex = Explorer(frame, edition_strings["en"]["ui"], expect)
    ex.choose(dataset="twelve")
    loaded(frame, "twelve")
    ex.fit.click()
    fitted = engine.datasets["twelve"].fitted_t
    expect(ex.slider).to_have_value(str(engine.index_of(fitted)))
    expect(ex.card("nll")).to_have_text(expected_cards("twelve", "all", fitted, "equal-width", 4)["nll"])
    refused = frame_at(page, 2)
    expect(refused.locator("[data-embed-failed]")).to_be_visible()
    expect(refused.locator(".static-figure svg")).to_be_visible()


# --------------------------------------------------------------------------- the full page's Embed box

def test_the_embed_box_offers_a_working_snippet_and_copies_it(open_page, site_url, lang, expect):
    page = open_page(lang=lang, permissions=["clipboard-read", "clipboard-write"])
    box = page.locator("details.embed-box").filter(has=page.locator("#embed-nll-curve-code"))
    strings = page.evaluate("() => CalibTutorial.strings().ui")
    box.locator("summary").click()
    code = box.get_by_role("textbox")
    expect(code).to_be_visible()
    src = src_of(code.input_value())
    assert src.split("#")[0] == site_url + page_path(lang, "embed/nll-curve.html"), src  # made absolute on this host
    with urllib.request.urlopen(src.split("#")[0]) as response:
        assert response.status == 200 and b'data-embed="nll-curve"' in response.read()
    box.get_by_role("button").click()
    expect(box.get_by_role("status")).to_have_text(strings["embed_copied"])
    assert page.evaluate("() => navigator.clipboard.readText()") == code.input_value()


def test_without_javascript_the_snippet_is_selectable_text(open_page, lang, expect):
    page = open_page(lang=lang, java_script_enabled=False)
    box = page.locator("details.embed-box").first
    box.locator("summary").click()
    code = box.get_by_role("textbox")
    expect(code).to_be_visible()
    expect(code).to_have_attribute("readonly", "")
    assert src_of(code.input_value()).startswith("embed/")
    expect(box.get_by_role("button")).to_be_hidden()


def test_an_embed_page_has_no_page_chrome_and_works_without_a_frame(open_page, lang, expect):
    page = open_page("embed/explorer.html", lang=lang)
    expect(page.locator(".language-switch, .page-footer, .skip-link, section")).to_have_count(0)
    expect(page.locator("#ex1 [data-metric='nll'] .value")).not_to_have_text("")
    expect(page.get_by_role("heading", level=1)).to_have_count(1)


# Measured heights: the snippets' heights (320 px) and those the boxes quote for a wide column (720 px)
# are checked in test_embed_hosts.py, on the non-resizing and the Canvas-style hosts.


# --------------------------------------------------------------------------- colours and "embed what I see"

LIGHT_BG, DARK_BG = "rgb(253, 253, 251)", "rgb(21, 22, 26)"  # base.css --bg of each scheme


def background(page):
    return page.evaluate("() => getComputedStyle(document.documentElement).backgroundColor")


@pytest.mark.parametrize("system, fragment, want", [
    ("dark", "", LIGHT_BG),                  # an embed is light by default, whatever the system
    ("dark", "#state/theme=light", LIGHT_BG),
    ("light", "#state/theme=dark", DARK_BG),  # asked for dark on a light system
    ("dark", "#state/theme=auto", DARK_BG),   # auto follows the system …
    ("light", "#state/theme=auto", LIGHT_BG),
    ("dark", "#state/dataset=twelve&theme=nonsense", LIGHT_BG),
])
def test_an_embed_takes_the_colours_its_address_asks_for(open_page, expect, system, fragment, want):
    page = open_page(f"embed/reliability-demo.html{fragment}", color_scheme=system)
    expect(page.locator("html")).to_have_css("background-color", want)


def test_the_full_page_keeps_following_the_system(open_page, expect):
    page = open_page("", color_scheme="dark")
    expect(page.locator("html")).to_have_css("background-color", DARK_BG)


def test_the_embed_box_embeds_what_the_reader_sees_in_the_colours_chosen(open_page, open_host, host_url, site_url,
                                                                         lang, ui, number, engine, expect):
    page = open_page("index.html#reliability/state/dataset=twelve&t=1&scheme=equal-width&bins=4&part=all&widget=rel1",
                     lang=lang)
    ex = Explorer(page, ui, expect, root="#rel1", number=number)
    ex.root.scroll_into_view_if_needed()
    page.wait_for_function("() => { const e = document.querySelector('#rel1').explorer;"
                           " return !!(e && e.state.model && e.state.model.name === 'twelve'); }")
    ex.choose(scheme="adaptive", bins=10)
    ex.fit.click()
    fitted_index = engine.index_of(engine.datasets["twelve"].fitted_t)
    expect(ex.slider).to_have_value(str(fitted_index))
    box = page.locator("details.embed-box").filter(has=page.locator("#embed-reliability-demo-code"))
    box.locator("summary").click()
    code = box.get_by_role("textbox")
    expect(code).to_have_value(re.compile(r"#state/.*bins=10"))
    src = src_of(code.input_value())
    assert src.startswith(site_url + page_path(lang, "embed/reliability-demo.html#state/")), src
    fields = dict(pair.split("=") for pair in src.split("#state/")[1].split("&"))
    assert fields["dataset"] == "twelve" and fields["scheme"] == "adaptive" and fields["bins"] == "10"
    assert "widget" not in fields and "theme" not in fields  # light is the default: not written
    assert abs(float(fields["t"]) / engine.grid[fitted_index] - 1) < 1e-4
    box.get_by_role("combobox").select_option("dark")
    expect(code).to_have_value(re.compile(r"theme=dark"))
    snippet = code.input_value()
    assert "&amp;" in snippet.split(' src="')[1].split('"')[0]  # the address's "&" is escaped in the attribute
    # the snippet, pasted into a course page, shows that state, dark
    host = open_host(host_url)
    host.evaluate("([snippet]) => { const d = document.createElement('div'); d.innerHTML = snippet;"
                  " document.body.appendChild(d.firstElementChild); }", [snippet])
    frame = frame_at(host, 0)
    framed = Explorer(frame, ui, expect, root="#rel1", number=number)
    expect(framed.slider).to_have_value(str(fitted_index))
    expect(framed.bins).to_have_value("10")
    expect(framed.scheme("adaptive")).to_be_checked()
    expect(frame.locator("html")).to_have_attribute("data-theme", "dark")
    expect(frame.locator("html")).to_have_css("background-color", DARK_BG)
    # set up otherwise than its first view, the widget may outgrow the measured height: the box says so
    expect(box.locator("[data-preset-note]")).to_be_visible()
    # the main explorer is at its first view: no such note; "only the reliability diagram" cuts the
    # snippet to that panel, at the height measured for it, and the box quotes that version's heights
    page.locator("#ex1").scroll_into_view_if_needed()
    page.wait_for_function("() => { const e = document.querySelector('#ex1').explorer;"
                           " return !!(e && e.state.model); }")
    main = page.locator("details.embed-box").filter(has=page.locator("#embed-explorer-code"))
    main.locator("summary").click()
    main_code = main.get_by_role("textbox")
    expect(main.locator("[data-preset-note]")).to_be_hidden()
    main.locator("select[data-embed-panels]").select_option("reliability")
    slim = measured(ROOT, lang, "explorer#panels=reliability")
    assert slim, "the slimmer explorer's height is measured (tools/embed_heights.py)"
    narrow, wide = slim[EMBED_MEASURED_WIDTHS[0]], slim[EMBED_MEASURED_WIDTHS[-1]]
    expect(main_code).to_have_value(re.compile("panels=reliability"))
    assert re.search(rf'#state/[^"]*panels=reliability" [^>]* height="{narrow}"', main_code.input_value())
    expect(main.locator('[data-height-note="reliability"]')).to_be_visible()
    expect(main.locator('[data-height-note="reliability"]')).to_contain_text(f'height="{wide}"')
    expect(main.locator('[data-height-note=""]')).to_be_hidden()
    Explorer(page, ui, expect, number=number).choose(bins=10)
    expect(main.locator("[data-preset-note]")).to_be_visible()
    expect(main_code).to_have_value(re.compile(r"bins=10.*panels=reliability|panels=reliability.*bins=10"))


# --------------------------------------------------------------------------- a slimmer explorer

def test_panels_in_the_address_keep_only_those_panels(open_page, lang, ui, expect):
    def opened(fragment):
        page = open_page(f"embed/explorer.html{fragment}", lang=lang, viewport={"width": 720, "height": 900})
        page.wait_for_function("() => { const e = document.querySelector('#ex1').explorer;"
                               " return !!(e && e.state.model); }", timeout=30_000)  # its data, on a busy machine
        return page, Explorer(page, ui, expect)

    page, ex = opened("")
    expect(page.locator("#ex1-curves")).to_be_visible()
    whole = page.evaluate("() => document.documentElement.getBoundingClientRect().height")
    page, ex = opened("#state/dataset=twelve&panels=cards,reliability")
    expect(ex.card("nll")).to_be_visible()
    expect(ex.diagram).to_be_visible()
    expect(ex.bin_table).to_be_attached()
    for hidden in ("#ex1-curves", "#ex1-sweep", "#ex1-bars"):
        expect(page.locator(hidden)).to_be_hidden()
    expect(ex.dataset).to_have_value("twelve")  # the controls above the slider stay
    expect(ex.slider).to_be_visible()
    slim = page.evaluate("() => document.documentElement.getBoundingClientRect().height")
    assert slim < 0.7 * whole, (slim, whole)
    page, ex = opened("#state/panels=nonsense")  # no panel it knows: nothing is hidden
    expect(page.locator("#ex1-curves")).to_be_visible()
