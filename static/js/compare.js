/* compare.js — the comparison table: one row each for T = 1, the fitted T and the current T (these
 * follow the controls), then every state the reader pinned. A pinned row carries its own
 * configuration (dataset, rows, scheme, bins, T) in its label and the values looked up when it was
 * pinned, so changing the controls never changes it, and a button that removes it (explorer.js
 * listens). setData rebuilds the rows; setIndex refills only the current row. */
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
    // v.t: a T off the slider (a group's own), or words where no one T applies (each group at its own)
    CT.setText(cells[1], typeof v.t === "string" ? v.t : CT.temp(v.t != null ? v.t : CT.core.grid[index]));
    CT.setText(cells[2], CT.score(v.nll));
    CT.setText(cells[3], CT.score(v.brier));
    CT.setText(cells[4], CT.pct(v.ece));
    CT.setText(cells[5], CT.pct(v.accuracy));
  }

  /* view: {nll, brier, ece (decoded series), accuracy, fittedIndex, index, currentT,
   *        base: {nll, brier, ece} (optional), pins: [{key, number, label, index, values: {nll, brier, ece, accuracy, t}}]}.
   * The current row reads nll/brier/ece at `index`, stating `currentT` when the T applied is off the
   * slider (each group at its own T; `own` labels the row so); the T = 1 and fitted rows read `base` (default: the same series)
   * at their own temperatures. */
  Compare.prototype.setData = function (view) {
    var ui = CT.strings().ui, body = this.body, self = this;
    this.values = { nll: view.nll, brier: view.brier, ece: view.ece, accuracy: view.accuracy, t: view.currentT };
    var base = view.base ? { nll: view.base.nll, brier: view.base.brier, ece: view.base.ece, accuracy: view.accuracy } : this.values;
    body.textContent = "";
    [[ui.state_t1, CT.core.t1_index, base], [ui.state_fitted, view.fittedIndex, base], [view.own ? ui.state_own : ui.state_current, view.index, this.values]].forEach(function (spec, k) {
      var tr = row(body, spec[0]);
      self.fill(tr, spec[1], k === 2 ? spec[2] : { nll: spec[2].nll, brier: spec[2].brier, ece: spec[2].ece, accuracy: spec[2].accuracy });
      if (k === 2) self.current = tr;
    });
    view.pins.forEach(function (pin) {
      var tr = row(body, pin.label), button = document.createElement("button");
      button.type = "button";
      button.className = "unpin";
      button.setAttribute("data-pin", pin.key);
      button.textContent = ui.remove_pin;
      button.setAttribute("aria-label", CT.fill(ui.remove_pin_label, { number: pin.number }));
      tr.firstChild.appendChild(button);
      write(tr, pin.index, pin.values);
    });
  };
  Compare.prototype.fill = function (tr, index, series) {
    var v = series || this.values;
    write(tr, index, { nll: v.nll.value[index], brier: v.brier.value[index], ece: v.ece.value[index], accuracy: v.accuracy, t: v.t });
  };
  Compare.prototype.setIndex = function (i) {
    if (this.current) this.fill(this.current, i);
  };
  CT.Compare = Compare;
})(window.CalibTutorial);
