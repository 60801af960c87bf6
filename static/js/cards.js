/* cards.js — the metric cards ([data-metric] inside an explorer; the build writes one per card of the metric
 * registry, sitegen/common/metrics.py): each shows its value at the current T and its change against T = 1.
 * setData takes the series of a configuration; setIndex a grid point. */
(function (CT) {
  "use strict";
  // a metric's format (the core payload's metrics) -> [value format, change format]
  var FORMAT = {
    score: [CT.score, function (u) { return CT.score(u, true); }],
    pct: [CT.pct, CT.points]
  };

  /* card name -> {key: the series key of explorer-data.js, metric: its metric's record, sub}, from the core payload. */
  function cardsOf() {
    var out = {};
    CT.core.metrics.forEach(function (metric) {
      metric.cards.forEach(function (card) {
        out[card.name] = { key: card.scheme ? card.name : metric.key, metric: metric, sub: card.sub };
      });
    });
    return out;
  }

  function Cards(root) {
    this.root = root;
    this.cards = [];  // [{key, format, value node, change node}] of the cards that follow T
    this.constants = [];  // the same of the cards no T changes (accuracy), with their metric's key
    this.schemeSubs = [];  // the lines under a title that name the scheme and bin count (sub "scheme")
    this.series = null;
    var self = this, known = cardsOf();
    Array.prototype.forEach.call(root.querySelectorAll("[data-metric]"), function (node) {
      var card = known[node.getAttribute("data-metric")];
      if (!card) return;
      var entry = { key: card.key, metric: card.metric.key, format: FORMAT[card.metric.format],
        value: node.querySelector(".value"), change: node.querySelector(".change") };
      (card.metric.kind === "constant" ? self.constants : self.cards).push(entry);
      if (card.sub === "scheme") self.schemeSubs.push(node.querySelector(".card-sub"));
    });
  }

  /* series: explorer-data.js's decoded series by key; part: the row set shown (model.js Part); calibrator:
   * another calibrator's test rows (pointScores), or null. A constant (accuracy) is the row set's, or the
   * calibrator's with its change against the uncalibrated model (another calibrator may change which class
   * wins; no T does). */
  Cards.prototype.setData = function (series, part, scheme, bins, calibrator) {
    var ui = CT.strings().ui, root = this.root;
    this.series = series;
    this.method = !!calibrator;  // another calibrator: the changes are against the uncalibrated model, not a T
    var nllNote = root.querySelector('[data-metric="nll"] .note');
    if (nllNote) {
      if (nllNote._t == null) nllNote._t = nllNote.textContent;  // the template's: T is fitted to minimise it
      nllNote.textContent = calibrator ? ui.nll_method_note : nllNote._t;
    }
    this.constants.forEach(function (card) {
      var uncalibrated = part.metric(card.metric), value = calibrator ? calibrator.value(card.metric) : uncalibrated;
      card.value.textContent = card.format[0](value);
      card.change.textContent = calibrator
        ? CT.fill(ui.change_vs_uncalibrated, { change: card.format[1](value - uncalibrated + calibrator.fix(card.metric)) })
        : ui.unchanged_by_t;
    });
    var accNote = root.querySelector('[data-metric="accuracy"] .note');
    if (accNote) {
      if (accNote._t == null) accNote._t = accNote.textContent;  // the template's: no T changes the ranking
      accNote.textContent = calibrator ? ui.accuracy_method_note : accNote._t;
    }
    this.schemeSubs.forEach(function (sub) {
      sub.textContent = CT.fill(ui.scheme_bins, { scheme: ui["scheme_" + scheme], bins: CT.plural("bins", bins) });
    });
    Array.prototype.forEach.call(root.querySelectorAll(".bins-count"), function (node) { node.textContent = bins; });
  };

  Cards.prototype.setIndex = function (i) {
    var ui = CT.strings().ui, template = this.method ? ui.change_vs_uncalibrated : ui.change_vs_t1;
    for (var c = 0; c < this.cards.length; c++) {
      var card = this.cards[c], series = this.series[card.key];
      if (!series) {  // not computed for this view (e.g. the MCE of another bin count, still loading)
        CT.setText(card.value, "\u2026");
        CT.setText(card.change, "");
        continue;
      }
      CT.setText(card.value, card.format[0](series.value[i]));
      CT.setText(card.change, CT.fill(template, { change: card.format[1](series.change[i]) }));
    }
  };

  /* Panels "cards" (every card) and "cards-basic" (three): one view, the markup tells which cards there are. */
  CT.explorerView("cards", function (x) {
    var cards = x.root.querySelector(".cards") && new Cards(x.root);
    return cards && {
      config: function (state, data) { cards.setData(data.series, data.part, state.scheme, state.bins, data.calibrator); },
      render: function (state) { cards.setIndex(state.index); },
      saysEce: function (state) { return !!x.root.querySelector('[data-metric="' + (state.scheme === "adaptive" ? "ece-a" : "ece-w") + '"]'); }
    };
  });
})(window.CalibTutorial);
