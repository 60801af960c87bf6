/* explorer.js — the explorer's core: one self-contained component per <div data-component="explorer">.
 * It holds one state object (the reader's choices), loads what they need and hands both to the views
 * of its panels and controls. It knows no panel by name: every panel and control of
 * templates/panels/manifest.toml registers its view here from its own file,
 *
 *   CT.explorerView("<name>", function start(x) { ...; return view or null; })
 *
 * and each explorer calls start(x) once (x: the explorer; null means "this instance lacks it"), then
 * the view's methods, all optional:
 *   view.sync(state, x)        a new configuration: show the state in the controls (before the data)
 *   view.config(state, data)   a new configuration's data (data.serial changed): rebuild, before render
 *   view.render(state, data)   draw: on a new configuration, when the analyses arrive or a view option
 *                              changes, and on every slider step; returns the grid index it shows
 *                              (undefined: state.index; null: nothing yet), its watched node's data-index
 *   view.watch                 the node whose visibility counts: off screen, slider steps skip the view
 *                              and it catches up when it scrolls into view (it carries data-panel)
 *   view.saysEce(state, data)  true when it prints the ECE at the slider's T (the slider then says it)
 * A control writes the state and asks for what follows: x.loadDataset(name), x.redraw() (a new
 * configuration), x.render() (the same one redrawn), x.setIndex(i), x.writeHash().
 * explorer-data.js derives `data` (explorer.data) from the state. Ids are prefixed by the root's id, so
 * several instances can share a page. Only an instance with data-hash="on" uses the URL (hash.js). */
