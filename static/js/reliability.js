/* reliability.js — panel "reliability": the reliability diagram (square plot, both axes 0–1) and its
 * per-bin table, whose last column lists each bin's consistency band (where the analyses offer one) and
 * marks bins outside it; the bands and the smooth curve are drawn over the diagram when asked (state.bands,
 * state.smooth: control "overlays"). */
(function (CT) {
  "use strict";
  var S = CT.svg;
  var W = 300, P = 232, L = 58, T = 14, HIST = 56, GAP = 30;
  var ONE, x, y;  // a probability of 1 in the payload's rate units; confidence and accuracy to the plot
  var histTop = T + P + GAP, histBottom = histTop + HIST;

  function Reliability(figure, table) {
    var ui = CT.strings().ui;
    ONE = CT.core.units.rate;
    x = S.linear(0, ONE, L, L + P);
    y = S.linear(0, ONE, T + P, T);
    var svg = S.chart(null, W, histBottom + 34, "reliability");
    figure.insertBefore(svg, figure.firstChild);
    this.title = S.el("title", {}, svg);
    S.el("rect", { x: L, y: T, width: P, height: P, class: "plot-frame" }, svg);
    this.edges = S.el("g", { class: "edges" }, svg);
    S.el("line", { x1: x(0), y1: y(0), x2: x(ONE), y2: y(ONE), class: "diagonal" }, svg);
    this.gaps = S.el("g", { class: "gaps" }, svg);
    this.dots = S.el("g", { class: "dots" }, svg);
    this.hist = S.el("g", { class: "hist" }, svg);
    this.bandLayer = S.el("g", { class: "bands" }, svg);
    this.smoothPath = S.el("path", { class: "smooth-curve", visibility: "hidden" }, svg);
    S.el("line", { x1: L, x2: L + P, y1: histBottom, y2: histBottom, class: "axis" }, svg);
    [0, ONE / 2, ONE].forEach(function (v) {
      S.text("text", { x: x(v), y: histBottom + 14, class: "tick middle" }, CT.prob(v), svg);
      S.text("text", { x: L - 5, y: y(v) + 4, class: "tick end" }, CT.prob(v), svg);
    });
    S.text("text", { x: L + P / 2, y: histBottom + 30, class: "axis-label middle" }, ui.axis_confidence, svg);
    S.text("text", { x: 12, y: T + P / 2, class: "axis-label middle", transform: "rotate(-90 12 " + (T + P / 2) + ")" },
      ui.axis_accuracy, svg);
    this.histLabel = S.text("text", { x: 12, y: histTop + HIST / 2, class: "axis-label middle small",
      transform: "rotate(-90 12 " + (histTop + HIST / 2) + ")" }, "", svg);
    this.table = table;
    this.tbody = table.querySelector("tbody");
    this.totalCount = table.querySelector("tfoot .total-count");
    this.totalEce = table.querySelector("tfoot .total-ece");
    // each cell's column name, shown beside it where narrow screens stack the rows (explorer.css)
    this.labels = Array.prototype.map.call(table.querySelectorAll("thead th"), function (th) { return th.textContent; });
  }

  /* New bins (dataset, part, scheme or bin count changed): rebuild the per-bin nodes. */
  Reliability.prototype.setBins = function (bins, scheme, ece, n) {
    var ui = CT.strings().ui, self = this;
    this.bins = bins; this.scheme = scheme; this.ece = ece; this.n = n;
    [this.edges, this.gaps, this.dots, this.hist].forEach(function (g) { g.textContent = ""; });
    this.tbody.textContent = "";
    var size = bins.size;
    this.edgeLines = [];
    if (bins.edges) {
      bins.edges.forEach(function (e) {
        S.el("line", { x1: x(e), x2: x(e), y1: T, y2: histBottom, class: "edge" }, self.edges);
      });
    } else {
      for (var j = 0; j < size; j++) {
        this.edgeLines.push(S.el("line", { y1: T, y2: histBottom, class: "edge" }, this.edges));
      }
    }
    this.gapNodes = []; this.dotNodes = []; this.barNodes = []; this.rows = [];
    for (var b = 0; b < size; b++) {
      this.gapNodes.push(S.el("line", { class: "gap" }, this.gaps));
      this.dotNodes.push(S.el("circle", { r: 5, class: "dot" }, this.dots));
      this.barNodes.push(S.el("rect", { class: scheme === "adaptive" ? "range-bar" : "count-bar" }, this.hist));
      var row = document.createElement("tr");
      for (var c = 0; c < 6; c++) {
        var cell = row.appendChild(document.createElement(c ? "td" : "th"));
        if (c) cell.setAttribute("data-label", this.labels[c]);
      }
      row.lastChild.className = "band-col";
      row.firstChild.setAttribute("scope", "row");
      this.tbody.appendChild(row);
      this.rows.push(row);
    }
    this.histLabel.textContent = scheme === "adaptive" ? ui.axis_range : ui.axis_count;
  };

  function rangeText(bins, b, i, last) {
    if (bins.edges) {
      return CT.interval(CT.prob(bins.edges[b]), CT.prob(bins.edges[b + 1]), b === last);
    }
    return CT.fill(CT.strings().ui.bin_range, { lo: CT.prob(bins.lower[b][i]), hi: CT.prob(bins.upper[b][i]) });
  }

  /* Move every mark to grid point i. */
  Reliability.prototype.setIndex = function (i) {
    var bins = this.bins, size = bins.size, maxCount = 1, b, filled = 0;
    for (b = 0; b < size; b++) if (bins.count[b][i] > maxCount) maxCount = bins.count[b][i];
    for (b = 0; b < size; b++) {
      var count = bins.count[b][i], conf = bins.confidence[b][i], acc = bins.accuracy[b][i];
      var show = count > 0, row = this.rows[b], vis = show ? "visible" : "hidden";
      if (show) filled++;
      CT.setAttrs(this.dotNodes[b], { cx: x(conf).toFixed(1), cy: y(acc).toFixed(1), visibility: vis });
      CT.setAttrs(this.gapNodes[b], { x1: x(conf).toFixed(1), x2: x(conf).toFixed(1), y1: y(conf).toFixed(1), y2: y(acc).toFixed(1),
        visibility: vis });
      if (bins.edges) {
        var h = count / maxCount * HIST;
        CT.setAttrs(this.barNodes[b], { x: (x(bins.edges[b]) + 1).toFixed(1), width: Math.max(x(bins.edges[b + 1]) - x(bins.edges[b]) - 2, 1).toFixed(1),
          y: (histBottom - h).toFixed(1), height: h.toFixed(1) });
      } else {
        var lo = bins.lower[b][i], hi = bins.upper[b][i], lane = b % 3;
        CT.setAttrs(this.barNodes[b], { x: x(lo).toFixed(1), width: Math.max(x(hi) - x(lo), 2).toFixed(1),
          y: (histTop + 6 + lane * 16).toFixed(1), height: "10" });
        CT.setAttrs(this.edgeLines[b], { x1: x(lo).toFixed(1), x2: x(lo).toFixed(1) });
      }
      if (row.hidden === show) row.hidden = !show;
      if (show) {
        var cells = row.children;
        CT.setText(cells[0], rangeText(bins, b, i, size - 1));
        CT.setText(cells[1], CT.count(count));
        CT.setText(cells[2], CT.prob(conf));
        CT.setText(cells[3], CT.prob(acc));
        CT.setText(cells[4], CT.pct(bins.gap[b][i]));
      }
    }
    var ui = CT.strings().ui, ece = CT.pct(this.ece.value[i]);
    CT.setText(this.totalCount, CT.count(this.n));
    CT.setText(this.totalEce, ece);
    CT.setText(this.title, CT.fill(ui.reliability_alt, { bins: CT.plural("nonempty_bins", filled), ece: ece }));
  };
  /* Consistency bands: for each non-empty bin at grid index gi (sub-grid position k, a computed
   * temperature), the 5–95% range of accuracy a perfectly calibrated model with those confidences
   * would show. The table lists them, marking a bin whose accuracy at gi lies outside; `draw` also
   * draws them at each bin's mean confidence. null hides both. */
  Reliability.prototype.setBands = function (band, gi, k, draw) {
    var layer = this.bandLayer, bins = this.bins, ui = CT.strings().ui;
    this.table.classList.toggle("no-band", !band || !draw);
    if (band) {
      for (var r = 0; r < this.rows.length; r++) {
        var cell = this.rows[r].lastChild, filled = r < band.lo.length && bins.count[r][gi] > 0;
        if (!filled) { CT.setText(cell, ui.band_none); cell.classList.remove("outside"); continue; }
        var lo = band.lo[r][k], hi = band.hi[r][k], acc = bins.accuracy[r][gi];
        var range = CT.fill(ui.band_range, { lo: CT.prob(lo), hi: CT.prob(hi) }), outside = acc < lo || acc > hi;
        CT.setText(cell, outside ? CT.fill(ui.band_outside, { range: range }) : range);
        cell.classList.toggle("outside", outside);
      }
    }
    if (!band || !draw) { layer.setAttribute("visibility", "hidden"); return; }
    layer.setAttribute("visibility", "visible");
    while (layer.childNodes.length < band.lo.length) S.el("title", {}, S.el("rect", { class: "band" }, layer));
    for (var b = 0; b < layer.childNodes.length; b++) {
      var node = layer.childNodes[b], show = b < band.lo.length && bins.count[b][gi] > 0;
      if (!show) { CT.setAttrs(node, { visibility: "hidden" }); continue; }
      var cx = x(bins.confidence[b][gi]), top = y(band.hi[b][k]), bottom = y(band.lo[b][k]);
      CT.setAttrs(node, { visibility: "visible", x: (cx - 6).toFixed(1), width: "12",
        y: top.toFixed(1), height: Math.max(bottom - top, 1).toFixed(1) });
      CT.setText(node.firstChild, CT.fill(ui.band_title, { bin: b + 1, lo: CT.prob(band.lo[b][k]), hi: CT.prob(band.hi[b][k]) }));
    }
  };
  /* The note under the table saying at which computed temperature the band column is (null hides it). */
  Reliability.prototype.setBandNote = function (node, text) {
    if (this.noteNode && !node) this.noteNode.hidden = true;
    if (!node) return;
    this.noteNode = node;
    node.hidden = false;
    CT.setText(node, text);
  };
  /* The kernel-smoothed reliability curve on its mesh (accuracy in rate units per mesh point; density 0 = not drawn). */
  Reliability.prototype.setSmooth = function (curve, density) {
    if (!curve) { CT.setAttrs(this.smoothPath, { visibility: "hidden" }); return; }
    var parts = [], pen = "M", last = curve.length - 1;
    for (var k = 0; k <= last; k++) {
      if (density[k] <= 0) { pen = "M"; continue; }
      parts.push(pen + x(k / last * ONE).toFixed(1) + " " + y(curve[k]).toFixed(1));
      pen = "L";
    }
    CT.setAttrs(this.smoothPath, { visibility: "visible", d: parts.join("") || "M0 0" });
  };

  /* The diagram's data: full-grid bins (the offered counts), bins at the sub-grid temperatures (the
   * other counts, and groups), or one point (each group at its own T). Returns what it holds:
   * {mode: "grid" | "sub" | "point", subgrid, temps}, or null while the bins are on their way. */
  function setDiagram(view, state, data) {
    var part = data.part, point = data.point, scheme = state.scheme, bins = state.bins;
    if (point) {
      view.setBins(point.bins(scheme, bins), scheme, { value: [point.value("ece", scheme, bins)] }, point.n);
      return { mode: "point" };
    }
    var full = part.bins(scheme, bins);
    if (full) {
      view.setBins(full, scheme, data.series.ece, part.n);
      return { mode: "grid" };
    }
    var sub = part.subBins(scheme, bins);
    if (!sub) return null;  // on its way: drawn when it arrives
    var ece = new Int32Array(sub.subgrid.length), temps = [];
    for (var k = 0; k < sub.subgrid.length; k++) {
      ece[k] = data.series.ece.value[sub.subgrid[k]];
      temps.push(CT.core.grid[sub.subgrid[k]]);
    }
    view.setBins(sub.bins, scheme, { value: ece }, part.n);
    return { mode: "sub", subgrid: sub.subgrid, temps: temps };
  }

  CT.explorerView("reliability", function (ex) {
    var figure = ex.$("reliability"), view, diagram, overlaid;
    if (!figure) return null;
    var panel = figure.closest(".panel"), at = ex.$("diagram-at");
    /* The diagram at grid index i: the grid point itself, the nearest computed one, or the one point. */
    function show(state, data) {
      var i = state.index, d = diagram, ui = CT.strings().ui;
      if (!d) return null;
      var k = i, shown = i, note = "";
      if (d.mode === "point") { k = 0; shown = "point"; note = data.pointNote; }
      else if (d.mode === "sub") {
        k = CT.nearestIndex(d.temps, CT.core.grid[i]);
        shown = d.subgrid[k];
        if (shown !== i) {
          note = CT.fill(ui.diagram_nearest, { t: CT.temp(d.temps[k]), count: d.temps.length, bins: CT.plural("bins", state.bins),
            now: CT.temp(CT.core.grid[i]) });
        }
      }
      view.setIndex(k);
      if (at) CT.setText(at, note);
      return shown;
    }
    /* The bands and the smooth curve at the analyses' sub-grid point (the analyses are of every row). */
    function overlay(state, data) {
      var a = data.analysis, ui = CT.strings().ui, note = ex.$("overlay-at");
      var bandsCaption = ex.$("caption-bands"), smoothCaption = ex.$("caption-smooth");
      if (bandsCaption) bandsCaption.hidden = !(a && !data.aside && state.bands);  // said only of what is drawn
      if (smoothCaption) smoothCaption.hidden = !(a && !data.aside && state.smooth);
      if (!a) { view.setBands(null); view.setSmooth(null); view.setBandNote(null); return; }
      if (data.aside) {
        view.setBands(null); view.setSmooth(null);
        if (note) CT.setText(note, state.bands || state.smooth ? data.aside : "");
        return;
      }
      var k = data.sub, gi = data.subIndex, part = a.part(state.part);
      var where = { t: CT.temp(CT.core.grid[gi]), count: a.subgrid.length }, text = CT.fill(ui.unc_at_note, where);
      // Bands exist for the offered bin counts, on the grid's own diagram: listed in the table, and drawn if asked.
      var band = diagram && diagram.mode === "grid" ? part.band(state.scheme, state.bins) : null;
      view.setBands(band, gi, k, state.bands);
      view.setBandNote(band && state.bands && ex.$("band-note"), CT.fill(ui.bin_table_band_note, where));
      var smooth = state.smooth ? part.smooth() : null;
      view.setSmooth(smooth && smooth.curve[k], smooth && smooth.density[k]);
      if (state.bands && !band) text += " " + CT.fill(ui.bands_offered_only, { counts: CT.core.offered_bin_counts.join(", ") });
      if (note) CT.setText(note, state.bands || state.smooth ? text : "");
    }
    return {
      watch: panel,
      config: function (state, data) {
        view = view || new Reliability(figure, ex.$("bin-table"));
        if (!CT.isOffered(state.bins) && !data.part.hasDetail() && at) {
          CT.setText(at, CT.fill(CT.strings().ui.diagram_loading, { bins: CT.plural("bins", state.bins) }));
        }
        diagram = setDiagram(view, state, data);
      },
      render: function (state, data) {
        var key = [data.serial, data.sub, !!data.analysis, data.aside, state.bands, state.smooth].join("|");
        if (key !== overlaid) { overlaid = key; overlay(state, data); }
        return show(state, data);
      },
      saysEce: function () { return !!diagram && diagram.mode !== "sub"; }
    };
  });
})(window.CalibTutorial);
