/* model.js — lazy, cached decoding of one dataset payload into typed arrays. */
(function (CT) {
  "use strict";
  var cache = {};

  function decodeBins(raw) {
    var out = { edges: raw.edges || null, size: raw.count.length };
    ["count", "confidence", "accuracy", "gap", "lower", "upper"].forEach(function (field) {
      if (raw[field]) out[field] = raw[field].map(CT.unpackSum);
    });
    return out;
  }

  function Part(raw) {
    this.raw = raw;
    this.n = raw.n;
    this.accuracy = raw.accuracy;
    this.nllArgmin = raw.nll_argmin;
    this.nll = CT.decodeSeries(raw.nll);
    this.brier = CT.decodeSeries(raw.brier);
    this.confidence = CT.decodeSeries(raw.confidence);
    this._memo = {};
  }
  Part.prototype._get = function (key, make) {
    if (!(key in this._memo)) this._memo[key] = make();
    return this._memo[key];
  };
  Part.prototype.ece = function (scheme, bins) {
    var raw = this.raw.ece[scheme][bins];
    return this._get("ece" + scheme + bins, function () { return CT.decodeSeries(raw); });
  };
  Part.prototype.mce = function (scheme, bins) {
    var raw = this.raw.mce[scheme][bins];
    return this._get("mce" + scheme + bins, function () { return CT.decodeSeries(raw); });
  };
  Part.prototype.bins = function (scheme, bins) {
    var table = this.raw.bins[scheme], raw = table[bins];
    if (raw.same_as) return this.bins(scheme, raw.same_as);
    return this._get("bins" + scheme + bins, function () { return decodeBins(raw); });
  };

  /* The decoded view of dataset `name` (already registered). */
  CT.model = function (name) {
    if (cache[name]) return cache[name];
    var payload = CT.datasets[name];
    var parts = {};
    Object.keys(payload.parts).forEach(function (key) { parts[key] = new Part(payload.parts[key]); });
    var ex = payload.examples;
    var model = {
      name: name,
      payload: payload,
      k: payload.k,
      fittedIndex: payload.fitted.index,
      fittedT: payload.fitted.t,
      fittedOn: payload.fitted.on,
      partNames: Object.keys(payload.parts).sort(),
      part: function (key) { return parts[key]; },
      examples: {
        index: ex.index, logits: ex.logits, label: ex.label, predicted: ex.predicted,
        probs: ex.probs.map(function (perClass) { return perClass.map(CT.unpackSum); })
      }
    };
    cache[name] = model;
    return model;
  };
})(window.CalibTutorial);
