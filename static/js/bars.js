/* bars.js — class probabilities as horizontal bars: every example of a small dataset, or one chosen
 * example (host data-mode="single"). setData builds the rows for a dataset; setIndex moves them to a
 * grid point, restyling a bar only when its length changes visibly. */
(function (CT) {
  "use strict";
  /* The label of class k, from one place: a payload's own class names (`class_names`, as a reader's
   * data would bring) where it has them, otherwise strings ui.class_name with the class number counted
   * from zero, the way the prose and its tables count. */
  CT.className = function (k, names) {
    return names && names[k] != null ? String(names[k]) : CT.fill(CT.strings().ui.class_name, { index: k });
  };
  var STEP = 0.004;  // bar lengths move in steps of 0.004 (about a pixel); the printed value is exact

  function span(className, parent) {
    var node = document.createElement("span");
    node.className = className;
    parent.appendChild(node);
    return node;
  }
  function paragraph(className, text, parent) {
    var node = document.createElement("p");
    node.className = className;
    node.textContent = text;
    parent.appendChild(node);
    return node;
  }

  function Bars(host) {
    this.host = host;
    this.single = host.dataset.mode === "single";
    this.rows = [];  // per example shown: per class {fill, value (null: not printed), probs, level}
    // The key to the marks, above the bars: {swatch} is a square of the predicted bar's colour.
    var key = document.createElement("p"), parts = CT.strings().ui.bars_key.split("{swatch}");
    key.className = "panel-note";
    key.appendChild(document.createTextNode(parts[0]));
    span("bars-swatch", key).setAttribute("aria-hidden", "true");
    key.appendChild(document.createTextNode(parts[1] || ""));
    host.parentNode.insertBefore(key, host);
  }

  /* Rebuild the cards of `model`'s examples (only `example` in single mode). A reader's model with more
   * classes than bars (build.py --data) sends, per example, the classes its bars show (`classes`: class
   * numbers, -1 for "all others") with their probabilities only; every other dataset shows every class. */
  Bars.prototype.setData = function (model, example) {
    var ui = CT.strings().ui, ex = model.examples, single = this.single, host = this.host, rows = [];
    var names = (CT.datasets[model.name] || {}).class_names;
    var raw = model.payload && model.payload.examples, chosen = raw && raw.classes;
    var label = function (k) { return k < 0 ? ui.all_others : CT.className(k, names); };
    host.textContent = "";
    var shown = single ? [example] : ex.index.map(function (_, e) { return e; });
    shown.forEach(function (e) {
      var card = document.createElement("div");
      card.className = "example";
      // examples are numbered from 1; a reader's model (file_rows) also names the row of their file, from 0
      paragraph("example-head", CT.fill(raw && raw.file_rows ? ui.example_head_yours : ui.example_head, {
        number: ex.index[e] + 1, row: ex.index[e], label: label(ex.label[e]), predicted: label(ex.predicted[e]),
        verdict: ex.predicted[e] === ex.label[e] ? ui.verdict_right : ui.verdict_wrong
      }), card);
      if (single && !chosen) paragraph("example-logits", CT.fill(ui.example_logits, { logits: CT.list(ex.logits[e].map(CT.num)) }), card);
      var bars = [], classes = chosen ? chosen[e] : null, count = classes ? classes.length : model.k;
      for (var j = 0; j < count; j++) {
        var c = classes ? classes[j] : j, row = document.createElement("div");
        row.className = "bar-row" + (c === ex.predicted[e] ? " predicted" : "") + (c === ex.label[e] ? " truth" : "");
        span("bar-name", row).textContent = label(c);
        var fill = span("bar-fill", span("bar-track", row));
        var value = span("bar-value", row);
        card.appendChild(row);
        var labelled = model.k <= 3 || single || c < 0 || c === ex.predicted[e] || c === ex.label[e];
        bars.push({ fill: fill, value: labelled ? value : null, probs: ex.probs[e][j], level: null });
      }
      host.appendChild(card);
      rows.push(bars);
    });
    this.rows = rows;
  };

  /* Show the probabilities at grid index i. */
  Bars.prototype.setIndex = function (i) {
    var rate = CT.core.units.rate, step = Math.round(STEP * rate);  // probabilities come in units of 1 / rate
    for (var r = 0; r < this.rows.length; r++) {
      var bars = this.rows[r];
      for (var c = 0; c < bars.length; c++) {
        var bar = bars[c], p = bar.probs[i], level = Math.round(p / step);
        if (bar.value) CT.setText(bar.value, CT.prob(p));
        // A bar is a few hundred pixels wide: restyle it only when it would move visibly.
        if (bar.level === level) continue;
        bar.level = level;
        bar.fill.style.transform = "scaleX(" + (level * step / rate) + ")";
      }
    }
  };

  /* Panels "bars" (every example of a small dataset) and "bars-single" (the one the example picker chose). */
  CT.explorerView("bars", function (x) {
    var host = x.$("bars"), bars;
    return host && {
      watch: host,
      config: function (state, data) {
        bars = bars || new Bars(host);
        // a dataset built without examples (--no-examples) has no bars: its panel and heading are hidden
        host.closest(".panel").hidden = !data.model.examples.index.length;
        bars.setData(data.model, state.example);
      },
      render: function (state) { bars.setIndex(state.index); }
    };
  });
})(window.CalibTutorial);
