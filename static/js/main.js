/* main.js — start each component when it comes near the viewport, so that loading the page
 * decodes and draws only what the reader is about to see. On the course page a component's
 * interactive markup waits in a <template> until then (built as it starts, explorer.js), so the
 * page loads with few elements; a deep dive that opens, and printing, start the components inside.
 * On an embed page the markup is there at once, and any first input also starts its component (a
 * reader's, a script's or assistive technology's), which honours it. The explorer that keeps its
 * state in the URL starts at once when the URL carries a state (hash.js), and the page scrolls to
 * the URL's place, or to that explorer. Also: the table of contents, open beside the text on wide
 * screens, marks the section being read. */
(function (CT) {
  "use strict";
  /* True while base.css lays the contents out in their own column (its wide-screen rule sets --wide-screen). */
  function wide() { return getComputedStyle(document.documentElement).getPropertyValue("--wide-screen").trim() === "1"; }

  function startOne(root) {
    if (root.explorer) return;
    // which builds its markup (explorer.js), once loaded for a widget of a deep dive
    CT.withMarkup(root, function () { if (!root.explorer) root.explorer = new CT.Explorer(root); });
  }
  /* Every widget in `scope` (a deep dive just opened, or the page before printing) starts now. */
  function startWithin(scope) {
    Array.prototype.forEach.call(scope.querySelectorAll('[data-component="explorer"]'), startOne);
  }
  function startExplorers() {
    var roots = Array.prototype.slice.call(document.querySelectorAll('[data-component="explorer"]'));
    // The explorer the URL's state is for (hash.js isFor) starts at once. An embed page shows its one
    // widget at the top: scrolling to it could scroll the course page around the frame.
    var eager = roots.filter(CT.stateHash.isFor);
    eager.forEach(startOne);
    var embedded = document.documentElement.hasAttribute("data-embed");
    if (eager.length && !embedded && !CT.stateHash.go(CT.stateHash.place())) eager[0].scrollIntoView();
    if (!("IntersectionObserver" in window)) { roots.forEach(startOne); return; }
    var observer = new IntersectionObserver(function (entries) {
      entries.forEach(function (entry) {
        if (entry.isIntersecting) { observer.unobserve(entry.target); startOne(entry.target); }
      });
    }, { rootMargin: "800px 0px" });
    roots.forEach(function (root) { if (!root.explorer) observer.observe(root); });
    // A deep dive that opens starts its widgets (toggle does not bubble: caught on its way down), and
    // printing starts them all (their panels print where a static figure stands).
    document.addEventListener("toggle", function (event) {
      if (event.target.tagName === "DETAILS" && event.target.open) startWithin(event.target);
    }, true);
    window.addEventListener("beforeprint", function () { startWithin(document); });
    // (a #state/ link followed later starts the widget it is for at once: hash.js show)
  }
  // A component that starts, or whose data arrive, between a button's press and release shifts its
  // layout ("loading…", the fitted T in a button's text), so the release can land beside the button
  // and the browser sends the click to an ancestor: that click is the pressed button's.
  // (Listening before the listener below: a start with data at hand shifts the layout at once.)
  var pressed = null;
  document.addEventListener("pointerdown", function (event) {
    var button = event.target.closest && event.target.closest("button"), root = button && button.closest('[data-component="explorer"]');
    pressed = root && !(root.explorer && root.explorer.state.model) ? button : null;
  }, true);
  document.addEventListener("click", function (event) {
    var button = pressed;
    pressed = null;
    if (button && event.target !== button && !button.contains(event.target) && event.target.contains(button)) button.click();
  }, true);
  // The first event on a control may come before the observer fires, or even before start() runs
  // (after the first paint): one listener on the document, from the moment this script runs, makes the
  // explorer the event falls in while the event is on its way (capture phase), so the explorer's own
  // handlers still receive this very event; a click that needs its data waits for them (explorer.js).
  ["pointerdown", "focusin", "click", "input", "change", "keydown"].forEach(function (type) {
    document.addEventListener(type, function (event) {
      var root = CT.core && event.target.closest && event.target.closest('[data-component="explorer"]');
      if (root) startOne(root);
    }, true);
  });

  /* The contents: open on wide screens (it sits in its own column); aria-current on the link of the
   * section crossing a line a third of the way down the window. */
  function startContents() {
    var box = document.getElementById("toc");
    if (!box) return;
    var was = box.open = wide();
    // growing past the breakpoint opens them (shrinking leaves them as the reader had them)
    window.addEventListener("resize", function () {
      var now = wide();
      if (now && !was) box.open = true;
      was = now;
    });
    returnButton(box);
    if (!("IntersectionObserver" in window)) return;
    var links = {}, current = null;
    Array.prototype.forEach.call(box.querySelectorAll('a[href^="#"]'), function (link) {
      links[link.getAttribute("href").slice(1)] = link;
    });
    var observer = new IntersectionObserver(function (entries) {
      entries.forEach(function (entry) {
        var link = links[entry.target.id];
        if (!entry.isIntersecting || !link || link === current) return;
        if (current) current.removeAttribute("aria-current");
        link.setAttribute("aria-current", "location");
        current = link;
        progress(box, link);
        follow(link);
      });
    }, { rootMargin: "-33% 0px -66% 0px" });
    Object.keys(links).forEach(function (id) {
      var section = document.getElementById(id);
      if (section) observer.observe(section);
    });
  }

  /* The progress marker: which part the section being read belongs to, and how many of that part's minutes
   * (as the contents print them) come before it, in words and as a bar. */
  function progress(box, link) {
    var marker = box.querySelector(".toc-progress"), part = link.closest(".toc-part");
    if (!marker || !part) return;
    var d = part.dataset, before = Number(link.dataset.before), minutes = Number(d.minutes);
    /* at a part's first section, "about 0 of its minutes" would say nothing: the start has its own sentence */
    marker.querySelector(".toc-progress-text").textContent = CT.fill(
      before ? marker.dataset.template : marker.dataset.templateStart,
      {number: d.number, count: d.count, part: d.title, done: before, minutes: minutes});
    marker.querySelector(".toc-progress-bar > span").style.width = (minutes ? 100 * before / minutes : 0) + "%";
    marker.hidden = false;
    Array.prototype.forEach.call(box.querySelectorAll(".toc-part"), function (other) {
      other.classList.toggle("current", other === part);
    });
  }

  /* The contents' column scrolls on its own (base.css): the section being read stays in sight there, a
   * third of the way down, whichever way the reader moved through the page. */
  function follow(link) {
    var column = link.closest(".toc");
    if (!column || column.scrollHeight <= column.clientHeight + 1) return;
    var box = link.getBoundingClientRect(), frame = column.getBoundingClientRect();
    if (box.top < frame.top + box.height || box.bottom > frame.bottom - box.height) {
      column.scrollTop += box.top - frame.top - column.clientHeight / 3;
    }
  }

  /* Narrow screens show the contents once, at the top of a long page: past them, a small fixed button
   * named as their summary opens them and takes focus back there (hidden on wide screens by base.css).
   * It shows while the reader scrolls back up (looking for something) and hides while they read on
   * downwards, so it never sits over the text, a caption or a table header being read. */
  function returnButton(box) {
    var summary = box.querySelector("summary"), button = document.createElement("button");
    if (!summary || !("IntersectionObserver" in window)) return;
    var past = false, upward = false, lastY = window.scrollY;
    button.type = "button";
    button.className = "toc-return";
    button.textContent = summary.textContent.trim();
    button.hidden = true;
    button.addEventListener("click", function () { box.open = true; summary.focus(); box.scrollIntoView(); });
    document.body.appendChild(button);
    function show() { button.hidden = !(past && (upward || document.activeElement === button)); }
    window.addEventListener("scroll", function () {
      var y = window.scrollY;
      if (Math.abs(y - lastY) < 8) return;  // a jitter is no direction
      upward = y < lastY;
      lastY = y;
      show();
    }, { passive: true });
    new IntersectionObserver(function (entries) {
      past = !entries[0].isIntersecting && entries[0].boundingClientRect.top <= 0;
      show();
    }).observe(box);
  }

  function start() {
    document.documentElement.classList.add("js-ready");
    if (CT.startHero) CT.startHero();
    startContents();
    if (CT.core) startExplorers();
  }
  // After the first paint: decoding and drawing never delay the page's text (its largest paint).
  function afterPaint() { requestAnimationFrame(function () { setTimeout(start, 0); }); }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", afterPaint);
  else afterPaint();
})(window.CalibTutorial);
