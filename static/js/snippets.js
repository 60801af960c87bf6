/* snippets.js — the "Embed" box after each widget of the full page: an <iframe> snippet to paste into
 * a course page. Without JavaScript it is selectable text in a read-only textarea. With it, a relative
 * address in the snippet becomes absolute (this page's own address, when served over http or https;
 * a build with --base-url writes absolute ones already), and a button copies it (the Clipboard API;
 * where it is refused, the code is selected and the status line asks the reader to copy it). */
(function (CT) {
  "use strict";
  function absolute(text) {
    if (!/^https?:$/.test(window.location.protocol)) return text;
    return text.replace(/ src="([^"]*)"/, function (whole, src) {
      return ' src="' + new URL(src, window.location.href).href + '"';
    });
  }
  function start(box) {
    var area = box.querySelector("textarea"), button = box.querySelector("button"), status = box.querySelector("[role=status]");
    area.value = absolute(area.value);
    button.hidden = false;
    button.addEventListener("click", function () {
      var ui = CT.strings().ui;
      var done = function (ok) {
        status.textContent = ok ? ui.embed_copied : ui.embed_copy_failed;
        if (!ok) { area.focus(); area.select(); }  // selected, ready for the reader's own copy
      };
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(area.value).then(function () { done(true); }, function () { done(false); });
      } else {
        done(false);
      }
    });
  }
  function startAll() {
    Array.prototype.forEach.call(document.querySelectorAll("details.embed-box"), start);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", startAll);
  else startAll();
})(window.CalibTutorial);
