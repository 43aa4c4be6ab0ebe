"""Checking a source URL where it is read: a web address that every format the site publishes can carry.

A URL from a spec file or a glossary entry becomes an HTML href, a Markdown link destination in
the page copies, and a line of llms.txt. A `)` ends a Markdown destination early, so
`https://x.example/a)[pwn](javascript:alert(1)` would publish a live second link; quotes and
angle brackets end an attribute or a tag. Such characters are refused here, once, so that no
writer has to guess; a real address that needs one writes it percent-encoded (`%29` for `)`).

>>> url_problem("https://example.com/a?b=c#d") is None
True
>>> url_problem("https://x.example/a)[pwn](javascript:alert(1)")
"has ')', which ends a Markdown link; write it percent-encoded (%29)"
"""

from __future__ import annotations

import re
import unicodedata

#: Characters that end or break a Markdown link destination, an HTML attribute or a tag.
_BREAKING = "()<>\"'`\\{}|^[]"


def url_problem(url: object) -> str | None:
    """Why `url` cannot be a published source link (the end of a sentence), or None when it can."""
    if not isinstance(url, str) or not url:
        return "must be a non-empty string"
    if not url.startswith("https://"):
        return "must be an https:// URL"
    for ch in url:
        if ch.isspace() or unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn"):
            return f"has the character U+{ord(ch):04X} (a space, line break or control), which no link may hold"
        if ch in _BREAKING:
            return f"has {ch!r}, which ends a Markdown link; write it percent-encoded (%{ord(ch):02X})"
    if not re.match(r"https://[A-Za-z0-9.-]+(:[0-9]+)?(/|$|\?|#)", url):
        return "must name a host after https:// (letters, digits, dots and hyphens)"
    return None