(function (CT) {
  "use strict";
  var registry = [];  // [[name, start]] in script order (the manifest's)

  CT.explorerView = function (name, start) { registry.push([name, start]); };

  /* A widget's interactive markup waits in a <template data-widget-markup> (templates/components/_explorer.html.j2),
   * so the page loads with few elements: an explorer builds it first, whoever starts it (main.js near the
   * viewport, hash.js for a #state/ link). Inside a deep dive the template is empty and marked data-deferred:
   * the markup is in data/markup-<lang>.js (sitegen/render/deferred.py), which CT.withMarkup (core.js) loads
   * before the explorer is made. */
  function build(root) {
    var markup = root.querySelector(":scope > template[data-widget-markup]");
    if (!markup) return;
    var content = markup.content;
    if (markup.hasAttribute("data-deferred")) {
      var filled = document.createElement("template");
      filled.innerHTML = CT.markupData[CT.markupKey()].widgets[root.id];  // the build's own markup, escaped there
      content = filled.content;
    }
    root.replaceChild(document.importNode(content, true), markup);
  }
  function Explorer(root) {
    build(root);
    var d = root.dataset;
    this.root = root;
    this.id = root.id;
    // The URL's #state/ is this explorer's when it is marked data-hash="on", or the hash names it.
    this.options = { hash: d.hash === "on" || CT.stateHash.isFor(root), analysis: !!root.querySelector("[data-needs-analysis]"),
      widget: d.hash === "on" ? "" : root.id };
    // The reader's choices (and `model`, the dataset loaded for them): hash.js reads and writes them.
    this.state = {
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
      pinSerial: 0,     // the number of the last pin made: a pin keeps its number after others are removed
      model: null
    };
    // this.analysis: the decoded analyses of the dataset shown, once loaded; this.data: what the views draw
    // Started by a first input (a reader's, a script's or assistive technology's), the controls may
    // already hold other values than the template's: the state starts from what they show.
    var slider = this.$("t"), index = Number(slider.value);
    if (index >= 0 && index < CT.core.grid.length) this.state.index = index;
    // every registered view this instance has (start returns null where it lacks the panel)
    var self = this, views = this.views = [];
    registry.forEach(function (entry) {
      var view = entry[1](self);
      if (!view) return;
      if (view.watch) view.watch.setAttribute("data-panel", entry[0]);
      views.push(view);
    });
    this.bindSlider();
    this.watchViews();
    this.preset = CT.stateHash.isFor(root);  // set up by the address, not its first view
    if (this.preset) CT.stateHash.read(this.state);
    this.loadDataset(this.state.dataset, true);
  }

  /* What an address's #state/ can set, as one string: the Embed box compares it with the first view's
   * (firstView, null when the address preset the explorer) to say when a measured height may not fit. */
  Explorer.prototype.view = function () {
    var s = this.state;
    return [s.dataset, s.index, s.scheme, s.bins, s.part, s.group, s.method, s.bands, s.smooth].join("|");
  };

  Explorer.prototype.$ = function (suffix) {
    return document.getElementById(this.id + "-" + suffix);
  };
  /* The radios `name` of this instance ("scheme", "part", …) write state[name]: the one checked now is
   * read, a change writes it and asks for a new configuration; returns sync(state), which checks the
   * one the state holds. */
  Explorer.prototype.radios = function (name) {
    var self = this, s = this.state, inputs = this.root.querySelectorAll('input[name="' + this.id + "-" + name + '"]');
    var each = function (fn) { Array.prototype.forEach.call(inputs, fn); };
    each(function (input) {
      if (input.checked) s[name] = input.value;
      input.addEventListener("change", function () {
        if (!input.checked) return;
        s[name] = input.value;
        self.redraw();
        self.writeHash();
      });
    });
    return function (state) { each(function (input) { input.checked = input.value === state[name]; }); };
  };
  Explorer.prototype.status = function (text) { this.$("status").textContent = text; };

  /* ---- the slider and its buttons, the one control every explorer has ---- */
  Explorer.prototype.bindSlider = function () {
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
    // the step buttons: one grid point each, a fine control where a finger's drag is coarse
    [["down", -1], ["up", 1]].forEach(function (pair) {
      self.$(pair[0]).addEventListener("click", function () {
        self.jumpTo(Math.max(0, Math.min(Number(slider.max), Number(slider.value) + pair[1])));
      });
    });
    this.$("reset").addEventListener("click", function () { self.jumpTo(CT.core.t1_index); });
    this.$("fit").addEventListener("click", function () {
      self.whenLoaded(function () { self.jumpTo(self.state.model.fittedIndex); });
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
    this.render(true);
    void this.root.offsetHeight; // force layout so the timing includes it
    CT.perf.push(performance.now() - start);
  };
  Explorer.prototype.writeHash = function () {
    var s = this.state, overlays = this.options.analysis, widget = this.options.widget;
    if (!this.options.hash) return;
    // a choice made while the data are on their way is written once they arrive (loadDataset)
    this.hashOwed = !s.model;
    if (this.hashOwed) return;
    CT.stateHash.write(function () { return CT.stateHash.format(s, overlays, widget); });
  };

  /* ---- loading: the state keeps the reader's choices while a data file is on its way ---- */
  Explorer.prototype.loadDataset = function (name, first) {
    var self = this, s = this.state, ui = CT.strings().ui;
    if (!CT.datasetInfo(name)) name = CT.defaultDataset();
    this.status(CT.datasets[name] ? "" : CT.fill(ui.loading, { name: CT.shortName(name) }));
    var binsAsked = s.bins;  // a bin count the reader picks while the file is on its way is kept
    // The last dataset asked for: a file that arrives (or fails) after a later choice says and draws nothing,
    // so the first dataset, still on its way when the reader picks another, cannot take the place back.
    this.wanted = name;
    CT.load("dataset", name, function (error) {
      if (self.wanted !== name) return;
      if (error) {
        self.status(CT.fill(error === "version" ? ui.error_version : ui.error_missing, { file: CT.dataFile("dataset", name) }));
        var select = self.$("dataset");
        if (select && s.model) select.value = s.model.name;
        return;
      }
      self.status("");
      var changed = !s.model || s.model.name !== name;
      s.dataset = name;
      s.model = CT.model(name);
      // pins keep their own configuration; a first load keeps the URL's group if the dataset has it
      // (a group it lacks falls back to pooled, and the URL says so)
      var dropped = first && !CT.hasGroup(name, s.group);
      if (changed && !(first && !dropped)) { s.group = "pooled"; s.own = false; }
      // a dataset the reader switches to (perhaps by the input that started the explorer) opens at the
      // bin count its prose quotes; the template's dataset and the URL's keep their own
      if (changed && (!first || (name !== self.root.dataset.dataset && !self.preset)) && s.bins === binsAsked) {
        s.bins = CT.datasetInfo(name).bins || s.bins;
      }
      var parts = s.model.partNames;
      if (parts.indexOf(s.part) < 0) s.part = parts.indexOf("test") >= 0 ? "test" : parts[0];
      if (s.example >= s.model.examples.index.length) s.example = 0;
      self.redraw();
      if (first && self.firstView === undefined) self.firstView = self.preset ? null : self.view();
      if (!first || dropped || self.hashOwed) self.writeHash();
      if (self.options.analysis) self.loadAnalysis(name);
      (self.waiting || []).splice(0).forEach(function (fn) { fn(); });
    });
  };

  /* Spreads, floors, bands, sweeps and smooth ECE live in a second, on-demand file per dataset. */
  Explorer.prototype.loadAnalysis = function (name) {
    var self = this, ui = CT.strings().ui;
    this.analysis = null;
    this.render();
    CT.load("analysis", name, function (error) {
      if (self.state.dataset !== name) return;
      if (error) {
        self.status(CT.fill(ui.error_analysis, { file: CT.dataFile("analysis", name) }));
        return;
      }
      self.analysis = CT.analysisModel(name);
      self.render();
    });
  };

  /* ---- views off screen (view.off) skip slider steps (view.stale) and catch up when they scroll into
   * view, so a step re-lays out only what the reader can see. A watched node's data-index is the grid
   * index it shows. ---- */
  Explorer.prototype.watchViews = function () {
    var self = this;
    if (!("IntersectionObserver" in window)) return;
    var observer = new IntersectionObserver(function (entries) {
      entries.forEach(function (entry) {
        self.views.forEach(function (v) {
          if (v.watch !== entry.target) return;
          v.off = !entry.isIntersecting;
          if (!v.off && v.stale) { v.stale = false; self.render(true, v); }
        });
      });
    }, { rootMargin: "150px 0px" });
    this.views.forEach(function (v) { if (v.watch) observer.observe(v.watch); });
    // The observer reports after a frame is painted: a view a jump (a link, a key, a fast scroll) brings into
    // view would show its old state for that frame. Scroll events come before the frame's paint: a stale view
    // near the viewport by then catches up at once.
    window.addEventListener("scroll", function () {
      var height = window.innerHeight;
      self.views.forEach(function (v) {
        if (!v.stale) return;
        var box = v.watch.getBoundingClientRect();
        if (box.bottom > -150 && box.top < height + 150 && box.height > 0) { v.stale = false; v.off = false; self.render(true, v); }
      });
    }, { passive: true });
  };

  /* ---- rendering ---- */
  /* A new configuration (dataset, part, scheme, bins, example, group, …): the controls show it, the
   * data are derived again, and every view redraws. */
  Explorer.prototype.redraw = function () {
    var s = this.state;
    if (!s.model) return;  // still loading: the state is kept and drawn once the data arrive
    var data = this.derive(), self = this;  // null while a groups file loads (drawn when it arrives)
    this.views.forEach(function (v) { if (v.sync) v.sync(s, self); });
    if (!data) return;
    this.data = data;
    this.$("fit").textContent = CT.fill(CT.strings().ui.button_fitted, { t: CT.temp(s.model.fittedT) });
    this.setPoint(data);
    this.$("t").value = s.index;
    this.render();
  };
  /* Every view (or `only` that one) with the state and data; on a slider step (`step`) those off screen
   * wait. Without arguments: the same configuration redrawn (the analyses arrived, an overlay changed). */
  Explorer.prototype.render = function (step, only) {
    var s = this.state, d = this.data;
    if (!d || d.model !== s.model) return;
    var a = this.analysis;
    d.analysis = a && a.raw.name === s.model.name ? a : null;
    // the analyses' sub-grid point: the computed temperature nearest to the slider's (pooled views only)
    d.sub = d.analysis && !d.aside ? d.analysis.nearest(s.index) : null;
    d.subIndex = d.sub == null ? null : d.analysis.subgrid[d.sub];
    (only ? [only] : this.views).forEach(function (v) {
      if (step && v.off && !only) { v.stale = true; return; }
      if (v.config && v.seen !== d.serial) { v.seen = d.serial; v.config(s, d); }
      var shown = v.render && v.render(s, d);
      if (v.watch && shown !== null) CT.setAttrs(v.watch, { "data-index": shown === undefined ? s.index : shown });
    });
    if (!only) this.renderSlider();
  };

  /* The readout and the slider's valuetext at the current state. */
  Explorer.prototype.renderSlider = function () {
    var s = this.state, d = this.data, ui = CT.strings().ui, i = s.index, t = d.ownT != null ? d.ownT : CT.core.grid[i];
    // Both groups each at its own T, or another calibrator: no one T applies, and the readout says so
    // (the calibrator's name); one group at its own T: the thumb shows that T (the reader's own index
    // comes back when the box is cleared).
    var words = d.method ? d.method.label : s.own && d.ownT == null ? ui.own_readout : "";
    var readout = this.$("t-readout"), slider = this.$("t");
    CT.setText(readout, words || CT.temp(t));
    readout.classList.toggle("words", !!words);
    if (d.ownIndex != null) slider.value = d.ownIndex;
    // The valuetext says what the widget shows: the ECE only where a view prints it at this T.
    var text = words || CT.fill(ui.slider_valuetext, { t: CT.temp(t) });
    var says = this.views.some(function (v) { return v.saysEce && v.saysEce(s, d); });
    if (says) text = CT.fill(ui.slider_valuetext_ece, { at: text, ece: CT.pct(d.series.ece.value[i]) });
    CT.setAttrs(slider, { "aria-valuetext": text });
  };

  /* Each group at its own fitted T, or another calibrator: the slider and its buttons are set aside, a
   * note says why. */
  Explorer.prototype.setPoint = function (data) {
    var s = this.state, ui = CT.strings().ui, self = this;
    data.pointNote = data.method ? data.method.diagram : "";
    if (data.atOwnT) {
      var temps = data.groups.names.filter(function (g) { return s.group === "pooled" || g === s.group; })
        .map(function (g) { return CT.fill(ui.own_temp, { name: g, t: CT.temp(data.groups.temperatures[g]) }); });
      data.pointNote = CT.fill(ui.own_note, { temps: temps.join("; ") });
    }
    ["t", "down", "up", "reset", "fit"].forEach(function (suffix) { self.$(suffix).disabled = !!data.point; });
  };

  CT.Explorer = Explorer;
})(window.CalibTutorial);
