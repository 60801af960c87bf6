/* snippets.js — the "Embed" box after each widget of the full page: an <iframe> snippet to paste into
 * a course page. Without JavaScript it is selectable text in a read-only textarea. With it, a relative
 * address in the snippet becomes absolute (this page's own address, when served over http or https;
 * a build with --base-url writes absolute ones already), and a button copies it. */
(function (CT) {
  "use strict";
  function absolute(text) {
    if (!/^https?:$/.test(window.location.protocol)) return text;
    return text.replace(/ src="([^"]*)"/, function (whole, src) {
      return ' src="' + new URL(src, window.location.href).href + '"';
    });
  }
  function copyBySelection(area) {
    area.focus();
    area.select();
    try { return document.execCommand("copy"); } catch (error) { return false; }
  }
  function start(box) {
    var area = box.querySelector("textarea"), button = box.querySelector("button"), status = box.querySelector(".embed-status");
    area.value = absolute(area.value);
    button.hidden = false;
    button.addEventListener("click", function () {
      var ui = CT.strings().ui;
      var done = function (ok) { status.textContent = ok ? ui.embed_copied : ui.embed_copy_failed; };
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(area.value).then(function () { done(true); }, function () { done(copyBySelection(area)); });
      } else {
        done(copyBySelection(area));
      }
    });
  }
  function startAll() {
    Array.prototype.forEach.call(document.querySelectorAll("[data-embed-snippet]"), start);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", startAll);
  else startAll();
})(window.CalibTutorial);
