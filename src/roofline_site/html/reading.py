"""Reading order of executed examples: the result a reader came for first, its code folded under it.

markdown-exec renders `source="above"` as the source block (a `<div class="highlight">` whose code
Pygments has coloured: it opens with a `<span class=...>` token) followed by the output (a
`<div class="highlight">` of plain text). `results_first` swaps them, marks the output
`rl-result` (the CSS wraps its lines: a result is never cut off) and folds the source into a
`<details class="rl-code">` (left out of the search index) whose summary is "Show code".
`search_quiet` keeps what would read as noise in a search result out of the index: code blocks and
executed output (flattened into one line there), and every table cell but the first of its row (a
table is found by the names in its first column; its values are not flattened into a snippet). It
walks the page with the one HTML walker (html/walker.py). Pure string work, no MkDocs import
(hooks/numbers_hook.py calls both from on_page_content; Material's search reads the page after).
"""

from __future__ import annotations

import re

from roofline_site.html.walker import CLOSE, OPEN, SkipList, walk

_SOURCE_THEN_RESULT = re.compile(
    r'(?P<source><div class="highlight"><pre><span></span><code><span class=.*?</pre></div>)\s*'
    r'<div class="highlight">(?P<result><pre><span></span><code>(?!<span).*?</pre></div>)', re.S)


def results_first(html: str) -> str:
    """Every executed block's output before its source, the source folded behind "Show code".

    >>> results_first('<div class="highlight"><pre><span></span><code><span class="n">x</span></code></pre></div>\\n'
    ...               '<div class="highlight"><pre><span></span><code>1</code></pre></div>')
    '<div class="highlight rl-result"><pre><span></span><code>1</code></pre></div>\\n<details class="rl-code" data-search-exclude><summary>Show code</summary>\\n<div class="highlight"><pre><span></span><code><span class="n">x</span></code></pre></div>\\n</details>'
    """
    return _SOURCE_THEN_RESULT.sub(
        lambda m: (f'<div class="highlight rl-result">{m["result"]}\n<details class="rl-code" data-search-exclude><summary>Show code'
                   f'</summary>\n{m["source"]}\n</details>'), html)


# Material's search strips its attributes from the page after indexing, but only those with a value.
_EXCLUDE = ' data-search-exclude="1"'


_QUIETED_TAG = re.compile(r"<(?:pre|tr)\b", re.I)


def search_quiet(html: str) -> str:
    """Code blocks, executed output and table cells past each row's first left out of the search index.

    >>> search_quiet('<tr><th>chip</th><th>ridge</th></tr><tr><td>H100</td><td>295</td></tr>')
    '<tr><th>chip</th><th data-search-exclude="1">ridge</th></tr><tr><td>H100</td><td data-search-exclude="1">295</td></tr>'
    """
    if not _QUIETED_TAG.search(html):
        return html  # no code block and no table row: nothing to mark
    out: list[str] = []
    rows: list[int] = []  # cells seen so far in each open row (a table may sit inside a cell)
    for t in walk(html, SkipList()):
        if t.kind == CLOSE and t.name == "tr" and rows:
            rows.pop()
        elif t.kind == OPEN and t.name == "tr":
            rows.append(0)
        elif t.kind == OPEN and (t.name == "pre" or (t.name in ("td", "th") and rows and rows[-1])):
            out.append(t.html[:len(t.name) + 1] + _EXCLUDE + t.html[len(t.name) + 1:])
            if t.name != "pre":
                rows[-1] += 1
            continue
        elif t.kind == OPEN and t.name in ("td", "th") and rows:
            rows[-1] += 1
        out.append(t.html)
    return "".join(out)
