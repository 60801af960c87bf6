/* resizer.js — for a course page that may include one script (Moodle with trusted content, a plain
 * HTML page), published beside the embed pages as embed/resizer.js. Include it once, anywhere:
 *
 *   <script src="https://USER.github.io/REPO/embed/resizer.js" async></script>
 *
 * It sets the height of this site's embed frames to the height each one posts, as the message
 * {type: "calibration-tutorial:resize", height} (static/js/embed.js). A message is matched to its
 * frame by event.source === frame.contentWindow, and used only when it comes from the origin of the
 * frame's own address (or "null", a frame sandboxed without allow-same-origin); any other message is
 * left alone. When it starts, and whenever a frame loads, it asks every frame for its height
 * ({type: "calibration-tutorial:height?"}: an embed page answers, other pages ignore it), so frames
 * added before or after it fit too. It reads nothing else of the page and changes nothing else. */
(function () {
  "use strict";
  if (window.calibrationTutorialResizer) return;  // included twice: the first one works
  window.calibrationTutorialResizer = true;
  var RESIZE = "calibration-tutorial:resize", ASK = "calibration-tutorial:height?";

  function originOf(frame) {
    try { return new URL(frame.src, window.location.href).origin; } catch (error) { return ""; }
  }
  window.addEventListener("message", function (event) {
    var data = event.data;
    if (!data || data.type !== RESIZE || typeof data.height !== "number" || !(data.height > 0)) return;
    var frames = document.getElementsByTagName("iframe");
    for (var i = 0; i < frames.length; i++) {
      var frame = frames[i];
      if (frame.contentWindow !== event.source) continue;
      if (event.origin === originOf(frame) || event.origin === "null") frame.height = String(Math.ceil(data.height));
      return;
    }
  });
  function ask(frame) {
    if (frame.contentWindow) frame.contentWindow.postMessage({ type: ASK }, "*");
  }
  document.addEventListener("load", function (event) {  // a frame's load does not bubble: caught on the way down
    if (event.target && event.target.tagName === "IFRAME") ask(event.target);
  }, true);
  function askAll() { Array.prototype.forEach.call(document.getElementsByTagName("iframe"), ask); }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", askAll);
  else askAll();
})();
