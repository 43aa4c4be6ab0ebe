/* Sortable tables (table[data-rl-sort], written by src/roofline_site/numbers/table_base.py).
 *
 * Each column header is a button: pressing it (click, tap, Enter or Space) sorts the rows by that
 * column, ascending, and pressing it again reverses them; aria-sort on the header says which way.
 * Numbers sort by the exact value behind the rounded one (data-v); a cell with none (a dash) sorts
 * last either way; text columns sort by their text. Ties keep the registry's order. The listener
 * sits on the document, so pages swapped in by Material's instant navigation work too.
 * Offline: no framework, no request.
 */
(function () {
  "use strict";
  if (window.__rlTableSort) return;  // loaded twice: one listener
  window.__rlTableSort = true;

  function key(row, index, text) {
    var cell = row.cells[index];
    if (!cell) return null;
    if (text) return cell.textContent.trim();
    var v = cell.getAttribute("data-v");
    return v === null ? null : parseFloat(v);
  }

  function sortBy(th) {
    var table = th.closest("table[data-rl-sort]");
    var body = table && table.tBodies[0];
    if (!body) return;
    var index = Array.prototype.indexOf.call(th.parentNode.cells, th);
    var text = th.hasAttribute("data-rl-text");
    var ascending = th.getAttribute("aria-sort") !== "ascending";
    var rows = Array.prototype.map.call(body.rows, function (row, i) {
      return { row: row, key: key(row, index, text), i: i };
    });
    rows.sort(function (a, b) {
      if (a.key === null || b.key === null) {
        return a.key === b.key ? a.i - b.i : (a.key === null ? 1 : -1);
      }
      var c = text ? a.key.localeCompare(b.key) : a.key - b.key;
      return (ascending ? c : -c) || a.i - b.i;
    });
    var fragment = document.createDocumentFragment();
    rows.forEach(function (r) { fragment.appendChild(r.row); });
    body.appendChild(fragment);
    Array.prototype.forEach.call(th.parentNode.cells, function (cell) { cell.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest("table[data-rl-sort] th > button.rl-sort") : null;
    if (button) sortBy(button.parentNode);
  });
})();
