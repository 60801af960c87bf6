/* main.js — start each component when it comes near the viewport, so that loading the page
 * decodes and draws only what the reader is about to see. The explorer named in a #state/ hash
 * starts at once. */
(function (CT) {
  "use strict";
  function startOne(root) {
    if (root.explorer) return;
    root.explorer = new CT.Explorer(root);
  }
  function start() {
    document.documentElement.classList.add("js-ready");
    if (!CT.core) return;
    var roots = Array.prototype.slice.call(document.querySelectorAll('[data-component="explorer"]'));
    var eager = roots.filter(CT.stateHash.isFor);
    // An embed page shows its one widget at the top: scrolling it into view could scroll the course page.
    var embedded = document.documentElement.hasAttribute("data-embed");
    eager.forEach(function (root) { startOne(root); if (!embedded) root.scrollIntoView(); });
    if (!("IntersectionObserver" in window)) { roots.forEach(startOne); return; }
    var observer = new IntersectionObserver(function (entries) {
      entries.forEach(function (entry) {
        if (entry.isIntersecting) { observer.unobserve(entry.target); startOne(entry.target); }
      });
    }, { rootMargin: "800px 0px" });
    roots.forEach(function (root) {
      if (root.explorer) return;
      observer.observe(root);
      // A reader (or a test) may reach a control before the observer fires: start on first touch.
      ["pointerdown", "focusin", "input", "change", "keydown"].forEach(function (type) {
        root.addEventListener(type, function () { startOne(root); }, { capture: true, once: true });
      });
    });
  }
  // After the first paint: decoding and drawing never delay the page's text (its largest paint).
  function afterPaint() { requestAnimationFrame(function () { setTimeout(start, 0); }); }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", afterPaint);
  else afterPaint();
})(window.CalibTutorial);
