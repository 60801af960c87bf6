/* explorer-data.js — what an explorer's views draw, derived from its state: the row set shown (a
 * dataset part, or one group's rows of it), its series over the grid, and the group view's own fitted
 * temperatures. Loads the groups and bins files a configuration needs. Decoding and lookup only:
 * every value is one the engine rounded.
 *
 * data (explorer.data, the second argument of every view's render):
 *   serial      changes with every new configuration (a view rebuilds what depends on it then)
 *   model       the decoded dataset (model.js)
 *   part        the row set shown: a Part (model.js) of the dataset or of one group
 *   series      every registered metric (the core payload's metrics) over the grid, by key (a binned one
 *               at state.scheme and state.bins), and by card name for a card that fixes a scheme
 *               ("ece-w", "ece-a"): decoded series; with a point shown instead of the slider's T,
 *               constant series at the point's values
 *   base        the row set's series under the slider's T (the T = 1 and fitted rows read these)
 *   point       the one point shown instead of the slider's T: atOwnT or calibrator, else null
 *   atOwnT      the row set with each group at its own fitted T (state.own; groupModel atOwnT), or null
 *   calibrator  another calibrator's test rows (state.method, method.js: pointScores), or null
 *   method      the calibrator shown other than temperature scaling (method.js), or null
 *   ownT        the T applied when one group is shown at its own fitted T (null: the slider's)
 *   ownIndex    the grid index nearest to ownT (the curves' marker and the thumb show it), or null
 *   groups      the decoded groups of the dataset (when a group view is shown)
 *   pointNote   the words under the diagram for the point shown (explorer.js setPoint), or ""
 *   aside       why the pooled analyses are set aside (a group view), or null
 *   analysis    the decoded analyses of the dataset, or null until they arrive (analysis.js)
 *   sub, subIndex  the analyses' sub-grid position nearest to the slider, and its grid index (or null)
 */
(function (CT) {
  "use strict";
  var serial = 0;

  /* True when `group` is "pooled" or one of dataset `name`'s groups. */
  CT.hasGroup = function (name, group) {
    var info = CT.datasetInfo(name);
    return group === "pooled" || !!(info && info.groups && info.groups.indexOf(group) >= 0);
  };

  /* A series that does not follow the slider: `value` everywhere (Infinity: an infinite NLL), its change
   * against `t1` (T = 1), the engine's rounded once: the difference plus `fix` (pointScores fix). */
  function constant(value, t1, fix) {
    var size = CT.core.grid.length, v = new Float64Array(size), c = new Float64Array(size);
    v.fill(value); c.fill(value - t1 + fix);
    return { value: v, change: c };
  }

  /* The data a group view needs: its groups file; a pooled view of a bin count beyond the offered
   * ones: its part's bins file; another calibrator: the methods file. Loads it and redraws when it
   * arrives; false while it is on its way. */
  CT.Explorer.prototype.needs = function (kind, key, errorText) {
    var self = this, s = this.state;
    if ({ groups: CT.groupsData, bins: CT.binsData, methods: CT.methodsData }[kind][key]) return true;
    CT.load(kind, key, function (error) {
      if (!s.model) return;
      if (error) {
        self.status(CT.fill(errorText, { file: CT.dataFile(kind, key) }));
        if (kind === "groups") { s.group = "pooled"; s.own = false; }
        if (kind === "methods") s.method = "temperature";
      }
      self.redraw();
    });
    return false;
  };

  /* The row set shown: a dataset part, or one group's rows of it (null while the groups load). */
  CT.Explorer.prototype.viewPart = function () {
    var s = this.state, m = s.model, ui = CT.strings().ui;
    var info = CT.datasetInfo(m.name), grouped = info.groups && info.groups.length;
    this.groups = null;
    if (!grouped) { s.group = "pooled"; s.own = false; }
    else if (!CT.hasGroup(m.name, s.group)) s.group = "pooled";
    // The snapped-count note stays while a group view shows the count it snapped to; a redraw for
    // anything else (a late bins file, say) must not wipe it.
    var grouping = !(s.group === "pooled" && !s.own), other = s.method && s.method !== "temperature";
    if (this.groupNote && !((grouping || other) && s.bins === this.groupNote)) {
      this.groupNote = null; this.status("");
    }
    if (!grouping) return m.part(s.part);
    if (!this.needs("groups", m.name, ui.error_groups)) return null;
    this.snapBins(ui.group_bins_note);
    this.groups = CT.groupModel(m.name);
    return s.group === "pooled" ? m.part(s.part) : this.groups.part(s.part, s.group);
  };

  /* Views computed for the offered bin counts only (groups, other calibrators): the nearest one, and a
   * note in `template` that says so. */
  CT.Explorer.prototype.snapBins = function (template) {
    var s = this.state, counts = CT.core.offered_bin_counts, best = counts[0];
    if (CT.isOffered(s.bins)) return;
    counts.forEach(function (b) { if (Math.abs(b - s.bins) < Math.abs(best - s.bins)) best = b; });
    this.status(CT.fill(template, { counts: counts.join(", "), bins: CT.plural("bins", best) }));
    this.groupNote = best;
    s.bins = best;
  };

  /* The data of the current configuration, or null while a groups or methods file loads. */
  CT.Explorer.prototype.derive = function () {
    var s = this.state, m = s.model, ui = CT.strings().ui;
    var part = this.viewPart(), method = part && this.method ? this.method() : null;  // method.js
    if (!part || method === false) return null;
    if (!CT.isOffered(s.bins) && !part.hasDetail()) this.needs("bins", m.name + "-" + s.part, ui.error_bins);  // the other bin counts' MCE and diagrams
    // Every registered metric over the grid (the core payload's list): a binned one at the chosen scheme, and
    // again under a card's name for each card that fixes a scheme ("ece-w", "ece-a").
    var entries = [], series = {}, shown = {}, t1 = CT.core.t1_index;
    CT.core.metrics.forEach(function (metric) {
      if (metric.kind === "constant") return;
      entries.push([metric.key, metric.key, s.scheme]);
      metric.cards.forEach(function (card) { if (card.scheme) entries.push([card.name, metric.key, card.scheme]); });
    });
    entries.forEach(function (e) { series[e[0]] = part.metric(e[1], e[2], s.bins); });
    var groups = this.groups, atOwnT = s.own && !method ? groups.atOwnT(s.part, s.group) : null;
    var point = method ? method.scores : atOwnT;  // the one point shown instead of the slider's T
    if (point) {  // constant series at the point's values
      entries.forEach(function (e) {
        shown[e[0]] = constant(point.value(e[1], e[2], s.bins), series[e[0]].value[t1], point.fix(e[1], e[2], s.bins));
      });
    } else shown = series;
    var ownT = atOwnT && s.group !== "pooled" ? groups.temperatures[s.group] : null;
    return {
      serial: ++serial, model: m, part: part, series: shown, base: series,
      point: point, atOwnT: atOwnT, calibrator: method ? method.scores : null,
      ownT: ownT, ownIndex: ownT != null ? CT.nearestIndex(CT.core.grid, ownT) : null, groups: groups,
      method: method,
      // the analyses are of every row at one T: a group view or another calibrator shows none of them
      aside: method ? ui.method_aside : s.own ? CT.fill(ui.unc_own_only, { own: ui.own_t })
        : s.group !== "pooled" ? ui.unc_pooled_only : null
    };
  };
})(window.CalibTutorial);
