/* disclosure.js — deep dives (<details class="deep-dive">): a link to an id inside a closed one (#id or
   #id/state/…) opens it (in-page links go through hash.js, which opens it too), and printing shows
   every one open (then restores them). The page reads the same without this script: the summaries stay visible
   and a reader opens a disclosure by hand; the print rule in base.css covers browsers that honour it. */
(function () {
  "use strict";
  var state = { printed: [] };

  function reveal() {
    // the place of #<id> or #<id>/state/… (hash.js's grammar)
    var hash = window.CalibTutorial && window.CalibTutorial.stateHash;
    var id = hash ? hash.place() : location.hash.slice(1);
    var target;
    try { target = id && document.getElementById(hash ? id : decodeURIComponent(id)); } catch (error) { return; }
    if (!target) return;
    var opened = false;
    for (var box = target.closest("details.deep-dive"); box; box = box.parentElement.closest("details.deep-dive")) {
      if (!box.open) { box.open = true; opened = true; }
    }
    if (opened) target.scrollIntoView();
  }

  window.addEventListener("hashchange", reveal);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", reveal);
  else reveal();
  window.addEventListener("beforeprint", function () {
    Array.prototype.forEach.call(document.querySelectorAll("details.deep-dive:not([open])"), function (box) {
      box.open = true;
      state.printed.push(box);
    });
  });
  window.addEventListener("afterprint", function () {
    state.printed.forEach(function (box) { box.open = false; });
    state.printed = [];
  });
})();
