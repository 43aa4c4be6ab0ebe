/* Placement shared by glossary cards (glossary.js) and number popovers (provenance.js): one piece of
 * code keeps both inside the viewport. Loaded before them (mkdocs.yml extra_javascript, all deferred,
 * so in order). A box opens below its anchor if it fits, else above (`upClass`), else on the roomier
 * side with a scroll bar; then it shifts sideways to fit. On a narrow screen the CSS makes it a sheet
 * fixed at the bottom, and the page scrolls so the tapped word stays visible above it. Also shared: what a
 * box shows comes from a JSON file beside the page (`besidePage`), its one request, to the page's own folder.
 */
(function () {
  "use strict";
  if (window.rlPopover) return;  // loaded twice: keep the first

  var MARGIN = 8;  // px kept clear of the viewport's edges and of the anchor

  function headerBottom() {
    var h = document.querySelector(".md-header");
    return h ? Math.max(0, h.getBoundingClientRect().bottom) : 0;
  }

  // A sheet opened at the page's end gets padding under the content to scroll the word above it.
  function unpad() {
    var m = document.querySelector(".md-main");
    if (m) m.style.paddingBottom = "";
  }

  function button(cls, label, text) {
    var b = document.createElement("button");
    b.type = "button";
    b.className = cls;
    if (label) b.setAttribute("aria-label", label);
    b.textContent = text;
    return b;
  }

  function place(anchor, box, upClass) {
    box.classList.remove(upClass);
    box.style.left = ""; box.style.maxHeight = "";
    unpad();
    var vw = document.documentElement.clientWidth, vh = window.innerHeight;
    var own = anchor.getBoundingClientRect(), r = box.getBoundingClientRect();
    if (getComputedStyle(box).position === "fixed") {  // the bottom sheet: keep the anchor above it
      var over = own.bottom + MARGIN - r.top;
      if (over > 0) {
        var main = document.querySelector(".md-main");
        if (main) main.style.paddingBottom = r.height + "px";  // room to scroll at the page's end
        window.scrollBy({ top: Math.min(over, own.top - headerBottom() - MARGIN), behavior: "instant" });
      }
      return;
    }
    var below = vh - own.bottom - MARGIN, above = own.top - headerBottom() - MARGIN;
    if (r.height > below && (r.height <= above || above > below)) box.classList.add(upClass);
    var room = box.classList.contains(upClass) ? above : below;
    if (r.height > room) box.style.maxHeight = Math.max(80, room - MARGIN) + "px";
    r = box.getBoundingClientRect();
    var shift = 0;
    if (r.right > vw - MARGIN) shift = vw - MARGIN - r.right;
    if (r.left + shift < MARGIN) shift = MARGIN - r.left;
    if (shift) box.style.left = (box.offsetLeft + shift) + "px";
  }

  // The parsed JSON file `name` beside the page's index.html (cards.json, provenance.json), fetched once per
  // page and kept; a failed fetch is forgotten, so the next open tries again. From file:// it is refused.
  var beside = {};  // URL -> Promise of the parsed file
  function besidePage(name) {
    var url = new URL(name, location.href).href;
    if (!beside[url]) {
      beside[url] = location.protocol === "file:" ? Promise.reject(new Error("file"))
        : fetch(url).then(function (r) { if (!r.ok) throw new Error("HTTP " + r.status); return r.json(); });
      beside[url].catch(function () { delete beside[url]; });
    }
    return beside[url];
  }

  window.rlPopover = {
    HOVER_DELAY_MS: 300,  // a pointer that only passes opens nothing
    LEAVE_DELAY_MS: 200,  // time to travel from the word to a link in its box
    place: place, unpad: unpad, button: button, besidePage: besidePage
  };
})();
