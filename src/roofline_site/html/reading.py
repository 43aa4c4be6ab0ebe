"""Reading order of executed examples: the result a reader came for first, its code folded under it.

markdown-exec renders `source="above"` as the source block (a `<div class="highlight">` whose code
Pygments has coloured: it opens with a `<span class=...>` token) followed by the output (a
`<div class="highlight">` of plain text). `results_first` swaps them, marks the output
`rl-result` (the CSS wraps its lines: a result is never cut off) and folds the source into a
`<details class="rl-code">` (left out of the search index) whose summary is "Show code". Pure string work, no MkDocs import
(hooks/numbers_hook.py calls it from on_page_content).
"""

from __future__ import annotations

import re

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
