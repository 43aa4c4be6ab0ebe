"""The public changelog of numbers: per release, which quoted numbers changed and why.

The data is docs/_data/changelog.toml, one `[[release]]` per release, oldest
first: a version, a date, the ref it was compared with, a short human note, and the
rows `python -m roofline_site.release.numbers_diff REF --record VERSION --note "..."` found
(`[[release.change]]`). docs/changelog.md quotes `{{ changelog() }}`, which renders it,
newest first. Values are recorded text (what the site printed then), so they are shown
as code, not as live numbers.
"""

from __future__ import annotations

import datetime as _dt
import html
import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from roofline_site.paths import ROOT
from roofline_site.release.rows import ReleaseError, Row

DATA_RELPATH = "docs/_data/changelog.toml"
VERSION = re.compile(r"^\d+(\.\d+)+$")
#: Row kinds a release records: changed numbers and figures, pages that appeared or went.
RECORDED_KINDS = ("number", "figure", "page-added", "page-removed")


#: Fields of a row the changelog keeps (the token's expression is for the report only).
KEPT_FIELDS = ("kind", "page", "old", "new", "sentence", "label")


@dataclass(frozen=True)
class Release:
    """One published release of the site and the quoted numbers it changed."""

    version: str
    date: str
    note: str
    since: str = ""
    commit: str = ""
    changes: tuple[Row, ...] = ()


