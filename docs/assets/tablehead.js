/* A long table's header row stays in view under Material's header while the page scrolls past it.
 *
 * Sticking to the page needs a table box that does not scroll: Material wraps every table in a box
 * that scrolls sideways (.md-typeset__scrollwrap), and a sticky header would stick inside that box.
 * So a table taller than the window, whose box does not need its sideways scroll at this width, gets
 * data-rl-sticky-head on its box; tables.css then lets the box overflow (nothing clips, no row hides)
 * and makes the header row sticky. A table wider than its column keeps its sideways scroll (and its
 * sticky first column) instead. Phones show tables as cards, with no header row to keep.
 * Measured again when the window's size changes and after each instant navigation. Offline: no request.
 */
(function () {
  "use strict";
  if (window.__rlStickyHead) return;  // loaded twice: one set of listeners
  window.__rlStickyHead = true;
  var WIDE = window.matchMedia("(min-width: 45em)");  // tables.css's cards begin below 720 px
  var queued = 0;

  function mark() {
    queued = 0;
    var boxes = [], tables = [], i;
    var found = document.querySelectorAll(".md-typeset__scrollwrap");
    for (i = 0; i < found.length; i++) {
      var table = found[i].querySelector("table.rl-table");
      if (table && table.tHead) { boxes.push(found[i]); tables.push(table); }
    }
    // All writes, then all reads, then all writes: one layout for the page, not one per table (a
    // layout per table, each undone by the next write, was a long task on a long page).
    for (i = 0; i < boxes.length; i++) {
      if (boxes[i].hasAttribute("data-rl-sticky-head")) boxes[i].removeAttribute("data-rl-sticky-head");  // measured as Material lays it out
    }
    if (!WIDE.matches) return;  // phones show cards: no header row to keep, nothing to measure
    var sticky = [];
    for (i = 0; i < boxes.length; i++) {
      var long = tables[i].getBoundingClientRect().height > window.innerHeight;
      if (long && boxes[i].scrollWidth <= boxes[i].clientWidth + 1) sticky.push(boxes[i]);
    }
    for (i = 0; i < sticky.length; i++) sticky[i].setAttribute("data-rl-sticky-head", "");
  }

  function soon() {
    // Below 720 px nothing is measured, and with no box marked nothing is undone: no frame asked for.
    if (!WIDE.matches && !document.querySelector("[data-rl-sticky-head]")) return;
    if (!queued) queued = window.requestAnimationFrame(mark);
  }

  // Each instant navigation measures again. On a page opened directly this script runs before Material's
  // bundle (only pages with a table name it, in their content: overrides/main.html), so document$ is looked
  // for once every deferred script has run; a page swapped in later finds it at once.
  function watch() {
    if (window.document$ && typeof window.document$.subscribe === "function") {
      window.document$.subscribe(function () { window.setTimeout(soon, 0); });  // after Material wraps the tables
    } else {
      soon();
    }
  }

  window.addEventListener("resize", soon);
  window.addEventListener("load", soon);
  if (window.document$) watch();
  else document.addEventListener("DOMContentLoaded", watch);
})();
