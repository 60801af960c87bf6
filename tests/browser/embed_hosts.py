"""Course pages that frame every widget at once, one per host kind, language and colour scheme, shared by
the Chromium test (test_embed_hosts.py) and the Firefox run (firefox/hosts.mjs): the pages, the
JavaScript each driver evaluates in them, and the one judge of what the drivers report (:func:`problems`).

Host kinds (each page is served on another origin than the site and holds the seven snippets the full
page offers, unchanged but for the address made absolute, as a ``--base-url`` build writes it):

* ``canvas``: sets a frame's height on ``lti.frameResize`` and answers the frame at ``event.origin`` as
  Canvas does (a frame of origin ``"null"`` makes that throw, an uncaught error); a 720 px column, so
  the heights the Embed boxes quote for a wide column are checked too; it also holds the slimmer
  explorer (``panels=reliability``), whose T slider must be usable with its diagram in view;
* ``fixed``: resizes nothing (Moodle without the resizer, Canvas's phone apps), in a 320 px column (the
  narrowest measured width, sitegen.common.settings.EMBED_MEASURED_WIDTHS[0]): the
  snippet's own height must hold the widget, with no more than :data:`GAP` px (or :data:`GAP_SHARE`) to
  spare; it also holds the
  slimmer explorer at the height the Embed box's panels choice writes;
* ``resizer``: includes the site's ``embed/resizer.js`` and nothing else, in a 320 px column.

Dark: only the Canvas-style host in English, in each browser. The theme changes colours, not sizes
(sitegen/embeds/theme.py swaps custom properties only), so heights, scrollbars and errors are already
judged by the light loads; the dark load checks that a dark course page gets dark frames, error-free.
"""

import html
import re

from sitegen.common.settings import EMBED_MEASURED_WIDTHS, LANGUAGES
from sitegen.embeds.heights import panels_key, snippet_height, wide_height

from .conftest import ROOT, page_path

GAP = 24                # px: a frame may be this much taller than its widget, never shorter…
GAP_SHARE = 0.005       # …or this share of its height: the heights are Chromium's, and Firefox's fonts make a
                        # 6,700-px widget about 30 px shorter
WIDE_TOLERANCE = 0.05   # the 720 px height an Embed box quotes, against the one measured (fonts differ)
TALL = 24000            # px: the host's viewport height while measuring, so that every frame is in view
VIEW = 900              # px: the viewport height of the slider check
LIGHT_BG, DARK_BG = "rgb(253, 253, 251)", "rgb(21, 22, 26)"  # base.css --bg of each scheme
WIDTHS = {"canvas": EMBED_MEASURED_WIDTHS[-1], "fixed": EMBED_MEASURED_WIDTHS[0], "resizer": EMBED_MEASURED_WIDTHS[0]}
SLIM = "panels=reliability"
LOADS = [(kind, lang, "light") for kind in WIDTHS for lang in LANGUAGES] + [("canvas", "en", "dark")]
_SNIPPET = re.compile(r'<textarea id="embed-([a-z0-9-]+)-code"[^>]*>(.*?)</textarea>', re.S)

_HOST = """<!doctype html>
<html lang="{lang}">
<head><meta charset="utf-8"><title>A {kind} course page</title><link rel="icon" href="data:,">
<meta name="color-scheme" content="{scheme}">
<style>body {{ margin: 0; background: {bg}; color: {fg}; }} main {{ width: {width}px; }}</style>
<script>
window.posts = [];     // per frame: every height it posted (its own kind of message)
window.canvas = [];    // Canvas's part: [frame, height, origin] of each lti.frameResize applied
window.replies = 0;
window.lastMessage = 0;
window.addEventListener("message", function (event) {{
  var data = event.data, frames = document.getElementsByTagName("iframe"), index = -1;
  for (var i = 0; i < frames.length; i++) if (frames[i].contentWindow === event.source) index = i;
  if (index < 0 || !data) return;
  window.lastMessage = performance.now();
  if (data.type === "calibration-tutorial:resize") (window.posts[index] = window.posts[index] || []).push(data.height);
  if ({canvas} && data.subject === "lti.frameResize") {{
    frames[index].height = String(data.height);
    window.canvas.push([index, data.height, event.origin]);
    event.source.postMessage({{subject: "lti.frameResize.response", ok: true}}, event.origin);
    window.replies += 1;
  }}
}});
</script>
{resizer}
</head>
<body>
<main>
<h1>A {kind} course page</h1>
{frames}
<p>(the end of the course page)</p>
</main>
</body>
</html>
"""

