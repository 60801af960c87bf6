/* curves.js — small multiples of scores against T, each with its own vertical scale.
 * A filled dot marks the current T, a dashed line T = 1, a ring the grid's NLL minimum. A series
 * marked `zoom` (NLL) gets a y-range around its valley: from its minimum to a few times its rise at
 * T = 1, so the minimum and both markers stay readable; the curve is clipped above. */
(function (CT) {
  "use strict";
  var S = CT.svg;
  var W = 250, H = 150, M = { l: 52, r: 10, t: 26, b: 30 };
  var ZOOM = 4;     // a zoomed axis shows the minimum up to ZOOM times the rise at T = 1
  var clips = 0;    // clip-path ids, unique on the page

  function Panel(parent, title) {
    var svg = S.chart(parent, W, H, "curve");
    this.title = S.el("title", {}, svg);
    this.label = S.text("text", { x: 4, y: 14, class: "chart-title" }, title, svg);
    S.el("line", { x1: M.l, x2: W - M.r, y1: H - M.b, y2: H - M.b, class: "axis" }, svg);
    this.t1Line = S.el("line", { y1: M.t - 4, y2: H - M.b, class: "ref-line" }, svg);
    var clip = "ct-curve-clip-" + (++clips);
    S.el("rect", { x: M.l, y: M.t - 6, width: W - M.l - M.r, height: H - M.b - M.t + 6 }, S.el("clipPath", { id: clip }, S.el("defs", {}, svg)));
    this.path = S.el("path", { class: "curve-line", "clip-path": "url(#" + clip + ")" }, svg);
    this.ring = S.el("circle", { r: S.token("mark-fitted-r"), class: "ring" }, svg);
    this.dot = S.el("circle", { r: S.token("mark-current-r"), class: "dot" }, svg);
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
      var top = hi;
      if (s.zoom) top = Math.min(hi, lo + Math.max(ZOOM * (values[t1Index] - lo), Math.ceil(lo / 200), 1));
      var y = S.linear(lo, top === lo ? lo + 1 : top, H - M.b - 6, M.t + 4);
      var ys = new Array(values.length);
      for (i = 0; i < values.length; i++) ys[i] = y(values[i]);
      panel.label.textContent = s.label;
      S.set(panel.path, { d: S.polyline(xs, ys) });
      S.set(panel.t1Line, { x1: x(grid[t1Index]), x2: x(grid[t1Index]) });
      S.set(panel.ring, { cx: x(grid[argmin]), cy: ys[argmin] });
      panel.hi.textContent = s.format(top);
      panel.lo.textContent = s.format(lo);
      var ends = [0, t1Index, grid.length - 1];
      panel.xticks.forEach(function (tick, k) {
        S.set(tick, { x: x(grid[ends[k]]) });
        tick.textContent = String(Number(grid[ends[k]].toPrecision(2))).replace(".", CT.strings().format.decimal);
      });
      panel.xlabel.textContent = ui.axis_temperature;
      panel.title.textContent = CT.fill(top < hi ? ui.curve_alt_zoom : ui.curve_alt,
        { metric: s.label, low: s.format(lo), high: s.format(hi), top: s.format(top) });
      this.ys.push(ys);
    }
    this.xs = xs;
  };
  Curves.prototype.setIndex = function (index) {
    for (var p = 0; p < this.series.length; p++) {
      // Above a zoomed axis, the dot waits at the top edge, where the curve leaves the frame.
      CT.setAttrs(this.panels[p].dot, { cx: this.xs[index].toFixed(1), cy: Math.max(this.ys[p][index], M.t - 4).toFixed(1) });
    }
  };

  /* Panel "curves": NLL, Brier and the chosen ECE of the row set shown; the marker at the T applied. */
  CT.explorerView("curves", function (x) {
    var host = x.$("curves"), curves;
    return host && {
      watch: host,
      config: function (state, data) {
        var ui = CT.strings().ui, part = data.part;
        curves = curves || new Curves(host);
        curves.setData(CT.core.grid, [
          { label: ui.metric_nll, values: data.base.nll.value, format: CT.score, zoom: true },
          { label: ui.metric_brier, values: data.base.brier.value, format: CT.score },
          { label: CT.fill(ui.curve_ece, { scheme: ui["scheme_" + state.scheme], bins: CT.plural("bins", state.bins) }),
            values: data.base.ece.value, format: CT.pct }  // the part's, also in the own view
        ], CT.core.t1_index, part.nllArgmin);
      },
      render: function (state, data) {
        // The NLL curve's marker sits at the T applied: a group's own T when it is shown at it.
        var i = data.ownIndex != null ? data.ownIndex : state.index;
        curves.setIndex(i);
        return i;
      }
    };
  });
})(window.CalibTutorial);
