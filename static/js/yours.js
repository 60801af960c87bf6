/* yours.js — only in a page built around a reader's model (build.py --data). Its examples carry, per
 * example, the classes their bars show (`examples.classes`: class numbers, -1 for "all others" when the
 * model has more classes than bars) and the logits of those classes only. This extends bars.js's setData to
 * read them (from the raw payload: model.js decodes the rest); a dataset without `classes` is drawn exactly as before. Every name is set as text. */
(function (CT) {
  "use strict";
  var plain = CT.Bars.prototype.setData;

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

  CT.Bars.prototype.setData = function (model, example) {
    var ex = model.examples, raw = model.payload && model.payload.examples;
    if (!ex || !raw || !raw.classes) return plain.call(this, model, example);
    var ui = CT.strings().ui, single = this.single, host = this.host, rows = [];
    var names = (CT.datasets[model.name] || {}).class_names;
    var label = function (k) { return k < 0 ? ui.all_others : CT.className(k, names); };
    host.textContent = "";
    var shown = single ? [example] : ex.index.map(function (_, e) { return e; });
    shown.forEach(function (e) {
      var card = document.createElement("div");
      card.className = "example";
      paragraph("example-head", CT.fill(ui.example_head, {
        number: ex.index[e] + 1, label: label(ex.label[e]), predicted: label(ex.predicted[e]),
        verdict: ex.predicted[e] === ex.label[e] ? ui.verdict_right : ui.verdict_wrong
      }), card);
      var bars = [], classes = raw.classes[e];
      for (var j = 0; j < classes.length; j++) {
        var c = classes[j], row = document.createElement("div");
        row.className = "bar-row" + (c === ex.predicted[e] ? " predicted" : "") + (c === ex.label[e] ? " truth" : "");
        span("bar-name", row).textContent = label(c);
        var fill = span("bar-fill", span("bar-track", row));
        var value = span("bar-value", row);
        card.appendChild(row);
        var labelled = single || c < 0 || c === ex.predicted[e] || c === ex.label[e];
        bars.push({ fill: fill, value: labelled ? value : null, probs: ex.probs[e][j], level: null });
      }
      host.appendChild(card);
      rows.push(bars);
    });
    this.rows = rows;
  };
})(window.CalibTutorial);
