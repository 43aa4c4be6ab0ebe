"""Search as a reader meets it: pages and glossary entries above code, no flattened code or table rows.

The ranking is Material's own: its search worker, shipped in the built site, is handed the built
index (search/search_index.json) and queried, as the search box does.
"""

from __future__ import annotations

import json
import re

import pytest

pytestmark = pytest.mark.site

# Material's worker protocol (integrations/search/worker/message): SETUP 0 -> READY 1, QUERY 2 -> RESULT 3.
# The page starts search as a reader does, by opening the search toggle: until then the page holds
# Material's worker back (overrides/main.html). A worker that does not answer in 30 s fails the test.
QUERY = """async ([worker, q]) => {
  const toggle = document.getElementById('__search');
  toggle.checked = true;
  toggle.dispatchEvent(new Event('change', {bubbles: true}));
  const index = await (await fetch('search/search_index.json')).json();
  const w = new Worker('assets/javascripts/workers/' + worker);
  const reply = () => Promise.race([new Promise(r => w.addEventListener('message', e => r(e.data), {once: true})),
    new Promise((_, no) => setTimeout(() => no(new Error('the search worker did not answer in 30 s')), 30000))]);
  w.postMessage({type: 0, data: {...index, options: {suggest: false}}});
  await reply();
  w.postMessage({type: 2, data: q});
  const result = await reply();
  w.terminate();
  return result.data.items.map(group => group.map(i => i.location));
}"""


def index_entries(site_dir) -> dict[str, str]:
    """{location: text as indexed} of every search entry."""
    data = json.loads((site_dir / "search" / "search_index.json").read_text(encoding="utf-8"))
    return {d["location"]: d["text"] for d in data["docs"]}


def in_code_block(text: str, term: str) -> bool:
    """Whether `term` occurs inside a code block (or executed output) of an indexed text; inline code in a
    sentence is prose."""
    return any(term.lower() in m.group(1).lower() for m in re.finditer(r"<pre>(.*?)</pre>", text, re.S))


@pytest.mark.browser
def test_h100_finds_the_hardware_reference_first_and_no_code_above_it(
        chromium, served_site, site_dir):
    worker = next((site_dir / "assets" / "javascripts" / "workers").glob("search.*.min.js")).name
    tabs = chromium.tabs()
    try:
        tab = tabs.new_page()
        tab.goto(f"{served_site}/", wait_until="load")
        groups = tab.evaluate(QUERY, [worker, "H100"])
    finally:
        tabs.close()
    entries = index_entries(site_dir)
    pages = [g[0].split("#")[0] for g in groups]
    assert pages, "searching H100 found nothing"
    # The reference's worked example is titled by the H100, so the reference itself comes first.
    assert pages[0] == "hardware/", f"H100 ranks {groups[0][0]} first"
    assert "hardware/" in pages, "searching H100 does not find the hardware reference"
    above = [loc for g in groups[:pages.index("hardware/")] for loc in g]
    code = [loc for loc in above if in_code_block(entries.get(loc, ""), "h100")]
    assert not code, f"code outranks the hardware reference: {code}"


def test_the_index_holds_no_code_block(site_dir):
    blocks = [loc for loc, text in index_entries(site_dir).items() if "<pre>" in text]
    assert not blocks, f"code blocks or executed output in the search index: {blocks[:10]}"


def cell_text(cell: str) -> str:
    """A cell's text as the index holds it: without a number's popover (a <template> the index never sees)."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", re.sub(r"<template\b.*?</template>", " ", cell, flags=re.S))).strip()


def test_the_index_holds_no_flattened_table_row(site_dir, site_pages):
    """A table is found by the names in its first column; its rows are not run together into a
    snippet ("NVIDIA H100 SXM5 80GB 295 FLOP/byte")."""
    by_page: dict[str, str] = {}
    for loc, text in index_entries(site_dir).items():
        page = loc.split("#")[0]
        by_page[page] = by_page.get(page, "") + " " + cell_text(text)
    flattened, rows = [], 0
    for path, html in site_pages.items():
        indexed = by_page.get(path.removesuffix("index.html"), "")
        for row in re.findall(r"<tr\b.*?</tr>", html, re.S):
            cells = [cell_text(c) for c in re.findall(r"<t[dh]\b[^>]*>(.*?)</t[dh]>", row, re.S)]
            if len(cells) < 2 or not cells[0] or not cells[1]:
                continue
            rows += 1
            # Whole words: a key's row ("sliding_window | sliding_window") is not found in two first cells
            # that follow one another ("use_sliding_window sliding_window").
            # (The words as a plain substring first: a page whose index lacks them needs no pattern.)
            pair = f"{cells[0]} {cells[1]}"
            if pair in indexed and re.search(rf"(?<![\w.]){re.escape(pair)}(?!\w)", indexed):
                flattened.append(f"{path}: {cells[0]} {cells[1]}")
    assert rows > 50, "too few table rows found to check"
    assert not flattened, flattened[:10]
