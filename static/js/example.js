/* example.js — control "example" (templates/panels/example.html.j2): the example picker of the
 * softmax walk-through. An option's value is "<dataset>:<position in its payload's examples>"; it
 * writes state.dataset and state.example, and the line under it names the dataset shown and its fitted T. */
(function (CT) {
  "use strict";

  CT.explorerView("example", function (x) {
    var s = x.state, select = x.$("example");
    if (!select) return null;
    if (select.value) {
      var chosen = select.value.split(":");
      s.dataset = chosen[0];
      s.example = Number(chosen[1]) || 0;
    }
    select.addEventListener("change", function () {
      var parts = select.value.split(":");
      s.example = Number(parts[1]);
      if (parts[0] !== s.dataset) x.loadDataset(parts[0], false);
      else x.redraw();
    });
    return {
      sync: function (state) { select.value = state.model.name + ":" + state.example; },
      config: function (state, data) {
        var from = x.$("example-from"), option = select.selectedOptions[0];
        if (option) CT.setText(from, CT.fill(CT.strings().ui.example_from, { dataset: option.parentNode.label, t: CT.temp(data.model.fittedT) }));
      }
    };
  });
})(window.CalibTutorial);