# In the host: each frame's element height and attribute, what it posted, and how long ago the last message came.
HOST_STATE = """() => ({
  frames: Array.from(document.getElementsByTagName("iframe"), (f, i) => ({
    height: f.getBoundingClientRect().height, attr: Number(f.getAttribute("height")), posts: window.posts[i] || []})),
  quiet: performance.now() - window.lastMessage,
  canvas: window.canvas, replies: window.replies,
})"""

# In a frame: its widget, whether its scripts, fonts and datasets are ready, and its content and viewport sizes.
FRAME_PROBE = """() => {
  const html = document.documentElement;
  const explorers = Array.from(document.querySelectorAll('[data-component="explorer"]'));
  return {
    widget: html.getAttribute("data-embed"),
    ready: html.classList.contains("js") && document.fonts.status === "loaded"
      && explorers.length > 0 && explorers.every(e => e.explorer && e.explorer.state && e.explorer.state.model),
    content: Math.ceil(html.getBoundingClientRect().height),
    scrollHeight: html.scrollHeight, viewHeight: window.innerHeight,
    scrollWidth: html.scrollWidth, viewWidth: html.clientWidth,
    background: getComputedStyle(html).backgroundColor,
  };
}"""

# In the slimmer explorer's frame: the slider's and the diagram's boxes (frame coordinates), the slider's value,
# its readout and the diagram's drawing.
SLIDER_PROBE = """() => {
  const box = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; };
  const slider = document.querySelector('#ex1-t'), diagram = document.querySelector('#ex1-reliability');
  const svg = diagram.querySelector('svg');
  return {slider: box(slider), diagram: box(diagram), value: Number(slider.value),
          readout: document.querySelector('#ex1-t-readout').textContent, drawing: svg ? svg.innerHTML : ''};
}"""

# In the host: the slimmer explorer's frame box in the viewport, after scrolling the page by `y`.
SCROLL_TO = """([index, y]) => { window.scrollTo(0, y); const r = document.getElementsByTagName("iframe")[index]
  .getBoundingClientRect(); return [r.left, r.top, window.scrollY, r.top + window.scrollY]; }"""


def snippets(site_dir, lang):
    """``{widget: snippet HTML}`` as the ``lang`` page's Embed boxes offer them."""
    text = (site_dir / page_path(lang, "index.html")).read_text(encoding="utf-8")
    return {name: html.unescape(code) for name, code in _SNIPPET.findall(text)}


def _framed(snippet, src):
    return re.sub(r' src="[^"]*"', ' src="' + html.escape(src, quote=True) + '"', snippet, count=1)


def write_hosts(folder, site_dir, site_url):
    """Write one host page per load of :data:`LOADS` into ``folder``; returns ``[load]``, each a dict with
    its ``file``, ``kind``, ``lang``, ``scheme``, ``width``, ``frames`` (each ``{widget, height}``: the
    snippet's height) and ``slim`` (the index of the slimmer explorer's frame, or None)."""
    loads = []
    for kind, lang, scheme in LOADS:
        offered = snippets(site_dir, lang)
        frames, parts = [], []
        for name, snippet in sorted(offered.items()):
            src = site_url + page_path(lang, re.search(r' src="([^"#]*)', snippet).group(1))
            fields = [] if scheme == "light" else [f"theme={scheme}"]
            slim = kind in ("canvas", "fixed") and scheme == "light" and name == "explorer"
            extras = [fields] + ([fields + [SLIM]] if slim else [])
            for fields_of in extras:
                address = src + ("#state/" + "&".join(fields_of) if fields_of else "")
                measured_as = panels_key(name, SLIM.split("=")[1]) if SLIM in fields_of else name
                code = snippet
                if SLIM in fields_of:  # as the Embed box's panels choice writes it: that version's height
                    code = re.sub(r' height="\d+"', f' height="{snippet_height(ROOT, lang, measured_as)}"', snippet)
                parts.append(f"<p>{name}</p>\n" + _framed(code, address))
                frames.append({"widget": name, "height": int(re.search(r' height="(\d+)"', code).group(1)),
                               "slim": SLIM in fields_of, "wide": wide_height(ROOT, lang, measured_as)})
        resizer = f'<script src="{site_url}embed/resizer.js" async></script>' if kind == "resizer" else ""
        dark = scheme == "dark"
        text = _HOST.format(lang=lang, kind=kind, scheme=scheme, width=WIDTHS[kind], resizer=resizer,
                            bg="#15161a" if dark else "#ffffff", fg="#eeeeee" if dark else "#111111",
                            canvas="true" if kind == "canvas" else "false", frames="\n".join(parts))
        name = f"{kind}-{lang}-{scheme}.html"
        (folder / name).write_text(text, encoding="utf-8")
        slim = next((i for i, f in enumerate(frames) if f["slim"] and kind == "canvas"), None)  # its slider is tried
        loads.append({"file": name, "kind": kind, "lang": lang, "scheme": scheme, "width": WIDTHS[kind],
                      "frames": frames, "slim": slim})
    return loads


