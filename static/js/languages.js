/* languages.js — the language switcher keeps the reader's place: each link to another edition of
 * the page carries the current #fragment (an explorer's #state/…, or a section). The explorer
 * rewrites the hash with history.replaceState, which fires no event, so the link is also brought
 * up to date just before it is followed. Without JavaScript it is a plain link to the other page. */
(function (CT) {
  "use strict";
  function update() {
    var links = document.querySelectorAll("a[data-language-link]");
    Array.prototype.forEach.call(links, function (link) {
      var base = link.getAttribute("href").split("#")[0];
      link.setAttribute("href", base + window.location.hash);
    });
  }
  window.addEventListener("hashchange", update);
  document.addEventListener("DOMContentLoaded", update);
  ["pointerdown", "focusin", "click"].forEach(function (type) {
    document.addEventListener(type, function (event) {
      if (event.target.closest && event.target.closest("a[data-language-link]")) update();
    }, true);
  });
})(window.CalibTutorial);
