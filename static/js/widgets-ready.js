/* widgets-ready.js — the last script of widgets.js (static/js/order.txt): the explorer and every panel view are
 * defined, so the widgets that started before the code arrived are built now (core.js CT.codeLoaded). */
(function (CT) {
  "use strict";
  CT.codeLoaded();
})(window.CalibTutorial);
