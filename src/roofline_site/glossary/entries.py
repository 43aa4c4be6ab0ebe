"""The glossary: entries loaded from glossary/<category>/<slug>.md, one term matcher, HTML annotation.

One function decides what counts as a mention of a term (`find_mentions`). The hover-card
hook uses it on every page's HTML, and the "Mentioned in" lists are the set of pages that
pass produced, so cards and backlinks cannot disagree. No MkDocs import here: the hook
module (`glossary_hooks`) and the gen-files script (`gen_glossary`) are the MkDocs glue.

Matching rules (documented once, here):
- every name is the term or one of its aliases;
- a name with an upper-case letter after its first character ("KV cache", "FLOPs", "MoE")
  matches case-sensitively; any other name ("ridge point") matches in any case;
- a space or hyphen inside a name matches a space, a no-break space or a hyphen;
- a plural "s" may follow; a name never matches inside a longer word, a hyphenated
  compound or a slash unit ("FLOP/byte");
- at one position the longest name wins ("continuous batching" over "batching").
"""

from __future__ import annotations

import html as _html
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import yaml

from roofline.readfile import UnreadableFile, read_capped
from roofline.quantities import Source  # a source is a title and a URL, as in the number provenance
from roofline_site.html import escape as esc
from roofline_site.html.walker import AS_WRITTEN, OPEN, OTHER, TEXT, walk

from roofline_site.paths import ROOT
GLOSSARY_DIR = ROOT / "glossary"


def glossary_dir() -> Path:
    """The glossary folder in use: $ROOFLINE_GLOSSARY if set (tests, what-ifs), else <repo>/glossary."""
    import os

    env = os.environ.get("ROOFLINE_GLOSSARY")
    return Path(env) if env else GLOSSARY_DIR
REDIRECTS_FILE = "_redirects.yml"

#: Folder name -> the label a card and the index show, in the index's order.
CATEGORIES = {
    "performance-model": "Performance model",
    "hardware": "Hardware",
    "model": "Model anatomy",
    "operation": "Operation",
    "number-format": "Number format",
    "inference-phase": "Inference phase",
    "execution": "Execution",
    "optimization": "Optimization",
    "parallelism": "Parallelism",
    "metric": "Metric",
    "serving": "Serving",
    "software": "Engines and tools",
}
#: Folder name -> the one sentence that opens its group on the glossary index.
CATEGORY_INTROS = {
    "performance-model": "The roofline itself: the two roofs, where they meet, and the bounds the site computes from them.",
    "hardware": "What a chip brings: its math units, its memories from registers to HBM, and the links between chips.",
    "model": "The parts of a transformer whose sizes set the bytes and FLOPs of every step.",
    "operation": "The kernels a step is made of, named by the shape of their math.",
    "number-format": "How many bits each weight, activation or cached value takes, and which peak a format runs at.",
    "inference-phase": "The two phases of generating text and the state that carries between them.",
    "execution": "How a GPU runs kernels, and the overheads that keep it below its roofs.",
    "optimization": "Moves that cut bytes, add useful FLOPs per byte, or keep the batch full.",
    "parallelism": "Ways to split one model over many chips, and the collectives each split needs.",
    "metric": "What you measure a running model by, and which roof each measure is compared with.",
    "serving": "The words of running a model for many users at once: requests, deadlines and trade-offs.",
    "software": "The engines and benchmarks whose numbers the site cites.",
}
REQUIRED_FIELDS = ("term", "category", "summary", "sources")
# A number standing alone ("8 bits", "3.35"); digits inside a name (FP32, E4M3, H100) are not one.
NUMERAL = re.compile(r"(?<![\w.])[+-]?\d[\d,.]*(?![\w])")
SLUG = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


class GlossaryError(Exception):
    """A glossary file is malformed: the message names the file and the field."""


@dataclass(frozen=True)
class Entry:
    """One glossary term, as its front matter and body declare it."""

    slug: str
    term: str
    aliases: tuple[str, ...]
    category: str
    summary: str
    sources: tuple[Source, ...]
    see_also: tuple[str, ...]
    body: str
    path: str  # relative to the repository root, e.g. "glossary/hardware/hbm.md"
    bindings: tuple[tuple[str, str], ...] = ()  # (name, expression): the body's tokens use the names

    @property
    def names(self) -> tuple[str, ...]:
        return (self.term, *self.aliases)

    @property
    def category_label(self) -> str:
        return CATEGORIES[self.category]

    @property
    def url(self) -> str:
        """Site-relative URL of the published page."""
        return f"glossary/{self.slug}/"


@dataclass(frozen=True)
class Mention:
    start: int
    end: int
    slug: str


