"""The glossary's generated pages: one per entry and the index (by category, then A to Z)."""

from __future__ import annotations

import json
import re

from roofline_site.glossary.records import CATEGORIES, CATEGORY_INTROS, Entry, Glossary
from roofline_site.html import escape as esc


#: Filled by the hook with a link to the entry's source file (the page's edit URL).
EDIT_MARKER = '<span class="gl-edit"></span>'


def entry_markdown(entry: Entry, glossary: Glossary) -> str:
    """The page published at /glossary/<slug>/: title, the definition, category, body, see also,
    backlinks, sources."""
    by_slug = glossary.by_slug
    # Search ranks a definition above a passing mention on an explainer page (Material's boost).
    # The entry's bindings travel in the published page's front matter, where the number hook reads them.
    bound = ["bindings:", *(f"  {name}: {json.dumps(expr, ensure_ascii=False)}" for name, expr in entry.bindings)]
    # The summary is the definition: it opens the page, and it is the page's description (meta tag,
    # llms.txt), so a search snippet or an index shows what the term is rather than its category.
    lines = ["---", "search:", "  boost: 2", f"description: {json.dumps(entry.summary, ensure_ascii=False)}",
             *(bound if entry.bindings else []), "---", "",
             f"# {esc.text(entry.term)}", "",
             f'<p class="gl-lead">{esc.text(entry.summary)}</p>', "",
             f'<p class="gl-meta"><span class="gl-cat">{esc.text(entry.category_label)}</span>'
             + (f" · also called {', '.join(f'<em>{esc.text(a)}</em>' for a in entry.aliases)}" if entry.aliases else "")
             + f' · {EDIT_MARKER}</p>', "", entry.body.rstrip(), ""]
    if entry.see_also:
        lines += ["## See also", ""]
        lines += [f"- {linked_definition(by_slug[s])}" for s in entry.see_also]
        lines.append("")
    lines += ["## Mentioned in", "", f'<div class="gl-mentioned" data-gl-mentioned="{entry.slug}"></div>', "",
              "## Sources", ""]
    lines += [f"- {esc.link(s.title, s.url)}" for s in entry.sources]
    return "\n".join(lines) + "\n"


def linked_definition(entry: Entry) -> str:
    """A list line's text for `entry`: its definition with the defined name linked ("The [KV cache](kv-cache.md)
    is …"), so a list does not say the term twice; "[Term](slug.md): summary" where the definition
    opens otherwise.

    >>> from roofline_site.glossary.records import Entry
    >>> e = Entry("hbm", "HBM", ("high-bandwidth memory",), "hardware", "HBM (high-bandwidth memory) is DRAM.", (), (), "x", "")
    >>> linked_definition(e)
    '[HBM](hbm.md) (high-bandwidth memory) is DRAM.'
    """
    names = "|".join(re.escape(n) for n in sorted(entry.names, key=len, reverse=True))
    m = re.match(rf"((?:A|An|The)\s+)?({names})(?=[\s(])", entry.summary, re.IGNORECASE)
    if m is None:
        return f"[{esc.text(entry.term)}]({entry.slug}.md): {esc.text(entry.summary)}"
    rest = entry.summary[m.end():]  # escaping trims the edges: the space after the name is put back
    return f"{m.group(1) or ''}[{esc.text(m.group(2))}]({entry.slug}.md) {esc.text(rest)}"


def _letter(name: str) -> str:
    """The A–Z heading a name files under: its first letter, or "#" for a digit or symbol."""
    return name[0].upper() if name[0].isalpha() else "#"


def _letter_id(letter: str) -> str:
    return f"a-z-{letter.lower()}" if letter != "#" else "a-z-other"


def _distinct_names(entry: Entry) -> list[str]:
    """The term and the aliases that are not mere spellings of an earlier name (case, hyphens,
    spaces, a plural s): "all-gathers" and "allgather" add nothing to the A–Z under "All-gather"."""
    seen, out = set(), []
    for name in entry.names:
        key = re.sub(r"[\s\u00a0\-/’']+", "", name).lower().removesuffix("s")
        if key not in seen:
            seen.add(key)
            out.append(name)
    return out


def index_markdown(glossary: Glossary) -> str:
    """The page published at /glossary/: a jump list, entries by category (each with its one-sentence
    introduction and every entry's summary), then every name A to Z with letter links."""
    present = [c for c in CATEGORIES if any(e.category == c for e in glossary.entries)]
    names = sorted(((n, e) for e in glossary.entries for n in _distinct_names(e)), key=lambda t: (t[0].lower(), t[0]))
    letters = list(dict.fromkeys(_letter(n) for n, _ in names))
    lines = ["# Glossary", "",
             "Every term the site uses, one page each, grouped by what it is about and then A to Z. "
             "<span class=\"rl-if-hover\">Hover over or focus</span>"
             "<span class=\"rl-if-touch\">Tap</span> a term anywhere on the site to see its definition; "
             "the first mention on a page links here.", "",
             '<nav class="gl-jump" aria-label="Glossary categories"><ul>'
             + "".join(f'<li><a href="#{c}">{esc.text(CATEGORIES[c])}</a></li>' for c in present)
             + '<li><a href="#a-z">A–Z</a></li></ul></nav>', "",
             '<div class="gl-index" markdown>', ""]
    for cat in present:
        members = [e for e in glossary.entries if e.category == cat]
        lines += [f"## {CATEGORIES[cat]} {{#{cat}}}", "", f'<p class="gl-intro">{esc.text(CATEGORY_INTROS[cat])}</p>', ""]
        lines += [f"- {linked_definition(e)}" for e in members]
        lines.append("")
    lines += ["## A–Z {#a-z}", "",
              '<nav class="gl-letters" aria-label="Letters"><ul>'
              + "".join(f'<li><a href="#{_letter_id(x)}">{x}</a></li>' for x in letters) + "</ul></nav>", ""]
    letter = None
    for name, e in names:
        if _letter(name) != letter:
            letter = _letter(name)
            shown = "\\#" if letter == "#" else letter  # a bare "#" would close the ATX heading
            lines += ["", f"### {shown} {{#{_letter_id(letter)}}}", ""]
        lines.append(f"- [{esc.text(name)}]({e.slug}.md)" if name == e.term
                     else f"- {esc.text(name)}: see [{esc.text(e.term)}]({e.slug}.md)")
    lines += ["", "</div>", ""]
    return "\n".join(lines)
