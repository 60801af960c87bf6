/* languages.js — the language switcher keeps the reader's place: each link to another edition of
 * the page carries the URL's #state/… fields (an explorer's state, each group at its own T included)
 * and, as the place, the section being read: the one nearest the top of the window where the reader
 * last stayed a moment (scrolling back up to the switch at the top passes other sections on the way),
 * which may not be the URL's place once the reader has scrolled by hand. The explorer rewrites the
 * hash with history.replaceState, which fires no event, so the link is also brought up to date just
 * before it is followed. Without JavaScript it is a plain link to the other page. */
(function (CT) {
  "use strict";
  var DWELL = 1000;  // ms without scrolling that make a section "being read"
  var read = "", timer = null;
  /* True while a language link is on screen (the reader has come up to use it). */
  function switchInView() {
    var link = document.querySelector("a[data-language-link]");
    return !!link && link.getBoundingClientRect().bottom > 0;
  }
  window.addEventListener("scroll", function () {
    clearTimeout(timer);
    timer = setTimeout(function () { if (!switchInView()) read = reading(); }, DWELL);
  }, { passive: true });
  /* The id of the last section whose top has passed the top of the window (the first one before any has). */
  function reading() {
    var sections = document.querySelectorAll("section.section[id]"), id = "";
    for (var i = 0; i < sections.length; i++) {
      if (!id || sections[i].getBoundingClientRect().top <= 1) id = sections[i].id;
      else break;
    }
    return window.scrollY > 0 ? id : "";
  }
  function update() {
    var links = document.querySelectorAll("a[data-language-link]"), now = CT.stateHash.parse(window.location.hash);
    // the URL's place while it is still in view near the top (a link just followed), else the section read
    var target = now.place && document.getElementById(now.place), top = target && target.getBoundingClientRect().top;
    var place = target && top > -window.innerHeight / 2 && top < window.innerHeight / 2 ? now.place
      : (switchInView() ? read : reading()) || now.place;
    var hash = CT.stateHash.build(place, now.fields);
    Array.prototype.forEach.call(links, function (link) {
      var base = link.getAttribute("href").split("#")[0];
      link.setAttribute("href", base + hash);
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
