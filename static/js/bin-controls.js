/* bin-controls.js — controls "bin-controls" (the binning scheme and the bin count) and "overlays" (the
 * consistency bands and the smooth curve over the reliability diagram; their boxes sit in the bin
 * controls' row). They write state.scheme and state.bins (a new configuration) and state.bands and
 * state.smooth (the same configuration, redrawn). A group view offers the offered bin counts only. */
(function (CT) {
  "use strict";

  CT.explorerView("bin-controls", {
    start: function (x) {
      var s = x.state, bins = x.$("bins"), schemes = x.radios("scheme");
      if (!bins && !schemes.length) return null;
      if (bins && Number(bins.value) > 0) s.bins = Number(bins.value);
      schemes.forEach(function (input) { if (input.checked) s.scheme = input.value; });
      if (bins) bins.addEventListener("change", function () { s.bins = Number(bins.value); x.redraw(); x.writeHash(); });
      schemes.forEach(function (input) {
        input.addEventListener("change", function () {
          if (!input.checked) return;
          s.scheme = input.value;
          x.redraw();
          x.writeHash();
        });
      });
      return {
        sync: function (state) {
          var restricted = state.group !== "pooled" || state.own;
          if (bins) {
            if (bins._restricted !== restricted) {
              bins._restricted = restricted;
              Array.prototype.forEach.call(bins.options, function (option) { option.disabled = restricted && !CT.isOffered(option.value); });
            }
            bins.value = String(state.bins);
          }
          schemes.forEach(function (input) { input.checked = input.value === state.scheme; });
        }
      };
    }
  });

  CT.explorerView("overlays", {
    start: function (x) {
      var s = x.state, boxes = { bands: x.$("bands"), smooth: x.$("smooth") };
      if (!boxes.bands && !boxes.smooth) return null;
      Object.keys(boxes).forEach(function (key) {
        var box = boxes[key];
        if (!box) return;
        s[key] = box.checked;
        box.addEventListener("change", function () { s[key] = box.checked; x.refresh(); x.writeHash(); });
      });
      return {
        sync: function (state) {
          Object.keys(boxes).forEach(function (key) { if (boxes[key]) boxes[key].checked = state[key]; });
        }
      };
    }
  });
})(window.CalibTutorial);
