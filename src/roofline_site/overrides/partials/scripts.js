{#- The page's scripts start after its first paint, so the reader sees the page before any script runs. A deferred script runs once the document is
    parsed, which on a short page can come before the first frame: Material's bundle then held the first
    paint for its whole start-up (about 100 ms of a phone's time). Here each script named to __rlLoad is
    kept until the first paint is on screen, then added in order (async false: they run in the order
    named, as deferred scripts did); a later call, as instant navigation runs a swapped-in page's scripts,
    adds them at once; __rlLoad(urls, "module") adds module scripts (the calculator). They are requested
    then too: asked for as the page is parsed, even at low priority (a preload), they shared the
    connection with the stylesheets the first paint waits for, and Lighthouse's simulation of a phone
    put the largest paint half a second later. A reader's next pages take them from the cache, or keep
    them running (instant navigation). A hidden page (a tab opened in the background) paints nothing, so
    its scripts go at once. -#}
(function () {
  var queue = [], started = 0, d = document;
  function add(urls, done, type) {
    urls.forEach(function (url, i) {
      var s = d.createElement("script");
      s.src = url;
      s.async = !1;
      if (type) s.type = type;
      if (i == urls.length - 1) s.onload = s.onerror = done;
      d.body.appendChild(s);
    });
  }
  window.__rlLoad = function (urls, type) {
    started ? add(urls, 0, type) : queue.push([urls, 0, type]);
  };
  {#- The page's own scripts (Material's bundle, then ours), named last: once they have run, Material is
      told the document is ready, since its bundle starts on DOMContentLoaded, which has passed by then
      (a listener added before, as our scripts add one for Material's document$, hears it again); then
      __rlReady says the page is set up, for tests that act as a reader would. Told in a task of its
      own: in the task of the last script's load event, Material's start-up and that script's run made
      one long task, and a reader's tap waited for both (in Lighthouse the two ways measured
      alike within the noise). #}
  window.__rlStart = function (urls) {
    queue.push([urls, function () {
      setTimeout(function () {
        d.dispatchEvent(new Event("DOMContentLoaded"));
        window.__rlReady = !0;
      });
    }]);
    function go() {
      started = 1;
      queue.splice(0).forEach(function (q) { add(q[0], q[1], q[2]); });
    }
    {#- Once the first contentful paint is on screen, as its entry says: a frame or two after the first
        animation frame, when the scripts were asked for before. Asked for in between, Lighthouse's
        simulated phone still counted those that ended before that paint (the calculator's first paint
        1.09 s against 0.90 in three runs of eight; a glossary entry's largest, the same paint, 1.05-1.2 s
        against 0.9). At the latest two seconds after the first frame (a browser without paint entries),
        or as the page is hidden or shown. A second go() finds the queue empty. -#}
    function later() { setTimeout(go); }
    var P = window.PerformanceObserver;
    if (d.hidden) return go();
    requestAnimationFrame(function () { setTimeout(go, 2e3); });
    d.addEventListener("visibilitychange", later);
    P && new P(function (l) { l.getEntriesByName("first-contentful-paint")[0] && later(); }).observe({ type: "paint", buffered: !0 });
  };
})();
