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
    // The URL's #state/ is this explorer's when it is marked data-hash="on", or the hash names it.
    this.options = { hash: d.hash === "on" || CT.stateHash.isFor(root), analysis: !!root.querySelector("[data-needs-analysis]"),
      widget: d.hash === "on" ? "" : root.id };
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
      group: "pooled",  // "pooled" (every row) or a group's name, for a dataset with groups
      own: false,       // each group at its own fitted T instead of the slider's one T
      pins: [],
      pinSerial: 0,  // the number of the last pin made: a pin keeps its number after others are removed
      // what is loaded for them: the decoded dataset and analyses, the series of the chosen part, scheme and bins
      model: null,
      analysis: null,
      series: null,
      diagram: null,  // what the reliability diagram holds: {mode: "grid" | "sub" | "own", subgrid, temps}
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
    if (CT.stateHash.isFor(root)) CT.stateHash.read(this.state);
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
    this.onClick("fit", function () { self.whenLoaded(function () { self.jumpTo(s.model.fittedIndex); }); });
    this.onClick("pin", function () { self.whenLoaded(function () { self.pin(); }); });
    this.onClick("clear-pins", function () { self.unpin(null); });
    // A pinned row's remove button (the rows are rebuilt, so the table listens for them).
    var compare = this.$("compare");
    if (compare) {
      compare.addEventListener("click", function (event) {
        var button = event.target.closest("button[data-pin]");
        if (button) self.unpin(button.getAttribute("data-pin"));
      });
    }
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
    this.onRadio("group", function (value) { s.group = value; self.renderConfig(); self.writeHash(); });
    this.onCheck("own", function (on) { s.own = on; self.renderConfig(); });
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
  /* A click that needs the data (fit, pin) before they first arrive is kept, and done once they have. */
  Explorer.prototype.whenLoaded = function (fn) {
    if (this.state.model) fn();
    else (this.waiting = this.waiting || []).push(fn);
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
    var s = this.state, overlays = this.options.analysis, widget = this.options.widget;
    if (!this.options.hash || !s.model) return;
    CT.stateHash.write(function () { return CT.stateHash.format(s, overlays, widget); });
  };

  /* ---- loading: the state keeps the reader's choices while a data file is on its way ---- */
  Explorer.prototype.loadDataset = function (name, first) {
    var self = this, s = this.state, ui = CT.strings().ui, status = this.$("status");
    if (!CT.datasetInfo(name)) name = CT.defaultDataset();
    status.textContent = CT.datasets[name] ? "" : CT.fill(ui.loading, { name: CT.shortName(name) });
    CT.load("dataset", name, function (error) {
      if (error) {
        status.textContent = CT.fill(error === "version" ? ui.error_version : ui.error_missing,
          { file: CT.dataFile("dataset", name) });
        var select = self.$("dataset");
        if (select && s.model) select.value = s.model.name;
        return;
      }
      status.textContent = "";
      var changed = !s.model || s.model.name !== name;
      s.dataset = name;
      s.model = CT.model(name);
      // pins keep their own configuration; a first load keeps the URL's group if the dataset has it
      // (a group it lacks falls back to pooled, and the URL says so)
      var dropped = first && !hasGroup(name, s.group);
      if (changed && !(first && !dropped)) { s.group = "pooled"; s.own = false; }
      var parts = s.model.partNames;
      if (parts.indexOf(s.part) < 0) s.part = parts.indexOf("test") >= 0 ? "test" : parts[0];
      if (s.example >= s.model.examples.index.length) s.example = 0;
      self.renderConfig();
      if (!first || dropped) self.writeHash();
      if (self.options.analysis) self.loadAnalysis(name);
      (self.waiting || []).splice(0).forEach(function (fn) { fn(); });
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
        self.$("status").textContent = CT.fill(ui.error_analysis, { file: CT.dataFile("analysis", name) });
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
  /* The grid index nearest to temperature t (log scale). */
  function nearestIndex(t) {
    var grid = CT.core.grid, best = 0;
    for (var k = 1; k < grid.length; k++) if (Math.abs(Math.log(grid[k] / t)) < Math.abs(Math.log(grid[best] / t))) best = k;
    return best;
  }
  Explorer.prototype.refreshPanel = function (name, i) {
    var view = this.views[name];
    if (!view) return;
    if (name === "reliability") { this.refreshDiagram(i); return; }
    // The NLL curve's marker sits at the T applied: a group's own T when it is shown at it.
    if (name === "curves" && this.state.ownT != null) i = nearestIndex(this.state.ownT);
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

  /* The data a group view needs: its groups file; a pooled view of a bin count beyond the detailed
   * ones: its part's bins file. Loads it and redraws when it arrives; false while it is on its way. */
  Explorer.prototype.needs = function (kind, key, errorText) {
    var self = this, s = this.state, ui = CT.strings().ui;
    if ((kind === "groups" ? CT.groupsData : CT.binsData)[key]) return true;
    CT.load(kind, key, function (error) {
      if (!s.model) return;
      if (error) {
        self.$("status").textContent = CT.fill(errorText, { file: CT.dataFile(kind, key) });
        if (kind === "groups") { s.group = "pooled"; s.own = false; }
      }
      self.renderConfig();
    });
    return false;
  };
  /* The row set shown: a dataset part, or one group's rows of it (null while the groups load). */
  Explorer.prototype.viewPart = function () {
    var s = this.state, m = s.model, ui = CT.strings().ui;
    var info = CT.datasetInfo(m.name), grouped = info.groups && info.groups.length;
    if (!grouped) { s.group = "pooled"; s.own = false; }
    else if (!hasGroup(m.name, s.group)) s.group = "pooled";
    // The snapped-count note stays while a group view shows the count it snapped to; a redraw for
    // anything else (a late bins file, say) must not wipe it.
    var grouping = !(s.group === "pooled" && !s.own);
    if (this.groupNote && !(grouping && s.bins === this.groupNote)) {
      this.groupNote = null; this.$("status").textContent = "";
    }
    if (!grouping) return (s.partView = m.part(s.part));
    if (!this.needs("groups", m.name, ui.error_groups)) return null;
    if (!CT.isDetailed(s.bins)) {
      // group views are computed for the detailed bin counts: take the nearest one
      var counts = CT.core.detailed_bin_counts, best = counts[0];
      counts.forEach(function (b) { if (Math.abs(b - s.bins) < Math.abs(best - s.bins)) best = b; });
      this.$("status").textContent = CT.fill(ui.group_bins_note, { counts: counts.join(", "), bins: CT.plural("bins", best) });
      this.groupNote = best;
      s.bins = best;
    }
    s.groups = CT.groupModel(m.name);
    return (s.partView = s.group === "pooled" ? m.part(s.part) : s.groups.part(s.part, s.group));
  };
  /* True when `group` is "pooled" or one of the dataset's groups. */
  function hasGroup(name, group) {
    var info = CT.datasetInfo(name);
    return group === "pooled" || !!(info && info.groups && info.groups.indexOf(group) >= 0);
  }
  /* The group radios: the template renders "pooled" and one per group of any dataset the explorer offers;
   * only the shown dataset's own are shown (and enabled), so a foreign group cannot be chosen. Focus on a
   * radio that goes away moves to "pooled". */
  Explorer.prototype.renderGroups = function (names) {
    var box = this.$("groups"), id = this.id, key = JSON.stringify(names);
    if (box._groups === key) return;
    box._groups = key;
    var active = document.activeElement, refocus = false;
    Array.prototype.forEach.call(box.querySelectorAll('input[name="' + id + '-group"]'), function (input) {
      var shown = input.value === "pooled" || names.indexOf(input.value) >= 0;
      if (!shown && input === active) refocus = true;
      input.disabled = !shown;
      input.closest("label").hidden = !shown;
    });
    if (refocus) box.querySelector('input[value="pooled"]').focus();
  };
  /* A series that does not follow the slider: `value` everywhere, its change against `t1` (T = 1). */
  function constant(value, t1) {
    var size = CT.core.grid.length, v = new Int32Array(size), c = new Int32Array(size);
    v.fill(value); c.fill(value - t1);
    return { value: v, change: c };
  }

  /* A new configuration (dataset, part, scheme, bins, example, group): redraw everything. */
  Explorer.prototype.renderConfig = function () {
    var s = this.state, m = s.model;
    if (!m) return;  // still loading: the state is kept and drawn once the data arrive
    if (!this.views.cards) this.makeViews();
    var v = this.views, ui = CT.strings().ui, info = CT.datasetInfo(m.name);
    var part = this.viewPart();
    this.syncControls();
    if (!part) return;  // the groups are loading
    var summary = this.$("summary");
    if (summary) {
      summary.textContent = CT.fill(ui.dataset_summary, { summary: CT.datasetSummary(m.name), line: CT.fill(ui.dataset_line, {
        n: CT.count(info.n), t: CT.temp(m.fittedT), on: ui["fitted_on_" + m.fittedOn]
      }) });
    }
    var fitButton = this.$("fit");
    if (fitButton) fitButton.textContent = CT.fill(ui.button_fitted, { t: CT.temp(m.fittedT) });
    // The example picker lists two datasets: the line under it names the one shown and its fitted T.
    var from = this.$("example-from"), option = from && this.$("example").selectedOptions[0];
    if (option) CT.setText(from, CT.fill(ui.example_from, { dataset: option.parentNode.label, t: CT.temp(m.fittedT) }));
    if (!CT.isDetailed(s.bins) && !part.hasDetail()) {
      this.needs("bins", m.name + "-" + s.part, ui.error_bins);  // the other bin counts' MCE and diagrams
      CT.setText(this.$("diagram-at") || {}, CT.fill(ui.diagram_loading, { bins: CT.plural("bins", s.bins) }));
    }
    var series = s.series = {
      nll: part.nll, brier: part.brier, confidence: part.confidence,
      eceW: part.ece("equal-width", s.bins), eceA: part.ece("adaptive", s.bins),
      ece: part.ece(s.scheme, s.bins), mce: part.mce(s.scheme, s.bins)
    };
    var own = s.own ? s.groups.own(s.part, s.group) : null, t1 = CT.core.t1_index;
    if (own) {
      s.series = {
        nll: constant(own.nll, part.nll.value[t1]), brier: constant(own.brier, part.brier.value[t1]),
        confidence: constant(own.confidence, part.confidence.value[t1]),
        eceW: constant(own.ece["equal-width"][s.bins], series.eceW.value[t1]),
        eceA: constant(own.ece.adaptive[s.bins], series.eceA.value[t1]),
        ece: constant(own.ece[s.scheme][s.bins], series.ece.value[t1]),
        mce: constant(own.mce[s.scheme][s.bins], series.mce.value[t1])
      };
    }
    s.base = series;  // the row set's series under the slider's T (the T = 1 and fitted rows read these)
    // The T actually applied when one group is shown at its own fitted T (null: the slider's T).
    s.ownT = own && s.group !== "pooled" ? s.groups.temperatures[s.group] : null;
    v.cards.setData(s.series, part.accuracy, s.scheme, s.bins);
    this.setOwn(own);
    if (v.curves) {
      var score = function (u) { return CT.score(u); }, pct = function (u) { return CT.pct(u); };
      v.curves.setData(CT.core.grid, [
        { label: ui.metric_nll, values: part.nll.value, format: score, zoom: true },
        { label: ui.metric_brier, values: part.brier.value, format: score },
        { label: this.eceLabel(), values: series.ece.value, format: pct }  // the part's, also in the own view
      ], CT.core.t1_index, part.nllArgmin);
    }
    if (v.reliability) this.setDiagram(part, own);
    if (v.bars) {
      // a dataset built without examples (--no-examples) has no bars: its panel and heading are hidden
      this.$("bars").closest(".panel").hidden = !m.examples.index.length;
      v.bars.setData(m, s.example);
    }
    this.renderCompare();
    this.$("t").value = s.index;
    this.renderIndex(true);
    this.renderAnalysis(true);
  };
  /* The reliability diagram's data: full-grid bins (the detailed counts), bins at the sub-grid
   * temperatures (the other counts, and groups), or one point (each group at its own T). */
  Explorer.prototype.setDiagram = function (part, own) {
    var s = this.state, view = this.views.reliability, full = part.bins(s.scheme, s.bins);
    if (own) {
      s.diagram = { mode: "own" };
      view.setBins(own.bins(s.scheme, s.bins), s.scheme, { value: [own.ece[s.scheme][s.bins]] }, own.n);
      return;
    }
    if (full) {
      s.diagram = { mode: "grid" };
      view.setBins(full, s.scheme, s.series.ece, part.n);
      return;
    }
    var sub = part.subBins(s.scheme, s.bins);
    if (!sub) { s.diagram = null; return; }  // on its way: drawn when it arrives
    var ece = new Int32Array(sub.subgrid.length), temps = [];
    for (var k = 0; k < sub.subgrid.length; k++) {
      ece[k] = s.series.ece.value[sub.subgrid[k]];
      temps.push(CT.core.grid[sub.subgrid[k]]);
    }
    s.diagram = { mode: "sub", subgrid: sub.subgrid, temps: temps };
    view.setBins(sub.bins, s.scheme, { value: ece }, part.n);
  };
  /* The reliability panel at grid index i: the grid point itself, the nearest computed one, or the one point. */
  Explorer.prototype.refreshDiagram = function (i) {
    var s = this.state, d = s.diagram, view = this.views.reliability, ui = CT.strings().ui;
    if (!view || !d) return;
    var k = i, shown = i, note = "";
    if (d.mode === "own") { k = 0; shown = "own"; note = this.ownNote; }
    else if (d.mode === "sub") {
      k = CT.nearestIndex(d.temps, CT.core.grid[i]);
      shown = d.subgrid[k];
      if (shown !== i) {
        note = CT.fill(ui.diagram_nearest, { t: CT.temp(d.temps[k]), count: d.temps.length, bins: CT.plural("bins", s.bins),
          now: CT.temp(CT.core.grid[i]) });
      }
    }
    view.setIndex(k);
    CT.setAttrs(this.panels.reliability, { "data-index": shown });
    var at = this.$("diagram-at");
    if (at) CT.setText(at, note);
  };
  /* Each group at its own fitted T: the slider and its buttons are set aside, a note says why. */
  Explorer.prototype.setOwn = function (own) {
    var s = this.state, ui = CT.strings().ui, self = this;
    this.ownNote = "";
    if (own) {
      var temps = s.groups.names.filter(function (g) { return s.group === "pooled" || g === s.group; })
        .map(function (g) { return CT.fill(ui.own_temp, { name: g, t: CT.temp(s.groups.temperatures[g]) }); });
      this.ownNote = CT.fill(ui.own_note, { temps: temps.join("; ") });
    }
    ["t", "reset", "fit"].forEach(function (suffix) { var node = self.$(suffix); if (node) node.disabled = !!own; });
  };
  Explorer.prototype.eceLabel = function () {
    var ui = CT.strings().ui;
    return CT.fill(ui.curve_ece, { scheme: ui["scheme_" + this.state.scheme], bins: CT.plural("bins", this.state.bins) });
  };

  Explorer.prototype.syncControls = function () {
    var s = this.state, m = s.model, root = this.root, id = this.id;
    var select = this.$("dataset");
    if (select) select.value = m.name;
    var bins = this.$("bins"), restricted = s.group !== "pooled" || s.own;
    if (bins) {
      if (bins._restricted !== restricted) {
        bins._restricted = restricted;
        Array.prototype.forEach.call(bins.options, function (option) { option.disabled = restricted && !CT.isDetailed(option.value); });
      }
      bins.value = String(s.bins);
    }
    var partBox = this.$("parts");
    if (partBox) partBox.hidden = m.partNames.length < 2;
    var groupBox = this.$("groups"), info = CT.datasetInfo(m.name);
    if (groupBox) {
      groupBox.hidden = !(info.groups && info.groups.length);
      this.renderGroups(info.groups || []);
    }
    var ownBox = this.$("own");
    if (ownBox) ownBox.checked = s.own;
    [["scheme", s.scheme], ["part", s.part], ["group", s.group]].forEach(function (pair) {
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
    var i = s.index, ui = CT.strings().ui, series = s.series, t = s.ownT != null ? s.ownT : CT.core.grid[i];
    // Both groups each at its own T: no one T applies, and the readout says so; one group at its own
    // T: the thumb shows that T (the reader's own index comes back when the box is cleared).
    var words = s.own && s.ownT == null, readout = this.$("t-readout"), slider = this.$("t");
    if (readout) { CT.setText(readout, words ? ui.own_readout : CT.temp(t)); readout.classList.toggle("words", words); }
    if (s.ownT != null) slider.value = nearestIndex(s.ownT);
    // The valuetext says what the widget shows: the ECE only where a card or the diagram prints it at this T.
    var text = words ? ui.own_readout : CT.fill(ui.slider_valuetext, { t: CT.temp(t) });
    var card = this.root.querySelector(s.scheme === "adaptive" ? '[data-metric="ece-a"]' : '[data-metric="ece-w"]');
    if (card || (s.diagram && s.diagram.mode !== "sub")) text = CT.fill(ui.slider_valuetext_ece, { at: text, ece: CT.pct(series.ece.value[i]) });
    CT.setAttrs(slider, { "aria-valuetext": text });
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
    var key = [m.name, s.part, s.group, s.own, s.scheme, s.bins, i].join("|");
    if (s.pins.some(function (p) { return p.key === key; })) return;
    var part = m.partNames.length > 1 ? ui["part_short_" + s.part] : ui.part_all;
    if (s.group !== "pooled") part += ", " + CT.fill(ui.group_one, { name: s.group });
    if (s.own) part += ", " + ui.own_t;
    s.pinSerial += 1;
    s.pins.push({
      key: key, index: i, number: s.pinSerial,
      label: CT.fill(ui.pin_config, { number: s.pinSerial, dataset: this.datasetLabel(m.name),
        part: part, scheme: ui["scheme_" + s.scheme], bins: CT.plural("bins", s.bins) }),
      values: { nll: s.series.nll.value[i], brier: s.series.brier.value[i], ece: s.series.ece.value[i],
        accuracy: s.partView.accuracy, t: this.appliedT() }
    });
    this.renderCompare();
  };

  /* Remove the pin whose key is `key` (null: every pin). Focus goes where the reader can go on: the
   * next pin's remove button, else the previous one's, else the button that pins. */
  Explorer.prototype.unpin = function (key) {
    var s = this.state, at = -1;
    for (var p = 0; p < s.pins.length; p++) if (s.pins[p].key === key) at = p;
    if (key === null) s.pins = [];
    else if (at >= 0) s.pins.splice(at, 1);
    else return;
    this.renderCompare();
    var next = key === null || !s.pins.length ? null : s.pins[Math.min(at, s.pins.length - 1)];
    var target = next && this.$("compare").querySelector('button[data-pin="' + CT.cssEscape(next.key) + '"]');
    (target || this.$("pin")).focus();
  };

  /* The T applied when it is off the slider: one group's own T, or each group's ("A 3.16, B 0.708"). */
  Explorer.prototype.appliedT = function () {
    var s = this.state;
    if (!s.own || s.ownT != null) return s.ownT;
    return s.groups.names.map(function (g) { return g + "\u00a0" + CT.temp(s.groups.temperatures[g]); }).join(", ");
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
      nll: s.series.nll, brier: s.series.brier, ece: s.series.ece, accuracy: s.partView.accuracy,
      base: s.base, currentT: this.appliedT(), own: s.own, fittedIndex: s.model.fittedIndex, index: s.index, pins: s.pins
    });
    var actions = this.root.querySelector(".compare-actions");
    if (actions) actions.hidden = s.pins.length < 2;
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
    if (s.group !== "pooled" || s.own) {
      // the analyses are of every row: a group view shows none of them
      s.sub = null;
      var why = CT.Uncertainty.setAside(s.own);
      if (v.uncertainty) { v.uncertainty.pending(); CT.setText(this.$("unc-at"), why); }
      if (v.reliability) { v.reliability.setBands(null); v.reliability.setSmooth(null); }
      var hereNote = this.$("sweep-at"), overlay = this.$("overlay-at");
      if (hereNote) CT.setText(hereNote, why);
      if (overlay) CT.setText(overlay, s.bands || s.smooth ? why : "");
      return;
    }
    var k = a.nearest(s.index);
    s.subIndex = a.subgrid[k];
    if (!force && k === s.sub) { this.renderMeasured(); return; }
    s.sub = k;
    var gi = a.subgrid[k], part = a.part(s.part);
    var where = { t: CT.temp(CT.core.grid[gi]), count: a.subgrid.length };
    var note = CT.fill(ui.unc_at_note, where);
    if (v.uncertainty) {
      v.uncertainty.draw({ at: CT.fill(ui.unc_at, where), k: k, part: part, scheme: s.scheme, bins: s.bins,
        nll: s.series.nll.value[gi] });
      this.renderMeasured();
    }
    var sweepHost = this.$("sweep");
    if (sweepHost) {
      if (!v.sweep) v.sweep = new CT.Sweep(sweepHost, this.$("sweep-b"), this.$("sweep-value"));
      var sw = part.sweep(s.scheme);
      v.sweep.draw({ ece: sw.ece[k], mid: sw.mid[k], hi: sw.hi[k] }, s.bins);
      CT.setText(this.$("sweep-at"), note);
    }
    if (v.reliability) {
      // Bands exist for the detailed bin counts, on the grid's own diagram: listed in the table, and drawn if asked.
      var band = s.diagram && s.diagram.mode === "grid" ? part.band(s.scheme, s.bins) : null;
      v.reliability.setBands(band, gi, k, s.bands);
      v.reliability.setBandNote(band && this.$("band-note"), CT.fill(ui.bin_table_band_note, where));
      var smooth = s.smooth ? part.smooth() : null;
      v.reliability.setSmooth(smooth && smooth.curve[k], smooth && smooth.density[k]);
      var overlayNote = this.$("overlay-at");
      if (s.bands && !band) note += " " + CT.fill(ui.bands_detailed_only, { counts: CT.core.detailed_bin_counts.join(", ") });
      if (overlayNote) CT.setText(overlayNote, s.bands || s.smooth ? note : "");
    }
  };

  /* The noise panel's first row: the ECE the cards show (the slider's T) and, when the panel's
   * temperature differs, the ECE at that nearest computed T, each with its T printed. */
  Explorer.prototype.renderMeasured = function () {
    var s = this.state, v = this.views;
    if (!v.uncertainty || s.sub == null || s.subIndex == null || !s.series) return;
    var grid = CT.core.grid, i = s.index, gi = s.subIndex;
    v.uncertainty.measure({ scheme: s.scheme, bins: s.bins, ece: s.series.ece.value[i], t: grid[i],
      nearEce: gi === i ? null : s.series.ece.value[gi], nearT: grid[gi] });
  };

  CT.Explorer = Explorer;
})(window.CalibTutorial);
