/* compare.js — the comparison table: one row each for T = 1, the fitted T and the current T (these
 * follow the controls), then every state the reader pinned. A pinned row carries its own
 * configuration (dataset, rows, scheme, bins, T) in its label and the values looked up when it was
 * pinned, so changing the controls never changes it. setData rebuilds the rows; setIndex refills
 * only the current row. */
(function (CT) {
  "use strict";

  function Compare(table) {
    this.body = table.querySelector("tbody");
    this.current = null;  // the <tr> of the current T
    this.values = null;   // {nll, brier, ece: decoded series, accuracy}
  }

  function row(body, label) {
    var tr = document.createElement("tr"), th = document.createElement("th");
    th.scope = "row";
    th.textContent = label;
    tr.appendChild(th);
    for (var c = 0; c < 5; c++) tr.appendChild(document.createElement("td"));
    body.appendChild(tr);
    return tr;
  }
  /* Cells of one row from a grid index and its values in engine units. */
  function write(tr, index, v) {
    var cells = tr.children;
    CT.setText(cells[1], CT.temp(CT.core.grid[index]));
    CT.setText(cells[2], CT.score(v.nll));
    CT.setText(cells[3], CT.score(v.brier));
    CT.setText(cells[4], CT.pct(v.ece));
    CT.setText(cells[5], CT.pct(v.accuracy));
  }

  /* view: {nll, brier, ece (decoded series), accuracy, fittedIndex, index,
   *        pins: [{label, index, values: {nll, brier, ece, accuracy}}]}. */
  Compare.prototype.setData = function (view) {
    var ui = CT.strings().ui, body = this.body, self = this;
    this.values = { nll: view.nll, brier: view.brier, ece: view.ece, accuracy: view.accuracy };
    body.textContent = "";
    [[ui.state_t1, CT.core.t1_index], [ui.state_fitted, view.fittedIndex], [ui.state_current, view.index]].forEach(function (spec, k) {
      var tr = row(body, spec[0]);
      self.fill(tr, spec[1]);
      if (k === 2) self.current = tr;
    });
    view.pins.forEach(function (pin) { write(row(body, pin.label), pin.index, pin.values); });
  };
  Compare.prototype.fill = function (tr, index) {
    var v = this.values;
    write(tr, index, { nll: v.nll.value[index], brier: v.brier.value[index], ece: v.ece.value[index], accuracy: v.accuracy });
  };
  Compare.prototype.setIndex = function (i) {
    if (this.current) this.fill(this.current, i);
  };
  CT.Compare = Compare;
})(window.CalibTutorial);
