/* embed.js — an embed page (embed/<widget>.html) inside a course page's iframe. Inlined in the embed
 * pages only, after app.js is requested (deferred), so it must not rely on CalibTutorial at load.
 *
 * Height: the page watches its own height (ResizeObserver on <html>, whose height is its content's:
 * the embed pages use no vh or percentage heights) and posts it, in whole CSS pixels rounded up, to
 * window.parent, twice: as Canvas LMS's {subject: "lti.frameResize", height} and as this site's own
 * {type: "calibration-tutorial:resize", widget, height}. It posts when that number changes, at
 * most once a frame (with a timer as well: a browser pauses frames of an off-screen cross-origin
 * iframe), so a host that sets the frame to the posted height cannot start a loop; and once more,
 * unchanged, when the frame comes into view or the host asks (the only message it acts on).
 *
 * It touches no storage, cookie or window.top, so it works in any iframe: the snippet's sandbox keeps
 * the frame's own origin (allow-same-origin) so that Canvas, which answers every message at
 * event.origin, does not throw on "null"; it works without that flag too, and from file://.
 *
 * Should app.js fail to load (a browser gives no file from disk to a frame sandboxed without allow-same-origin), the page falls
 * back to its no-script state (static figures where the widget has them) and says why.
 *
 * The "open in the full tutorial" link keeps its no-script address (the widget's section) until the
 * reader reaches for it; then it carries the widget's state to that section (#<section>/state/…&widget=<id>,
 * hash.js's grammar), so the full page shows the same widget in the same state. */
(function () {
  "use strict";
  var html = document.documentElement, widget = html.getAttribute("data-embed");
  var posted = -1, queued = false;

  function post() {
    if (!queued) return;
    queued = false;
    var height = Math.ceil(html.getBoundingClientRect().height);
    if (height === posted || window.parent === window) return;
    posted = height;
    window.parent.postMessage({ subject: "lti.frameResize", height: height }, "*");
    window.parent.postMessage({ type: "calibration-tutorial:resize", widget: widget, height: height }, "*");
  }
  function schedule() {
    if (queued) return;
    queued = true;
    requestAnimationFrame(post);
    setTimeout(post, 100);
  }
  if ("ResizeObserver" in window) new ResizeObserver(schedule).observe(html);
  /* Post again (even an unchanged height) when the frame comes into view, and when the page around
   * asks (embed/resizer.js sends {type: "calibration-tutorial:height?"}): a browser pauses an
   * off-screen cross-origin frame, so a host may hold a stale height until then. */
  function repost() { posted = -1; schedule(); }
  if ("IntersectionObserver" in window) {
    new IntersectionObserver(function (entries) {
      if (entries.some(function (entry) { return entry.isIntersecting; })) repost();
    }).observe(html);
  }
  window.addEventListener("message", function (event) {
    var data = event.data;
    if (event.source === window.parent && data && data.type === "calibration-tutorial:height?") repost();
  });
  window.addEventListener("load", function () {
    var CT = window.CalibTutorial;
    if (!CT || !CT.core) {
      html.className = html.className.replace(/\bjs\b/, "no-js");
      var note = document.querySelector("[data-embed-failed]");
      if (note) note.hidden = false;
    }
    schedule();
  });
  schedule();

  /* Scrollbars: a table too wide for the column scrolls sideways in its box, whose horizontal scrollbar
   * takes height in a browser with classic scrollbars (12-17 px) and none with overlay scrollbars (phones,
   * macOS, headless Chromium, which measures the snippet heights). Where scrollbars take no room, the
   * page marks itself (html.overlay-scrollbars) and embed.css keeps that room under each table box, so
   * one measured height fits both kinds of browser. */
  (function () {
    var probe = document.createElement("div");
    probe.style.cssText = "position:absolute;top:-99px;width:50px;height:50px;overflow:scroll";
    html.appendChild(probe);
    if (probe.offsetHeight === probe.clientHeight) html.classList.add("overlay-scrollbars");
    html.removeChild(probe);
  })();

  /* Colours: the page starts data-theme="light" (a course page is white); #state/…&theme=dark forces
   * the dark palette, theme=auto follows the reader's system (sitegen/embeds/theme.py). Read once app.js
   * has run (deferred scripts run before DOMContentLoaded), and again when the address changes. */
  function applyTheme() {
    var CT = window.CalibTutorial;
    var fields = CT && CT.stateHash ? CT.stateHash.parse(window.location.hash).fields : null;
    var theme = fields && fields.theme;
    if (theme === "auto") html.removeAttribute("data-theme");
    else html.setAttribute("data-theme", theme === "dark" ? "dark" : "light");
  }
  document.addEventListener("DOMContentLoaded", applyTheme);
  window.addEventListener("hashchange", applyTheme);

  /* A slimmer widget: #state/…&panels=cards,reliability keeps only the explorer's body parts that show
   * one of the named panels or controls (their wrappers carry data-panels, the manifest's names); the
   * controls above the slider always stay. A list naming none of them changes nothing. */
  function choosePanels() {
    var CT = window.CalibTutorial;
    var fields = CT && CT.stateHash ? CT.stateHash.parse(window.location.hash).fields : null;
    var chosen = fields && fields.panels ? fields.panels.split(",") : [];
    var parts = Array.prototype.slice.call(document.querySelectorAll("[data-panels]"));
    var names = function (part) { return part.getAttribute("data-panels").split(" "); };
    var known = parts.some(function (part) { return names(part).some(function (n) { return chosen.indexOf(n) >= 0; }); });
    parts.forEach(function (part) {
      part.hidden = known && !names(part).some(function (n) { return chosen.indexOf(n) >= 0; });
    });
  }
  document.addEventListener("DOMContentLoaded", choosePanels);
  window.addEventListener("hashchange", choosePanels);

  function carryState(link) {
    var CT = window.CalibTutorial, root = document.querySelector('[data-component="explorer"]');
    var explorer = root && root.explorer;
    if (!CT || !CT.stateHash || !explorer || !explorer.state.model) return;
    var state = CT.stateHash.format(explorer.state, explorer.options.analysis, link.getAttribute("data-widget"));
    link.setAttribute("href", link.getAttribute("href").split("#")[0] +
      CT.stateHash.build(link.getAttribute("data-section"), CT.stateHash.parse(state).fields));
  }
  ["pointerdown", "focusin", "click"].forEach(function (type) {
    document.addEventListener(type, function (event) {
      var link = event.target.closest && event.target.closest("a[data-full-tutorial]");
      if (link) carryState(link);
    }, true);
  });
})();
