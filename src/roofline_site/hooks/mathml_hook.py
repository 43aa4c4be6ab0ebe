"""MkDocs hook: TeX from pymdownx.arithmatex (generic mode) -> MathML at build time.

Chromium, Firefox and Safari render MathML natively, so formulas need no JavaScript,
no font download and no CDN (latex2mathml is pure Python).
"""

from __future__ import annotations

import html
import re

from latex2mathml.converter import convert
from mkdocs.exceptions import PluginError

INLINE = re.compile(r'<span class="arithmatex">\\\((.*?)\\\)</span>', re.S)
BLOCK = re.compile(r'<div class="arithmatex">\\\[(.*?)\\\]</div>', re.S)


def to_mathml(tex: str, display: str, where: str) -> str:
    try:
        return convert(html.unescape(tex).strip(), display=display)
    except Exception as err:  # noqa: BLE001 — report any TeX the converter rejects against the page
        raise PluginError(f"{where}: cannot convert the formula {tex.strip()!r} to MathML: {err}") from None


def on_page_content(content: str, page, **kwargs) -> str:
    where = page.file.src_uri
    content = BLOCK.sub(lambda m: f'<div class="rl-math">{to_mathml(m.group(1), "block", where)}</div>', content)
    return INLINE.sub(lambda m: to_mathml(m.group(1), "inline", where), content)
