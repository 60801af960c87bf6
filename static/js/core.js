/* core.js — the CalibTutorial namespace: payload registry, decoding, formatting, loading.
 * Classic script (no modules) so the page works from file://. Every number shown on the
 * page is an integer the engine rounded; this file only decodes and formats them. */
(function (global) {
  "use strict";
  var CT = global.CalibTutorial = global.CalibTutorial || {};
  var pending = CT.pending || [];

  CT.core = null;            // grid, units (how many display units make one), dataset list
  CT.datasets = {};          // name -> decoded dataset
  CT.perf = CT.perf || [];   // per-input work durations (ms), read by bench/page.py

  /* Strings: the interface text table rendered by the build from strings.toml. */
  CT.strings = function () {
    if (!CT._strings) {
      var node = document.getElementById("ct-strings");
      CT._strings = node ? JSON.parse(node.textContent) : {};
    }
    return CT._strings;
  };
  /* Fill "{name}" placeholders of a template string. */
  CT.fill = function (template, values) {
    return String(template).replace(/\{(\w+)\}/g, function (_, key) {
      return key in values ? values[key] : "{" + key + "}";
    });
  };

  /* ---- decoding (the inverse of sitegen/render/payload.py; no metric is computed here) ---- */
  /* The one decoder of the packed code (sitegen.render.codec.pack: zigzag integers in 5-bit chunks,
   * chunk + 63, flag 32 on all but a number's last chunk; "!" + k for a run of k zeros): returns
   * the running sum of the integers, i.e. the delta-decoded series, as an Int32Array.
   * tests/data/codec_vectors.json holds the vectors it and the Python codec are tested on. */
  function unpackSum(text) {
    var out = [], value = 0, scale = 1, total = 0, run = false;
    for (var i = 0; i < text.length; i++) {
      var code = text.charCodeAt(i) - 63;
      if (code === -30) { run = true; continue; }   // "!": the next number is a run of zeros
      value += (code & 31) * scale;
      if (code < 32) {
        var number = value % 2 ? -(value + 1) / 2 : value / 2;
        if (run) { for (var r = 0; r < number; r++) out.push(total); }
        else { total += number; out.push(total); }
        value = 0; scale = 1; run = false;
      } else {
        scale *= 32;
      }
    }
    return Int32Array.from(out);
  }
  CT.unpackSum = unpackSum;
  /* A grid series {t1, d} (or {t1, dd}, the change delta-encoded twice), with the points `up` and `down`
   * (packed, delta-encoded) where the engine's change rounded is one more or one less than the difference
   * of the rounded values: value[i] = t1 + d[i] (the engine's value rounded), change[i] = d[i] + 1 at an
   * `up` point, − 1 at a `down` point (the engine's change against T = 1, rounded once). */
  CT.decodeSeries = function (series) {
    var change = unpackSum(series.d || series.dd), value = new Int32Array(change.length);
    for (var i = 1; series.dd && i < change.length; i++) change[i] += change[i - 1];
    for (i = 0; i < change.length; i++) value[i] = series.t1 + change[i];
    [["up", 1], ["down", -1]].forEach(function (fix) {
      var points = series[fix[0]] ? unpackSum(series[fix[0]]) : [];
      for (var j = 0; j < points.length; j++) change[points[j]] += fix[1];
    });
    return { value: value, change: change };
  };

  /* ---- formatting of engine integers ----
   * Every number is written with the page language's [format] settings (strings.toml, inlined as
   * JSON): decimal mark, digit groups, percent, interval and list patterns. Never Intl or toLocaleString. */
  var MINUS = "\u2212";
  function format() { return CT.strings().format; }
  /* units / 10^digits with exactly `digits` decimals, e.g. (82278, 5) -> "0.82278". A language whose
   * avoid_decimals equals `digits` (Spanish: 3, "1.058" reads as a thousand there) writes a number of 1 or
   * more without decimals when they are zeros ("1"), as the build's `fixed` filter does; otherwise with two,
   * since the payload has no fourth (no such value is shown today: only rates, at most 1, have three). */
  CT.fixed = function (units, digits, signed) {
    if (units === Infinity) return (signed ? "+" : "") + "\u221e";  // an infinite NLL (a label got probability 0)
    var scale = Math.pow(10, digits), a = Math.abs(units);
    var whole = Math.floor(a / scale);
    if (digits && digits === format().avoid_decimals && whole >= 1) {
      if (a % scale === 0) { digits = 0; } else { a = Math.floor(a / 10 + 0.5); digits -= 1; scale /= 10; }
      whole = Math.floor(a / scale);
    }
    var frac = String(a - whole * scale);
    while (frac.length < digits) frac = "0" + frac;
    var sign = units < 0 ? MINUS : (signed && units > 0 ? "+" : (signed ? "\u00b1" : ""));
    return sign + whole + (digits ? format().decimal + frac : "");
  };
  /* The decimals of a display unit: the core payload's units say how many of them make one, a power of
   * ten (score 100000: NLL and Brier in 1e-5; rate 1000: probabilities and rates in 1e-3). */
  function digits(kind) { return String(CT.core.units[kind]).length - 1; }
  CT.score = function (units, signed) { return CT.fixed(units, digits("score"), signed); };  // NLL, Brier
  CT.prob = function (units) { return CT.fixed(units, digits("rate")); };                   // probabilities
  CT.pct = function (units, signed) {                                  // rates as percentages (two digits fewer)
    return CT.fill(format().percent, { value: CT.fixed(units, digits("rate") - 2, signed) });
  };
  /* A count with its digits grouped from group_from digits on ("6,000"; Spanish "6000", "60 000"). */
  CT.count = function (n) {
    var f = format(), digits = String(Math.abs(n));
    if (digits.length >= f.group_from) {
      var head = digits.length % 3 || 3, parts = [digits.slice(0, head)];
      for (var i = head; i < digits.length; i += 3) parts.push(digits.slice(i, i + 3));
      digits = parts.join(f.group);
    }
    return (n < 0 ? MINUS : "") + digits;
  };
  /* A constant as the engine holds it (a logit): shortest decimal, the language's decimal mark; a trailing
   * zero where the language avoids its number of decimals on a number of 1 or more (the build's `num`). */
  CT.num = function (x) {
    var text = String(x), parts = text.replace("-", "").split(".");
    if (parts.length === 2 && text.indexOf("e") < 0 && parts[1].length === format().avoid_decimals && Number(parts[0]) >= 1) {
      text += "0";
    }
    return text.replace("-", MINUS).replace(".", format().decimal);
  };
  /* Numbers (already written) separated as the language separates a list: "3, 1, 0". */
  CT.list = function (items) { return items.join(format().list); };
  /* A bin [lo, hi) (closed with "]" when `closed`), lo and hi already written. */
  CT.interval = function (lo, hi, closed) {
    return CT.fill(format().interval, { lo: lo, hi: hi, close: closed ? "]" : ")" });
  };
  /* A difference of two rates (rate units) in percentage points, signed: "+1.2 pp" (the build's `pp` filter agrees). */
  CT.points = function (units) { return CT.fill(format().points, { value: CT.fixed(units, digits("rate") - 2, true) }); };
  /* A count with its noun, in the form the language uses for that count: ui.plural[noun] holds
   * {one, other} ("1 bin", "2 bins"); "one" is for exactly 1 in both languages of this page. */
  CT.plural = function (noun, n) {
    var forms = CT.strings().ui.plural[noun];
    return CT.fill(n === 1 ? forms.one : forms.other, { n: CT.count(n) });
  };
  /* The one rule for printing a temperature: three significant digits (the build's `temp` filter agrees). */
  CT.temp = function (t) { return t.toPrecision(3).replace(".", format().decimal); };
  /* A value made safe inside a CSS attribute selector's double quotes. */
  CT.cssEscape = function (value) { return window.CSS && CSS.escape ? CSS.escape(value) : String(value).replace(/["\\]/g, "\\$&"); };
  /* A dataset's short name in the page's language (its id in English). */
  CT.shortName = function (name) {
    var table = CT.strings().datasets || {};
    return table[name] ? table[name].short : name;
  };
  /* A dataset's one-line description in the page's language (empty if the strings have none). */
  CT.datasetSummary = function (name) {
    var table = CT.strings().datasets || {};
    return table[name] ? table[name].summary : "";
  };

  /* Write-if-changed helpers: a slider step rewrites only what actually changed, which keeps
   * style recalculation and layout small (the per-input budget is a few milliseconds). */
  CT.setText = function (node, value) {
    if (node._text !== value) { node._text = value; node.textContent = value; }
  };
  CT.setAttrs = function (node, attrs) {
    var memo = node._attrs || (node._attrs = {});
    for (var key in attrs) {
      if (memo[key] !== attrs[key]) { memo[key] = attrs[key]; node.setAttribute(key, attrs[key]); }
    }
  };

  /* ---- registry ---- */

  CT.analyses = {};          // name -> analysis payload (bootstrap, noise floor, sweeps, smooth ECE)
  CT.binsData = {};          // "<name>-<part>" -> diagrams of the bin counts beyond the offered ones (sub-grid)
  CT.groupsData = {};        // name -> per-group series and each group at its own fitted T
  CT.methodsData = {};       // name -> the other calibrators' test-row scores (the explorer's method choice)
  CT.markupData = {};        // "markup-<lang>" -> {widgets: id -> markup} of the deep dives' widgets (explorer.js)
  var stores = { dataset: CT.datasets, analysis: CT.analyses, bins: CT.binsData, groups: CT.groupsData, methods: CT.methodsData,
    markup: CT.markupData };
  var suffix = { dataset: ".js", analysis: "-analysis.js", bins: "-bins.js", groups: "-groups.js", methods: "-methods.js",
    markup: ".js" };
  CT.rejected = { dataset: {}, analysis: {}, bins: {}, groups: {}, methods: {}, markup: {} };
  /* A payload's key in its store (and in its file name, data/<key><suffix>). */
  function keyOf(kind, payload) { return kind === "bins" ? payload.name + "-" + payload.part : payload.name; }
  /* Where the site's root is, relative to this page ("" for index.html, "../" for es/index.html):
   * every edition shares one set of data files. */
  CT.root = document.documentElement.getAttribute("data-root") || "";
  CT.dataFile = function (kind, key) { return CT.root + "data/" + key + suffix[kind]; };

  function accept(kind) {
    return function (payload) {
      var key = keyOf(kind, payload);
      if (!CT.core || payload.schema_version !== CT.core.schema_version) {
        CT.rejected[kind][key] = payload.schema_version;
        return;
      }
      stores[kind][key] = payload;
    };
  }
  var handlers = {
    core: function (payload) { CT.core = payload; },
    dataset: accept("dataset"),
    analysis: accept("analysis"),
    bins: accept("bins"),
    groups: accept("groups"),
    methods: accept("methods"),
    markup: accept("markup")
  };
  CT.register = function (kind, payload) { handlers[kind](payload); };
  // Data scripts push [kind, payload] onto CT.pending; from now on, pushes register at once.
  CT.pending = { push: function (item) { CT.register(item[0], item[1]); } };
  pending.forEach(function (item) { CT.register(item[0], item[1]); });

  /* Load data/<key>.js (kind "dataset"), data/<key>-analysis.js, data/<name>-<part>-bins.js,
   * data/<key>-groups.js, data/<key>-methods.js or data/markup-<lang>.js with a classic <script> (fetch is refused from file://). Calls back with null,
   * "missing" or "version". */
  var loading = {};
  CT.load = function (kind, name, done) {
    var key = kind + ":" + name;
    if (stores[kind][name]) { done(null); return; }
    if (loading[key]) { loading[key].push(done); return; }
    loading[key] = [done];
    var script = document.createElement("script");
    var finish = function (error) {
      var waiting = loading[key] || [];
      delete loading[key];
      waiting.forEach(function (fn) { fn(error); });
    };
    script.src = CT.dataFile(kind, name);
    script.onload = function () {
      if (stores[kind][name]) finish(null);
      else finish(name in CT.rejected[kind] ? "version" : "missing");
    };
    script.onerror = function () { finish("missing"); };
    document.head.appendChild(script);
  };

  /* The widgets' code (widgets.js: the explorer and its panels) is not in app.js: the course page names it
   * (<html data-widgets>) and the first widget that starts loads it, so the first view parses only what it
   * shows. An embed page loads it with its own deferred <script> (it may still be on its way when app.js
   * starts the widget) and a one-file page inlines it. widgets.js ends by calling CT.codeLoaded (widgets-ready.js),
   * which runs what waited. Nothing is called if the script is missing (the widgets stay unbuilt, as without
   * JavaScript). */
  var codeWaiting = [], codeRequested = false;
  CT.withCode = function (done) {
    if (CT.Explorer) { done(); return; }
    codeWaiting.push(done);
    var src = document.documentElement.getAttribute("data-widgets");
    if (!src || codeRequested) return;
    codeRequested = true;
    var script = document.createElement("script");
    script.src = src;
    script.onerror = function () { codeWaiting = []; };
    document.head.appendChild(script);
  };
  CT.codeLoaded = function () {
    var waiting = codeWaiting;
    codeWaiting = [];
    waiting.forEach(function (fn) { fn(); });
  };
  /* The key (and data/ file name) of this edition's deferred widget markup (sitegen/render/deferred.py). */
  CT.markupKey = function () { return "markup-" + document.documentElement.lang; };
  /* Call done() once `root` can be built: its code loaded, then its deferred markup (explorer.js build). Nothing
   * is called if either script is missing (the widget stays unbuilt, as without JavaScript). */
  CT.withMarkup = function (root, done) {
    CT.withCode(function () {
      var deferred = root.querySelector(":scope > template[data-widget-markup][data-deferred]");
      if (!deferred) { done(); return; }
      CT.load("markup", CT.markupKey(), function (error) {
        if (!error && CT.markupData[CT.markupKey()].widgets[root.id] != null) done();
      });
    });
  };

  CT.datasetInfo = function (name) {
    var list = CT.core.datasets;
    for (var i = 0; i < list.length; i++) if (list[i].name === name) return list[i];
    return null;
  };
  /* The dataset a component shows unless told otherwise: the core payload's default_dataset, or,
   * in a payload that names none, the first dataset listed. */
  CT.defaultDataset = function () {
    var name = CT.core.default_dataset;
    return name && CT.datasetInfo(name) ? name : CT.core.datasets[0].name;
  };

  /* Position in `values` (positive, e.g. temperatures) nearest to t on a log scale; the first on ties. */
  CT.nearestIndex = function (values, t) {
    var best = 0, bestGap = Infinity, lt = Math.log(t);
    for (var i = 0; i < values.length; i++) {
      var gap = Math.abs(Math.log(values[i]) - lt);
      if (gap < bestGap) { bestGap = gap; best = i; }
    }
    return best;
  };
})(window);
