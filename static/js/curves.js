/* curves.js — small multiples of scores against T, each with its own vertical scale.
 * A filled dot marks the current T, a dashed line T = 1, a ring the grid's NLL minimum. */
(function (CT) {
  "use strict";
  var S = CT.svg;
  var W = 250, H = 150, M = { l: 52, r: 10, t: 26, b: 30 };

  function Panel(parent, title) {
    var svg = S.el("svg", { viewBox: "0 0 " + W + " " + H, class: "chart curve", role: "img" }, parent);
    this.title = S.el("title", {}, svg);
    this.label = S.text("text", { x: 4, y: 14, class: "chart-title" }, title, svg);
    S.el("line", { x1: M.l, x2: W - M.r, y1: H - M.b, y2: H - M.b, class: "axis" }, svg);
    this.t1Line = S.el("line", { y1: M.t - 4, y2: H - M.b, class: "ref-line" }, svg);
    this.path = S.el("path", { class: "curve-line" }, svg);
    this.ring = S.el("circle", { r: 6, class: "ring" }, svg);
    this.dot = S.el("circle", { r: 4.5, class: "dot" }, svg);
    this.hi = S.el("text", { x: M.l - 5, y: M.t + 8, class: "tick end" }, svg);
    this.lo = S.el("text", { x: M.l - 5, y: H - M.b - 3, class: "tick end" }, svg);
    S.el("line", { x1: M.l, x2: M.l, y1: M.t, y2: H - M.b, class: "axis" }, svg);
    this.xticks = [0, 1, 2].map(function (i) {
      return S.el("text", { y: H - M.b + 16, class: "tick " + ["start", "middle", "end"][i] }, svg);
    });
    this.xlabel = S.el("text", { x: W / 2, y: H - 2, class: "axis-label middle" }, svg);
  }

  /* Curves(container): call setData once per dataset/part/scheme/bins, setIndex on every slider move. */
  function Curves(container) {
    this.container = container;
    this.panels = [];
  }
  Curves.prototype.setData = function (grid, series, t1Index, argmin) {
    var ui = CT.strings().ui;
    while (this.panels.length < series.length) this.panels.push(new Panel(this.container, ""));
    var x = S.log(grid[0], grid[grid.length - 1], M.l, W - M.r);
    var xs = new Array(grid.length);
    for (var i = 0; i < grid.length; i++) xs[i] = x(grid[i]);
    this.series = series;
    this.ys = [];
    for (var p = 0; p < series.length; p++) {
      var s = series[p], panel = this.panels[p], values = s.values;
      var lo = Infinity, hi = -Infinity;
      for (i = 0; i < values.length; i++) { if (values[i] < lo) lo = values[i]; if (values[i] > hi) hi = values[i]; }
      var y = S.linear(lo, hi === lo ? lo + 1 : hi, H - M.b - 6, M.t + 4);
      var ys = new Array(values.length);
      for (i = 0; i < values.length; i++) ys[i] = y(values[i]);
      panel.label.textContent = s.label;
      S.set(panel.path, { d: S.polyline(xs, ys) });
      S.set(panel.t1Line, { x1: x(grid[t1Index]), x2: x(grid[t1Index]) });
      S.set(panel.ring, { cx: x(grid[argmin]), cy: ys[argmin] });
      panel.hi.textContent = s.format(hi);
      panel.lo.textContent = s.format(lo);
      var ends = [0, t1Index, grid.length - 1];
      panel.xticks.forEach(function (tick, k) {
        S.set(tick, { x: x(grid[ends[k]]) });
        tick.textContent = String(Number(grid[ends[k]].toPrecision(2))).replace(".", CT.strings().format.decimal);
      });
      panel.xlabel.textContent = ui.axis_temperature;
      panel.title.textContent = CT.fill(ui.curve_alt, { metric: s.label, low: s.format(lo), high: s.format(hi) });
      this.ys.push(ys);
    }
    this.xs = xs;
  };
  Curves.prototype.setIndex = function (index) {
    for (var p = 0; p < this.series.length; p++) {
      CT.setAttrs(this.panels[p].dot, { cx: this.xs[index].toFixed(1), cy: this.ys[p][index].toFixed(1) });
    }
  };
  CT.Curves = Curves;
})(window.CalibTutorial);
