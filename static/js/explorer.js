/* explorer.js — one self-contained component per <div data-component="explorer">. It wires the
 * controls the template rendered to one state object and draws its panels through their own files
 * (cards.js, curves.js, reliability.js, bars.js, compare.js, uncertainty.js, sweep.js). Handlers
 * update the state; render functions read the payload (CT.model, CT.analysisModel) and hand it to
 * the views, which update existing nodes. Ids are prefixed by the root's id, so several
 * instances can share a page. Only an instance with data-hash="on" uses the URL (hash.js). */
(function (CT) {
  "use strict";
  var PANELS = ["curves", "reliability", "bars", "compare"];  // the panels that follow the slider

  function Explorer(root) {
    var d = root.dataset;
    this.root = root;
    this.id = root.id;
    this.options = { hash: d.hash === "on", analysis: !!root.querySelector("[data-needs-analysis]") };
    this.state = {
      // the reader's choices
      dataset: d.dataset || CT.defaultDataset(),
      part: null,
      index: CT.core.t1_index,
      scheme: d.scheme || "equal-width",
      bins: Number(d.bins || 4),
      example: 0,
      bands: d.bands === "on",
      smooth: d.smooth === "on",
      pins: [],
      // what is loaded for them: the decoded dataset and analyses, the series of the chosen part, scheme and bins
      model: null,
      analysis: null,
      series: null,
      // what the views show: the sub-grid point of the analysis views; panels off screen, and those behind
      sub: null,
      offscreen: {},
      stale: {}
    };
    this.views = {};  // cards, curves, reliability, bars, compare, sweep: see makeViews
    this.panels = {};  // panel name -> the node watched for visibility (it carries data-index)
    // Started by a first input (a reader's, a script's or assistive technology's), the controls may
    // already hold other values than the template's: the state starts from what they show.
    this.readControls();
    this.bind();
    this.watchPanels();
    if (this.options.hash) CT.stateHash.read(this.state);
    this.loadDataset(this.state.dataset, true);
  }

  Explorer.prototype.$ = function (suffix) {
    return document.getElementById(this.id + "-" + suffix);
  };

  /* Copy what the controls show into the state (before the first render). */
  Explorer.prototype.readControls = function () {
    var s = this.state, root = this.root, id = this.id;
    var picked = this.$("dataset"), slider = this.$("t"), bins = this.$("bins"), example = this.$("example");
    if (picked && picked.value) s.dataset = picked.value;
    if (example && example.value) {
      var parts = example.value.split(":");
      s.dataset = parts[0];
      s.example = Number(parts[1]) || 0;
    }
    var index = Number(slider.value);
    if (index >= 0 && index < CT.core.grid.length) s.index = index;
    if (bins && Number(bins.value) > 0) s.bins = Number(bins.value);
    ["scheme", "part"].forEach(function (name) {
      var checked = root.querySelector('input[name="' + id + "-" + name + '"]:checked');
      if (checked) s[name] = checked.value;
    });
    var bands = this.$("bands"), smooth = this.$("smooth");
    if (bands) s.bands = bands.checked;
    if (smooth) s.smooth = smooth.checked;
  };

  /* ---- handlers: each updates the state, then redraws what depends on it ---- */
  Explorer.prototype.bind = function () {
    var self = this, s = this.state, slider = this.$("t");
    slider.addEventListener("input", function () { self.setIndex(Number(slider.value)); });
    slider.addEventListener("change", function () { self.writeHash(); });
    slider.addEventListener("keydown", function (event) {
      // PageUp/PageDown move exactly ten grid points (the native step is a tenth of the range).
      var step = { PageUp: 10, PageDown: -10 }[event.key];
      if (!step) return;
      event.preventDefault();
      var next = Math.max(0, Math.min(Number(slider.max), Number(slider.value) + step));
      slider.value = next;
      self.setIndex(next);
      self.writeHash();
    });
    this.onClick("reset", function () { self.jumpTo(CT.core.t1_index); });
    this.onClick("fit", function () { if (s.model) self.jumpTo(s.model.fittedIndex); });
    this.onClick("pin", function () { self.pin(); });
    this.onChange("dataset", function (value) { self.loadDataset(value, false); });
    this.onChange("bins", function (value) { s.bins = Number(value); self.renderConfig(); self.writeHash(); });
    this.onChange("example", function (value) {
      var parts = value.split(":");
      s.example = Number(parts[1]);
      if (parts[0] !== s.dataset) self.loadDataset(parts[0], false);
      else self.renderConfig();
    });
    this.onCheck("bands", function (on) { s.bands = on; self.renderAnalysis(true); self.writeHash(); });
    this.onCheck("smooth", function (on) { s.smooth = on; self.renderAnalysis(true); self.writeHash(); });
    this.onRadio("scheme", function (value) { s.scheme = value; self.renderConfig(); self.writeHash(); });
    this.onRadio("part", function (value) { s.part = value; self.renderConfig(); self.writeHash(); });
  };
  Explorer.prototype.onClick = function (suffix, fn) {
    var node = this.$(suffix);
    if (node) node.addEventListener("click", fn);
  };
  Explorer.prototype.onChange = function (suffix, fn) {
    var node = this.$(suffix);
    if (node) node.addEventListener("change", function () { fn(node.value); });
  };
  Explorer.prototype.onCheck = function (suffix, fn) {
    var node = this.$(suffix);
    if (node) node.addEventListener("change", function () { fn(node.checked); });
  };
  Explorer.prototype.onRadio = function (name, fn) {
    var inputs = this.root.querySelectorAll('input[name="' + this.id + "-" + name + '"]');
    Array.prototype.forEach.call(inputs, function (input) {
      input.addEventListener("change", function () { if (input.checked) fn(input.value); });
    });
  };
  Explorer.prototype.jumpTo = function (index) {
    this.$("t").value = index;
    this.setIndex(index);
    this.writeHash();
  };
  Explorer.prototype.setIndex = function (index) {
    var start = performance.now();
    this.state.index = index;
    this.renderIndex();
    void this.root.offsetHeight; // force layout so the timing includes it
    CT.perf.push(performance.now() - start);
  };
  Explorer.prototype.writeHash = function () {
    var s = this.state, overlays = this.options.analysis;
    if (!this.options.hash || !s.model) return;
    CT.stateHash.write(function () { return CT.stateHash.format(s, overlays); });
  };

  /* ---- loading: the state keeps the reader's choices while a data file is on its way ---- */
  Explorer.prototype.loadDataset = function (name, first) {
    var self = this, s = this.state, ui = CT.strings().ui, status = this.$("status");
    if (!CT.datasetInfo(name)) name = CT.defaultDataset();
    status.textContent = CT.datasets[name] ? "" : CT.fill(ui.loading, { name: name });
    CT.load("dataset", name, function (error) {
      if (error) {
        status.textContent = CT.fill(error === "version" ? ui.error_version : ui.error_missing,
          { file: "data/" + name + ".js" });
        var select = self.$("dataset");
        if (select && s.model) select.value = s.model.name;
        return;
      }
      status.textContent = "";
      var changed = !s.model || s.model.name !== name;
      s.dataset = name;
      s.model = CT.model(name);
      var parts = s.model.partNames;
      if (parts.indexOf(s.part) < 0) s.part = parts.indexOf("test") >= 0 ? "test" : parts[0];
      if (s.example >= s.model.examples.index.length) s.example = 0;
      self.renderConfig();
      if (!first) self.writeHash();
      if (self.options.analysis) self.loadAnalysis(name);
    });
  };

  /* Spreads, floors, bands, sweeps and smooth ECE live in a second, on-demand file per dataset. */
  Explorer.prototype.loadAnalysis = function (name) {
    var self = this, s = this.state, ui = CT.strings().ui;
    s.analysis = null;
    this.renderAnalysis(true);
    CT.load("analysis", name, function (error) {
      if (s.dataset !== name) return;
      if (error) {
        self.$("status").textContent = CT.fill(ui.error_analysis, { file: "data/" + name + "-analysis.js" });
        return;
      }
      s.analysis = CT.analysisModel(name);
      self.renderAnalysis(true);
    });
  };

  /* ---- panels: those off screen skip slider steps and catch up when they scroll into view, so a
   * step re-lays out only what the reader can see. A panel's data-index is the grid index it shows. ---- */
  Explorer.prototype.watchPanels = function () {
    var self = this, s = this.state, reliability = this.$("reliability"), panels = this.panels;
    panels.curves = this.$("curves");
    panels.reliability = reliability && reliability.closest(".panel");
    panels.bars = this.$("bars");
    panels.compare = this.$("compare");
    PANELS.forEach(function (name) { if (panels[name]) panels[name].setAttribute("data-panel", name); });
    if (!("IntersectionObserver" in window)) return;
    var observer = new IntersectionObserver(function (entries) {
      entries.forEach(function (entry) {
        var name = entry.target.getAttribute("data-panel");
        s.offscreen[name] = !entry.isIntersecting;
        if (entry.isIntersecting && s.stale[name]) {
          s.stale[name] = false;
          if (s.model) self.refreshPanel(name, s.index);
        }
      });
    }, { rootMargin: "150px 0px" });
    PANELS.forEach(function (name) { if (panels[name]) observer.observe(panels[name]); });
  };
  Explorer.prototype.live = function (name) {
    if (this.state.offscreen[name]) { this.state.stale[name] = true; return false; }
    return true;
  };
  Explorer.prototype.refreshPanel = function (name, i) {
    var view = this.views[name];
    if (!view) return;
    view.setIndex(i);
    CT.setAttrs(this.panels[name], { "data-index": i });
  };

  /* ---- rendering ---- */
  /* The views of the panels this instance has, made when the first data arrive (the bin-count
   * chart when its analyses do), so no empty chart is ever shown. */
  Explorer.prototype.makeViews = function () {
    var v = this.views, curves = this.$("curves"), figure = this.$("reliability");
    var bars = this.$("bars"), compare = this.$("compare"), panel = this.$("uncertainty");
    v.cards = new CT.Cards(this.root);
    if (panel) v.uncertainty = new CT.Uncertainty(panel, this.$("unc-at"));
    if (curves) v.curves = new CT.Curves(curves);
    if (figure) v.reliability = new CT.Reliability(figure, this.$("bin-table"));
    if (bars) v.bars = new CT.Bars(bars);
    if (compare) v.compare = new CT.Compare(compare);
  };

  /* A new configuration (dataset, part, scheme, bins, example): redraw everything. */
  Explorer.prototype.renderConfig = function () {
    var s = this.state, m = s.model;
    if (!m) return;  // still loading: the state is kept and drawn once the data arrive
    if (!this.views.cards) this.makeViews();
    var v = this.views, ui = CT.strings().ui, part = m.part(s.part), info = CT.datasetInfo(m.name);
    this.syncControls();
    var summary = this.$("summary");
    if (summary) {
      summary.textContent = info.description + " " + CT.fill(ui.dataset_line, {
        n: CT.count(info.n), t: CT.temp(m.fittedT), on: ui["fitted_on_" + m.fittedOn]
      });
    }
    var fitButton = this.$("fit");
    if (fitButton) fitButton.textContent = CT.fill(ui.button_fitted, { t: CT.temp(m.fittedT) });
    var series = s.series = {
      nll: part.nll, brier: part.brier, confidence: part.confidence,
      eceW: part.ece("equal-width", s.bins), eceA: part.ece("adaptive", s.bins),
      ece: part.ece(s.scheme, s.bins), mce: part.mce(s.scheme, s.bins)
    };
    v.cards.setData(series, part.accuracy, s.scheme, s.bins);
    if (v.curves) {
      var score = function (u) { return CT.score(u); }, pct = function (u) { return CT.pct(u); };
      v.curves.setData(CT.core.grid, [
        { label: ui.metric_nll, values: part.nll.value, format: score, zoom: true },
        { label: ui.metric_brier, values: part.brier.value, format: score },
        { label: this.eceLabel(), values: series.ece.value, format: pct }
      ], CT.core.t1_index, part.nllArgmin);
    }
    if (v.reliability) v.reliability.setBins(part.bins(s.scheme, s.bins), s.scheme, series.ece, part.n);
    if (v.bars) v.bars.setData(m, s.example);
    this.renderCompare();
    this.$("t").value = s.index;
    this.renderIndex(true);
    this.renderAnalysis(true);
  };
  Explorer.prototype.eceLabel = function () {
    var ui = CT.strings().ui;
    return CT.fill(ui.curve_ece, { scheme: ui["scheme_" + this.state.scheme], bins: this.state.bins });
  };

  Explorer.prototype.syncControls = function () {
    var s = this.state, m = s.model, root = this.root, id = this.id;
    var select = this.$("dataset");
    if (select) select.value = m.name;
    var bins = this.$("bins");
    if (bins) bins.value = String(s.bins);
    var partBox = this.$("parts");
    if (partBox) partBox.hidden = m.partNames.length < 2;
    [["scheme", s.scheme], ["part", s.part]].forEach(function (pair) {
      Array.prototype.forEach.call(root.querySelectorAll('input[name="' + id + "-" + pair[0] + '"]'), function (input) {
        input.checked = input.value === pair[1];
      });
    });
    var example = this.$("example");
    if (example) example.value = m.name + ":" + s.example;
    var bands = this.$("bands"), smooth = this.$("smooth");
    if (bands) bands.checked = s.bands;
    if (smooth) smooth.checked = s.smooth;
  };

  /* Slider steps update visible panels only; a new configuration (force) redraws them all. */
  Explorer.prototype.renderIndex = function (force) {
    var s = this.state;
    if (!s.model) return;
    var i = s.index, ui = CT.strings().ui, series = s.series, t = CT.core.grid[i];
    var readout = this.$("t-readout");
    if (readout) CT.setText(readout, CT.temp(t));
    CT.setAttrs(this.$("t"), { "aria-valuetext": CT.fill(ui.slider_valuetext, { t: CT.temp(t), ece: CT.pct(series.ece.value[i]) }) });
    this.views.cards.setIndex(i);
    for (var p = 0; p < PANELS.length; p++) {
      if (force || this.live(PANELS[p])) this.refreshPanel(PANELS[p], i);
    }
    this.renderAnalysis(false);
  };

  /* Pin the current state: its whole configuration and its values, looked up now, so that a pinned
   * row never changes when the controls do (the same state twice is pinned once). */
  Explorer.prototype.pin = function () {
    var s = this.state, ui = CT.strings().ui, m = s.model, i = s.index;
    if (!m) return;
    var key = [m.name, s.part, s.scheme, s.bins, i].join("|");
    if (s.pins.some(function (p) { return p.key === key; })) return;
    var part = m.partNames.length > 1 ? ui["part_short_" + s.part] : ui.part_all;
    s.pins.push({
      key: key, index: i,
      label: CT.fill(ui.pin_config, { number: s.pins.length + 1, dataset: this.datasetLabel(m.name),
        part: part, scheme: ui["scheme_" + s.scheme], bins: s.bins }),
      values: { nll: s.series.nll.value[i], brier: s.series.brier.value[i], ece: s.series.ece.value[i],
        accuracy: m.part(s.part).accuracy }
    });
    this.renderCompare();
  };

  /* A dataset's name as the dataset picker shows it (its payload name where there is no picker). */
  Explorer.prototype.datasetLabel = function (name) {
    var option = this.root.querySelector('option[value="' + name + '"]');
    return option ? option.textContent : name;
  };

  /* The comparison table: T = 1, fitted T, the current state and the reader's pins. */
  Explorer.prototype.renderCompare = function () {
    var s = this.state, compare = this.views.compare;
    if (!compare || !s.model) return;
    compare.setData({
      nll: s.series.nll, brier: s.series.brier, ece: s.series.ece, accuracy: s.model.part(s.part).accuracy,
      fittedIndex: s.model.fittedIndex, index: s.index, pins: s.pins
    });
  };

  /* The sub-grid views follow the computed temperature nearest to the slider; they are redrawn
   * only when that nearest point (or the configuration, with force) changes. */
  Explorer.prototype.renderAnalysis = function (force) {
    if (!this.options.analysis) return;
    var s = this.state, a = s.analysis, v = this.views, ui = CT.strings().ui;
    if (!a || !s.model || a.raw.name !== s.model.name) {
      s.sub = null;
      if (v.uncertainty) v.uncertainty.pending();
      if (v.reliability) { v.reliability.setBands(null); v.reliability.setSmooth(null); v.reliability.setBandNote(null); }
      return;
    }
    var k = a.nearest(s.index);
    if (!force && k === s.sub) return;
    s.sub = k;
    var gi = a.subgrid[k], part = a.part(s.part);
    var where = { t: CT.temp(CT.core.grid[gi]), count: a.subgrid.length };
    var note = CT.fill(ui.unc_at_note, where);
    if (v.uncertainty) {
      v.uncertainty.draw({ at: CT.fill(ui.unc_at, where), k: k, part: part, scheme: s.scheme, bins: s.bins,
        ece: s.series.ece.value[gi], nll: s.series.nll.value[gi] });
    }
    var sweepHost = this.$("sweep");
    if (sweepHost) {
      if (!v.sweep) v.sweep = new CT.Sweep(sweepHost, this.$("sweep-b"), this.$("sweep-value"));
      var sw = part.sweep(s.scheme);
      v.sweep.draw({ ece: sw.ece[k], mid: sw.mid[k], hi: sw.hi[k] }, s.bins);
      CT.setText(this.$("sweep-at"), note);
    }
    if (v.reliability) {
      var bands = a.raw.parts[s.part].floor.band[s.scheme], band = bands && bands[s.bins] ? part.band(s.scheme, s.bins) : null;
      v.reliability.setBands(band, gi, k, s.bands);
      v.reliability.setBandNote(band && this.$("band-note"), CT.fill(ui.bin_table_band_note, where));
      var smooth = s.smooth ? part.smooth() : null;
      v.reliability.setSmooth(smooth && smooth.curve[k], smooth && smooth.density[k]);
      var overlayNote = this.$("overlay-at");
      if (overlayNote) CT.setText(overlayNote, s.bands || s.smooth ? note : "");
    }
  };

  CT.Explorer = Explorer;
})(window.CalibTutorial);
