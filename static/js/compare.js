/* compare.js — the comparison table: one row each for T = 1, the fitted T, the current T and every
 * state the reader pinned. setData rebuilds the rows; setIndex refills only the current row. */
(function (CT) {
  "use strict";

  function Compare(table) {
    this.body = table.querySelector("tbody");
    this.eceHead = table.querySelector(".compare-ece");
    this.current = null;  // the <tr> of the current T
    this.values = null;   // {nll, brier, ece: decoded series, accuracy}
  }

  /* view: {nll, brier, ece (decoded series), accuracy, eceLabel, fittedIndex, index, pins (grid indices)}. */
  Compare.prototype.setData = function (view) {
    var ui = CT.strings().ui, body = this.body, self = this;
    this.values = { nll: view.nll, brier: view.brier, ece: view.ece, accuracy: view.accuracy };
    this.eceHead.textContent = view.eceLabel;
    body.textContent = "";
    var rows = [[ui.state_t1, CT.core.t1_index], [ui.state_fitted, view.fittedIndex], [ui.state_current, view.index]];
    view.pins.forEach(function (index, k) { rows.push([CT.fill(ui.state_pinned, { number: k + 1 }), index]); });
    this.current = null;
    rows.forEach(function (spec, k) {
      var tr = document.createElement("tr");
      var th = document.createElement("th");
      th.scope = "row";
      th.textContent = spec[0];
      tr.appendChild(th);
      for (var c = 0; c < 5; c++) tr.appendChild(document.createElement("td"));
      body.appendChild(tr);
      self.fill(tr, spec[1]);
      if (k === 2) self.current = tr;
    });
  };
  Compare.prototype.fill = function (tr, index) {
    var cells = tr.children, v = this.values;
    CT.setText(cells[1], CT.temp(CT.core.grid[index], 5));
    CT.setText(cells[2], CT.score(v.nll.value[index]));
    CT.setText(cells[3], CT.score(v.brier.value[index]));
    CT.setText(cells[4], CT.pct(v.ece.value[index]));
    CT.setText(cells[5], CT.pct(v.accuracy));
  };
  Compare.prototype.setIndex = function (i) {
    if (this.current) this.fill(this.current, i);
  };
  CT.Compare = Compare;
})(window.CalibTutorial);
