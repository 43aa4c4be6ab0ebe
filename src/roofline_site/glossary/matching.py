"""The one term matcher: what counts as a mention of a glossary term (`find_mentions`).

The hover-card hook uses it on every page's HTML, and the "Mentioned in" lists are the set of pages
that pass produced, so cards and backlinks cannot disagree.

Matching rules (documented once, here):
- every name is the term or one of its aliases, of an entry not declared `marked: false`;
- a name with an upper-case letter after its first character ("KV cache", "FLOPs", "MoE")
  matches case-sensitively; any other name ("ridge point") matches in any case;
- a space or hyphen inside a name matches a space, a no-break space or a hyphen;
- a plural "s" may follow; a name never matches inside a longer word, a hyphenated
  compound or a slash unit ("FLOP/byte");
- at one position the longest name wins ("continuous batching" over "batching").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from roofline_site.glossary.records import Entry, Glossary


@dataclass(frozen=True)
class Mention:
    start: int
    end: int
    slug: str


def fold(name: str) -> str:
    """The key two names clash on: case, spaces, no-break spaces and hyphens folded."""
    return re.sub(r"[\s\u00a0-]+", " ", name).lower()


def case_sensitive(name: str) -> bool:
    """A name with a capital after its first character ("KV cache", "FLOPs") keeps its case."""
    return any(c.isupper() for c in name[1:])


def name_pattern(name: str) -> str:
    """The regex for one name (no boundaries): separators loose, case per `case_sensitive`."""
    parts = [re.escape(p) for p in re.split(r"[\s-]+", name.strip())]
    core = r"[\s\u00a0-]+".join(parts)
    return core if case_sensitive(name) else f"(?i:{core})"


_BEFORE = r"(?<![\w/\-])"      # a name never starts inside a word, a compound or a unit
_AFTER = r"s?(?![\w/]|-\w)"    # a plural s may follow; then the word must end


@dataclass(frozen=True)
class Matcher:
    """The term matcher: one alternation per first letter, longest name first.

    Equivalent to one alternation of every name (the longest name wins at a position, matches
    never overlap), but each word start tries only the names that begin with its letter: with
    hundreds of names that is several times faster on every page of every build.
    """

    starts: re.Pattern            # positions where some name may start
    by_first: dict                # lower-case first character -> compiled alternation

    def finditer(self, text: str):
        pos = 0
        while (start := self.starts.search(text, pos)) is not None:
            m = self.by_first[text[start.start()].lower()].match(text, start.start())
            if m is None:
                pos = start.start() + 1
                continue
            yield m
            pos = m.end()


def compile_matcher(entries: tuple[Entry, ...]) -> tuple[Matcher, dict]:
    """The matcher over every name of `entries`, and its group name -> slug map."""
    names = sorted(((n, e.slug) for e in entries if e.marked for n in e.names), key=lambda t: (-len(t[0]), t[0]))
    group_slug, alts = {}, {}
    for i, (name, slug) in enumerate(names):
        group_slug[f"g{i}"] = slug
        alts.setdefault(name.strip()[0].lower(), []).append(f"(?P<g{i}>{name_pattern(name)})")
    by_first = {c: re.compile(rf"{_BEFORE}(?:{'|'.join(a)}){_AFTER}") for c, a in alts.items()}
    firsts = "".join(sorted({c for k in alts for c in (k, k.upper())}))
    starts = re.compile(rf"{_BEFORE}[{re.escape(firsts)}]" if firsts else r"(?!x)x")
    return Matcher(starts, by_first), group_slug


def find_mentions(text: str, glossary: Glossary) -> list[Mention]:
    """Every mention of a glossary term in plain text, left to right, non-overlapping."""
    return [Mention(m.start(), m.end(), glossary.group_slug[m.lastgroup])
            for m in glossary.matcher.finditer(text)]
