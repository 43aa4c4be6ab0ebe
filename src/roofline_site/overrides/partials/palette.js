{#- The palette toggle (light / dark), as Material's palette component runs it, without its start-up
    cost (see palette.html). Inline after the toggle's form, so it runs while the header is parsed: the
    body's data-md-color-* attributes are set before the article is styled. The choice is kept where
    Material keeps it (__md_set("__palette"), the same shape), so a page reached by instant navigation,
    or a later visit, shows it; with nothing stored, the option whose media query matches (the reader's
    system scheme). As in Material, a choice is stored on the first visit, so a later change of the
    system scheme changes nothing: no listener for it. Not carried over from the component: Material's
    "automatic" option (media "(prefers-color-scheme)"; mkdocs.yml names a scheme per media query) and
    the <meta name="theme-color"> it wrote. The script is minified into every page and counts against
    each page's 100 KB (the calculator has a few hundred bytes left), so it is terse; the comments are
    Jinja's and never reach a page. -#}
(function () {
  var form = document.currentScript.previousElementSibling, body = document.body,
    inputs = [].slice.call(form.querySelectorAll("input")), stored = null, current;
  try { stored = __md_get("__palette"); } catch (e) {}  {#- storage blocked: the system scheme decides #}
  {#- The one label shown is the one that switches to the next option. Shown once the header is parsed
      (a frame drawn with only part of it would show the toggle, then move it as the search button came). #}
  function labels() { inputs.forEach(function (o, j) { o.nextElementSibling.hidden = j != current; }); }
  function apply(i) {
    var color = {};
    current = i = Math.max(0, Math.min(i, inputs.length - 1));
    ["media", "scheme", "primary", "accent"].forEach(function (k) {
      body.setAttribute("data-md-color-" + k, color[k] = inputs[i].getAttribute("data-md-color-" + k));
    });
    __md_set("__palette", { index: i, color: color });
  }
  {#- A stored index that is no whole number ≥ 0 (storage edited or written by another site version) is
      no choice: the system scheme decides, as with nothing stored. #}
  var chosen = stored && Number.isInteger(stored.index) ? stored.index : -1;
  apply(chosen >= 0 ? chosen : inputs.findIndex(function (o) {
    return matchMedia(o.getAttribute("data-md-color-media")).matches;
  }));
  document.addEventListener("DOMContentLoaded", labels);
  {#- A reader's switch: no transitions while every colour changes (Material's rule for the attribute). #}
  form.addEventListener("change", function (e) {
    body.setAttribute("data-md-color-switching", "");
    apply(inputs.indexOf(e.target));
    labels();
    requestAnimationFrame(function () { body.removeAttribute("data-md-color-switching"); });
  });
  {#- Enter on the focused option: the next one, as in Material. #}
  form.addEventListener("keydown", function (e) {
    if (e.key != "Enter") return;
    var o = inputs[(current + 1) % inputs.length];
    o.click();
    o.focus();
  });
})();
