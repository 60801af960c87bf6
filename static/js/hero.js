/* hero.js — the hero (templates/components/hero.html.j2, laid out by sitegen/render/hero.py): the six
 * predictions crossing the bin edges as T moves, NLL and ECE beside them. The page ships the figure at the
 * fitted T; this script only looks up the engine's numbers for another temperature (CT.core.hero: each
 * example's confidence, each bin's count, right answers and mean confidence, the mean NLL and the ECE over
 * the grid's temperatures from data-start to data-stop) and moves the marks, with the scales the figure
 * states in its data-scale-* attributes. Its state is one grid index: the slider, the step buttons, a drag
 * along the curves, and links of the form #<place>/state/…&widget=<its id>&t=<T> (hash.js) set it. The page
 * has two: the hero (#hero) and the paradox's figure (#pdx), a copy of the hero's markup made here. */
(function (CT) {
  "use strict";
  var PLAY_MS = 1600;  // a play from T = 1 to the fitted T

  function scale(svg, name, logarithmic) {
    var v = svg.getAttribute("data-scale-" + name).split(" ").map(Number);
    return (logarithmic ? CT.svg.log : CT.svg.linear)(v[0], v[1], v[2], v[3]);
  }
  function all(root, selector) { return Array.prototype.slice.call(root.querySelectorAll(selector)); }

  function Hero(root) {
    var data = CT.core.hero, strip = root.querySelector(".hero-strip"), curves = root.querySelector(".hero-curves");
    this.root = root;
    this.id = root.id;
    this.start = data.start;
    this.stop = data.stop;
    this.t1 = CT.core.t1_index;
    this.fitted = data.fitted_index;
    this.series = {
      conf: data.conf.map(CT.unpackSum), nll: CT.unpackSum(data.nll), ece: CT.unpackSum(data.ece),
      count: data.count.map(CT.unpackSum), hits: data.hits.map(CT.unpackSum), binConf: data.bin_conf.map(CT.unpackSum)
    };
    this.x = scale(strip, "conf");
    this.xT = scale(curves, "t", true);
    this.yNll = scale(curves, "nll");
    this.yEce = scale(curves, "ece");
    this.tRange = curves.getAttribute("data-scale-t").split(" ").map(Number);
    this.nodes = {
      points: all(strip, ".hero-point"), trails: all(strip, ".hero-trail"), gaps: all(strip, ".hero-gap"),
      labels: all(strip, ".hero-bin-label"),
      now: curves.querySelector(".hero-now"), nllDot: curves.querySelector(".hero-dot.nll"),
      eceDot: curves.querySelector(".hero-dot.ece"), slider: root.querySelector('input[type="range"]'),
      readout: root.querySelector(".hero-readout"),
      scores: { nll: root.querySelector('[data-score="nll"]'), ece: root.querySelector('[data-score="ece"]') }
    };
    this.text = { change: root.getAttribute("data-change"), better: root.getAttribute("data-better"),
      worse: root.getAttribute("data-worse"), valuetext: root.getAttribute("data-valuetext"),
      binLabel: root.getAttribute("data-bin-label") };
    this.index = Number(this.nodes.slider.value);
    this.bind(curves);
    CT.steps[this.id] = this.showState.bind(this);
    var fields = CT.stateHash.parse(window.location.hash).fields;
    if (fields && fields.widget === this.id) {
      this.showState(fields);
      if (!CT.stateHash.go(CT.stateHash.place())) CT.stateHash.go(this.id);
    } else this.render();
  }

  Hero.prototype.bind = function (curves) {
    var self = this, slider = this.nodes.slider;
    slider.addEventListener("input", function () { self.stopPlay(); self.set(Number(slider.value)); });
    all(this.root, "[data-step]").forEach(function (button) {
      button.addEventListener("click", function () { self.stopPlay(); self.set(Number(button.getAttribute("data-step"))); });
    });
    var play = this.root.querySelector("[data-play]");
    if (play) play.addEventListener("click", function () { self.play(); });
    // Dragging along the curves sets T where the pointer is (the slider stays the keyboard's way in).
    var dragging = false;
    function at(event) {
      var box = curves.getBoundingClientRect(), view = curves.viewBox.baseVal;
      var x = view.x + (event.clientX - box.left) / box.width * view.width;
      var v = self.tRange, t = Math.exp(Math.log(v[0]) + (x - v[2]) / (v[3] - v[2]) * (Math.log(v[1]) - Math.log(v[0])));
      self.stopPlay();
      self.set(CT.nearestIndex(CT.core.grid, t));
    }
    curves.addEventListener("pointerdown", function (event) {
      dragging = true;
      if (curves.setPointerCapture) curves.setPointerCapture(event.pointerId);
      at(event);
    });
    curves.addEventListener("pointermove", function (event) { if (dragging) at(event); });
    ["pointerup", "pointercancel"].forEach(function (type) {
      curves.addEventListener(type, function () { dragging = false; });
    });
  };

  /* A state from a link's fields (hash.js): its temperature, the nearest one the hero offers. */
  Hero.prototype.showState = function (fields) {
    var t = Number(fields.t);
    this.stopPlay();
    this.set(t > 0 && isFinite(t) ? CT.nearestIndex(CT.core.grid, t) : this.fitted);
  };

  Hero.prototype.set = function (index) {
    this.index = Math.max(this.start, Math.min(this.stop - 1, index));
    this.render();
  };

  Hero.prototype.play = function () {
    var self = this, from = this.t1, to = this.fitted, began = null;
    this.stopPlay();
    if (window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches) { this.set(to); return; }
    this.set(from);
    function frame(now) {
      if (began === null) began = now;
      var share = Math.min(1, (now - began) / PLAY_MS);
      self.set(Math.round(from + (to - from) * share));
      self.timer = share < 1 ? requestAnimationFrame(frame) : null;
    }
    this.timer = requestAnimationFrame(frame);
  };
  Hero.prototype.stopPlay = function () {
    if (this.timer) cancelAnimationFrame(this.timer);
    this.timer = null;
  };

  Hero.prototype.render = function () {
    var s = this.series, n = this.nodes, i = this.index - this.start, units = CT.core.units, x = this.x;
    var t = CT.core.grid[this.index], rate = units.rate, score = units.score;
    n.points.forEach(function (node, k) {
      var px = x(s.conf[k][i] / rate).toFixed(1);
      if (node.tagName.toLowerCase() === "circle") CT.setAttrs(node, { cx: px });
      else CT.setAttrs(node, { transform: "translate(" + px + " " + node.getAttribute("data-y") + ")" });
      CT.setAttrs(n.trails[k], { x2: px });
    });
    // one row of gaps per bin that holds an example somewhere in the window (data-bin: the bin's number)
    n.gaps.forEach(function (node) {
      var b = Number(node.getAttribute("data-bin")), count = s.count[b][i];
      if (!count) { CT.setAttrs(node, { visibility: "hidden" }); return; }
      var acc = s.hits[b][i] / count, conf = s.binConf[b][i] / rate;
      CT.setAttrs(node, { visibility: "visible", x1: x(acc).toFixed(1), x2: x(conf).toFixed(1),
        "stroke-width": String(3 + 1.5 * count), "class": "hero-gap" + (conf > acc ? " over" : "") });
    });
    var label = this.text.binLabel;
    n.labels.forEach(function (node) {
      var b = Number(node.getAttribute("data-bin")), count = s.count[b][i];
      CT.setText(node, count ? CT.fill(label, { hits: s.hits[b][i], count: count }) : "");
    });
    var tx = this.xT(t).toFixed(1);
    CT.setAttrs(n.now, { x1: tx, x2: tx });
    CT.setAttrs(n.nllDot, { cx: tx, cy: this.yNll(s.nll[i] / score).toFixed(1) });
    CT.setAttrs(n.eceDot, { cx: tx, cy: this.yEce(s.ece[i] / rate).toFixed(1) });
    var base = this.t1 - this.start;
    this.score(n.scores.nll, CT.score(s.nll[i]), s.nll[i] - s.nll[base], CT.score(s.nll[base]));
    this.score(n.scores.ece, CT.pct(s.ece[i]), s.ece[i] - s.ece[base], CT.pct(s.ece[base]));
    n.slider.value = String(this.index);
    CT.setText(n.readout, CT.temp(t));
    CT.setAttrs(n.slider, { "aria-valuetext": CT.fill(this.text.valuetext,
      { t: CT.temp(t), nll: CT.score(s.nll[i]), ece: CT.pct(s.ece[i]) }) });
  };

  /* One score's value and what it was at T = 1 (a lower score is better; no verdict at T = 1 itself). */
  Hero.prototype.score = function (node, value, change, before) {
    var verdict = change < 0 ? "better" : (change > 0 ? "worse" : "");
    CT.setText(node.querySelector(".hero-value"), value);
    CT.setText(node.querySelector(".hero-change"), verdict ? CT.fill(this.text.change,
      { from: before, verdict: this.text[verdict] }) : "");
    CT.setAttrs(node, { "class": "hero-score" + (verdict ? " " + verdict : "") });
  };

  CT.steps = CT.steps || {};
  /* A copy of the figure `slot` names (data-copy-of: the hero) in its place, with the slot's id (and ids inside
   * prefixed with it), its caption, and the figure's opening state: one figure's markup serves two places. */
  function copyInto(slot) {
    var source = document.getElementById(slot.getAttribute("data-copy-of"));
    if (!source) return;
    var copy = source.cloneNode(true), from = source.id + "-", to = slot.id;
    copy.id = to;
    all(copy, "[id], [for], [aria-labelledby]").forEach(function (node) {
      ["id", "for", "aria-labelledby"].forEach(function (name) {
        var value = node.getAttribute(name);
        if (value && value.indexOf(from) === 0) node.setAttribute(name, to + "-" + value.slice(from.length));
      });
    });
    copy.querySelector("figcaption").textContent = slot.getAttribute("data-caption");
    copy.querySelector('input[type="range"]').value = copy.getAttribute("data-fitted");
    slot.parentNode.replaceChild(copy, slot);
  }

  /* The copy `slot` asks for, built now (once) and started; returns it. */
  function build(slot) {
    if (!slot.parentNode) return document.getElementById(slot.id);
    copyInto(slot);
    var root = document.getElementById(slot.id);
    if (!root.hero) root.hero = new Hero(root);
    return root;
  }

  /* Start the page's bins figures (main.js calls this after the first paint, before the reader can have moved
   * the hero): the hero at once; a copy of it (the paradox's) when it comes near the viewport, on a first
   * event inside it, or when a link asks for its state. Until then its slot keeps the hero's height. */
  CT.startHero = function () {
    if (!CT.core || !CT.core.hero) return;
    var slots = all(document, "[data-copy-of]");
    all(document, '[data-component="bins-figure"]').forEach(function (root) {
      if (!root.hero) root.hero = new Hero(root);
    });
    slots.forEach(function (slot) {
      var source = document.getElementById(slot.getAttribute("data-copy-of"));
      if (source) slot.style.minHeight = source.offsetHeight + "px";
      CT.steps[slot.id] = function (fields) { build(slot).hero.showState(fields); };
      slot.addEventListener("focusin", function () { build(slot); });
    });
    var fields = CT.stateHash.parse(window.location.hash).fields;
    slots.forEach(function (slot) {
      if (fields && fields.widget === slot.id) {
        build(slot);
        if (!CT.stateHash.go(CT.stateHash.place())) CT.stateHash.go(slot.id);
      }
    });
    if (!("IntersectionObserver" in window)) { slots.forEach(build); return; }
    var observer = new IntersectionObserver(function (entries) {
      entries.forEach(function (entry) {
        if (entry.isIntersecting) { observer.unobserve(entry.target); build(entry.target); }
      });
    }, { rootMargin: "800px 0px" });
    slots.forEach(function (slot) { if (slot.parentNode) observer.observe(slot); });
  };
})(window.CalibTutorial);
