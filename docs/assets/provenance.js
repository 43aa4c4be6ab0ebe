/* Provenance popovers of numbers rendered from tokens (.rl-num > .rl-prov).
 *
 * Hover and keyboard focus open a number's popover; a tap or click pins it open and a second one
 * closes it; Escape closes any open popover, even under the pointer, until the pointer leaves.
 * Listeners sit on the document, so pages swapped in by Material's instant navigation work too.
 * Offline: no dependency, no request.
 */
(function () {
  "use strict";
  // Loaded twice: keep one set of listeners. (A flag, not a class on <html>: a class there makes
  // the browser restyle the whole page, a third of a second on a slow phone.)
  if (window.__rlProvenance) return;
  window.__rlProvenance = true;

  var pointerOn = null;  // the number a pointer is pressing: its focus is a click, not a keyboard visit

  function numberOf(node) {
    return node && node.closest ? node.closest(".rl-num") : null;
  }
  function inPopover(node) {
    return !!(node && node.closest && node.closest(".rl-prov"));
  }

  // A popover's body waits in a <template> (inert: no styles, no layout, unseen by other scripts)
  // and moves in the first time its number is hovered, focused or tapped, before it shows; the
  // focus handler runs before assistive technology reads the description, so it finds it filled.
  function fill(prov) {
    var t = prov && prov.firstElementChild;
    if (t && t.tagName === "TEMPLATE") prov.replaceChildren(t.content);
    if (prov) prov.classList.add("rl-filled");
  }

  // Keep the popover inside the viewport (it is a bottom sheet on narrow screens: left alone there).
  function place(num) {
    var prov = num.querySelector(".rl-prov");
    if (!prov) return;
    fill(prov);
    prov.style.left = "";
    if (getComputedStyle(prov).position === "fixed") return;
    var box = prov.getBoundingClientRect();
    var over = box.right - (document.documentElement.clientWidth - 8);
    if (over > 0) prov.style.left = Math.min(0, -over) + "px";
  }

  function close(num, shut) {
    num.classList.remove("rl-open");
    if (shut) num.classList.add("rl-shut"); else num.classList.remove("rl-shut");
  }
  function closeAll(except, shut) {
    var open = document.querySelectorAll(".rl-num.rl-open");
    for (var i = 0; i < open.length; i++) if (open[i] !== except) close(open[i], shut);
  }
  function open(num) {
    fill(num.querySelector(".rl-prov"));
    closeAll(num, false);
    num.classList.remove("rl-shut");
    num.classList.add("rl-open");
    place(num);
  }

  document.addEventListener("pointerdown", function (e) {
    var num = numberOf(e.target);
    pointerOn = num && !inPopover(e.target) ? num : null;
    if (!num) closeAll(null, false);  // a tap elsewhere closes
  }, true);

  document.addEventListener("click", function (e) {
    var num = numberOf(e.target);
    if (!num || inPopover(e.target)) return;  // a source link or the popover's text: leave it open
    pointerOn = null;
    if (num.classList.contains("rl-open")) close(num, true); else open(num);
  });

  document.addEventListener("focusin", function (e) {
    var num = numberOf(e.target);
    if (num && num !== pointerOn) open(num);
  });

  document.addEventListener("focusout", function (e) {
    var num = numberOf(e.target);
    if (num && !num.contains(e.relatedTarget)) close(num, false);
  });

  document.addEventListener("mouseover", function (e) {
    var num = numberOf(e.target);
    if (num && !num.contains(e.relatedTarget)) place(num);
  });

  document.addEventListener("mouseout", function (e) {
    var num = numberOf(e.target);
    if (num && !num.contains(e.relatedTarget)) num.classList.remove("rl-shut");
  });

  document.addEventListener("keydown", function (e) {
    if (e.key !== "Escape") return;
    var num = numberOf(document.activeElement);
    if (num && inPopover(document.activeElement)) num.focus();  // from a source link back to its number
    var shown = document.querySelectorAll(".rl-num.rl-open, .rl-num:hover, .rl-num:focus-within");
    for (var i = 0; i < shown.length; i++) close(shown[i], true);
  });
})();
