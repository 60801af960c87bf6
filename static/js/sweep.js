/* sweep.js — the bin-count chart: ECE for 1 to 50 bins at one computed temperature, with the
 * noise floor's median and 95th percentile (from analysis.js). Nodes are made once; draw moves them. */
(function (CT) {
  "use strict";
  var S = CT.svg;
  var W = 320, H = 190, M = { l: 44, r: 12, t: 14, b: 36 };
  var TICKS = [1, 10, 20, 30, 40, 50];

  function Sweep(host) {
    var ui = CT.strings().ui;
    var svg = S.el("svg", { viewBox: "0 0 " + W + " " + H, class: "chart sweep", role: "img" }, host);
    this.title = S.el("title", {}, svg);
    S.el("line", { x1: M.l, x2: W - M.r, y1: H - M.b, y2: H - M.b, class: "axis" }, svg);
    S.el("line", { x1: M.l, x2: M.l, y1: M.t, y2: H - M.b, class: "axis" }, svg);
    this.floorHi = S.el("path", { class: "floor-hi" }, svg);
    this.floorMid = S.el("path", { class: "floor-mid" }, svg);
    this.measured = S.el("path", { class: "curve-line" }, svg);
    this.marker = S.el("circle", { r: 4.5, class: "dot" }, svg);
    this.hi = S.el("text", { x: M.l - 5, y: M.t + 8, class: "tick end" }, svg);
    this.lo = S.el("text", { x: M.l - 5, y: H - M.b, class: "tick end" }, svg);
    this.ticks = TICKS.map(function (b) {
      return S.text("text", { y: H - M.b + 14, class: "tick middle" }, String(b), svg);
    });
    S.text("text", { x: (M.l + W - M.r) / 2, y: H - 4, class: "axis-label middle" }, ui.axis_bins, svg);
  }
  /* rows: {ece, mid, hi} each an Int32Array over bin counts 1..50; current: the chosen bin count. */
  Sweep.prototype.draw = function (rows, current) {
    var ui = CT.strings().ui, count = rows.ece.length, top = 1;
    for (var b = 0; b < count; b++) top = Math.max(top, rows.ece[b], rows.hi[b]);
    var x = S.linear(1, count, M.l + 4, W - M.r), y = S.linear(0, top, H - M.b, M.t);
    var xs = [], ye = [], ym = [], yh = [];
    for (b = 0; b < count; b++) { xs.push(x(b + 1)); ye.push(y(rows.ece[b])); ym.push(y(rows.mid[b])); yh.push(y(rows.hi[b])); }
    CT.setAttrs(this.measured, { d: S.polyline(xs, ye) });
    CT.setAttrs(this.floorMid, { d: S.polyline(xs, ym) });
    CT.setAttrs(this.floorHi, { d: S.polyline(xs, yh) });
    CT.setAttrs(this.marker, { cx: x(current).toFixed(1), cy: y(rows.ece[current - 1]).toFixed(1) });
    this.ticks.forEach(function (node, k) { CT.setAttrs(node, { x: x(TICKS[k]).toFixed(1) }); });
    CT.setText(this.hi, CT.pct(top));
    CT.setText(this.lo, CT.pct(0));
    CT.setText(this.title, CT.fill(ui.sweep_alt, {
      first: CT.pct(rows.ece[0]), last: CT.pct(rows.ece[count - 1]), floor: CT.pct(rows.mid[count - 1]), bins: count
    }));
  };
  CT.Sweep = Sweep;
})(window.CalibTutorial);
