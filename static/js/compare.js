/* compare.js — the comparison table: one row each for T = 1, the fitted T and the current T (these
 * follow the controls), then every state the reader pinned; a column per metric of the registry that
 * shows in it (the core payload's metrics with compare = 1). A pinned row carries its own
 * configuration (dataset, rows, scheme, bins, T) in its label and the values looked up when it was
 * pinned, so changing the controls never changes it, and a button that removes it. setData rebuilds
 * the rows; setIndex refills only the current row. Panel "compare" (its pin button sits in the
 * explorer's button row) pins and unpins: state.pins. */
(function (CT) {
  "use strict";

  var FORMAT = { score: CT.score, pct: CT.pct };
  /* The table's metric columns: the core payload's metrics with compare = 1 (the metric registry). */
  function columns() { return CT.core.metrics.filter(function (metric) { return metric.compare; }); }
  /* {key: value in engine units} of each column at grid index `index`: `v.series` (decoded series by key),
   * `v.constants` (the metrics no T changes, by key). */
  function valuesAt(v, index) {
    var out = {};
    columns().forEach(function (metric) {
      out[metric.key] = metric.kind === "constant" ? v.constants[metric.key] : v.series[metric.key].value[index];
    });
    return out;
  }

  function Compare(table) {
    this.body = table.querySelector("tbody");
    this.current = null;  // the <tr> of the current T
    this.values = null;   // {series (decoded, by key), constants, t}
  }

  /* A row: its label, then a cell for T and one per metric column, each naming its column (data-label:
   * on a phone the table stacks into label–value pairs, base.css table.stack). */
  function row(body, label) {
    var tr = document.createElement("tr"), th = document.createElement("th"), heads = body.parentNode.tHead.rows[0].cells;
    th.scope = "row";
    th.textContent = label;
    tr.appendChild(th);
    for (var c = 0; c <= columns().length; c++) tr.appendChild(document.createElement("td")).setAttribute("data-label", heads[c + 1].textContent);
    body.appendChild(tr);
    return tr;
  }
  /* Cells of one row from a grid index and its values {t, values: {key: engine units}}. */
  function write(tr, index, v) {
    var cells = tr.children;
    // v.t: a T off the slider (a group's own), or words where no one T applies (each group at its own)
    CT.setText(cells[1], typeof v.t === "string" ? v.t : CT.temp(v.t != null ? v.t : CT.core.grid[index]));
    columns().forEach(function (metric, c) { CT.setText(cells[2 + c], FORMAT[metric.format](v.values[metric.key])); });
  }

  /* view: {series (decoded series by key), constants (by key), fittedIndex, index, currentT,
   *        base (series, optional), baseConstants (by key, optional: the rows' own under temperature scaling,
   *        which the base rows show: another calibrator's own constants belong to the current row only),
   *        pins: [{key, number, label, index, values: {t, values}}]}.
   * The current row reads the series at `index`, stating `currentT` when the T applied is off the
   * slider (each group at its own T; `own` labels the row so); the T = 1 and fitted rows read `base` (default: the same series)
   * at their own temperatures. */
  Compare.prototype.setData = function (view) {
    var ui = CT.strings().ui, body = this.body, self = this;
    this.values = { series: view.series, constants: view.constants, t: view.currentT };
    var base = { series: view.base || view.series, constants: view.baseConstants || view.constants };
    body.textContent = "";
    [[ui.state_t1, CT.core.t1_index, base], [ui.state_fitted, view.fittedIndex, base], [view.own ? ui.state_own : ui.state_current, view.index, this.values]].forEach(function (spec, k) {
      var tr = row(body, spec[0]);
      self.fill(tr, spec[1], spec[2]);
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
    write(tr, index, { values: valuesAt(v, index), t: v.t });
  };
  Compare.prototype.setIndex = function (i) {
    if (this.current) this.fill(this.current, i);
  };

  /* The T applied when it is off the slider: one group's own T, or each group's ("A 3.16, B 0.708"); for
   * another calibrator, its name. */
  function appliedT(state, data) {
    if (data.method) return data.method.label;
    if (!state.own || data.ownT != null) return data.ownT;
    return data.groups.names.map(function (g) { return g + "\u00a0" + CT.temp(data.groups.temperatures[g]); }).join(", ");
  }
  /* The metrics no T changes (accuracy), by key: the row set's, or another calibrator's (which may change
   * which class wins) unless `own`: the rows' own, which the T = 1 and fitted rows show (temperature scaling
   * never moves a prediction). */
  function constants(data, own) {
    var out = {};
    CT.core.metrics.forEach(function (metric) {
      if (metric.kind === "constant") out[metric.key] = data.calibrator && !own ? data.calibrator.value(metric.key) : data.part.metric(metric.key);
    });
    return out;
  }
  /* A dataset's name as the dataset picker shows it (its payload name where there is no picker). */
  function datasetLabel(root, name) {
    var option = root.querySelector('option[value="' + name + '"]');
    return option ? option.textContent : name;
  }

  CT.explorerView("compare", function (x) {
    var table = x.$("compare"), s = x.state, compare;
    if (!table) return null;
    /* The table: T = 1, fitted T, the current state and the reader's pins. */
    function draw() {
      var d = x.data;
      compare = compare || new Compare(table);
      compare.setData({
        series: d.series, constants: constants(d), baseConstants: constants(d, true),
        base: d.base, currentT: appliedT(s, d), own: s.own, fittedIndex: s.model.fittedIndex, index: s.index, pins: s.pins
      });
      var actions = x.root.querySelector(".compare-actions");
      if (actions) actions.hidden = s.pins.length < 2;
    }
    /* Pin the current state: its whole configuration and its values, looked up now, so that a pinned
     * row never changes when the controls do (the same state twice is pinned once). */
    function pin() {
      var ui = CT.strings().ui, m = s.model, d = x.data, i = s.index;
      if (!m || !d) return;
      var key = [m.name, s.part, s.group, s.own, s.method, s.scheme, s.bins, i].join("|");
      if (s.pins.some(function (p) { return p.key === key; })) return;
      var part = m.partNames.length > 1 ? ui["part_short_" + s.part] : ui.part_all;
      if (s.group !== "pooled") part += ", " + CT.fill(ui.group_one, { name: s.group });
      if (s.own) part += ", " + ui.own_t;
      if (d.method) part += ", " + d.method.label;
      s.pinSerial += 1;
      s.pins.push({
        key: key, index: i, number: s.pinSerial,
        label: CT.fill(ui.pin_config, { number: s.pinSerial, dataset: datasetLabel(x.root, m.name),
          part: part, scheme: ui["scheme_" + s.scheme], bins: CT.plural("bins", s.bins) }),
        values: { values: valuesAt({ series: d.series, constants: constants(d) }, i), t: appliedT(s, d) }
      });
      draw();
    }
    /* Remove the pin whose key is `key` (null: every pin). Focus goes where the reader can go on: the
     * next pin's remove button, else the previous one's, else the button that pins. */
    function unpin(key) {
      var at = -1;
      for (var p = 0; p < s.pins.length; p++) if (s.pins[p].key === key) at = p;
      if (key === null) s.pins = [];
      else if (at >= 0) s.pins.splice(at, 1);
      else return;
      if (x.data) draw();
      var next = key === null || !s.pins.length ? null : s.pins[Math.min(at, s.pins.length - 1)];
      var target = next && table.querySelector('button[data-pin="' + CT.cssEscape(next.key) + '"]');
      (target || x.$("pin")).focus();
    }
    x.$("pin").addEventListener("click", function () { x.whenLoaded(pin); });
    var clear = x.$("clear-pins");
    if (clear) clear.addEventListener("click", function () { unpin(null); });
    // A pinned row's remove button (the rows are rebuilt, so the table listens for them).
    table.addEventListener("click", function (event) {
      var button = event.target.closest("button[data-pin]");
      if (button) unpin(button.getAttribute("data-pin"));
    });
    return {
      watch: table,
      config: draw,
      render: function (state) { compare.setIndex(state.index); }
    };
  });
})(window.CalibTutorial);
