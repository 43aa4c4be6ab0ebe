/* Glossary hover cards: a term's card opens after a short hover (a pointer that only passes opens
   nothing), at once on keyboard focus or a tap; Escape, the close button or a tap elsewhere closes it.
   The card always lies inside the viewport (placed by popover.js, shared with the number popovers):
   below the term, or above it when there is no room below, shifted sideways to fit; on a narrow screen
   a sheet at the bottom, with the tapped word scrolled above it. Event delegation on document, so it keeps working across
   Material's instant navigation. No network. */
(function () {
  "use strict";
  if (window.__rlGlossary) return;  // loaded twice: one set of listeners
  window.__rlGlossary = true;

  var P = window.rlPopover;  // shared placement (popover.js, loaded first)
  if (!P) return;
  var open = null;      // {ref, card, tapped}
  var showTimer = null, hideTimer = null, refocusing = false;
  var coarse = window.matchMedia && window.matchMedia("(hover: none)").matches;

  function refOf(node) { return node && node.closest ? node.closest(".gl-ref") : null; }
  function cardOf(ref) { return document.getElementById("gl-card-" + ref.getAttribute("data-gl")); }

  function closeButton(card) {
    if (!card.querySelector(".rl-sheet-close")) card.insertBefore(P.button("rl-sheet-close", "Close", "\u00d7"), card.firstChild);
  }

  function hide() {
    clearTimeout(hideTimer);
    if (!open) return;
    open.card.hidden = true;
    open.ref.classList.remove("gl-open");
    P.unpad();
    var home = document.querySelector(".gl-cards");
    if (home && open.card.isConnected) home.appendChild(open.card);
    open = null;
  }

  function show(ref) {
    clearTimeout(showTimer); clearTimeout(hideTimer);
    if (open && open.ref === ref) return;
    hide();
    var card = cardOf(ref);
    if (!card) return;
    closeButton(card);
    ref.appendChild(card);  // inside the wrapper: hovering the card keeps it open, Tab reaches its link
    card.hidden = false;
    ref.classList.add("gl-open");
    open = { ref: ref, card: card, tapped: false };
    P.place(ref, card, "gl-up");
  }

  function later() { clearTimeout(hideTimer); hideTimer = setTimeout(hide, P.LEAVE_DELAY_MS); }

  document.addEventListener("mouseover", function (e) {
    if (coarse) return;  // touch: taps decide
    var ref = refOf(e.target);
    if (ref && open && open.ref === ref) { clearTimeout(hideTimer); return; }
    clearTimeout(showTimer);
    if (ref) showTimer = setTimeout(function () { show(ref); }, P.HOVER_DELAY_MS);
    else if (open && !open.tapped) later();
  });
  document.addEventListener("mouseout", function (e) {
    var ref = refOf(e.target);
    if (ref && !ref.contains(e.relatedTarget)) clearTimeout(showTimer);
    if (open && !open.tapped && !open.ref.contains(e.relatedTarget)) later();
  });
  document.addEventListener("focusin", function (e) {
    var ref = refOf(e.target);
    if (refocusing) return;
    if (ref) { if (!(open && open.ref === ref)) show(ref); }
    else if (open && !open.tapped) hide();
  });
  document.addEventListener("keydown", function (e) {
    if (e.key !== "Escape") return;
    clearTimeout(showTimer);
    if (open) {
      var trigger = open.ref.querySelector(".gl-term");
      hide();
      refocusing = true;  // back to the term without reopening its card
      if (trigger) trigger.focus({ preventScroll: true });
      refocusing = false;
    }
  });
  document.addEventListener("click", function (e) {
    if (e.target.closest && e.target.closest(".gl-card .rl-sheet-close")) { clearTimeout(showTimer); hide(); return; }
    var ref = refOf(e.target);
    if (!ref) { clearTimeout(showTimer); hide(); return; }
    var term = e.target.closest(".gl-term");
    if (!term) return;  // a click inside the card (its link) behaves normally
    if (term.tagName === "A") {
      // On touch the first tap shows the card; the card's own link (or a second tap) opens the entry.
      if (coarse && !(open && open.ref === ref && open.tapped)) { e.preventDefault(); show(ref); open.tapped = true; }
      return;
    }
    if (open && open.ref === ref && open.tapped) { hide(); return; }
    show(ref);
    if (open) open.tapped = true;
  });
  window.addEventListener("resize", function () { if (open) P.place(open.ref, open.card, "gl-up"); });
  if (window.document$ && window.document$.subscribe) window.document$.subscribe(function () { open = null; P.unpad(); });
})();