@dataclass(frozen=True)
class Glossary:
    """All entries, the old-slug redirects, and the compiled term matcher."""

    entries: tuple[Entry, ...]
    redirects: dict = field(default_factory=dict)  # old slug -> current slug
    _pattern: "_Matcher" = field(default=None, repr=False, compare=False)
    _group_slug: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def by_slug(self) -> dict[str, Entry]:
        return {e.slug: e for e in self.entries}

    def get(self, slug: str) -> Entry:
        return self.by_slug[slug]


# ------------------------------------------------------------------ loading -----------------
# libyaml's safe loader where PyYAML was built with it: the same documents, about ten times faster.
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _split_front_matter(text: str, where: str) -> tuple[dict, str]:
    if not text.startswith("---\n"):
        raise GlossaryError(f"{where}: the file must start with a '---' front-matter block")
    end = text.find("\n---", 4)
    if end == -1:
        raise GlossaryError(f"{where}: the front-matter block is not closed with '---'")
    try:
        meta = yaml.load(text[4:end], Loader=_YAML_LOADER) or {}
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        line = f" line {mark.line + 2}" if mark else ""
        raise GlossaryError(f"{where}:{line}: front matter is not valid YAML ({getattr(err, 'problem', err)})") from None
    if not isinstance(meta, dict):
        raise GlossaryError(f"{where}: front matter must be a mapping of fields")
    return meta, text[end + 4:].lstrip("\n")


def _str_list(meta: dict, key: str, where: str) -> tuple[str, ...]:
    value = meta.get(key) or []
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise GlossaryError(f"{where}: field '{key}' must be a list of non-empty strings")
    return tuple(v.strip() for v in value)


#: A glossary entry is a few KB of text; past this a file is not one.
MAX_ENTRY_BYTES = 1024 * 1024


def _read(path: Path, where: str) -> str:
    """A glossary file's text through the package's one capped reader (no hang on a FIFO or a device)."""
    try:
        return read_capped(path, MAX_ENTRY_BYTES, "glossary file").decode("utf-8")
    except UnreadableFile as err:
        raise GlossaryError(f"{where}: {err}") from None
    except UnicodeDecodeError:
        raise GlossaryError(f"{where}: not UTF-8 text; save the file as UTF-8") from None


def parse_entry(path: Path, root: Path = ROOT) -> Entry:
    """Read one entry file; raise GlossaryError naming the file and field on any problem."""
    where = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
    meta, body = _split_front_matter(_read(path, where), where)
    for key in REQUIRED_FIELDS:
        if not meta.get(key):
            raise GlossaryError(f"{where}: field '{key}' is missing or empty")
    for key in ("term", "category", "summary"):
        if not isinstance(meta[key], str):
            raise GlossaryError(f"{where}: field '{key}' must be a string")
    slug, folder = path.stem, path.parent.name
    if not SLUG.match(slug):
        raise GlossaryError(f"{where}: the file name must be a lower-case slug such as 'ridge-point.md'")
    if meta["category"] not in CATEGORIES:
        raise GlossaryError(f"{where}: category '{meta['category']}' is not one of {', '.join(CATEGORIES)}")
    if meta["category"] != folder:
        raise GlossaryError(f"{where}: category '{meta['category']}' does not match its folder '{folder}'")
    summary = " ".join(meta["summary"].split())
    if not summary.endswith(".") or summary.count(". ") > 0:
        raise GlossaryError(f"{where}: field 'summary' must be one sentence ending with a full stop")
    if (numeral := NUMERAL.search(summary)) is not None:
        # Summaries show in hover cards and descriptions, where no token can compute a number.
        raise GlossaryError(f"{where}: field 'summary' must not contain a numeral ('{numeral.group()}'); "
                            "put numbers in the body, as tokens")
    sources = meta["sources"]
    if not isinstance(sources, list) or not all(
            isinstance(s, dict) and isinstance(s.get("title"), str) and isinstance(s.get("url"), str)
            and s["url"].startswith("https://") for s in sources):
        raise GlossaryError(f"{where}: field 'sources' must be a list of {{title, url}} with https URLs")
    if not body.strip():
        raise GlossaryError(f"{where}: the entry has no body (start it with the definition)")
    return Entry(slug=slug, term=meta["term"].strip(), aliases=_str_list(meta, "aliases", where),
                 category=meta["category"], summary=summary,
                 sources=tuple(Source(s["title"], s["url"]) for s in sources),
                 see_also=_str_list(meta, "see_also", where), body=body, path=where,
                 bindings=_bindings(meta, where))


def _bindings(meta: dict, where: str) -> tuple[tuple[str, str], ...]:
    """The entry's `bindings:` (name: expression), checked as text here and evaluated with the page."""
    value = meta.get("bindings") or {}
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise GlossaryError(f"{where}: field 'bindings' must be a mapping of name: expression (as text)")
    return tuple(value.items())


