/* bin-controls.js — controls "bin-controls" (the binning scheme and the bin count) and "overlays" (the
 * consistency bands and the smooth curve over the reliability diagram; their boxes sit in the bin
 * controls' row). They write state.scheme and state.bins (a new configuration) and state.bands and
 * state.smooth (the same configuration, redrawn). A group view and another calibrator offer the offered
 * bin counts only. */
(function (CT) {
  "use strict";

  /* The bin count is a number box (1 to the largest selectable count, the offered ones suggested). A
   * group view or another calibrator has views for the offered counts only: there its arrow keys step
   * from one offered count to the next, and a typed count goes to the nearest (explorer-data.js snapBins). */
  CT.explorerView("bin-controls", function (x) {
    var s = x.state, bins = x.$("bins"), counts = CT.core.bin_counts, offered = CT.core.offered_bin_counts;
    if (!bins) return null;
    var lo = counts[0], hi = counts[counts.length - 1];
    if (Number(bins.value) > 0) s.bins = Math.max(lo, Math.min(hi, Math.round(Number(bins.value))));
    var scheme = x.radios("scheme"), typing = false;
    function commit(value) {
      var b = Math.round(Number(value));
      typing = false;
      if (!(b >= lo && b <= hi)) { bins.value = String(s.bins); return; }  // empty or out of range: as it was
      bins.value = String(b);
      if (b === s.bins) return;
      s.bins = b;
      x.redraw();
      x.writeHash();
    }
    // a count being typed (not yet committed by Enter or leaving the box) survives a redraw meanwhile,
    // such as the one of a dataset that finishes loading
    bins.addEventListener("input", function () { typing = true; });
    bins.addEventListener("change", function () { commit(bins.value); });
    bins.addEventListener("blur", function () { if (typing) commit(bins.value); });  // typed back to the count it had
    bins.addEventListener("keydown", function (event) {
      var step = { ArrowUp: 1, ArrowDown: -1 }[event.key];
      if (!step || !bins._restricted) return;
      event.preventDefault();
      var next = offered.filter(function (b) { return step > 0 ? b > s.bins : b < s.bins; });
      if (next.length) commit(step > 0 ? next[0] : next[next.length - 1]);
    });
    return {
      sync: function (state) {
        var restricted = state.group !== "pooled" || state.own || (!!state.method && state.method !== "temperature");
        bins._restricted = restricted;
        bins.setAttribute("data-offered-only", restricted ? "on" : "off");
        if (!typing) bins.value = String(state.bins);
        scheme(state);
      }
    };
  });

  CT.explorerView("overlays", function (x) {
    var s = x.state, boxes = { bands: x.$("bands"), smooth: x.$("smooth") };
    if (!boxes.bands && !boxes.smooth) return null;
    Object.keys(boxes).forEach(function (key) {
      var box = boxes[key];
      if (!box) return;
      s[key] = box.checked;
      box.addEventListener("change", function () { s[key] = box.checked; x.render(); x.writeHash(); });
    });
    return {
      sync: function (state) {
        Object.keys(boxes).forEach(function (key) { if (boxes[key]) boxes[key].checked = state[key]; });
      }
    };
  });
})(window.CalibTutorial);
