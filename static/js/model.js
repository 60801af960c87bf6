/* model.js — lazy, cached decoding of one dataset payload into typed arrays, of the on-demand
 * diagrams of the other bin counts (data/<name>-<part>-bins.js) and of a dataset's groups
 * (data/<name>-groups.js). The metrics it decodes are the core payload's list (the metric registry,
 * sitegen/common/metrics.py). Decoding only: every value is one the engine rounded. */
(function (CT) {
  "use strict";
  var cache = {}, groupCache = {};

  /* `total`: the ECE shown at the same points (Int32Array), `n` the rows binned; both fill the bin `rest`
   * left out of count and gap (n and the ECE minus the other bins'). Flagged adaptive fields are sent
   * above another: lower_above (above the previous bin's upper), confidence_above (above the bin's lower). */
  function decodeBins(raw, n, total) {
    var out = { edges: raw.edges || null, size: raw.count.length };
    ["count", "confidence", "accuracy", "gap", "lower", "upper"].forEach(function (field) {
      if (raw[field]) out[field] = raw[field].map(CT.unpackSum);
    });
    if (raw.rest != null) {
      var r = raw.rest, count = out.count[r] = new Int32Array(total.length), gap = out.gap[r] = Int32Array.from(total);
      count.fill(n);
      for (var b = 0; b < out.size; b++) {
        for (var i = 0; b !== r && i < total.length; i++) { count[i] -= out.count[b][i]; gap[i] -= out.gap[b][i]; }
      }
    }
    for (var k = 0; out.lower && k < out.size; k++) {
      for (var j = 0; j < out.lower[k].length; j++) {
        if (raw.lower_above && k) out.lower[k][j] += out.upper[k - 1][j];
        if (raw.confidence_above) out.confidence[k][j] += out.lower[k][j];
      }
    }
    return out;
  }
  /* Bin count `bins` of a field-by-field block {counts, same_as, rest, edges?, count, confidence, …}. */
  function decodeBlock(block, bins, n, total) {
    var b = block.same_as[bins] || bins, j = block.counts.indexOf(Number(b));
    if (j < 0) return null;
    var raw = {};
    ["count", "confidence", "accuracy", "gap", "lower", "upper", "rest", "lower_above",
      "confidence_above", "edges"].forEach(function (field) {
      if (block[field]) raw[field] = block[field][j];
    });
    return decodeBins(raw, n, total);
  }
  /* True for the offered bin counts (core payload offered_bin_counts): every view on the full grid. */
  CT.isOffered = function (bins) { return CT.core.offered_bin_counts.indexOf(Number(bins)) >= 0; };

  /* The core payload's record of metric `key` (the metric registry, sitegen/common/metrics.py). */
  CT.metricInfo = function (key) {
    var list = CT.core.metrics;
    for (var i = 0; i < list.length; i++) if (list[i].key === key) return list[i];
    return null;
  };

  /* One row set over the grid. `raw` is a dataset part (or a group's); `detailKey` names the bins
   * payload of the other bin counts ("<name>-<part>"), or null for a group (its diagrams are in raw.sub_bins). */
  function Part(raw, detailKey, subgrid) {
    this.raw = raw;
    this.detailKey = detailKey;
    this.subgridIndices = subgrid;
    this.n = raw.n;
    this.nllArgmin = raw.nll_argmin;
    this._memo = {};
  }
  Part.prototype._get = function (key, make) {
    if (!(key in this._memo)) this._memo[key] = make();
    return this._memo[key];
  };
  /* Entry B of a list by bin count (item B − 1), following a {same_as: B'} reference. */
  function lookup(table, bins) {
    var raw = table && table[bins - 1];
    if (raw && raw.same_as) raw = table[raw.same_as - 1];
    return raw || null;
  }
  /* Registered metric `key` of this row set: a series (decoded {value, change} over the grid), a constant
   * (an integer), or a binned metric's series at `scheme` and `bins` (null where this row set has none:
   * a bin count the dataset file does not send is looked up in the bins file, once it is loaded). */
  Part.prototype.metric = function (key, scheme, bins) {
    var kind = CT.metricInfo(key).kind, raw = this.raw[key];
    if (kind === "constant") return raw;
    if (kind === "binned") {
      raw = lookup(raw[scheme], bins);
      var detail = this.detailKey && CT.binsData[this.detailKey];
      if (!raw && detail && detail[key]) raw = lookup(detail[key][scheme], bins);
      if (!raw) return null;
    }
    return this._get(key + (kind === "binned" ? scheme + bins : ""), function () { return CT.decodeSeries(raw); });
  };
  /* The ECE series (null if this row set has none for that bin count). */
  Part.prototype.ece = function (scheme, bins) { return this.metric("ece", scheme, bins); };
  /* True when the on-demand diagrams (and MCE) of the other bin counts are registered. */
  Part.prototype.hasDetail = function () {
    return !this.detailKey || !!CT.binsData[this.detailKey];
  };
  /* Full-grid bins (the offered counts of a dataset part), or null. */
  Part.prototype.bins = function (scheme, bins) {
    var table = this.raw.bins && this.raw.bins[scheme], raw = table && table[bins];
    if (!raw) return null;
    if (raw.same_as) return this.bins(scheme, raw.same_as);
    var n = this.n, total = this.ece(scheme, bins).value;
    return this._get("bins" + scheme + bins, function () { return decodeBins(raw, n, total); });
  };
  /* Bins on the sub-grid: {bins (decoded, one value per sub-grid point), subgrid (grid indices)}, or null. */
  Part.prototype.subBins = function (scheme, bins) {
    var source = this.raw.sub_bins ? { bins: this.raw.sub_bins, subgrid: this.subgridIndices }
      : (this.detailKey && CT.binsData[this.detailKey]);
    if (!source) return null;
    var n = this.n, ece = this.ece(scheme, bins).value;
    var total = Int32Array.from(source.subgrid, function (g) { return ece[g]; });
    var decoded = this._get("sub" + scheme + bins, function () { return decodeBlock(source.bins[scheme], bins, n, total); });
    return decoded ? { bins: decoded, subgrid: source.subgrid } : null;
  };

  /* The decoded view of dataset `name` (already registered). */
  CT.model = function (name) {
    if (cache[name]) return cache[name];
    var payload = CT.datasets[name];
    var parts = {};
    Object.keys(payload.parts).forEach(function (key) { parts[key] = new Part(payload.parts[key], name + "-" + key, null); });
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

  /* One row set scored at one point (a group at its own T, a calibrator's test rows): {n, value(key,
   * scheme, bins) (registered metric `key`, an integer; a binned one's at `scheme` and `bins`; Infinity for
   * a null NLL), fix(key, scheme, bins) (what to add to the difference of the rounded values against the
   * row set at T = 1, or uncalibrated, to get the engine's change rounded once: −1, 0 or 1), bins(scheme, B)
   * (one point, decoded once)}. */
  CT.pointScores = function (raw) {
    var memo = {};
    return {
      n: raw.n,
      value: function (key, scheme, bins) {
        var v = CT.metricInfo(key).kind === "binned" ? raw[key][scheme][bins] : raw[key];
        return v == null ? Infinity : v;
      },
      fix: function (key, scheme, bins) {
        var f = raw.fix && raw.fix[key];
        if (f && CT.metricInfo(key).kind === "binned") f = f[scheme] && f[scheme][bins];
        return f || 0;
      },
      bins: function (scheme, bins) {
        var k = scheme + bins;
        if (!(k in memo)) memo[k] = raw.bins[scheme][bins] ? decodeBins(raw.bins[scheme][bins]) : null;
        return memo[k];
      }
    };
  };

  /* The decoded groups of dataset `name` (already registered): part(key, group) is a Part over the grid;
   * atOwnT(key, who) the row set (a group or "pooled") with each row at its own group's fitted T (pointScores). */
  CT.groupModel = function (name) {
    if (groupCache[name]) return groupCache[name];
    var payload = CT.groupsData[name], parts = {}, own = {};
    var model = {
      names: payload.groups,
      temperatures: payload.temperatures,
      part: function (key, group) {
        var id = key + ":" + group;
        if (!parts[id]) parts[id] = new Part(payload.parts[key][group], null, payload.subgrid);
        return parts[id];
      },
      atOwnT: function (key, who) {
        var id = key + ":" + who;
        return own[id] || (own[id] = CT.pointScores(payload.own[key][who]));
      }
    };
    groupCache[name] = model;
    return model;
  };
})(window.CalibTutorial);