def _check(entries: tuple[Entry, ...], redirects: dict) -> None:
    slugs = {}
    for e in entries:
        if e.slug in slugs:
            raise GlossaryError(f"{e.path}: slug '{e.slug}' is also used by {slugs[e.slug]}")
        slugs[e.slug] = e.path
    owner: dict[str, Entry] = {}
    for e in entries:
        for name in e.names:
            if re.search(r"[<>&\"]", name):
                raise GlossaryError(f"{e.path}: name '{name}' must not contain < > & or quotes")
            key = _fold(name)
            if key in owner and owner[key] is not e:
                raise GlossaryError(f"{e.path}: name '{name}' already belongs to {owner[key].path}")
            owner[key] = e
        for other in e.see_also:
            if other not in slugs:
                raise GlossaryError(f"{e.path}: see_also '{other}' is not a glossary slug")
            if other == e.slug:
                raise GlossaryError(f"{e.path}: see_also lists the entry itself")
    for old, new in redirects.items():
        if old in slugs:
            raise GlossaryError(f"glossary/{REDIRECTS_FILE}: '{old}' is a live slug and cannot redirect")
        if new not in slugs:
            raise GlossaryError(f"glossary/{REDIRECTS_FILE}: '{old}' redirects to '{new}', which is not a slug")


def _load_redirects(folder: Path) -> dict[str, str]:
    path = folder / REDIRECTS_FILE
    if not path.exists():
        return {}
    try:
        data = yaml.safe_load(_read(path, f"glossary/{REDIRECTS_FILE}")) or {}
    except yaml.YAMLError as err:
        raise GlossaryError(f"glossary/{REDIRECTS_FILE}: not valid YAML ({getattr(err, 'problem', err)})") from None
    if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
        raise GlossaryError(f"glossary/{REDIRECTS_FILE}: must map old slugs to current slugs (old: new)")
    return dict(data)


def load_glossary(folder: Path | None = None) -> Glossary:
    """Every entry under `folder` (default `glossary_dir()`), checked (fields, categories, see_also, names)."""
    folder = folder or glossary_dir()
    root = folder.parent
    entries = tuple(sorted((parse_entry(p, root) for p in folder.glob("*/*.md")), key=lambda e: e.term.lower()))
    redirects = _load_redirects(folder)
    _check(entries, redirects)
    pattern, group_slug = _compile(entries)
    return Glossary(entries, redirects, pattern, group_slug)


# ------------------------------------------------------------------ matching ----------------
def _fold(name: str) -> str:
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
class _Matcher:
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


def _compile(entries: tuple[Entry, ...]) -> tuple[_Matcher, dict]:
    names = sorted(((n, e.slug) for e in entries for n in e.names), key=lambda t: (-len(t[0]), t[0]))
    group_slug, alts = {}, {}
    for i, (name, slug) in enumerate(names):
        group_slug[f"g{i}"] = slug
        alts.setdefault(name.strip()[0].lower(), []).append(f"(?P<g{i}>{name_pattern(name)})")
    by_first = {c: re.compile(rf"{_BEFORE}(?:{'|'.join(a)}){_AFTER}") for c, a in alts.items()}
    firsts = "".join(sorted({c for k in alts for c in (k, k.upper())}))
    starts = re.compile(rf"{_BEFORE}[{re.escape(firsts)}]" if firsts else r"(?!x)x")
    return _Matcher(starts, by_first), group_slug


def find_mentions(text: str, glossary: Glossary) -> list[Mention]:
    """Every mention of a glossary term in plain text, left to right, non-overlapping."""
    return [Mention(m.start(), m.end(), glossary._group_slug[m.lastgroup])
            for m in glossary._pattern.finditer(text)]


# ------------------------------------------------------------------ HTML --------------------
# What a card may never go into (code, links, headings, number spans, existing cards, opt-outs...)
# is html/walker.py's AS_WRITTEN, the one skip list the descriptions and Markdown copies share.
HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})


@dataclass(frozen=True)
class Annotated:
    html: str
    mentioned: frozenset  # slugs that got a card on this page
    linked: frozenset     # slugs this page links to by hand (before annotation)


def resolve_glossary_link(href: str, page_url: str, glossary: Glossary) -> str | None:
    """The slug a link (its href as the browser reads it) points to from the page at `page_url`, or None."""
    href = href.split("#", 1)[0].split("?", 1)[0]
    if not href or re.match(r"^[a-z][a-z0-9+.-]*:", href, re.I) or href.startswith("//"):
        return None
    path = urlsplit(urljoin("http://site/" + page_url, href)).path
    m = re.fullmatch(r"/?glossary/([a-z0-9-]+)(?:/|/index\.html|\.html|\.md)?", path.lstrip("/"))
    if m and m.group(1) in glossary.by_slug:
        return m.group(1)
    return None


