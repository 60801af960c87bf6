/* method.js — control "method" (templates/panels/method.html.j2): temperature scaling (the slider) or
 * another calibrator of the engine, fitted on the dataset's calibration rows and scored on its test rows.
 * The other calibrators' scores are the engine's, in data/<name>-methods.js, loaded the first time one
 * is chosen. Writes state.method (choosing another calibrator also shows the test rows, both groups
 * pooled); the views then show its one point, as for a group at its own T, and the slider is set aside
 * with the reason under the picker (the slider's aria-describedby). */
(function (CT) {
  "use strict";
  var TS = "temperature";

  /* The calibrator shown, for explorer-data.js: null for temperature scaling, false while its file is on
   * its way, else {name, label, note (under the picker), diagram (under the diagram), scores (its test
   * rows' scores, CT.pointScores: explorer-data.js makes them data.calibrator)}. Another calibrator
   * applies to the test rows pooled of a dataset that offers it; anything else (the reader chose other
   * rows, a group, another dataset) shows temperature scaling again. */
  CT.Explorer.prototype.method = function () {
    var s = this.state, name = s.model.name, ui = CT.strings().ui, select = this.$("method");
    var offered = CT.datasetInfo(name).methods || [];
    if (s.method !== TS && (!select || offered.indexOf(s.method) < 0 || s.part !== "test" || s.group !== "pooled" || s.own)) {
      s.method = TS;
    }
    if (s.method === TS) return null;
    if (!this.needs("methods", name, ui.error_methods)) return false;
    this.snapBins(ui.method_bins_note);
    var data = CT.methodsData[name], raw = data.methods[s.method];
    var label = select.querySelector('option[value="' + s.method + '"]').textContent;
    var note = CT.fill(ui.method_note, { method: label, cal: CT.count(data.n_calibration), test: CT.count(raw.n) });
    if (raw.zero_rows) note += " " + CT.fill(ui.method_zero, { rows: CT.count(raw.zero_rows) });
    var diagram = CT.fill(ui.method_diagram, { method: label, test: CT.count(raw.n) });
    return { name: s.method, label: label, note: note, diagram: diagram, scores: CT.pointScores(raw) };
  };

  CT.explorerView("method", function (x) {
    var select = x.$("method"), note = x.$("method-note"), slider = x.$("t"), s = x.state;
    if (!select) return null;
    s.method = select.value;  // what the picker shows before the first render (a first input may have changed it)
    select.addEventListener("change", function () {
      s.method = select.value;
      if (s.method !== TS) { s.part = "test"; s.group = "pooled"; s.own = false; }  // scored on the test rows, pooled
      x.redraw();
      x.writeHash();
    });
    return {
      sync: function (state) {
        var offered = CT.datasetInfo(state.model.name).methods || [];
        Array.prototype.forEach.call(select.options, function (option) {
          option.disabled = option.value !== TS && offered.indexOf(option.value) < 0;
        });
        select.disabled = !offered.length;
        select.value = state.method;
        CT.setText(note, offered.length ? "" : CT.strings().ui.method_none);
      },
      config: function (state, data) {
        if (data.method) CT.setText(note, data.method.note);
        if (data.method) slider.setAttribute("aria-describedby", note.id);
        else slider.removeAttribute("aria-describedby");
      }
    };
  });
})(window.CalibTutorial);
