/* main.js — start every component on the page once the DOM is parsed. */
(function (CT) {
  "use strict";
  function start() {
    document.documentElement.classList.add("js-ready");
    if (!CT.core) return;
    Array.prototype.forEach.call(document.querySelectorAll('[data-component="explorer"]'), function (root) {
      root.hidden = false;
      root.explorer = new CT.Explorer(root);
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})(window.CalibTutorial);
