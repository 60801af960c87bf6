/* hash.js — the page's one URL grammar (README, "Links and state"). The fragment holds a place, a
 * state, or both:
 *
 *   #<id>                  a place: the id of a section (or of any element) to scroll to
 *   #state/<fields>        a state, at the explorer that keeps its state in the URL
 *   #<id>/state/<fields>   both: the state, shown at that place
 *
 * <fields> are key=value pairs joined by "&" (";" is read as well), each part percent-encoded. The
 * main explorer (data-hash="on") writes dataset, t, scheme, bins, part, group, own (each group at its
 * own T) and method where the dataset offers them, and bands and smooth where it offers the overlays; a field nobody here knows (one a language switcher, an embed or a later
 * view adds) is kept when the explorer rewrites the others. Following an in-page link keeps the
 * state: the place changes, the fields stay. parse and build are the only readers and writers.
 * A link that carries fields ("show me" links of the prose, #<explorer id>/state/…) puts the explorer
 * the state is for into that state, opening a deep dive around it, and scrolls to the place.
 *
 * One field is the URL's own: widget=<id> says which explorer the state is for (an embed page's link
 * to the full tutorial sets it to the widget it came from); without it, the state is the main
 * explorer's. isFor(root) tells an explorer whether the state is its own. */
(function (CT) {
  "use strict";
  var MARK = "state/";
  var DELAY = 250;  // ms after the last change
  var timer = null;

  /* {place, fields} of a fragment ("#…" or ""): place is "" when absent, fields null when there is no state. */
  function parse(hash) {
    var text = String(hash || "").replace(/^#/, ""), place = text, body = null;
    if (text.indexOf(MARK) === 0) { place = ""; body = text.slice(MARK.length); }
    else if (text.indexOf("/" + MARK) >= 0) {
      var at = text.indexOf("/" + MARK);
      place = text.slice(0, at);
      body = text.slice(at + 1 + MARK.length);
    }
    var fields = null;
    if (body !== null) {
      fields = {};
      body.split(/[&;]/).forEach(function (pair) {
        var kv = pair.split("=");
        if (kv.length !== 2 || !kv[0]) return;
        try { fields[decodeURIComponent(kv[0])] = decodeURIComponent(kv[1]); } catch (error) { /* malformed: ignored */ }
      });
    }
    try { place = decodeURIComponent(place); } catch (error) { place = ""; }
    return { place: place, fields: fields };
  }

  /* The fragment of a place and fields (either may be empty/null); "" when both are. */
  function build(place, fields) {
    var head = place ? encodeURIComponent(place) : "";
    if (!fields) return head ? "#" + head : "";
    var pairs = Object.keys(fields).map(function (key) {
      return encodeURIComponent(key) + "=" + encodeURIComponent(fields[key]).replace(/%2C/g, ",");
    });
    return "#" + (head ? head + "/" : "") + MARK + pairs.join("&");
  }

  function current() { return parse(window.location.hash); }

  /* True when the URL's state is for the explorer `root`: the one its widget field names, or
   * without that field the one marked data-hash="on". */
  function isFor(root) {
    var fields = current().fields;
    if (!fields) return false;
    return fields.widget ? fields.widget === root.id : root.getAttribute("data-hash") === "on";
  }

  /* Copy every valid field of the URL's state into `state`; malformed fields are ignored. */
  function read(state) {
    var params = current().fields;
    if (!params) return;
    if (params.dataset && CT.datasetInfo(params.dataset)) state.dataset = params.dataset;
    var t = Number(params.t);
    if (t > 0 && isFinite(t)) state.index = CT.nearestIndex(CT.core.grid, t);
    if (CT.core.schemes.indexOf(params.scheme) >= 0) state.scheme = params.scheme;
    if (CT.core.bin_counts.indexOf(Number(params.bins)) >= 0) state.bins = Number(params.bins);
    if (params.part) state.part = params.part;
    if (params.group) state.group = params.group;  // a group the dataset lacks falls back to pooled
    if (params.method) state.method = params.method;  // one the dataset lacks falls back to temperature
    if (params.own) state.own = params.own === "1";  // each group at its own fitted T
    if (params.bands) state.bands = params.bands === "1";
    if (params.smooth) state.smooth = params.smooth === "1";
  }

  /* The fragment for `state` at the current place, keeping fields the explorer does not own;
   * `overlays` adds the bands and smooth-curve switches, `widget` (an explorer's id; none for the
   * main explorer) the explorer the state is for. */
  function format(state, overlays, widget) {
    var now = current(), fields = now.fields || {};
    var own = { dataset: state.dataset, t: Number(CT.core.grid[state.index].toPrecision(5)), scheme: state.scheme,
      bins: state.bins, part: state.part };
    if (overlays) { own.bands = state.bands ? 1 : 0; own.smooth = state.smooth ? 1 : 0; }
    var merged = {};
    Object.keys(own).forEach(function (key) { merged[key] = own[key]; });
    Object.keys(fields).forEach(function (key) { if (!(key in merged) && key !== "widget") merged[key] = fields[key]; });
    // the group shown, for a dataset with groups only
    var info = CT.datasetInfo(state.dataset);
    if (info && info.groups && info.groups.length) { merged.group = state.group; merged.own = state.own ? 1 : 0; }
    else { delete merged.group; delete merged.own; }
    // the calibrator shown, for a dataset that offers others than temperature scaling only
    if (info && info.methods && info.methods.length && state.method) merged.method = state.method;
    else delete merged.method;
    if (widget) merged.widget = widget;
    return build(now.place, merged);
  }

  /* Replace the hash with make() a moment after the controls settle: holding an arrow key fires
   * "change" on every step, and each replaceState makes Chromium fetch the favicon again. */
  function write(make) {
    clearTimeout(timer);
    timer = setTimeout(function () {
      timer = null;
      var hash = make();
      // A frame sandboxed without same-origin access (an embed whose host dropped that flag) may refuse: the state then stays unwritten.
      try {
        if (window.location.hash !== hash) history.replaceState(null, "", hash || window.location.pathname);
      } catch (error) { /* kept as it was */ }
    }, DELAY);
  }

  /* Keep `target` at the top while the sections above it take their real sizes (sections off screen
   * are laid out at an estimated height until they come near: base.css), for a moment or until the
   * reader scrolls, taps or types. */
  function hold(target) {
    var frames = 0, stopped = false, events = ["wheel", "touchstart", "keydown", "pointerdown"];
    var stop = function () { stopped = true; };
    events.forEach(function (type) { window.addEventListener(type, stop, { passive: true }); });
    (function check() {
      if (stopped || ++frames > 45) {
        events.forEach(function (type) { window.removeEventListener(type, stop); });
        return;
      }
      if (Math.abs(target.getBoundingClientRect().top) > 1) target.scrollIntoView();
      requestAnimationFrame(check);
    })();
  }

  /* Open the closed deep dives (<details class="deep-dive">) around `target`. */
  function reveal(target) {
    for (var box = target.closest("details.deep-dive"); box; box = box.parentElement.closest("details.deep-dive")) {
      if (!box.open) box.open = true;
    }
  }

  /* Scroll to the element a place names (opening a deep dive around it) and move the keyboard's starting
   * point there; false if none. */
  function go(place) {
    var target = place && document.getElementById(place);
    if (!target) return false;
    reveal(target);
    target.scrollIntoView();
    hold(target);
    if (!target.hasAttribute("tabindex") && !/^(A|BUTTON|INPUT|SELECT|TEXTAREA)$/.test(target.tagName)) {
      target.setAttribute("tabindex", "-1");
    }
    target.focus({ preventScroll: true });
    return true;
  }

  /* The URL's state shown by the explorer it is for (started now if it was not), and the page at its
   * place (or at that explorer): what a "show me" link, or going back to one, asks. */
  function show() {
    var now = current();
    // a figure that is not an explorer (the hero, a section's step figure) registers how it shows a state
    var step = now.fields && now.fields.widget && CT.steps && CT.steps[now.fields.widget];
    if (step) {
      step(now.fields);
      if (!go(now.place)) go(now.fields.widget);
      return;
    }
    if (!now.fields) return;
    var root = Array.prototype.filter.call(document.querySelectorAll('[data-component="explorer"]'), isFor)[0];
    if (!root) return;
    reveal(root);
    CT.withMarkup(root, function () {  // the widgets' code and markup may load first (core.js)
      var x = root.explorer;
      if (!x) root.explorer = new CT.Explorer(root);  // a new explorer reads the URL's state itself
      else {
        x.options.hash = true;
        read(x.state);
        x.loadDataset(x.state.dataset, true);  // true: keep the URL's group, as on a first load
      }
      if (!go(now.place)) { root.scrollIntoView(); hold(root); }
    });
  }
  window.addEventListener("hashchange", show);

  /* An in-page link: go to the link's place and keep the URL's state, if any (a new history entry, as
   * any link makes). A link that carries a state of its own shows that state (show). */
  document.addEventListener("click", function (event) {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    var link = event.target.closest && event.target.closest('a[href^="#"]');
    if (!link) return;
    var now = current(), to = parse(link.getAttribute("href"));
    if (to.fields) {
      event.preventDefault();
      if (window.location.hash !== link.getAttribute("href")) history.pushState(null, "", link.getAttribute("href"));
      show();
      return;
    }
    if (!to.place || !document.getElementById(to.place)) return;
    event.preventDefault();
    var hash = build(to.place, now.fields);
    if (window.location.hash !== hash) history.pushState(null, "", hash);
    go(to.place);
  });

  CT.stateHash = { parse: parse, build: build, isFor: isFor, read: read, format: format, write: write, go: go,
    show: show, reveal: reveal, place: function () { return current().place; } };
})(window.CalibTutorial);
