/* analysis.js — lazy, cached decoding of data/<name>-analysis.js: spreads, noise floors, bands,
 * bin sweeps and smooth ECE, computed by calib.analysis on a coarse sub-grid of temperatures.
 * The views that draw them: the explorer's uncertainty panel, sweep.js, and the overlays of reliability.js. */
(function (CT) {
  "use strict";
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
    var temperatures = raw.subgrid.map(function (gi) { return CT.core.grid[gi]; });
    var model = {
      raw: raw,
      subgrid: raw.subgrid,
      /* Position in the sub-grid of the computed temperature nearest to grid index i (log scale). */
      nearest: function (i) { return CT.nearestIndex(temperatures, CT.core.grid[i]); },
      part: function (key) {
        if (parts[key]) return parts[key];
        var p = raw.parts[key], store = {};
        parts[key] = {
          n: p.n,
          /* Spreads, floors and bands exist for the offered bin counts only: null for the others. */
          spreadEce: function (s, b) {
            return p.bootstrap.ece[s][b] ? memo(store, "se" + s + b, function () { return pair(p.bootstrap.ece[s][b]); }) : null;
          },
          spreadNll: function () { return memo(store, "sn", function () { return pair(p.bootstrap.nll); }); },
          floorEce: function (s, b) {
            return p.floor.ece[s][b] ? memo(store, "fe" + s + b, function () { return pair(p.floor.ece[s][b]); }) : null;
          },
          band: function (s, b) {
            if (!p.floor.band[s][b]) return null;
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
})(window.CalibTutorial);
