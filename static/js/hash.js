/* hash.js — an explorer's state in the URL: #state/dataset=…&t=…&scheme=…&bins=…&part=…, plus
 * &bands=…&smooth=… where the overlays are offered. Only the explorer marked data-hash="on" uses it. */
(function (CT) {
  "use strict";
  var PREFIX = "#state/";
  var DELAY = 250;  // ms after the last change
  var timer = null;

  /* True when the page was opened on a #state/ hash. */
  function present() {
    return window.location.hash.indexOf(PREFIX) === 0;
  }

  /* Copy every valid field of the #state/ hash into `state`; malformed fields are ignored. */
  function read(state) {
    if (!present()) return;
    var params = {};
    window.location.hash.slice(PREFIX.length).split("&").forEach(function (pair) {
      var kv = pair.split("=");
      if (kv.length === 2) params[decodeURIComponent(kv[0])] = decodeURIComponent(kv[1]);
    });
    if (params.dataset && CT.datasetInfo(params.dataset)) state.dataset = params.dataset;
    var t = Number(params.t);
    if (t > 0 && isFinite(t)) state.index = CT.nearestIndex(CT.core.grid, t);
    if (CT.core.schemes.indexOf(params.scheme) >= 0) state.scheme = params.scheme;
    if (CT.core.bin_counts.indexOf(Number(params.bins)) >= 0) state.bins = Number(params.bins);
    if (params.part) state.part = params.part;
    if (params.bands) state.bands = params.bands === "1";
    if (params.smooth) state.smooth = params.smooth === "1";
  }

  /* The hash of `state`; `overlays` adds the bands and smooth-curve switches. */
  function format(state, overlays) {
    return PREFIX + "dataset=" + state.dataset + "&t=" + Number(CT.core.grid[state.index].toPrecision(5)) +
      "&scheme=" + state.scheme + "&bins=" + state.bins + "&part=" + state.part +
      (overlays ? "&bands=" + (state.bands ? 1 : 0) + "&smooth=" + (state.smooth ? 1 : 0) : "");
  }

  /* Replace the hash with make() a moment after the controls settle: holding an arrow key fires
   * "change" on every step, and each replaceState makes Chromium fetch the favicon again. */
  function write(make) {
    clearTimeout(timer);
    timer = setTimeout(function () {
      timer = null;
      var hash = make();
      if (window.location.hash !== hash) history.replaceState(null, "", hash);
    }, DELAY);
  }

  CT.stateHash = { present: present, read: read, format: format, write: write };
})(window.CalibTutorial);
