/* Glossary hover cards: a term's card opens after a short hover (a pointer that only passes opens
   nothing), at once on keyboard focus or a tap; Escape, the close button or a tap elsewhere closes it.
   The card always lies inside the viewport (placed by popover.js, shared with the number popovers):
   below the term, or above it when there is no room below, shifted sideways to fit; on a narrow screen
   a sheet at the bottom, with the tapped word scrolled above it. Event delegation on document, so it keeps working across
   Material's instant navigation. One request, to the same origin: the page's cards.json (every card's
   body, keyed by its term), fetched when a reader first points at, focuses or taps a term, then kept.
   Where it cannot come (the page opened from a file, the connection gone), the card says so in one
   sentence; the term's first mention still links to its entry. */
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

  var FROM_FILE = "Opened from a file, the browser keeps this term's card (cards.json beside the page) from loading: serve the folder over HTTP to read it, or open the glossary.";
  var FAILED = "This term's card (cards.json) did not load; reload the page to try again.";

  function load() { return P.besidePage("cards.json"); }  // Promise of {slug: card body HTML}

  function home() {  // where closed cards wait (hidden), inside the article
    var h = document.querySelector(".gl-cards");
    if (!h) {
      h = document.createElement("div");
      h.className = "gl-cards"; h.hidden = true; h.setAttribute("data-search-exclude", "");
      (document.querySelector("article") || document.body).appendChild(h);
    }
    return h;
  }

  // A term's card: made on first use, saying it is loading until its body comes from cards.json
  // (aria-live announces it then: a screen reader has already read the description on focus).
  function cardOf(ref) {
    var slug = ref.getAttribute("data-gl"), card = document.getElementById("gl-card-" + slug);
    if (card && !card.classList.contains("gl-failed")) return card;
    if (!card) {
      card = document.createElement("span");
      card.className = "gl-card"; card.id = "gl-card-" + slug; card.hidden = true;
      card.setAttribute("role", "tooltip"); card.setAttribute("aria-live", "polite");
      home().appendChild(card);
    }
    card.classList.remove("gl-failed");
    card.textContent = "Loading this term's card\u2026";
    load().then(function (all) {
      if (typeof all[slug] !== "string") throw new Error("not in cards.json");
      var body = document.createElement("template");
      body.innerHTML = all[slug];  // built by the site from escaped text: no reader or file text
      card.replaceChildren(body.content);
    }).catch(function () {
      card.classList.add("gl-failed");
      card.textContent = location.protocol === "file:" ? FROM_FILE : FAILED;
    }).then(function () {
      if (open && open.card === card) { closeButton(card); P.place(open.ref, card, "gl-up"); }
    });
    return card;
  }

  function closeButton(card) {
    if (!card.querySelector(".rl-sheet-close")) card.insertBefore(P.button("rl-sheet-close", "Close", "\u00d7"), card.firstChild);
  }

  function hide() {
    clearTimeout(hideTimer);
    if (!open) return;
    open.card.hidden = true;
    open.ref.classList.remove("gl-open");
    P.unpad();
    if (open.card.isConnected) home().appendChild(open.card);
    open = null;
  }

  function show(ref) {
    clearTimeout(showTimer); clearTimeout(hideTimer);
    if (open && open.ref === ref) return;
    hide();
    var card = cardOf(ref);
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
    if (ref) {
      load().catch(function () {});  // the cards are on their way while the hover delay runs
      showTimer = setTimeout(function () { show(ref); }, P.HOVER_DELAY_MS);
    } else if (open && !open.tapped) later();
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
  // On touch the first tap on a term's link shows its card; the card's own link (or a second tap) opens
  // the entry. Heard on the way down: Material's instant navigation takes every click on a link its
  // sitemap names (on document.body, before the document hears it), so this tap goes no further.
  document.addEventListener("click", function (e) {
    var ref = refOf(e.target);
    if (!coarse || !ref || !e.target.closest("a.gl-term") || (open && open.ref === ref && open.tapped)) return;
    e.preventDefault(); e.stopPropagation();
    show(ref); open.tapped = true;
  }, true);
  document.addEventListener("click", function (e) {
    if (e.target.closest && e.target.closest(".gl-card .rl-sheet-close")) { clearTimeout(showTimer); hide(); return; }
    var ref = refOf(e.target);
    if (!ref) { clearTimeout(showTimer); hide(); return; }
    var term = e.target.closest(".gl-term");
    if (!term || term.tagName === "A") return;  // the card's own link, a term's link: followed
    if (open && open.ref === ref && open.tapped) { hide(); return; }
    show(ref);
    if (open) open.tapped = true;
  });
  window.addEventListener("resize", function () { if (open) P.place(open.ref, open.card, "gl-up"); });
  if (window.document$ && window.document$.subscribe) window.document$.subscribe(function () { open = null; P.unpad(); });
})();