def load(path: Path = ROOT / DATA_RELPATH) -> list[Release]:
    """Every release in the data file, oldest first."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as err:
        raise ReleaseError(f"{path.name}: cannot be read: {err}") from None
    out = []
    for i, entry in enumerate(data.get("release", []), 1):
        version = str(entry.get("version", ""))
        if not VERSION.match(version):
            raise ReleaseError(f"{path.name}: release {i}: 'version' must look like 0.2.0, got {version!r}")
        if not str(entry.get("note", "")).strip():
            raise ReleaseError(f"{path.name}: release {version}: 'note' is empty; say why the numbers changed")
        changes = tuple(Row(**{k: str(c.get(k, "")) for k in KEPT_FIELDS})
                        for c in entry.get("change", []))
        out.append(Release(version, str(entry.get("date", "")), str(entry["note"]).strip(),
                           str(entry.get("since", "")), str(entry.get("commit", "")), changes))
    return out


def _toml_str(text: str) -> str:
    # A JSON string is a valid TOML basic string.
    return json.dumps(str(text), ensure_ascii=False)


def release_toml(release: Release) -> str:
    """The TOML block of one release, as appended to the data file."""
    lines = ["", "[[release]]", f"version = {_toml_str(release.version)}", f"date = {release.date}",
             f"since = {_toml_str(release.since)}", f"commit = {_toml_str(release.commit)}",
             f"note = {_toml_str(release.note)}"]
    for c in release.changes:
        lines += ["", "[[release.change]]"]
        lines += [f"{k} = {_toml_str(getattr(c, k))}" for k in KEPT_FIELDS if getattr(c, k)]
    return "\n".join(lines) + "\n"


def check_new_release(version: str, note: str, path: Path) -> None:
    """Raise ReleaseError (one sentence) unless `version` and `note` can be recorded in the file at `path`."""
    if not VERSION.match(version):
        raise ReleaseError(f"release version must look like 0.2.0, got '{version}'")
    if not note.strip():
        raise ReleaseError("--record needs --note: one sentence saying why the numbers changed")
    existing = load(path) if path.exists() else []
    if any(r.version == version for r in existing):
        raise ReleaseError(f"release {version} is already in {path.name}")


def record(version: str, note: str, since: str, commit: str, rows, path: Path,
           today: _dt.date | None = None) -> Path:
    """Append a release with the recorded kinds of `rows` (numbers_diff.Row) to the data file at `path`."""
    check_new_release(version, note, path)
    if any(r.kind == "error" for r in rows):
        raise ReleaseError("a page failed to render; fix it before recording a release")
    changes = tuple(Row(**{k: getattr(r, k) for k in KEPT_FIELDS}) for r in rows if r.kind in RECORDED_KINDS)
    release = Release(version, (today or _dt.date.today()).isoformat(), note.strip(), since, commit, changes)
    from roofline.atomic import atomic_write_text

    # The whole file rewritten through a temporary file: a full disk never leaves half a release.
    existing = path.read_text(encoding="utf-8") if path.exists() else ""
    return atomic_write_text(path, existing + release_toml(release))


# ---------------------------------------------------------------- page --------------------
def _code(text: str) -> str:
    return f"<code>{html.escape(text)}</code>" if text else "—"


def _page_href(page: str, docs_dir: Path) -> str | None:
    """The URL of a docs page as seen from the changelog page (docs/changelog.md, served at changelog/)."""
    if not (page.startswith("docs/") and (docs_dir / page[len("docs/"):]).is_file()):
        return None
    rel = page[len("docs/"):].removesuffix(".md")
    return "../" if rel == "index" else f"../{rel.removesuffix('/index')}/"


def _page_link(page: str, docs_dir: Path) -> str:
    href = _page_href(page, docs_dir)
    name = html.escape(page.removeprefix("docs/").removesuffix(".md"))
    return f'<a href="{href}">{name}</a>' if href else f"<code>{html.escape(page)}</code>"


def _changes_html(numbers: list[Row], docs_dir: Path) -> str:
    """Changed numbers grouped by page, each page a collapsed table.

    Raw HTML, not a Markdown table: a release can change hundreds of numbers (a spec fix moves
    a whole table), and Markdown's inline pass over every cell would cost a visible share of the
    build. Everything is escaped here.
    """
    by_page: dict[str, list[Row]] = {}
    for c in numbers:
        by_page.setdefault(c.page, []).append(c)
    out = []
    for page, rows in by_page.items():
        body = "".join(f"<tr><td>{html.escape(c.sentence)}</td><td>{_code(c.old)}</td><td>{_code(c.new)}</td></tr>"
                       for c in rows)
        count = f"{len(rows)} number{'s' if len(rows) != 1 else ''}"
        out.append(f'<details class="rl-changes" data-glossary="off"><summary>{_page_link(page, docs_dir)}: {count}</summary>\n'
                   f"<table><thead><tr><th>Sentence</th><th>Was</th><th>Now</th></tr></thead>"
                   f"<tbody>{body}</tbody></table>\n</details>")
    return "\n".join(out)


def release_markdown(release: Release, docs_dir: Path) -> str:
    """One release: heading, date and note in Markdown, then its changed numbers (HTML) and figures."""
    out = [f"## v{release.version}", ""]
    since = f" Compared with `{release.since}`." if release.since else ""
    out += [f"*Released {release.date}.*{since}", "", release.note, ""]
    numbers = [c for c in release.changes if c.kind == "number"]
    figures = [c for c in release.changes if c.kind == "figure"]
    pages = [c for c in release.changes if c.kind in ("page-added", "page-removed")]
    if numbers:
        out += [_changes_html(numbers, docs_dir), ""]
    else:
        out += ["No quoted number changed.", ""]
    for c in figures:
        out.append(f"- Figure `{c.page}`: {c.sentence or 'data changed'}.")
    for c in pages:
        verb = "New page" if c.kind == "page-added" else "Removed page"
        out.append(f"- {verb}: {_page_link(c.page, docs_dir)}.")
    if figures or pages:
        out.append("")
    return "\n".join(out)


def changelog_markdown(path: Path = ROOT / DATA_RELPATH, docs_dir: Path = ROOT / "docs") -> str:
    """Every release, newest first."""
    releases = load(path)
    if not releases:
        return "No release has been recorded yet."
    return "\n".join(release_markdown(r, docs_dir) for r in reversed(releases))


def changelog():
    """The token `{{ changelog() }}`: the rendered releases, inserted as Markdown."""
    from roofline_site.numbers.tokens import Raw

    return Raw(changelog_markdown())
