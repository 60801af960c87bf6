/* snippets.js — the "Embed" box after each widget of the full page: an <iframe> snippet to paste into
 * a course page. Without JavaScript it is selectable text in a read-only textarea (the widget's
 * starting state, light colours). With it:
 *   - a relative address in the snippet (and in the resizer's script line) becomes absolute (this page's own address, when served over
 *     http or https; a build with --base-url writes absolute ones already);
 *   - the snippet embeds what the reader sees: its address carries the widget's current state as
 *     #state/… (hash.js's grammar, as the explorer writes it; no widget= field, since the embed page
 *     has one explorer), refreshed when the box opens and whenever a control changes;
 *   - the colour choice adds theme=dark or theme=auto (light, the embed's default, adds nothing);
 *   - the explorer's panels choice adds panels=… and sets the snippet's height to that version's measured
 *     one (data-height), showing its height note;
 *   - when the widget is set up otherwise than its first view (the view measured), a note says the
 *     height may not fit and recommends the resizer;
 *   - a button copies it (the Clipboard API; where it is refused, the code is selected and the status
 *     line asks the reader to copy it). */
(function (CT) {
  "use strict";
  function absolute(text) {
    if (!/^https?:$/.test(window.location.protocol)) return text;
    return text.replace(/ src="([^"]*)"/, function (whole, src) {
      return ' src="' + new URL(src, window.location.href).href + '"';
    });
  }
  /* The explorer of the widget this box follows: in the nearest element before it that holds one. */
  function explorerOf(box) {
    for (var el = box.previousElementSibling; el; el = el.previousElementSibling) {
      var root = el.matches('[data-component="explorer"]') ? el : el.querySelector('[data-component="explorer"]');
      if (root) return root.explorer || null;
    }
    return null;
  }
  /* The #state/ fields of the snippet: the widget's state (once its data is there) and the colours. */
  function fields(box) {
    var explorer = explorerOf(box), choice = box.querySelector("select[data-embed-theme]"), result = {};
    var panels = box.querySelector("select[data-embed-panels]");
    if (explorer && explorer.state.model && CT.stateHash) {
      result = CT.stateHash.parse(CT.stateHash.format(explorer.state, explorer.options.analysis, "")).fields || {};
      delete result.widget;
      delete result.theme;
    }
    if (choice && choice.value !== choice.options[0].value) result.theme = choice.value;
    if (panels && panels.value) result.panels = panels.value;
    return result;
  }
  /* Whether the widget shows another state than its first view, whose height was measured. */
  function changed(box) {
    var explorer = explorerOf(box);
    return !!(explorer && explorer.state.model && explorer.firstView !== explorer.view());
  }
  function start(box) {
    var area = box.querySelector("textarea"), button = box.querySelector("button"), status = box.querySelector("[role=status]");
    var base = absolute(area.value), choice = box.querySelector("select[data-embed-theme]");
    var panels = box.querySelector("select[data-embed-panels]"), preset = box.querySelector("[data-preset-note]");
    var resizer = box.querySelector(".embed-guide code");
    if (resizer) resizer.textContent = absolute(resizer.textContent);
    function refresh() {
      var wanted = fields(box), hash = Object.keys(wanted).length ? CT.stateHash.build("", wanted) : "";
      area.value = base.replace(/ src="([^"#]*)[^"]*"/, function (whole, src) {
        return ' src="' + src + hash.replace(/&/g, "&amp;") + '"';
      });
      if (panels) {
        var height = panels.options[panels.selectedIndex].getAttribute("data-height");
        area.value = area.value.replace(/ height="\d+"/, ' height="' + height + '"');
        Array.prototype.forEach.call(box.querySelectorAll("[data-height-note]"), function (note) {
          note.hidden = note.getAttribute("data-height-note") !== panels.value;
        });
      }
      if (preset) preset.hidden = !changed(box);
    }
    box.refresh = refresh;
    refresh();
    button.hidden = false;
    Array.prototype.forEach.call(box.querySelectorAll("[data-js-only]"), function (el) { el.hidden = false; });
    box.addEventListener("toggle", refresh);
    [choice, panels].forEach(function (select) { if (select) select.addEventListener("change", refresh); });
    button.addEventListener("click", function () {
      var ui = CT.strings().ui;
      refresh();
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
    var boxes = Array.prototype.slice.call(document.querySelectorAll("details.embed-box"));
    boxes.forEach(start);
    var queued = false;
    function refreshOpen() {  // a control changed: the open boxes follow (once per frame)
      if (queued) return;
      queued = true;
      requestAnimationFrame(function () {
        queued = false;
        boxes.forEach(function (box) { if (box.open && box.refresh) box.refresh(); });
      });
    }
    ["input", "change", "click"].forEach(function (type) { document.addEventListener(type, refreshOpen); });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", startAll);
  else startAll();
})(window.CalibTutorial);