def card_html(entry: Entry, href: str) -> str:
    """The hover card of one entry: term, category, the one-sentence summary, a link."""
    e = esc.text
    return (f'<span class="gl-card" role="tooltip" id="gl-card-{entry.slug}" hidden>'
            f'<span class="gl-card-head"><strong class="gl-card-term">{e(entry.term)}</strong> '
            f'<span class="gl-card-cat">{e(entry.category_label)}</span></span>'
            f'<span class="gl-card-summary">{e(entry.summary)}</span>'
            f'<a class="gl-card-link" href="{esc.attr(href)}">Open the glossary entry</a></span>')


def annotate_html(html: str, glossary: Glossary, page_url: str, href_for, exclude: frozenset = frozenset()) -> Annotated:
    """Wrap the first mention of each term in each section (in prose outside AS_WRITTEN); the
    first on the page is a link to the entry, later sections' a focusable span.

    `href_for(slug)` gives the link from this page to the entry; `exclude` holds slugs not to
    annotate (an entry's own page). The cards go once per term at the end of the content.
    """
    linked: set[str] = set()
    seen: list[str] = []
    in_section: set[str] = set()  # slugs already marked since the last heading
    out = []
    for token in walk(html, AS_WRITTEN):
        chunk = token.html
        if token.kind != TEXT or token.skipped:
            if token.name in HEADINGS and token.kind == OPEN:
                in_section = set()  # a heading opens a new section: terms are marked again after it
            elif token.name == "a" and token.kind in (OPEN, OTHER) and (href := token.attrs().get("href")):
                if (slug := resolve_glossary_link(href, page_url, glossary)):
                    linked.add(slug)
            out.append(chunk)
            continue
        last = 0
        for mention in find_mentions(chunk, glossary):
            if mention.slug in exclude or mention.slug in in_section:
                continue  # quiet until asked: one mark per term per section
            text = chunk[mention.start:mention.end]
            slug = mention.slug
            in_section.add(slug)
            if slug not in seen:
                seen.append(slug)
                trigger = (f'<a class="gl-term" href="{_html.escape(href_for(slug))}" '
                           f'aria-describedby="gl-card-{slug}">{text}</a>')
            else:
                trigger = f'<span class="gl-term" tabindex="0" aria-describedby="gl-card-{slug}">{text}</span>'
            out.append(chunk[last:mention.start])
            out.append(f'<span class="gl-ref" data-gl="{slug}">{trigger}</span>')
            last = mention.end
        out.append(chunk[last:])
    if seen:
        by_slug = glossary.by_slug
        cards = "".join(card_html(by_slug[s], href_for(s)) for s in seen)
        out.append(f'\n<div class="gl-cards" hidden data-search-exclude>{cards}</div>')
    return Annotated("".join(out), frozenset(seen), frozenset(linked))


# ------------------------------------------------------------------ generated Markdown -----
#: Filled by the hook with a link to the entry's source file (the page's edit URL).
EDIT_MARKER = '<span class="gl-edit"></span>'


def entry_markdown(entry: Entry, glossary: Glossary) -> str:
    """The page published at /glossary/<slug>/: title, category, body, see also, backlinks, sources."""
    by_slug = glossary.by_slug
    # Search ranks a definition above a passing mention on an explainer page (Material's boost).
    # The entry's bindings travel in the published page's front matter, where the number hook reads them.
    bound = ["bindings:", *(f"  {name}: {json.dumps(expr, ensure_ascii=False)}" for name, expr in entry.bindings)]
    lines = ["---", "search:", "  boost: 2", *(bound if entry.bindings else []), "---", "",
             f"# {esc.text(entry.term)}", "",
             f'<p class="gl-meta"><span class="gl-cat">{esc.text(entry.category_label)}</span>'
             + (f" · also called {', '.join(f'<em>{esc.text(a)}</em>' for a in entry.aliases)}" if entry.aliases else "")
             + f' · {EDIT_MARKER}</p>', "", entry.body.rstrip(), ""]
    if entry.see_also:
        lines += ["## See also", ""]
        lines += [f"- [{esc.text(by_slug[s].term)}]({s}.md): {esc.text(by_slug[s].summary)}" for s in entry.see_also]
        lines.append("")
    lines += ["## Mentioned in", "", f'<div class="gl-mentioned" data-gl-mentioned="{entry.slug}"></div>', "",
              "## Sources", ""]
    lines += [f"- {esc.link(s.title, s.url)}" for s in entry.sources]
    return "\n".join(lines) + "\n"


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
        lines += [f"- [{esc.text(e.term)}]({e.slug}.md): {esc.text(e.summary)}" for e in members]
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
