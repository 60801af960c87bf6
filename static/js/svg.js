/* svg.js — tiny SVG helpers and scales. A render creates nodes once and later only updates attributes. */
(function (CT) {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";

  function set(node, attrs) {
    for (var key in attrs) if (Object.prototype.hasOwnProperty.call(attrs, key)) node.setAttribute(key, attrs[key]);
    return node;
  }
  function el(tag, attrs, parent) {
    var node = set(document.createElementNS(NS, tag), attrs || {});
    if (parent) parent.appendChild(node);
    return node;
  }
  function text(tag, attrs, content, parent) {
    var node = el(tag, attrs, parent);
    node.textContent = content;
    return node;
  }
  /* A linear map from [d0, d1] to [r0, r1]. */
  function linear(d0, d1, r0, r1) {
    var span = d1 - d0 || 1;
    return function (v) { return r0 + (v - d0) / span * (r1 - r0); };
  }
  /* A logarithmic map from [d0, d1] (positive) to [r0, r1]. */
  function log(d0, d1, r0, r1) {
    var l0 = Math.log(d0), span = Math.log(d1) - l0 || 1;
    return function (v) { return r0 + (Math.log(v) - l0) / span * (r1 - r0); };
  }
  /* One "M x y L x y ..." path through points (x[i], y[i]), rounded to 0.1 px. */
  function polyline(xs, ys) {
    var parts = [];
    for (var i = 0; i < xs.length; i++) parts.push((i ? "L" : "M") + xs[i].toFixed(1) + " " + ys[i].toFixed(1));
    return parts.join("");
  }
  /* A chart: an <svg class="chart …"> drawn in a W × H viewBox, scaled to the width it gets. Its text keeps
   * the chart sizes of sitegen/common/style_tokens.toml in CSS pixels whatever that width: --k, the viewBox units per
   * CSS pixel, multiplies them in explorer.css (one observer for every chart; a chart not yet laid out keeps 1). */
  var sized = "ResizeObserver" in window ? new ResizeObserver(function (entries) {
    entries.forEach(function (entry) {
      var svg = entry.target, width = entry.contentRect.width;
      if (width > 0) svg.style.setProperty("--k", (svg.viewBox.baseVal.width / width).toFixed(3));
    });
  }) : null;
  function chart(parent, W, H, cls) {
    var svg = el("svg", { viewBox: "0 0 " + W + " " + H, class: "chart " + cls, role: "img" }, parent);
    if (sized) sized.observe(svg);
    return svg;
  }
  /* A number of sitegen/common/style_tokens.toml from the stylesheet's custom properties: token("mark-fitted-r") is
   * the fitted T's ring radius (CSS px, a chart's viewBox unit at its own size). */
  function token(name) { return parseFloat(getComputedStyle(document.documentElement).getPropertyValue("--" + name)); }
  CT.svg = { NS: NS, el: el, set: set, text: text, linear: linear, log: log, polyline: polyline, chart: chart, token: token };
})(window.CalibTutorial);
