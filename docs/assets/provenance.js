/* Provenance popovers of numbers rendered from tokens (.rl-num > .rl-prov).
 *
 * A short hover opens a number's popover (a pointer that only passes opens nothing); keyboard focus
 * opens it at once; a tap or click pins it open and a second one closes it; Escape, the close button
 * or a tap elsewhere closes it. It first shows the value, the formula and one source; "More" shows
 * the inputs and every source. It always lies inside the viewport (placed by popover.js, shared with
 * the glossary cards): below the number or above it, shifted sideways; on narrow screens a sheet at
 * the bottom, with the page scrolled so the tapped number stays visible above it. Listeners sit on
 * the document, so pages swapped in by Material's instant navigation work too. No dependency; one
 * request, to the same origin: the page's provenance.json (every popover's body, keyed by its id),
 * fetched when a reader first points at, focuses or taps a number, then kept. Where it cannot come
 * (the page opened from a file, the connection gone), the popover says so in one sentence.
 */
(function () {
  "use strict";
  // Loaded twice: keep one set of listeners. (A flag, not a class on <html>: a class there makes
  // the browser restyle the whole page, a third of a second on a slow phone.)
  if (window.__rlProvenance) return;
  window.__rlProvenance = true;

  var P = window.rlPopover;  // shared placement (popover.js, loaded first)
  if (!P) return;
  var pointerOn = null;  // the number a pointer is pressing: its focus is a click, not a keyboard visit
  var showTimer = null, hideTimer = null;

  function numberOf(node) {
    return node && node.closest ? node.closest(".rl-num") : null;
  }
  function inPopover(node) {
    return !!(node && node.closest && node.closest(".rl-prov"));
  }
  // A popover's body waits in the page's provenance.json (or, in markup built without it, in a
  // <template>) and moves in the first time its number is hovered, focused or tapped. Until it
  // arrives the popover says it is loading; aria-live announces the body when it comes, since a
  // screen reader has already read the description on focus. The compact first view hides the
  // inputs and all sources but the first behind "More".
  var FROM_FILE = "Opened from a file, the browser keeps this number's details (provenance.json beside the page) from loading: serve the folder over HTTP to read them.";
  var FAILED = "This number's details (provenance.json) did not load; reload the page to try again.";

  function load() { return P.besidePage("provenance.json"); }  // Promise of {popover id: body HTML}

  function finish(prov, content) {
    prov.classList.remove("rl-loading", "rl-failed");
    prov.replaceChildren(content);
    prov.insertBefore(P.button("rl-sheet-close", "Close", "\u00d7"), prov.firstChild);
    var extra = prov.querySelector(".rl-prov-inputs") || prov.querySelectorAll(".rl-prov-src").length > 1;
    if (extra) {
      prov.classList.add("rl-compact");
      prov.appendChild(P.button("rl-prov-more", null, "More: inputs and sources"));
    }
    prov.classList.add("rl-filled");
  }

  function fill(prov) {
    if (!prov || prov.classList.contains("rl-filled") || prov.classList.contains("rl-loading")) return;
    var t = prov.firstElementChild;
    if (t && t.tagName === "TEMPLATE") { finish(prov, t.content); return; }
    prov.classList.remove("rl-failed");
    prov.classList.add("rl-loading");
    prov.setAttribute("aria-live", "polite");
    prov.textContent = "Loading where this number comes from\u2026";
    load().then(function (all) {
      if (typeof all[prov.id] !== "string") throw new Error("not in provenance.json");
      var body = document.createElement("template");
      body.innerHTML = all[prov.id];  // built by the site from escaped text: no reader or file text
      finish(prov, body.content);
    }).catch(function () {
      prov.classList.remove("rl-loading");
      prov.classList.add("rl-failed");
      prov.textContent = location.protocol === "file:" ? FROM_FILE : FAILED;
      prov.insertBefore(P.button("rl-sheet-close", "Close", "\u00d7"), prov.firstChild);
    }).then(function () {
      var num = numberOf(prov);
      if (num && num.classList.contains("rl-open")) place(num);
    });
  }

  function place(num) {
    var prov = num.querySelector(".rl-prov");
    if (prov) P.place(num, prov, "rl-up");
  }

  function close(num) {
    num.classList.remove("rl-open", "rl-pinned");
    if (!document.querySelector(".rl-num.rl-open")) P.unpad();
  }
  function closeAll(except) {
    var open = document.querySelectorAll(".rl-num.rl-open");
    for (var i = 0; i < open.length; i++) if (open[i] !== except) close(open[i]);
  }
  function open(num, pinned) {
    clearTimeout(showTimer); clearTimeout(hideTimer);
    fill(num.querySelector(".rl-prov"));
    closeAll(num);
    var was = num.classList.contains("rl-open");
    num.classList.add("rl-open");
    if (pinned) num.classList.add("rl-pinned");
    if (!was) place(num);
  }

  document.addEventListener("pointerdown", function (e) {
    var num = numberOf(e.target);
    if (num) load().catch(function () {});
    pointerOn = num && !inPopover(e.target) ? num : null;
    if (!num) closeAll(null);  // a tap elsewhere closes
  }, true);

  document.addEventListener("click", function (e) {
    var num = numberOf(e.target);
    if (!num) return;
    if (e.target.closest(".rl-sheet-close")) { close(num); num.focus({ preventScroll: true }); return; }
    if (e.target.closest(".rl-prov-more")) {
      var prov = num.querySelector(".rl-prov");
      prov.classList.remove("rl-compact");
      e.target.closest(".rl-prov-more").remove();
      place(num);
      return;
    }
    if (inPopover(e.target)) return;  // a source link or the popover's text: leave it open
    pointerOn = null;
    if (num.classList.contains("rl-pinned")) close(num); else open(num, true);
  });

  document.addEventListener("focusin", function (e) {
    var num = numberOf(e.target);
    if (num && num !== pointerOn && !inPopover(e.target)) open(num, false);
  });

  document.addEventListener("focusout", function (e) {
    var num = numberOf(e.target);
    if (num && !num.contains(e.relatedTarget) && !num.classList.contains("rl-pinned")) close(num);
  });

  document.addEventListener("mouseover", function (e) {
    var num = numberOf(e.target);
    if (!num || num.contains(e.relatedTarget)) return;
    load().catch(function () {});  // the body is on its way while the hover delay runs
    clearTimeout(hideTimer);
    if (num.classList.contains("rl-open")) return;
    clearTimeout(showTimer);
    showTimer = setTimeout(function () { open(num, false); }, P.HOVER_DELAY_MS);
  });

  document.addEventListener("mouseout", function (e) {
    var num = numberOf(e.target);
    if (!num || num.contains(e.relatedTarget)) return;
    clearTimeout(showTimer);
    if (num.classList.contains("rl-open") && !num.classList.contains("rl-pinned") && num !== document.activeElement) {
      clearTimeout(hideTimer);
      hideTimer = setTimeout(function () { close(num); }, P.LEAVE_DELAY_MS);
    }
  });

  document.addEventListener("keydown", function (e) {
    if (e.key !== "Escape") return;
    clearTimeout(showTimer);
    var num = numberOf(document.activeElement);
    if (num && inPopover(document.activeElement)) num.focus();  // from a source link back to its number
    closeAll(null);
  });

  window.addEventListener("resize", function () {
    var num = document.querySelector(".rl-num.rl-open");
    if (num) place(num);
  });
})();
