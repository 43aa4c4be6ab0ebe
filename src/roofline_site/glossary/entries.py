"""The glossary's entries loaded from glossary/<category>/<slug>.md and checked, one sentence per fault.

The glossary package by concern: records.py (what an entry is), entries.py (reading and checking
the files), matching.py (the one term matcher), annotate.py (hover cards on a page) and pages.py
(the generated entry and index pages). Callers may import any of their public names from here.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import yaml

from roofline.readfile import UnreadableFile, read_capped
from roofline_site import front_matter
from roofline.urls import url_problem
from roofline.quantities import Source
from roofline_site.glossary.annotate import Annotated, annotate_html, card_html, resolve_glossary_link
from roofline_site.glossary.matching import Mention, case_sensitive, compile_matcher, find_mentions, fold, name_pattern
from roofline_site.glossary.pages import EDIT_MARKER, entry_markdown, index_markdown
from roofline_site.glossary.records import CATEGORIES, CATEGORY_INTROS, Entry, Glossary, GlossaryError
from roofline_site.paths import ROOT

GLOSSARY_DIR = ROOT / "glossary"
REDIRECTS_FILE = "_redirects.yml"
REQUIRED_FIELDS = ("term", "category", "summary", "sources")
# A number standing alone ("8 bits", "3.35"); digits inside a name (FP32, E4M3, H100) are not one.
NUMERAL = re.compile(r"(?<![\w.])[+-]?\d[\d,.]*(?![\w])")
SLUG = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")

__all__ = ["CATEGORIES", "CATEGORY_INTROS", "EDIT_MARKER", "Annotated", "Entry", "Glossary", "GlossaryError", "Mention",
           "annotate_html", "card_html", "case_sensitive", "compile_matcher", "entry_markdown", "find_mentions", "fold",
           "glossary_dir", "index_markdown", "load_glossary", "name_pattern", "parse_entry", "resolve_glossary_link"]


def glossary_dir() -> Path:
    """The glossary folder in use: $ROOFLINE_GLOSSARY if set (tests, what-ifs), else <repo>/glossary."""
    import os

    env = os.environ.get("ROOFLINE_GLOSSARY")
    if env is None:
        return GLOSSARY_DIR
    if not env.strip():  # never read as "not set": that would build the bundled glossary in silence
        raise GlossaryError("ROOFLINE_GLOSSARY is set but empty; unset it to use the bundled glossary/, "
                            "or name a folder")
    folder = Path(env)
    if not folder.is_dir():
        shown = env if len(env) <= 80 else env[:38] + "…" + env[-38:]
        what = "does not exist" if not folder.exists() else "is not a folder"
        raise GlossaryError(f"ROOFLINE_GLOSSARY={shown}: {what}; name a folder of glossary entries")
    return folder



def _split_front_matter(text: str, where: str) -> tuple[dict, str]:
    if not text.startswith("---\n"):
        raise GlossaryError(f"{where}: the file must start with a '---' front-matter block")
    end = text.find("\n---", 4)
    if end == -1:
        raise GlossaryError(f"{where}: the front-matter block is not closed with '---'")
    try:
        meta = front_matter.load(text[4:end]) or {}
    except front_matter.Refused as err:
        raise GlossaryError(f"{where}: front matter {err}") from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        line = f" line {mark.line + 2}" if mark else ""
        raise GlossaryError(f"{where}:{line}: front matter is not valid YAML "
                            f"({getattr(err, 'problem', None) or err})") from None
    if not isinstance(meta, dict):
        raise GlossaryError(f"{where}: front matter must be a mapping of fields")
    if (problem := front_matter.meta_problem(meta, front_matter.ENTRY_KEYS)) is not None:
        raise GlossaryError(f"{where}: {problem}")
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
    return _entry(_read(path, where), path.stem, path.parent.name, where)


# Kept per text: `mkdocs serve` loads the whole glossary at every rebuild (its hook and its generated
# pages), and an edit changes one file at most (16 ms of each rebuild's parsing, where an edit must show within a second). Keyed by
# everything the entry is made from, so an edited file is parsed again; an Entry is frozen.
@functools.lru_cache(maxsize=4096)
def _entry(text: str, slug: str, folder: str, where: str) -> Entry:
    meta, body = _split_front_matter(text, where)
    for key in REQUIRED_FIELDS:
        if not meta.get(key):
            raise GlossaryError(f"{where}: field '{key}' is missing or empty")
    for key in ("term", "category", "summary"):
        if not isinstance(meta[key], str):
            raise GlossaryError(f"{where}: field '{key}' must be a string")
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
            for s in sources):
        raise GlossaryError(f"{where}: field 'sources' must be a list of {{title, url}} with https URLs")
    for i, s in enumerate(sources, 1):
        if (problem := url_problem(s["url"])) is not None:
            raise GlossaryError(f"{where}: field 'sources': source {i}'s url {problem}")
    if not body.strip():
        raise GlossaryError(f"{where}: the entry has no body (start it with the definition)")
    return Entry(slug=slug, term=meta["term"].strip(), aliases=_str_list(meta, "aliases", where),
                 category=meta["category"], summary=summary,
                 sources=tuple(Source(s["title"], s["url"]) for s in sources),
                 see_also=_str_list(meta, "see_also", where), body=body, path=where,
                 bindings=_bindings(meta, where), marked=_marked(meta, where))


def _marked(meta: dict, where: str) -> bool:
    """The entry's `marked:` (default true): whether the term matcher marks its mentions on pages."""
    value = meta.get("marked", True)
    if not isinstance(value, bool):
        raise GlossaryError(f"{where}: field 'marked' must be true or false")
    return value


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
            key = fold(name)
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
    pattern, group_slug = compile_matcher(entries)
    return Glossary(entries, redirects, pattern, group_slug)
