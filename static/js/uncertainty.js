/* uncertainty.js — the "how much of this is noise?" panel: at one computed temperature, the ECE
 * measured, its spread over resamples, what a perfectly calibrated model would score, the NLL with
 * its spread, and the smooth ECE. The numbers come from analysis.js (and the grid series). */
(function (CT) {
  "use strict";

  function Uncertainty(panel, note) {
    this.panel = panel;
    this.note = note;
    this.fields = {};
    var fields = this.fields;
    Array.prototype.forEach.call(panel.querySelectorAll("[data-u]"), function (node) {
      fields[node.getAttribute("data-u")] = node;
    });
  }

  /* Waiting for the analyses of the dataset shown. */
  Uncertainty.prototype.pending = function () {
    this.panel.classList.add("pending");
    // never leave values of another view beside the cards: every row waits ("…") until drawn again
    for (var name in this.fields) CT.setText(this.fields[name], name === "measured-near" ? "" : "\u2026");
  };

  /* view: {at (the note's text), k (sub-grid position), scheme, bins, nll (the grid series value at
   * that point), part (an analysisModel part)}. The measured ECE is set by measure, on every step. */
  Uncertainty.prototype.draw = function (view) {
    var ui = CT.strings().ui, k = view.k, part = view.part, fields = this.fields;
    var spread = part.spreadEce(view.scheme, view.bins), floor = part.floorEce(view.scheme, view.bins);
    var nll = part.spreadNll(), smooth = part.smooth();
    this.panel.classList.remove("pending");
    CT.setText(this.note, view.at);
    // spreads and floors exist for the offered bin counts only
    var missing = CT.fill(ui.unc_offered_only, { counts: CT.core.offered_bin_counts.join(", ") });
    CT.setText(fields.spread, spread ? CT.fill(ui.range_value, { lo: CT.pct(spread.lo[k]), hi: CT.pct(spread.hi[k]) }) : missing);
    CT.setText(fields.floor, floor ? CT.fill(ui.floor_value, { lo: CT.pct(floor.lo[k]), mid: CT.pct(floor.mid[k]), hi: CT.pct(floor.hi[k]) }) : missing);
    CT.setText(fields.nll, CT.fill(ui.unc_nll_value, { nll: CT.score(view.nll), lo: CT.score(nll.lo[k]), hi: CT.score(nll.hi[k]) }));
    CT.setText(fields.smooth, CT.fill(ui.smooth_value, { ece: CT.pct(smooth.ece[k]), sigma: CT.prob(smooth.sigma[k]) }));
  };
  /* The ECE measured: the cards' value at the slider's T, then (when the rows below are at another,
   * nearest computed T) the ECE at that T, so the two temperatures and their values sit side by side.
   * m: {scheme, bins, ece, t, nearEce (null when the temperatures agree), nearT}. */
  Uncertainty.prototype.measure = function (m) {
    var ui = CT.strings().ui;
    CT.setText(this.fields.measured, CT.fill(ui.unc_measured_value, { ece: CT.pct(m.ece), t: CT.temp(m.t),
      scheme: ui["scheme_" + m.scheme], bins: CT.plural("bins", m.bins) }));
    CT.setText(this.fields["measured-near"], m.nearEce == null ? "" : CT.fill(ui.unc_measured_near, { ece: CT.pct(m.nearEce), t: CT.temp(m.nearT) }));
  };

  /* Panel "uncertainty": drawn at the analyses' sub-grid point nearest to the slider (redrawn when that
   * point or the configuration changes); its first row follows every step. Waits ("…") until the
   * analyses arrive; a group view says why it shows none (the analyses are of every row). */
  CT.explorerView("uncertainty", function (x) {
    var panel = x.$("uncertainty"), view = panel && new Uncertainty(panel, x.$("unc-at")), drawn;
    return view && {
      render: function (state, data) {
        var a = data.analysis, key = [data.serial, data.sub, !!a, data.aside].join("|"), changed = key !== drawn;
        drawn = key;
        if (!a || data.aside) {
          if (changed) view.pending();
          if (a) CT.setText(view.note, data.aside);
          return;
        }
        var grid = CT.core.grid, ui = CT.strings().ui, i = state.index, gi = data.subIndex, ece = data.series.ece.value;
        if (changed) {
          view.draw({ at: CT.fill(ui.unc_at, { t: CT.temp(grid[gi]), count: a.subgrid.length }), k: data.sub, part: a.part(state.part),
            scheme: state.scheme, bins: state.bins, nll: data.series.nll.value[gi] });
        }
        // the ECE the cards show (the slider's T) and, when the rows below are at another T, the ECE there
        view.measure({ scheme: state.scheme, bins: state.bins, ece: ece[i], t: grid[i], nearEce: gi === i ? null : ece[gi], nearT: grid[gi] });
      }
    };
  });
})(window.CalibTutorial);
