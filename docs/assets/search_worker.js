/* Material's search worker, loaded when a reader opens search (issue 26: 12 KB on every page).
 *
 * Material starts its worker on every page and hands it the search index at once. This stand-in
 * (main.html's config block names it, with the real worker's file name in `?w=`) keeps those
 * messages and imports Material's worker only when the page says a reader opened search: a
 * BroadcastChannel message, posted by main.html's config block on the search field's focus or
 * the search toggle. Material's worker is a classic script listening for "message" events, so it
 * is imported here and handed the kept messages in order; from then on it answers as it always does.
 */
(function () {
  "use strict";
  var name = new URLSearchParams(self.location.search).get("w") || "";
  if (!/^search\.[0-9a-f]+\.min\.js$/.test(name)) return;  // only Material's worker, in its own folder
  var folder = "javascripts/workers/";  // beside this file, in the site's assets/
  var kept = [], loaded = false;
  self.addEventListener("message", function (e) { if (!loaded) kept.push(e.data); });

  function load() {
    if (loaded) return;
    try {
      importScripts(folder + name);
    } catch (err) {
      return;  // the connection gone: the next opening tries again
    }
    loaded = true;
    if (channel) channel.close();
    kept.forEach(function (data) { self.dispatchEvent(new MessageEvent("message", { data: data })); });
    kept = [];
  }

  var channel = self.BroadcastChannel ? new BroadcastChannel("rl-search") : null;
  if (!channel) { load(); return; }  // no way to hear the page: load at once, as Material does
  channel.onmessage = function (e) { if (e.data === "open") load(); };
  channel.postMessage("ready");  // a page whose reader opened search before this worker started answers "open"
})();
