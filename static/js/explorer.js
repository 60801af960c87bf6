/* explorer.js — one self-contained component per <div data-component="explorer">.
 * One state object per instance; event handlers update the state; render functions read the
 * payload (through CT.model) and update existing nodes. Ids are prefixed by the root's id, so
 * several instances can share a page. Only an instance with data-hash="on" touches the URL. */
(function (CT) {
  "use strict";
  var HASH_PREFIX = "#state/";
  var CLASS_NAMES = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  var BAR_STEP = 4;  // bar lengths move in steps of 0.004 (about a pixel); the printed value is exact

  function Explorer(root) {
    this.root = root;
    this.id = root.id;
    var d = root.dataset;
    this.state = {
      dataset: d.dataset || "six",
      part: null,
      index: CT.core.t1_index,
      scheme: d.scheme || "equal-width",
      bins: Number(d.bins || 4),
      example: 0,
      bands: d.bands === "on",
      smooth: d.smooth === "on",
      pins: []
    };
    this.useHash = d.hash === "on";
    // Started by the reader's first touch, the dataset picker may already hold another choice.
    var picked = document.getElementById(this.id + "-dataset");
    if (picked && picked.value) this.state.dataset = picked.value;
    this.model = null;
    this.analysis = null;
    this.needsAnalysis = !!root.querySelector("[data-needs-analysis]");
    this.$ = function (suffix) { return document.getElementById(this.id + "-" + suffix); };
    this.bind();
    this.watchPanels();
    if (this.useHash) this.readHash();
    this.loadDataset(this.state.dataset, true);
  }

  /* ---- state changes ---- */
  Explorer.prototype.bind = function () {
    var self = this, slider = this.$("t");
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
    this.onClick("fit", function () { if (self.model) self.jumpTo(self.model.fittedIndex); });
    this.onClick("pin", function () {
      if (self.state.pins.indexOf(self.state.index) < 0) self.state.pins.push(self.state.index);
      self.renderCompare();
    });
    this.onChange("dataset", function (value) { self.loadDataset(value, false); });
    this.onChange("bins", function (value) { self.state.bins = Number(value); self.renderConfig(); self.writeHash(); });
    this.onChange("example", function (value) {
      var parts = value.split(":");
      self.state.example = Number(parts[1]);
      if (parts[0] !== self.state.dataset) self.loadDataset(parts[0], false);
      else self.renderConfig();
    });
    this.onCheck("bands", function (on) { self.state.bands = on; self.renderAnalysis(true); self.writeHash(); });
    this.onCheck("smooth", function (on) { self.state.smooth = on; self.renderAnalysis(true); self.writeHash(); });
    this.onRadio("scheme", function (value) { self.state.scheme = value; self.renderConfig(); self.writeHash(); });
    this.onRadio("part", function (value) { self.state.part = value; self.renderConfig(); self.writeHash(); });
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

  Explorer.prototype.loadDataset = function (name, first) {
    var self = this, ui = CT.strings().ui, status = this.$("status");
    if (!CT.datasetInfo(name)) name = "six";
    status.textContent = CT.datasets[name] ? "" : CT.fill(ui.loading, { name: name });
    CT.load("dataset", name, function (error) {
      if (error) {
        status.textContent = CT.fill(error === "version" ? ui.error_version : ui.error_missing,
          { file: "data/" + name + ".js" });
        var select = self.$("dataset");
        if (select && self.model) select.value = self.model.name;
        return;
      }
      status.textContent = "";
      var changed = !self.model || self.model.name !== name;
      self.state.dataset = name;
      self.model = CT.model(name);
      if (changed) self.state.pins = [];
      var parts = self.model.partNames;
      if (parts.indexOf(self.state.part) < 0) self.state.part = parts.indexOf("test") >= 0 ? "test" : parts[0];
      if (self.state.example >= self.model.examples.index.length) self.state.example = 0;
      self.renderConfig();
      if (!first) self.writeHash();
      if (self.needsAnalysis) self.loadAnalysis(name);
    });
  };

  /* Spreads, floors, bands, sweeps and smooth ECE live in a second, on-demand file per dataset. */
  Explorer.prototype.loadAnalysis = function (name) {
    var self = this, ui = CT.strings().ui;
    this.analysis = null;
    this.renderAnalysis(true);
    CT.load("analysis", name, function (error) {
      if (self.state.dataset !== name) return;
      if (error) {
        self.$("status").textContent = CT.fill(ui.error_analysis, { file: "data/" + name + "-analysis.js" });
        return;
      }
      self.analysis = CT.analysisModel(name);
      self.renderAnalysis(true);
    });
  };

  /* Panels off screen skip slider steps and catch up when they scroll into view: a step then
   * re-lays out only what the reader can see. */
  Explorer.prototype.watchPanels = function () {
    var self = this, panels = {
      curves: this.$("curves"), bars: this.$("bars"), compare: this.$("compare"),
      reliability: this.$("reliability") && this.$("reliability").closest(".panel")
    };
    this.offscreen = {};
    this.stale = {};
    if (!("IntersectionObserver" in window)) return;
    var observer = new IntersectionObserver(function (entries) {
      entries.forEach(function (entry) {
        var name = entry.target.getAttribute("data-panel");
        self.offscreen[name] = !entry.isIntersecting;
        if (entry.isIntersecting && self.stale[name]) {
          self.stale[name] = false;
          if (self.model) self.refreshPanel(name, self.state.index);
        }
      });
    }, { rootMargin: "150px 0px" });
    Object.keys(panels).forEach(function (name) {
      if (!panels[name]) return;
      panels[name].setAttribute("data-panel", name);
      observer.observe(panels[name]);
    });
  };
  Explorer.prototype.live = function (name) {
    if (this.offscreen[name]) { this.stale[name] = true; return false; }
    return true;
  };
  Explorer.prototype.refreshPanel = function (name, i) {
    if (name === "curves" && this.curves) this.curves.setIndex(i);
    if (name === "reliability" && this.reliability) this.reliability.setIndex(i);
    if (name === "bars") this.updateBars(i);
    if (name === "compare") this.updateCurrentRow(i);
  };

  Explorer.prototype.setIndex = function (index) {
    var start = performance.now();
    this.state.index = index;
    this.renderIndex();
    void this.root.offsetHeight; // force layout so the timing includes it
    CT.perf.push(performance.now() - start);
  };

  /* ---- URL hash: #state/dataset=…&t=…&scheme=…&bins=…&part=… ---- */
  Explorer.prototype.readHash = function () {
    var hash = window.location.hash;
    if (hash.indexOf(HASH_PREFIX) !== 0) return;
    var params = {};
    hash.slice(HASH_PREFIX.length).split("&").forEach(function (pair) {
      var kv = pair.split("=");
      if (kv.length === 2) params[decodeURIComponent(kv[0])] = decodeURIComponent(kv[1]);
    });
    var s = this.state;
    if (params.dataset && CT.datasetInfo(params.dataset)) s.dataset = params.dataset;
    var t = Number(params.t);
    if (t > 0 && isFinite(t)) s.index = CT.nearestIndex(t);
    if (CT.core.schemes.indexOf(params.scheme) >= 0) s.scheme = params.scheme;
    if (CT.core.bin_counts.indexOf(Number(params.bins)) >= 0) s.bins = Number(params.bins);
    if (params.part) s.part = params.part;
    if (params.bands) s.bands = params.bands === "1";
    if (params.smooth) s.smooth = params.smooth === "1";
  };
  /* Written a moment after a control settles: holding an arrow key fires "change" on every step,
   * and each replaceState makes Chromium fetch the favicon again. */
  Explorer.prototype.writeHash = function () {
    if (!this.useHash || !this.model) return;
    var self = this;
    clearTimeout(this.hashTimer);
    this.hashDone = false;
    this.hashTimer = setTimeout(function () { self.writeHashNow(); self.hashDone = true; }, 250);
  };
  Explorer.prototype.writeHashNow = function () {
    var s = this.state;
    var hash = HASH_PREFIX + "dataset=" + s.dataset + "&t=" + Number(CT.core.grid[s.index].toPrecision(5)) +
      "&scheme=" + s.scheme + "&bins=" + s.bins + "&part=" + s.part +
      (this.needsAnalysis ? "&bands=" + (s.bands ? 1 : 0) + "&smooth=" + (s.smooth ? 1 : 0) : "");
    if (window.location.hash !== hash) history.replaceState(null, "", hash);
  };

  /* ---- rendering ---- */
  Explorer.prototype.renderConfig = function () {
    if (!this.model) return;  // still loading: the state is kept and drawn once the data arrive
    var m = this.model, s = this.state, ui = CT.strings().ui, part = m.part(s.part);
    var info = CT.datasetInfo(m.name);
    this.syncControls();
    var summary = this.$("summary");
    if (summary) {
      summary.textContent = info.description + " " + CT.fill(ui.dataset_line, {
        n: info.n, t: CT.temp(m.fittedT, 5), on: ui["fitted_on_" + m.fittedOn]
      });
    }
    var fitButton = this.$("fit");
    if (fitButton) fitButton.textContent = CT.fill(ui.button_fitted, { t: CT.temp(m.fittedT, 4) });
    var acc = this.root.querySelector('[data-metric="accuracy"]');
    if (acc) {
      acc.querySelector(".value").textContent = CT.pct(part.accuracy);
      acc.querySelector(".change").textContent = ui.unchanged_by_t;
    }
    this.series = {
      nll: part.nll, brier: part.brier, confidence: part.confidence,
      eceW: part.ece("equal-width", s.bins), eceA: part.ece("adaptive", s.bins),
      ece: part.ece(s.scheme, s.bins), mce: part.mce(s.scheme, s.bins)
    };
    var mceCard = this.root.querySelector('[data-metric="mce"] .card-sub');
    if (mceCard) mceCard.textContent = CT.fill(ui.scheme_bins, { scheme: ui["scheme_" + s.scheme], bins: s.bins });
    Array.prototype.forEach.call(this.root.querySelectorAll(".bins-count"), function (node) { node.textContent = s.bins; });
    var curves = this.$("curves");
    if (curves) {
      if (!this.curves) this.curves = new CT.Curves(curves);
      var eceLabel = CT.fill(ui.curve_ece, { scheme: ui["scheme_" + s.scheme], bins: s.bins });
      this.curves.setData(CT.core.grid, [
        { label: ui.metric_nll, values: part.nll.value, format: function (u) { return CT.score(u); } },
        { label: ui.metric_brier, values: part.brier.value, format: function (u) { return CT.score(u); } },
        { label: eceLabel, values: this.series.ece.value, format: function (u) { return CT.pct(u); } }
      ], CT.core.t1_index, part.nllArgmin);
    }
    var figure = this.$("reliability");
    if (figure) {
      if (!this.reliability) this.reliability = new CT.Reliability(figure, this.$("bin-table"));
      this.reliability.setBins(part.bins(s.scheme, s.bins), s.scheme, this.series.ece, part.n);
    }
    this.buildBars();
    this.renderCompare();
    this.$("t").value = s.index;
    this.renderIndex(true);
    this.renderAnalysis(true);
  };

  Explorer.prototype.syncControls = function () {
    var s = this.state, m = this.model, root = this.root, id = this.id;
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
    if (!this.model) return;
    var s = this.state, i = s.index, ui = CT.strings().ui, series = this.series;
    var t = CT.core.grid[i];
    var readout = this.$("t-readout");
    if (readout) CT.setText(readout, CT.temp(t, 4));
    CT.setAttrs(this.$("t"), { "aria-valuetext": CT.fill(ui.slider_valuetext, { t: CT.temp(t, 3), ece: CT.pct(series.ece.value[i]) }) });
    this.setCard("nll", CT.score(series.nll.value[i]), CT.score(series.nll.change[i], true));
    this.setCard("brier", CT.score(series.brier.value[i]), CT.score(series.brier.change[i], true));
    this.setCard("ece-w", CT.pct(series.eceW.value[i]), CT.points(series.eceW.change[i]));
    this.setCard("ece-a", CT.pct(series.eceA.value[i]), CT.points(series.eceA.change[i]));
    this.setCard("mce", CT.pct(series.mce.value[i]), CT.points(series.mce.change[i]));
    this.setCard("confidence", CT.pct(series.confidence.value[i]), CT.points(series.confidence.change[i]));
    var self = this;
    ["curves", "reliability", "bars", "compare"].forEach(function (name) {
      if (force || self.live(name)) self.refreshPanel(name, i);
    });
    this.renderAnalysis(false);
  };

  /* The sub-grid views follow the computed temperature nearest to the slider; they are redrawn
   * only when that nearest point (or the configuration, with force) changes. */
  Explorer.prototype.renderAnalysis = function (force) {
    if (!this.needsAnalysis) return;
    var a = this.analysis, s = this.state, ui = CT.strings().ui;
    var panel = this.$("uncertainty");
    if (!a || !this.model || a.raw.name !== this.model.name) {
      this.lastSub = null;
      if (panel) panel.classList.add("pending");
      if (this.reliability) { this.reliability.setBands(null); this.reliability.setSmooth(null); }
      return;
    }
    var k = a.nearest(s.index);
    if (!force && k === this.lastSub) return;
    this.lastSub = k;
    if (panel) panel.classList.remove("pending");
    var gi = a.subgrid[k], part = a.part(s.part), series = this.series;
    var where = { t: CT.temp(CT.core.grid[gi], 4), count: a.subgrid.length };
    var at = CT.fill(ui.unc_at, where), note = CT.fill(ui.unc_at_note, where);
    var spread = part.spreadEce(s.scheme, s.bins), floor = part.floorEce(s.scheme, s.bins), nll = part.spreadNll();
    var smooth = part.smooth();
    if (panel) {
      var field = function (name, text) { CT.setText(panel.querySelector('[data-u="' + name + '"]'), text); };
      CT.setText(this.$("unc-at"), at);
      field("measured", CT.fill(ui.unc_measured_value, { ece: CT.pct(series.ece.value[gi]), scheme: ui["scheme_" + s.scheme], bins: s.bins }));
      field("spread", CT.fill(ui.range_value, { lo: CT.pct(spread.lo[k]), hi: CT.pct(spread.hi[k]) }));
      field("floor", CT.fill(ui.floor_value, { lo: CT.pct(floor.lo[k]), mid: CT.pct(floor.mid[k]), hi: CT.pct(floor.hi[k]) }));
      field("nll", CT.fill(ui.unc_nll_value, { nll: CT.score(series.nll.value[gi]), lo: CT.score(nll.lo[k]), hi: CT.score(nll.hi[k]) }));
      field("smooth", CT.fill(ui.smooth_value, { ece: CT.pct(smooth.ece[k]), sigma: CT.prob(smooth.sigma[k]) }));
    }
    var sweepHost = this.$("sweep");
    if (sweepHost) {
      if (!this.sweep) this.sweep = new CT.Sweep(sweepHost);
      var sw = part.sweep(s.scheme);
      this.sweep.draw({ ece: sw.ece[k], mid: sw.mid[k], hi: sw.hi[k] }, s.bins);
      CT.setText(this.$("sweep-at"), note);
    }
    if (this.reliability) {
      var band = s.bands ? part.band(s.scheme, s.bins) : null;
      this.reliability.setBands(band, gi, k);
      this.reliability.setSmooth(s.smooth ? smooth.curve[k] : null, s.smooth ? smooth.density[k] : null);
      var overlayNote = this.$("overlay-at");
      if (overlayNote) CT.setText(overlayNote, s.bands || s.smooth ? note : "");
    }
  };

  Explorer.prototype.setCard = function (metric, value, change) {
    var card = this.cards || (this.cards = {});
    if (!(metric in card)) {
      var node = this.root.querySelector('[data-metric="' + metric + '"]');
      card[metric] = node ? { value: node.querySelector(".value"), change: node.querySelector(".change") } : null;
    }
    if (!card[metric]) return;
    CT.setText(card[metric].value, value);
    CT.setText(card[metric].change, CT.fill(CT.strings().ui.change_vs_t1, { change: change }));
  };

  /* Probability bars: every example of six/twelve (or six chosen ones), or one picked example. */
  Explorer.prototype.buildBars = function () {
    var host = this.$("bars");
    this.barRows = [];
    if (!host) return;
    var m = this.model, ui = CT.strings().ui, ex = m.examples, single = host.dataset.mode === "single";
    host.textContent = "";
    var list = single ? [this.state.example] : ex.index.map(function (_, e) { return e; });
    var self = this;
    list.forEach(function (e) {
      var card = document.createElement("div");
      card.className = "example";
      var head = document.createElement("p");
      head.className = "example-head";
      var right = ex.predicted[e] === ex.label[e];
      head.textContent = CT.fill(ui.example_head, {
        number: ex.index[e] + 1, label: CLASS_NAMES[ex.label[e]], predicted: CLASS_NAMES[ex.predicted[e]],
        verdict: right ? ui.verdict_right : ui.verdict_wrong
      });
      card.appendChild(head);
      if (single) {
        var logits = document.createElement("p");
        logits.className = "example-logits";
        logits.textContent = CT.fill(ui.example_logits, { logits: ex.logits[e].join(", ") });
        card.appendChild(logits);
      }
      var bars = [];
      for (var c = 0; c < m.k; c++) {
        var row = document.createElement("div");
        row.className = "bar-row" + (c === ex.predicted[e] ? " predicted" : "") + (c === ex.label[e] ? " truth" : "");
        var name = document.createElement("span");
        name.className = "bar-name";
        name.textContent = CLASS_NAMES[c];
        var track = document.createElement("span");
        track.className = "bar-track";
        var fill = document.createElement("span");
        fill.className = "bar-fill";
        track.appendChild(fill);
        var value = document.createElement("span");
        value.className = "bar-value";
        row.appendChild(name); row.appendChild(track); row.appendChild(value);
        card.appendChild(row);
        var labelled = m.k <= 3 || single || c === ex.predicted[e] || c === ex.label[e];
        bars.push({ fill: fill, value: labelled ? value : null, probs: ex.probs[e][c] });
      }
      host.appendChild(card);
      self.barRows.push(bars);
    });
  };
  Explorer.prototype.updateBars = function (i) {
    for (var r = 0; r < this.barRows.length; r++) {
      var bars = this.barRows[r];
      for (var c = 0; c < bars.length; c++) {
        var bar = bars[c], p = bar.probs[i], level = Math.round(p / BAR_STEP);
        if (bar.value) CT.setText(bar.value, CT.prob(p));
        // A bar is a few hundred pixels wide: restyle it only when it would move visibly.
        if (bar.level === level) continue;
        bar.level = level;
        bar.fill.style.transform = "scaleX(" + (level * BAR_STEP / 1000) + ")";
      }
    }
  };

  /* Comparison table: T = 1, fitted T, the current state and the reader's pins. */
  Explorer.prototype.renderCompare = function () {
    var table = this.$("compare");
    if (!table || !this.model) return;
    var ui = CT.strings().ui, s = this.state, m = this.model, body = table.querySelector("tbody");
    table.querySelector(".compare-ece").textContent =
      CT.fill(ui.curve_ece, { scheme: ui["scheme_" + s.scheme], bins: s.bins });
    body.textContent = "";
    var rows = [[ui.state_t1, CT.core.t1_index], [ui.state_fitted, m.fittedIndex], [ui.state_current, s.index]];
    s.pins.forEach(function (index, k) { rows.push([CT.fill(ui.state_pinned, { number: k + 1 }), index]); });
    var self = this;
    this.currentRow = null;
    rows.forEach(function (spec, k) {
      var tr = document.createElement("tr");
      var th = document.createElement("th");
      th.scope = "row";
      th.textContent = spec[0];
      tr.appendChild(th);
      for (var c = 0; c < 5; c++) tr.appendChild(document.createElement("td"));
      body.appendChild(tr);
      self.fillCompareRow(tr, spec[1]);
      if (k === 2) self.currentRow = tr;
    });
  };
  Explorer.prototype.fillCompareRow = function (tr, index) {
    var cells = tr.children, series = this.series, part = this.model.part(this.state.part);
    CT.setText(cells[1], CT.temp(CT.core.grid[index], 5));
    CT.setText(cells[2], CT.score(series.nll.value[index]));
    CT.setText(cells[3], CT.score(series.brier.value[index]));
    CT.setText(cells[4], CT.pct(series.ece.value[index]));
    CT.setText(cells[5], CT.pct(part.accuracy));
  };
  Explorer.prototype.updateCurrentRow = function (i) {
    if (this.currentRow) this.fillCompareRow(this.currentRow, i);
  };

  CT.Explorer = Explorer;
})(window.CalibTutorial);
