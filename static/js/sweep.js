/* sweep.js — the bin-count chart: ECE for 1 to 50 bins at one computed temperature, with the
 * noise floor's median and 95th percentile (from analysis.js), on labelled axes. A reading guide
 * shows the three values at one bin count: set by its own range input (keyboard, touch) or by
 * pointing at the chart. Nodes are made once; draw and read move them. */
(function (CT) {
  "use strict";
  var S = CT.svg;
  var M = { l: 56, r: 14, t: 12, b: 44 };
  var STEPS = [0.005, 0.01, 0.02, 0.025, 0.05, 0.1, 0.2, 0.25, 0.5, 1];  // y-tick steps as rates (0.5 % …)

  function Sweep(host, input, output) {
    var ui = CT.strings().ui, self = this;
    // Drawn for the width it gets: a phone's chart keeps legible text and fewer ticks.
    var narrow = host.clientWidth > 0 && host.clientWidth < 520;
    var W = this.W = narrow ? 340 : 640, H = this.H = narrow ? 230 : 250;
    var X_TICKS = this.X_TICKS = narrow ? [1, 10, 20, 30, 40, 50] : [1, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50];
    var svg = this.svg = S.chart(host, W, H, "sweep");
    this.title = S.el("title", {}, svg);
    this.grid = S.el("g", { class: "grid" }, svg);
    this.yTicks = S.el("g", {}, svg);
    S.el("line", { x1: M.l, x2: W - M.r, y1: H - M.b, y2: H - M.b, class: "axis" }, svg);
    S.el("line", { x1: M.l, x2: M.l, y1: M.t, y2: H - M.b, class: "axis" }, svg);
    this.guide = S.el("line", { y1: M.t, y2: H - M.b, class: "ref-line", visibility: "hidden" }, svg);
    this.floorHi = S.el("path", { class: "floor-hi" }, svg);
    this.floorMid = S.el("path", { class: "floor-mid" }, svg);
    this.measured = S.el("path", { class: "curve-line" }, svg);
    this.readDots = ["ece", "mid", "hi"].map(function (name) {
      return S.el("circle", { r: 3.5, class: "read-dot read-" + name }, svg);
    });
    this.marker = S.el("circle", { r: S.token("mark-current-r"), class: "dot" }, svg);  // the chosen bin count, above the reading
    this.xTicks = X_TICKS.map(function (b) {
      S.el("line", { y1: H - M.b, y2: H - M.b + 4, class: "axis", "data-b": b }, svg);
      return S.text("text", { y: H - M.b + 16, class: "tick middle" }, String(b), svg);
    });
    this.xTickLines = Array.prototype.slice.call(svg.querySelectorAll("line[data-b]"));
    S.text("text", { x: (M.l + W - M.r) / 2, y: H - 6, class: "axis-label middle" }, ui.axis_bins, svg);
    S.text("text", { x: 14, y: (M.t + H - M.b) / 2, class: "axis-label middle",
      transform: "rotate(-90 14 " + (M.t + H - M.b) / 2 + ")" }, ui.axis_ece, svg);
    this.input = input;
    this.output = output;
    this.rows = null;
    this.current = null;
    if (input) input.addEventListener("input", function () { self.read(Number(input.value)); });
    // Pointing (mouse, pen or a finger dragging sideways) reads the nearest bin count.
    svg.addEventListener("pointerdown", function (event) {
      if (svg.setPointerCapture) svg.setPointerCapture(event.pointerId);
      self.point(event);
    });
    svg.addEventListener("pointermove", function (event) {
      if (event.pointerType === "mouse" || event.buttons) self.point(event);
    });
  }

  Sweep.prototype.point = function (event) {
    if (!this.rows) return;
    var box = this.svg.getBoundingClientRect(), vx = (event.clientX - box.left) / box.width * this.W;
    var b = Math.max(1, Math.min(this.rows.ece.length, Math.round(this.xInv(vx))));
    if (this.input) this.input.value = b;
    this.read(b);
  };

  /* rows: {ece, mid, hi} each an Int32Array over bin counts 1..50; current: the chosen bin count. */
  Sweep.prototype.draw = function (rows, current) {
    var ui = CT.strings().ui, count = rows.ece.length, top = 1, self = this, W = this.W, H = this.H, X_TICKS = this.X_TICKS;
    for (var b = 0; b < count; b++) top = Math.max(top, rows.ece[b], rows.hi[b]);
    var steps = STEPS.map(function (r) { return Math.round(r * CT.core.units.rate); });  // in the payload's rate units
    var step = steps[steps.length - 1];
    for (var s = 0; s < steps.length; s++) if (top / steps[s] <= 5) { step = steps[s]; break; }
    var yTop = Math.ceil(top / step) * step;
    var x = this.x = S.linear(1, count, M.l + 6, W - M.r - 4), y = this.y = S.linear(0, yTop, H - M.b, M.t);
    this.xInv = function (px) { return 1 + (px - (M.l + 6)) / (W - M.r - 4 - (M.l + 6)) * (count - 1); };
    var xs = [], ye = [], ym = [], yh = [];
    for (b = 0; b < count; b++) { xs.push(x(b + 1)); ye.push(y(rows.ece[b])); ym.push(y(rows.mid[b])); yh.push(y(rows.hi[b])); }
    CT.setAttrs(this.measured, { d: S.polyline(xs, ye) });
    CT.setAttrs(this.floorMid, { d: S.polyline(xs, ym) });
    CT.setAttrs(this.floorHi, { d: S.polyline(xs, yh) });
    CT.setAttrs(this.marker, { cx: x(current).toFixed(1), cy: y(rows.ece[current - 1]).toFixed(1) });
    this.xTicks.forEach(function (node, k) {
      CT.setAttrs(node, { x: x(X_TICKS[k]).toFixed(1) });
      CT.setAttrs(self.xTickLines[k], { x1: x(X_TICKS[k]).toFixed(1), x2: x(X_TICKS[k]).toFixed(1) });
    });
    // y ticks: 0 to the rounded top in even steps, each labelled, with a faint grid line.
    this.grid.textContent = "";
    this.yTicks.textContent = "";
    for (var v = 0; v <= yTop; v += step) {
      S.el("line", { x1: M.l, x2: W - M.r, y1: y(v).toFixed(1), y2: y(v).toFixed(1), class: "edge" }, this.grid);
      S.text("text", { x: M.l - 6, y: (y(v) + 3.5).toFixed(1), class: "tick end" }, CT.pct(v), this.yTicks);
    }
    CT.setText(this.title, CT.fill(ui.sweep_alt, {
      first: CT.pct(rows.ece[0]), last: CT.pct(rows.ece[count - 1]), floor: CT.pct(rows.mid[count - 1]), bins: CT.plural("bins", count)
    }));
    this.rows = rows;
    if (this.input) this.input.max = count;
    // A new bin count chosen in the controls moves the reading there; otherwise the reading stays.
    if (current !== this.current) {
      this.current = current;
      if (this.input) this.input.value = current;
    }
    this.read(this.input ? Number(this.input.value) : current);
  };

  /* Show the values at bin count b: guide line, a dot on each curve, and the readout in words. */
  Sweep.prototype.read = function (b) {
    var rows = this.rows;
    if (!rows) return;
    b = Math.max(1, Math.min(rows.ece.length, b || 1));
    var ui = CT.strings().ui, x = this.x(b).toFixed(1), y = this.y;
    CT.setAttrs(this.guide, { x1: x, x2: x, visibility: "visible" });
    [rows.ece, rows.mid, rows.hi].forEach(function (series, k) {
      CT.setAttrs(this.readDots[k], { cx: x, cy: y(series[b - 1]).toFixed(1) });
    }, this);
    var text = CT.fill(ui.sweep_read_value, {
      bins: CT.plural("bins", b), ece: CT.pct(rows.ece[b - 1]), mid: CT.pct(rows.mid[b - 1]), hi: CT.pct(rows.hi[b - 1])
    });
    if (this.output) CT.setText(this.output, text);
    if (this.input) CT.setAttrs(this.input, { "aria-valuetext": text });
  };

  /* Panel "sweep": drawn at the analyses' sub-grid point nearest to the slider, once they arrive; a
   * group view says why it shows none (the analyses are of every row). */
  CT.explorerView("sweep", function (x) {
    var host = x.$("sweep"), read = host && host.parentNode.querySelector(".sweep-read"), sweep, drawn;
    return host && {
      render: function (state, data) {
        var a = data.analysis, note = x.$("sweep-at"), key = data.serial + "|" + data.sub;
        // No curve of this view's rows to show (analyses still loading, or a group view): the chart and
        // its reading are hidden, never left showing the previous dataset's curve.
        var none = !a || !!data.aside;
        host.hidden = none;
        if (read) read.hidden = none;
        if (none) { drawn = null; CT.setText(note, a ? data.aside : ""); return; }
        if (key === drawn) return;
        drawn = key;
        sweep = sweep || new Sweep(host, x.$("sweep-b"), x.$("sweep-value"));
        var k = data.sub, sw = a.part(state.part).sweep(state.scheme);
        sweep.draw({ ece: sw.ece[k], mid: sw.mid[k], hi: sw.hi[k] }, state.bins);
        CT.setText(note, CT.fill(CT.strings().ui.unc_at_note, { t: CT.temp(CT.core.grid[data.subIndex]), count: a.subgrid.length }));
      }
    };
  });
})(window.CalibTutorial);
