"""Nothing a file contains runs on a page: hostile strings in every file kind, checked in Chromium.

tests/support/hostile.py plants script, event handlers, javascript: links and Markdown into every
free-text field of temporary copies of hardware.toml, models.toml, measurements.toml (the first entry
of every table: kernel rows, serving runs, cross-node results...), prices.toml, ep_communication.toml,
a measurement JSON file and a glossary entry, and a line break with bidirectional overrides into
one-line names and notes. The site built from them must run none of it (no dialog, no script error,
no javascript: link anywhere) and show each string as typed, one-line text on one line. What a file
may not hold at all is refused in one line: tests/site/test_hostile_refused.py.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.support.browser import LAPTOP, build_site
from tests.support.hostile import FLAT, PAGE_PAYLOADS, PAYLOADS, plant
from tools.bench import copy_project
from tools.server import serve


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("hostile")
    env = plant(folder / "data")
    # Built from a copy of the project with its caches (tools/bench.copy_project): every step a planted
    # file reaches runs again (each cache key hashes the files its step reads), the rest is taken from
    # the caches, and nothing planted is written to the repository's own .cache.
    proc = build_site(folder / "site", env, root=copy_project(folder / "project"))
    if proc.returncode != 0:
        pytest.fail(f"the hostile build failed:\n{proc.stderr[-3000:]}", pytrace=False)
    return folder / "site"


class _Dangerous(HTMLParser):
    """Collects every event handler, javascript:/data: link and script that carries a planted payload."""

    def __init__(self):
        super().__init__()
        self.found: list[str] = []
        self._script = False

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            value = value or ""
            if name.startswith("on") and "alert" in value:
                self.found.append(f"<{tag} {name}={value[:40]!r}>")
            if name in ("href", "src", "action", "formaction") and value.strip().lower().startswith(("javascript:", "data:text")):
                self.found.append(f"<{tag} {name}={value[:40]!r}>")
        self._script = tag == "script"

    def handle_endtag(self, tag):
        self._script = False

    def handle_data(self, data):
        if self._script and "alert(document.domain)" in data:
            self.found.append(f"<script>{data[:40]!r}")


def test_no_planted_markup_survives_in_any_built_file(hostile_site):
    files = [*hostile_site.rglob("*.html"), *hostile_site.rglob("*.svg")]
    assert len(files) > 20
    planted_somewhere = 0
    for f in files:
        text = f.read_text(encoding="utf-8")
        planted_somewhere += "XSS-" in text
        parser = _Dangerous()
        parser.feed(text)
        assert parser.found == [], f"{f.relative_to(hostile_site)}: {parser.found}"
    assert planted_somewhere >= 10, "the planted strings did not reach the pages: the test tests nothing"


def test_llms_txt_and_markdown_copies_make_no_links_from_planted_text(hostile_site):
    for f in [hostile_site / "llms.txt", *hostile_site.rglob("index.md")]:
        text = f.read_text(encoding="utf-8")
        # A Markdown link is `[..](..)` with both brackets unescaped; `\\[x\\](javascript:y)` is text.
        live = re.findall(r"(?<!\\)\[[^\]]*(?<!\\)\]\(\s*javascript:", text)
        assert live == [], f"{f.relative_to(hostile_site)}: {live}"
        assert "\x1b" not in text


def _outside_code(markdown: str) -> str:
    """A Markdown copy without its fenced code (executed output may show a name as typed there)."""
    return re.sub(r"^(`{3,})[^\n]*\n.*?^\1$", "", markdown, flags=re.S | re.M)


def test_planted_text_is_data_in_every_published_file_type(hostile_site):
    """Hostile spec text in the JSON (search index, numbers, calculator registry), the figures'
    CSV, the Markdown copies and llms.txt: data, never markup, never a broken row or a live link."""
    import csv
    import io
    import json

    found = {"json": 0, "md": 0, "csv": 0}
    for f in hostile_site.rglob("*.json"):
        text = f.read_text(encoding="utf-8")
        json.loads(text, parse_constant=lambda c: pytest.fail(f"{f.name}: {c}"))  # valid, no NaN
        found["json"] += "XSS-" in text
    for f in [hostile_site / "llms.txt", *hostile_site.rglob("*.md")]:
        text = _outside_code(f.read_text(encoding="utf-8"))
        found["md"] += "XSS-" in text
        for tag in ("script", "img", "svg"):  # a tag from a file is escaped (\<script) outside code
            assert not re.search(rf"(?<!\\)<{tag}\b", text), f"{f.relative_to(hostile_site)}: raw <{tag}>"
        assert not re.search(r"(?<!\\)\[[^\]]*(?<!\\)\]\(\s*javascript:", text), f.relative_to(hostile_site)
    for f in hostile_site.rglob("*.csv"):
        rows = list(csv.reader(io.StringIO(f.read_text(encoding="utf-8"))))
        assert rows and all(len(r) == len(rows[0]) for r in rows), f"{f.name}: a planted string broke a row"
        cells = [c for r in rows for c in r if "XSS-" in c]
        found["csv"] += bool(cells)
        assert all(c.lstrip()[:1] not in "=+@" for c in cells), f"{f.name}: a formula in a cell"
    assert found["json"] and found["md"], f"the planted strings reached no JSON or Markdown: {found}"


@pytest.fixture(scope="module")
def hostile_url(hostile_site):
    with serve(hostile_site) as base:
        yield base.rstrip("/")


@pytest.fixture(scope="module")
def tab(hostile_url, chromium):
    # Its own tabs on the worker's Chromium (conftest): nothing stored by another test.
    tabs = chromium.tabs(viewport=LAPTOP["viewport"])
    page = tabs.new_page()
    page.ran = []
    page.on("dialog", lambda d: (page.ran.append(f"dialog: {d.message}"), d.dismiss()))
    page.on("pageerror", lambda e: page.ran.append(f"page error: {e}"))
    page.on("console", lambda m: m.type == "error" and page.ran.append(f"console: {m.text}"))
    page.base = hostile_url
    yield page
    tabs.close()


PAGES = ["", "measure/", "real-systems/", "real-systems-runs/", "hardware/", "decode/", "prefill/", "memory-bandwidth/", "ridge-point/",
         "batching/", "playbook/", "calculator/", "glossary/", "glossary/ridge-point/", "arithmetic-intensity/"]


@pytest.mark.browser
def test_planted_strings_run_nowhere_and_show_as_typed(tab):
    shown = ""
    for path in PAGES:
        tab.goto(f"{tab.base}/{path}", wait_until="networkidle")
        # Open every number's provenance and every glossary card on the page: their text is planted too.
        tab.evaluate("""() => { for (const el of document.querySelectorAll('.rl-num, .gl-term'))
                                  el.dispatchEvent(new MouseEvent('mouseover', {bubbles: true})); }""")
        # Show what a reader can ask for: every folded column and every closed list of rows.
        tab.evaluate("""() => { for (const box of document.querySelectorAll('.rl-fold-toggle input')) box.checked = true;
                                  for (const d of document.querySelectorAll('details')) d.open = true; }""")
        tab.wait_for_timeout(200)
        shown += tab.evaluate("() => document.body.innerText")
        assert tab.ran == [], f"/{path}: {tab.ran}"
        links = tab.evaluate("() => [...document.querySelectorAll('a[href]')].map(a => a.href)")
        assert not [h for h in links if h.lower().startswith("javascript:")], path
    # Search renders results from the index: type a planted marker and let it draw them.
    tab.goto(f"{tab.base}/", wait_until="networkidle")
    search = tab.locator("input[data-md-component=search-query]")
    if search.count():
        tab.keyboard.press("s")
        search.fill("XSS")
        tab.wait_for_timeout(1500)
        assert tab.ran == [], f"search: {tab.ran}"
    for name, text in PAGE_PAYLOADS.items():
        assert text in shown, f"the {name} string does not show as typed on any page"
    assert FLAT["shown"] in shown, "the flattened one-line text does not show on any page"
    assert PAYLOADS["terminal"] not in shown


def test_data_files_hold_planted_text_as_data_never_as_markup(hostile_site):
    import json

    # numbers.json and the calculator's registry quote spec fields: the strings parse back as typed,
    # and the files hold no `<` of their own (written as \u003c), whoever serves or opens them.
    for rel in ("numbers.json", "calculator/registry.json", "calculator/registry_more.json"):
        raw = (hostile_site / rel).read_text(encoding="utf-8")
        assert "<" not in raw and ">" not in raw, rel
        assert json.loads(raw) and ("XSS-script" in raw or rel.endswith("_more.json")), rel  # _more: no spec text
    # Emphasis from a name stays text in the Markdown copies (links: the test above).
    for copy in hostile_site.rglob("index.md"):
        text = _outside_code(copy.read_text(encoding="utf-8"))
        assert "XSS-md *emph*" not in text, copy  # written \*emph\*: text, not emphasis


def test_one_line_fields_publish_on_one_line_without_bidi_controls(hostile_site):
    """A line break, U+202E and U+2067 planted into names and notes of every spec file kind and a
    measurement file: every published file that holds the planted text shows it flattened (strings.json,
    '_flattened'), with no control as a character or an escape, and no line the planted break forged."""
    shown, forged, kinds = FLAT["shown"], FLAT["forged"], {}
    bidi = re.compile(r"[\u202a-\u202e\u2066-\u2069]|&#x202[a-e];|&#x206[6-9];|&#82(3[4-8]|9[4-7]);|\\u202[a-e]|\\u206[6-9]",
                      re.I)
    for f in hostile_site.rglob("*"):
        if f.suffix not in (".html", ".svg", ".md", ".txt", ".json", ".csv", ".xml"):
            continue
        text = f.read_text(encoding="utf-8")
        if "XSS-flat" not in text:
            continue
        kinds[f.suffix] = kinds.get(f.suffix, 0) + 1
        where = f.relative_to(hostile_site)
        assert not bidi.search(text), f"{where}: a bidirectional control from a planted field"
        assert not [line for line in text.splitlines() if line.lstrip("#-> ").startswith(forged)], \
            f"{where}: the planted line break forged a line"
        if f.suffix in (".md", ".txt"):
            # Emphasis from a field stays text in the Markdown copies: written \*emph-flat\*.
            assert "*emph-flat*" not in _outside_code(text).replace("\\*emph-flat\\*", ""), where
    # As a reader sees it on the pages: test_planted_strings_run_nowhere_and_show_as_typed. Where it reached: HTML, SVG, the CSV of a figure, the Markdown copies and the JSON data (search index,
    # numbers, calculator registry).
    assert {".html", ".svg", ".md", ".json", ".csv"} <= set(kinds), f"the plant reached too few formats: {kinds}"
