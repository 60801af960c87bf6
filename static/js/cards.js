/* cards.js — the metric cards ([data-metric] inside an explorer): each shows its value at the current
 * T and its change against T = 1. setData takes the series of a configuration; setIndex a grid point. */
(function (CT) {
  "use strict";
  // card -> [series key, value format, change format]
  var FORMATS = {
    nll: ["nll", "score", "scoreChange"], brier: ["brier", "score", "scoreChange"],
    "ece-w": ["eceW", "pct", "points"], "ece-a": ["eceA", "pct", "points"],
    mce: ["mce", "pct", "points"], confidence: ["confidence", "pct", "points"]
  };
  var FORMAT = {
    score: CT.score,
    scoreChange: function (u) { return CT.score(u, true); },
    pct: CT.pct,
    points: CT.points
  };

  function Cards(root) {
    this.root = root;
    this.cards = [];  // [{format, value node, change node}] of the cards that follow T
    this.series = null;
    var self = this;
    Array.prototype.forEach.call(root.querySelectorAll("[data-metric]"), function (node) {
      var format = FORMATS[node.getAttribute("data-metric")];
      if (format) self.cards.push({ format: format, value: node.querySelector(".value"), change: node.querySelector(".change") });
    });
  }

  /* series: {nll, brier, eceW, eceA, mce, confidence} decoded; accuracy in rate units; moved: another
   * calibrator's change of accuracy against T = 1 (rate units), or null (no T changes it). */
  Cards.prototype.setData = function (series, accuracy, scheme, bins, moved, method) {
    var ui = CT.strings().ui, root = this.root;
    this.series = series;
    this.method = !!method;  // another calibrator: the changes are against the uncalibrated model, not a T
    var nllNote = root.querySelector('[data-metric="nll"] .note');
    if (nllNote) {
      if (nllNote._t == null) nllNote._t = nllNote.textContent;  // the template's: T is fitted to minimise it
      nllNote.textContent = method ? ui.nll_method_note : nllNote._t;
    }
    var acc = root.querySelector('[data-metric="accuracy"]');
    if (acc) {
      acc.querySelector(".value").textContent = CT.pct(accuracy);
      acc.querySelector(".change").textContent = moved == null ? ui.unchanged_by_t
        : CT.fill(ui.change_vs_uncalibrated, { change: CT.points(moved) });
      var note = acc.querySelector(".note");
      if (note._t == null) note._t = note.textContent;  // the template's: no T changes the ranking
      note.textContent = moved == null ? note._t : ui.accuracy_method_note;
    }
    var mceSub = root.querySelector('[data-metric="mce"] .card-sub');
    if (mceSub) mceSub.textContent = CT.fill(ui.scheme_bins, { scheme: ui["scheme_" + scheme], bins: CT.plural("bins", bins) });
    Array.prototype.forEach.call(root.querySelectorAll(".bins-count"), function (node) { node.textContent = bins; });
  };

  Cards.prototype.setIndex = function (i) {
    var ui = CT.strings().ui, template = this.method ? ui.change_vs_uncalibrated : ui.change_vs_t1;
    for (var c = 0; c < this.cards.length; c++) {
      var card = this.cards[c], series = this.series[card.format[0]];
      if (!series) {  // not computed for this view (e.g. the MCE of another bin count, still loading)
        CT.setText(card.value, "\u2026");
        CT.setText(card.change, "");
        continue;
      }
      CT.setText(card.value, FORMAT[card.format[1]](series.value[i]));
      CT.setText(card.change, CT.fill(template, { change: FORMAT[card.format[2]](series.change[i]) }));
    }
  };

  /* Panels "cards" (seven) and "cards-basic" (three): one view, the markup tells which cards there are. */
  CT.explorerView("cards", function (x) {
    var cards = x.root.querySelector(".cards") && new Cards(x.root);
    return cards && {
      config: function (state, data) {
        var own = data.method && data.own;  // another calibrator may change which class wins
        cards.setData(data.series, own ? own.accuracy : data.part.accuracy, state.scheme, state.bins,
          own ? own.accuracy - data.part.accuracy : null, own);
      },
      render: function (state) { cards.setIndex(state.index); },
      saysEce: function (state) { return !!x.root.querySelector('[data-metric="' + (state.scheme === "adaptive" ? "ece-a" : "ece-w") + '"]'); }
    };
  });
})(window.CalibTutorial);
