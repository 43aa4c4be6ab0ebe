/* The palette toggle (light / dark), as Material's palette component runs it, without its start-up cost.
   Inline after the toggle's form, so it runs while the header is parsed: the body's data-md-color-*
   attributes are set before the article is styled. The choice is kept where Material keeps it
   (__md_set("__palette"), the same shape), so a page reached by instant navigation, or a later visit,
   shows it; with nothing stored, the option whose media query matches (the reader's system scheme). */
(function () {
  "use strict";
  var form = document.currentScript && document.currentScript.previousElementSibling;
  if (!form || !form.elements) return;
  var inputs = Array.prototype.slice.call(form.querySelectorAll("input[name=__palette]"));
  if (!inputs.length) return;
  var KEYS = ["media", "scheme", "primary", "accent"];
  var theme = null;  // <meta name="theme-color">: the header's colour, for a phone's browser bar
  var current = 0;

  function colorOf(input) {
    var color = {};
    KEYS.forEach(function (k) { color[k] = input.getAttribute("data-md-color-" + k); });
    if (color.media === "(prefers-color-scheme)") {  // "automatic": the option matching the system scheme
      var match = document.querySelector(matchMedia("(prefers-color-scheme: light)").matches
        ? "[data-md-color-media='(prefers-color-scheme: light)']" : "[data-md-color-media='(prefers-color-scheme: dark)']");
      if (match) ["scheme", "primary", "accent"].forEach(function (k) { color[k] = match.getAttribute("data-md-color-" + k); });
    }
    return color;
  }
  function chosen() {
    var stored = null;
    try { stored = __md_get("__palette"); } catch (e) { /* storage blocked: the system scheme decides */ }
    var index = stored && typeof stored.index === "number" ? stored.index
      : inputs.findIndex(function (i) { return matchMedia(i.getAttribute("data-md-color-media")).matches; });
    return Math.max(0, Math.min(index, inputs.length - 1));
  }
  function paintThemeColor() {  // after the page is styled: reading the header's colour then costs nothing
    var header = document.querySelector("[data-md-component=header]");
    if (!header) return;
    if (!theme) { theme = document.createElement("meta"); theme.name = "theme-color"; document.head.appendChild(theme); }
    var rgb = getComputedStyle(header).backgroundColor.match(/\d+/g) || [];
    theme.content = "#" + rgb.slice(0, 3).map(function (c) { return (+c).toString(16).padStart(2, "0"); }).join("");
  }
  function apply(index) {
    var color = colorOf(inputs[index]);
    KEYS.forEach(function (k) { document.body.setAttribute("data-md-color-" + k, color[k]); });
    inputs.forEach(function (input, i) {  // the label shown is the one that switches to the next option
      var label = input.nextElementSibling;
      if (label && label.tagName === "LABEL") label.hidden = i !== index;
    });
    current = index;
    __md_set("__palette", { index: index, color: color });
  }
  function switchTo(index) {  // a reader's switch: no transitions while every colour changes
    document.body.setAttribute("data-md-color-switching", "");
    apply(index);
    paintThemeColor();
    requestAnimationFrame(function () { document.body.removeAttribute("data-md-color-switching"); });
  }

  apply(chosen());
  form.addEventListener("change", function (e) {
    var i = inputs.indexOf(e.target);
    if (i >= 0) switchTo(i);
  });
  form.addEventListener("keydown", function (e) {  // Enter on the focused option: the next one
    if (e.key !== "Enter") return;
    var next = inputs[(current + 1) % inputs.length];
    next.click();
    next.focus();
  });
  matchMedia("(prefers-color-scheme: light)").addEventListener("change", function () { switchTo(chosen()); });
  (window.requestIdleCallback || setTimeout)(paintThemeColor);
})();