def settled(load, state):
    """True once every frame posted, no message came for 600 ms, and a resizing host applied the last heights."""
    frames = state["frames"]
    if len(frames) != len(load["frames"]) or any(not f["posts"] for f in frames) or state["quiet"] < 600:
        return False
    return load["kind"] == "fixed" or all(abs(f["height"] - f["posts"][-1]) < 1 for f in frames)


def problems(load, state, probes, site_origin):
    """What is wrong in one load, as sentences (empty: nothing): ``state`` is :data:`HOST_STATE`'s
    answer once settled, ``probes`` :data:`FRAME_PROBE`'s answer of each frame, in page order."""
    found = []
    where = f"{load['kind']} host, {load['lang']}, {load['scheme']}"
    if len(probes) != len(load["frames"]):
        return [f"{where}: {len(probes)} frames answered of {len(load['frames'])}"]
    for frame, host, probe in zip(load["frames"], state["frames"], probes):
        name = frame["widget"] + (" (slim)" if frame["slim"] else "")
        say = found.append
        if probe["widget"] != frame["widget"] or not probe["ready"]:
            say(f"{where}: {name}: not ready or not this widget: {probe}")
            continue
        if probe["scrollHeight"] > probe["viewHeight"] + 1:
            say(f"{where}: {name}: cut: content {probe['scrollHeight']} px in a {probe['viewHeight']} px frame")
        if probe["scrollWidth"] > probe["viewWidth"] + 1:
            say(f"{where}: {name}: scrolls sideways: {probe['scrollWidth']} px in {probe['viewWidth']} px")
        if probe["viewHeight"] - probe["content"] > max(GAP, GAP_SHARE * probe["viewHeight"]):
            say(f"{where}: {name}: a gap of {probe['viewHeight'] - probe['content']} px below the widget "
                f"(frame {probe['viewHeight']}, content {probe['content']})")
        if load["kind"] == "fixed" and host["attr"] != frame["height"]:
            say(f"{where}: {name}: the host resized nothing, yet the frame is {host['attr']} px, not {frame['height']}")
        if load["kind"] == "canvas" and frame["wide"] and load["scheme"] == "light":
            if abs(frame["wide"] - probe["content"]) > WIDE_TOLERANCE * probe["content"]:
                say(f"{where}: {name}: the Embed box quotes {frame['wide']} px for a {load['width']} px column, "
                    f"measured {probe['content']}")
        want = DARK_BG if load["scheme"] == "dark" else LIGHT_BG
        if probe["background"] != want:
            say(f"{where}: {name}: background {probe['background']}, not {want}")
    if load["kind"] == "canvas":
        origins = {origin for _, _, origin in state["canvas"]}
        if not state["canvas"] or origins != {site_origin} or state["replies"] != len(state["canvas"]):
            found.append(f"{where}: Canvas's part: {len(state['canvas'])} resizes from {origins}, "
                         f"{state['replies']} replies")
    return found


def slider_problems(load, before, after, geometry):
    """What is wrong with the slimmer explorer's slider, operated with its diagram in view: ``geometry`` is
    ``{frame: [left, top] in the viewport, slider, diagram}`` (slider and diagram as SLIDER_PROBE gives them),
    ``before`` and ``after`` SLIDER_PROBE's answers around a click on the slider."""
    where = f"{load['kind']} host, {load['lang']}: the slimmer explorer"
    top = geometry["frame"][1]
    slider_top, diagram_top = top + geometry["slider"][1], top + geometry["diagram"][1]
    diagram_bottom = diagram_top + geometry["diagram"][3]
    found = []
    if not (0 <= slider_top and diagram_bottom <= VIEW):
        found.append(f"{where}: slider at {slider_top:.0f} px, diagram to {diagram_bottom:.0f} px: "
                     f"not both in a {VIEW} px view")
    if any(after[key] == before[key] for key in ("value", "readout", "drawing")):
        found.append(f"{where}: a click on the slider changed nothing: {before['value']} → {after['value']}")
    return found
