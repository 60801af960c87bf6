/* analysis.js — decoding of data/<name>-analysis.js (spreads, noise floors, bands, bin sweeps,
 * smooth ECE; computed by calib.analysis on a coarse sub-grid of temperatures) and the views
 * that draw them: the uncertainty panel, the bin-count chart, and the overlays on the diagram. */
(function (CT) {
  "use strict";
  var S = CT.svg;
  var cache = {};

  function decodeSurface(rows) {
    var out = rows.map(CT.unpackSum);
    for (var k = 1; k < out.length; k++) {
      for (var j = 0; j < out[k].length; j++) out[k][j] += out[k - 1][j];
    }
    return out;
  }
  function memo(store, key, make) {
    if (!(key in store)) store[key] = make();
    return store[key];
  }
  function pair(raw) {
    var out = {};
    Object.keys(raw).forEach(function (key) { out[key] = CT.unpackSum(raw[key]); });
    return out;
  }

  /* The decoded analyses of dataset `name` (already registered). */
  CT.analysisModel = function (name) {
    if (cache[name]) return cache[name];
    var raw = CT.analyses[name], parts = {};
    var model = {
      raw: raw,
      subgrid: raw.subgrid,
      settings: raw.settings,
      /* Position in the sub-grid of the computed temperature nearest to grid index i (log scale). */
      nearest: function (i) {
        var grid = CT.core.grid, best = 0, gap = Infinity, lt = Math.log(grid[i]);
        for (var k = 0; k < raw.subgrid.length; k++) {
          var d = Math.abs(Math.log(grid[raw.subgrid[k]]) - lt);
          if (d < gap) { gap = d; best = k; }
        }
        return best;
      },
      part: function (key) {
        if (parts[key]) return parts[key];
        var p = raw.parts[key], store = {};
        parts[key] = {
          n: p.n,
          spreadEce: function (s, b) { return memo(store, "se" + s + b, function () { return pair(p.bootstrap.ece[s][b]); }); },
          spreadNll: function () { return memo(store, "sn", function () { return pair(p.bootstrap.nll); }); },
          floorEce: function (s, b) { return memo(store, "fe" + s + b, function () { return pair(p.floor.ece[s][b]); }); },
          band: function (s, b) {
            return memo(store, "b" + s + b, function () {
              return { lo: p.floor.band[s][b].lo.map(CT.unpackSum), hi: p.floor.band[s][b].hi.map(CT.unpackSum) };
            });
          },
          sweep: function (s) {
            return memo(store, "sw" + s, function () {
              return { ece: p.sweep[s].ece.map(CT.unpackSum), mid: decodeSurface(p.sweep[s].mid), hi: decodeSurface(p.sweep[s].hi) };
            });
          },
          smooth: function () {
            return memo(store, "sm", function () {
              return { ece: CT.unpackSum(p.smooth.ece), sigma: CT.unpackSum(p.smooth.sigma),
                       curve: decodeSurface(p.smooth.curve), density: decodeSurface(p.smooth.density) };
            });
          }
        };
        return parts[key];
      }
    };
    cache[name] = model;
    return model;
  };

  /* ---- the bin-count chart: ECE for 1..50 bins, with the noise floor's median and 95% ---- */
  var W = 320, H = 190, M = { l: 44, r: 12, t: 14, b: 36 };
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
    this.ticks = [1, 10, 20, 30, 40, 50].map(function (b) {
      return S.text("text", { y: H - M.b + 14, class: "tick middle" }, String(b), svg);
    });
    S.text("text", { x: (M.l + W - M.r) / 2, y: H - 4, class: "axis-label middle" }, ui.axis_bins, svg);
    this.svg = svg;
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
    var ticks = [1, 10, 20, 30, 40, 50];
    this.ticks.forEach(function (node, k) { CT.setAttrs(node, { x: x(ticks[k]).toFixed(1) }); });
    CT.setText(this.hi, CT.pct(top));
    CT.setText(this.lo, CT.pct(0));
    CT.setText(this.title, CT.fill(ui.sweep_alt, {
      first: CT.pct(rows.ece[0]), last: CT.pct(rows.ece[count - 1]), floor: CT.pct(rows.mid[count - 1]), bins: count
    }));
  };
  CT.Sweep = Sweep;
})(window.CalibTutorial);
