// The address bar: the view's query string, written a moment after the last keystroke.

// ---------------------------------------------------------------- the address bar
// Write the view into the URL a moment after the last keystroke: browsers throttle a page
// that rewrites its history on every input event.
const URL_DELAY_MS = 150;
export function scheduleUrl(root, query) {
  clearTimeout(root.rlUrlTimer);
  root.rlUrlTimer = setTimeout(() => {
    if (!root.isConnected) return; // instant navigation moved on to another page
    const url = `${window.location.pathname}?${query}${window.location.hash}`;
    if (url !== window.location.pathname + window.location.search + window.location.hash) {
      window.history.replaceState(window.history.state, "", url);
    }
  }, URL_DELAY_MS);
}
