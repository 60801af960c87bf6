/* method.js — control "method" (templates/panels/method.html.j2): temperature scaling (the slider) or
 * another calibrator of the engine, fitted on the dataset's calibration rows and scored on its test rows.
 * The other calibrators' scores are the engine's, in data/<name>-methods.js, loaded the first time one
 * is chosen. Writes state.method (choosing another calibrator also shows the test rows, both groups
 * pooled); the views then show its one point, as for a group at its own T, and the slider is set aside
 * with the reason beside the radios (the slider's aria-describedby). */
(function (CT) {
  "use strict";
  var TS = "temperature";

  /* The calibrator shown, for explorer-data.js: null for temperature scaling, false while its file is on
   * its way, else {name, label, note (beside the radios), diagram (under the diagram), own (its test
   * rows' scores, CT.pointScores)}. Another calibrator applies to the test rows pooled of a dataset that
   * offers it; anything else (the reader chose other rows, a group, another dataset) shows temperature
   * scaling again. */
  CT.Explorer.prototype.method = function () {
    var s = this.state, name = s.model.name, ui = CT.strings().ui, box = this.$("methods");
    var offered = CT.datasetInfo(name).methods || [];
    if (s.method !== TS && (!box || offered.indexOf(s.method) < 0 || s.part !== "test" || s.group !== "pooled" || s.own)) {
      s.method = TS;
    }
    if (s.method === TS) return null;
    if (!this.needs("methods", name, ui.error_methods)) return false;
    this.snapBins(ui.method_bins_note);
    var data = CT.methodsData[name], raw = data.methods[s.method];
    var label = box.querySelector('input[value="' + s.method + '"]').parentNode.textContent.trim();
    var note = CT.fill(ui.method_note, { method: label, cal: CT.count(data.n_calibration), test: CT.count(raw.n) });
    if (raw.zero_rows) note += " " + CT.fill(ui.method_zero, { rows: CT.count(raw.zero_rows) });
    var diagram = CT.fill(ui.method_diagram, { method: label, test: CT.count(raw.n) });
    return { name: s.method, label: label, note: note, diagram: diagram, own: CT.pointScores(raw) };
  };

  CT.explorerView("method", function (x) {
    var box = x.$("methods"), note = x.$("method-note"), slider = x.$("t"), s = x.state;
    if (!box) return null;
    var inputs = box.querySelectorAll("input");
    // before the radios' own listener redraws: another calibrator is scored on the test rows, pooled
    Array.prototype.forEach.call(inputs, function (input) {
      input.addEventListener("change", function () {
        if (input.checked && input.value !== TS) { s.part = "test"; s.group = "pooled"; s.own = false; }
      });
    });
    var sync = x.radios("method");
    return {
      sync: function (state) {
        var offered = CT.datasetInfo(state.model.name).methods || [];
        Array.prototype.forEach.call(inputs, function (input) {
          input.disabled = input.value !== TS && offered.indexOf(input.value) < 0;
        });
        sync(state);
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
