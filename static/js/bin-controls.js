/* bin-controls.js — controls "bin-controls" (the binning scheme and the bin count) and "overlays" (the
 * consistency bands and the smooth curve over the reliability diagram; their boxes sit in the bin
 * controls' row). They write state.scheme and state.bins (a new configuration) and state.bands and
 * state.smooth (the same configuration, redrawn). A group view and another calibrator offer the offered
 * bin counts only. */
(function (CT) {
  "use strict";

  CT.explorerView("bin-controls", function (x) {
    var s = x.state, bins = x.$("bins");
    if (!bins) return null;
    if (Number(bins.value) > 0) s.bins = Number(bins.value);
    var scheme = x.radios("scheme");
    bins.addEventListener("change", function () { s.bins = Number(bins.value); x.redraw(); x.writeHash(); });
    return {
      sync: function (state) {
        var restricted = state.group !== "pooled" || state.own || (!!state.method && state.method !== "temperature");
        if (bins._restricted !== restricted) {
          bins._restricted = restricted;
          Array.prototype.forEach.call(bins.options, function (option) { option.disabled = restricted && !CT.isOffered(option.value); });
        }
        bins.value = String(state.bins);
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
