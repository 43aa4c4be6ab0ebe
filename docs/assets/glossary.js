/* Glossary hover cards: a term's card opens after a short hover (a pointer that only passes opens
   nothing), at once on keyboard focus or a tap; Escape, the close button or a tap elsewhere closes it.
   The card always lies inside the viewport: below the term, or above it when there is no room below,
   shifted sideways to fit; on a narrow screen it is a sheet at the bottom, and the page scrolls so the
   tapped word stays visible above it. Event delegation on document, so it keeps working across
   Material's instant navigation. No network. */
(function () {
  "use strict";
  if (window.__rlGlossary) return;  // loaded twice: one set of listeners
  window.__rlGlossary = true;

  var HOVER_DELAY_MS = 300, LEAVE_DELAY_MS = 200, MARGIN = 8;
  var open = null;      // {ref, card, tapped}
  var showTimer = null, hideTimer = null, refocusing = false;
  var coarse = window.matchMedia && window.matchMedia("(hover: none)").matches;
  var narrow = window.matchMedia ? window.matchMedia("(max-width: 44.9375em)") : { matches: false };

  function refOf(node) { return node && node.closest ? node.closest(".gl-ref") : null; }
  function cardOf(ref) { return document.getElementById("gl-card-" + ref.getAttribute("data-gl")); }
  function headerBottom() {
    var h = document.querySelector(".md-header");
    return h ? Math.max(0, h.getBoundingClientRect().bottom) : 0;
  }

  function closeButton(card) {
    if (card.querySelector(".rl-sheet-close")) return;
    var b = document.createElement("button");
    b.type = "button";
    b.className = "rl-sheet-close";
    b.setAttribute("aria-label", "Close");
    b.textContent = "\u00d7";
    card.insertBefore(b, card.firstChild);
  }

  function unpad() { var m = document.querySelector(".md-main"); if (m) m.style.paddingBottom = ""; }

  /* Below the term if it fits, else above, else on the roomier side with a scroll bar; then sideways. */
  function place(ref, card) {
    card.classList.remove("gl-up");
    card.style.left = ""; card.style.maxHeight = "";
    unpad();
    var vw = document.documentElement.clientWidth, vh = window.innerHeight;
    if (narrow.matches) {  // a bottom sheet (CSS): keep the tapped word above it
      var sheet = card.getBoundingClientRect(), word = ref.getBoundingClientRect();
      var over = word.bottom + MARGIN - sheet.top;
      if (over > 0) {
        var main = document.querySelector(".md-main");
        if (main) main.style.paddingBottom = sheet.height + "px";  // room to scroll at the page's end
        window.scrollBy({ top: Math.min(over, word.top - headerBottom() - MARGIN), behavior: "instant" });
      }
      return;
    }
    var term = ref.getBoundingClientRect(), box = card.getBoundingClientRect();
    var below = vh - term.bottom - MARGIN, above = term.top - headerBottom() - MARGIN;
    if (box.height > below && (box.height <= above || above > below)) card.classList.add("gl-up");
    var room = card.classList.contains("gl-up") ? above : below;
    if (box.height > room) card.style.maxHeight = Math.max(80, room - 8) + "px";
    box = card.getBoundingClientRect();
    var shift = 0;
    if (box.right > vw - MARGIN) shift = vw - MARGIN - box.right;
    if (box.left + shift < MARGIN) shift = MARGIN - box.left;
    if (shift) card.style.left = (card.offsetLeft + shift) + "px";
  }

  function hide() {
    clearTimeout(hideTimer);
    if (!open) return;
    open.card.hidden = true;
    open.ref.classList.remove("gl-open");
    unpad();
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
    place(ref, card);
  }

  function later() { clearTimeout(hideTimer); hideTimer = setTimeout(hide, LEAVE_DELAY_MS); }

  document.addEventListener("mouseover", function (e) {
    if (coarse) return;  // touch: taps decide
    var ref = refOf(e.target);
    if (ref && open && open.ref === ref) { clearTimeout(hideTimer); return; }
    clearTimeout(showTimer);
    if (ref) showTimer = setTimeout(function () { show(ref); }, HOVER_DELAY_MS);
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
  window.addEventListener("resize", function () { if (open) place(open.ref, open.card); });
  if (window.document$ && window.document$.subscribe) window.document$.subscribe(function () { open = null; unpad(); });
})();
