/* hash.js — an explorer's state in the URL: #state/dataset=…&t=…&scheme=…&bins=…&part=…, plus
 * &bands=…&smooth=… where the overlays are offered. The explorer marked data-hash="on" uses it; a
 * hash ending in &widget=<id> is for the explorer with that id instead (an embed page's link to the
 * full tutorial names the widget it came from). */
(function (CT) {
  "use strict";
  var PREFIX = "#state/";
  var DELAY = 250;  // ms after the last change
  var timer = null;

  /* True when the page was opened on a #state/ hash. */
  function present() {
    return window.location.hash.indexOf(PREFIX) === 0;
  }

  /* The fields of the #state/ hash as {name: value}. */
  function fields() {
    var params = {};
    window.location.hash.slice(PREFIX.length).split("&").forEach(function (pair) {
      var kv = pair.split("=");
      if (kv.length === 2) params[decodeURIComponent(kv[0])] = decodeURIComponent(kv[1]);
    });
    return params;
  }

  /* True when the page was opened on a #state/ hash for the explorer `root`: the one its widget
   * field names, or without that field the one marked data-hash="on". */
  function isFor(root) {
    if (!present()) return false;
    var widget = fields().widget;
    return widget ? widget === root.id : root.getAttribute("data-hash") === "on";
  }

  /* Copy every valid field of the #state/ hash into `state`; malformed fields are ignored. */
  function read(state) {
    if (!present()) return;
    var params = fields();
    if (params.dataset && CT.datasetInfo(params.dataset)) state.dataset = params.dataset;
    var t = Number(params.t);
    if (t > 0 && isFinite(t)) state.index = CT.nearestIndex(CT.core.grid, t);
    if (CT.core.schemes.indexOf(params.scheme) >= 0) state.scheme = params.scheme;
    if (CT.core.bin_counts.indexOf(Number(params.bins)) >= 0) state.bins = Number(params.bins);
    if (params.part) state.part = params.part;
    if (params.bands) state.bands = params.bands === "1";
    if (params.smooth) state.smooth = params.smooth === "1";
  }

  /* The hash of `state`; `overlays` adds the bands and smooth-curve switches, `widget` (an explorer's
   * id, optional) the explorer it is for. */
  function format(state, overlays, widget) {
    return PREFIX + "dataset=" + state.dataset + "&t=" + Number(CT.core.grid[state.index].toPrecision(5)) +
      "&scheme=" + state.scheme + "&bins=" + state.bins + "&part=" + state.part +
      (overlays ? "&bands=" + (state.bands ? 1 : 0) + "&smooth=" + (state.smooth ? 1 : 0) : "") +
      (widget ? "&widget=" + encodeURIComponent(widget) : "");
  }

  /* Replace the hash with make() a moment after the controls settle: holding an arrow key fires
   * "change" on every step, and each replaceState makes Chromium fetch the favicon again. */
  function write(make) {
    clearTimeout(timer);
    timer = setTimeout(function () {
      timer = null;
      var hash = make();
      // A sandboxed frame without same-origin access (an embed) may refuse: the state then stays unwritten.
      try { if (window.location.hash !== hash) history.replaceState(null, "", hash); } catch (error) { /* kept */ }
    }, DELAY);
  }

  CT.stateHash = { present: present, isFor: isFor, read: read, format: format, write: write };
})(window.CalibTutorial);
