/* datasets.js — control "datasets" (templates/panels/datasets.html.j2): the dataset picker, the part
 * radios (calibration or test rows) and, for a dataset with groups, the group radios and the "each
 * group at its own T" box. Writes state.dataset, part, group and own; the line under the picker
 * summarises the dataset shown. */
(function (CT) {
  "use strict";

  /* The group radios: the template renders "pooled" and one per group of any dataset the explorer offers;
   * only the shown dataset's own are shown (and enabled), so a foreign group cannot be chosen. Focus on a
   * radio that goes away moves to "pooled". */
  function showGroups(box, names) {
    var key = JSON.stringify(names);
    if (box._groups === key) return;
    box._groups = key;
    var active = document.activeElement, refocus = false;
    Array.prototype.forEach.call(box.querySelectorAll("input[name]"), function (input) {
      var shown = input.value === "pooled" || names.indexOf(input.value) >= 0;
      if (!shown && input === active) refocus = true;
      input.disabled = !shown;
      input.closest("label").hidden = !shown;
    });
    if (refocus) box.querySelector('input[value="pooled"]').focus();
  }

  CT.explorerView("datasets", function (x) {
    var s = x.state, select = x.$("dataset"), own = x.$("own");
    if (!select) return null;
    // what the controls show before the first render (a first input may have changed them)
    if (select.value) s.dataset = select.value;
    var part = x.radios("part"), group = x.radios("group");
    select.addEventListener("change", function () { x.loadDataset(select.value, false); });
    if (own) own.addEventListener("change", function () { s.own = own.checked; x.redraw(); x.writeHash(); });
    return {
      sync: function (state) {
        var m = state.model, info = CT.datasetInfo(m.name), groupBox = x.$("groups");
        select.value = m.name;
        x.$("parts").hidden = m.partNames.length < 2;
        if (groupBox) {
          groupBox.hidden = !(info.groups && info.groups.length);
          showGroups(groupBox, info.groups || []);
        }
        if (own) own.checked = state.own;
        part(state);
        group(state);
      },
      config: function (state, data) {
        var ui = CT.strings().ui, m = data.model;
        x.$("summary").textContent = CT.fill(ui.dataset_summary, { summary: CT.datasetSummary(m.name), line: CT.fill(ui.dataset_line, {
          n: CT.count(CT.datasetInfo(m.name).n), t: CT.temp(m.fittedT), on: ui["fitted_on_" + m.fittedOn]
        }) });
      }
    };
  });
})(window.CalibTutorial);
