/* Glossary hover cards: show a term's card on hover, keyboard focus or tap; Escape closes it.
   Event delegation on document, so it keeps working across Material's instant navigation. No network. */
(function () {
  "use strict";
  var open = null;      // {ref, card}
  var timer = null;
  var coarse = window.matchMedia && window.matchMedia("(hover: none)").matches;

  function refOf(node) { return node && node.closest ? node.closest(".gl-ref") : null; }
  function cardOf(ref) { return document.getElementById("gl-card-" + ref.getAttribute("data-gl")); }

  function hide() {
    clearTimeout(timer);
    if (!open) return;
    open.card.hidden = true;
    open.ref.classList.remove("gl-open");
    var home = document.querySelector(".gl-cards");
    if (home && open.card.isConnected) home.appendChild(open.card);
    open = null;
  }

  function show(ref) {
    clearTimeout(timer);
    if (open && open.ref === ref) return;
    hide();
    var card = cardOf(ref);
    if (!card) return;
    ref.appendChild(card);  // inside the wrapper: hovering the card keeps it open, Tab reaches its link
    card.classList.remove("gl-right");
    card.hidden = false;
    ref.classList.add("gl-open");
    if (card.getBoundingClientRect().right > document.documentElement.clientWidth - 8) card.classList.add("gl-right");
    open = { ref: ref, card: card };
  }

  function later() { clearTimeout(timer); timer = setTimeout(hide, 200); }

  document.addEventListener("mouseover", function (e) {
    var ref = refOf(e.target);
    if (ref) show(ref); else if (open) later();
  });
  document.addEventListener("mouseout", function (e) {
    if (open && !open.ref.contains(e.relatedTarget)) later();
  });
  document.addEventListener("focusin", function (e) {
    var ref = refOf(e.target);
    if (ref) show(ref); else hide();
  });
  document.addEventListener("keydown", function (e) {
    if (e.key === "Escape" && open) {
      var trigger = open.ref.querySelector(".gl-term");
      hide();
      if (trigger) trigger.focus({ preventScroll: true });
    }
  });
  document.addEventListener("click", function (e) {
    var ref = refOf(e.target);
    if (!ref) { hide(); return; }
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
  if (window.document$ && window.document$.subscribe) window.document$.subscribe(function () { open = null; });
})();
